// The gallery and the built-in scenarios: the page's trace equals the CLI's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, pageTrace, loadFromGallery, cliTrace, ROOT } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const gallery = () => JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'gallery.json'), 'utf8'));

test('the legacy KIP-101 loss scenario from the gallery: the banner names the lost record', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, 'KIP-101: loss after a follower restart', 'legacy');
  const banner = page.locator('#banner .banner');
  await banner.waitFor();
  const text = await banner.textContent();
  assert.match(text, /Data loss: “m2” at offset 1 was acknowledged \(acks=all\) and is gone/);
  assert.match(text, /Protocol violation/);
  assert.match(text, /truncated to HW 1 \(legacy rule/);
  // "Go to step" jumps to the step that caused it.
  await banner.locator('button[data-action="goto"]').click();
  assert.equal(await page.locator('#position').textContent(), '13 / 14');
  // The same steps under kip101: no violation.
  await loadFromGallery(page, 'KIP-101: loss after a follower restart', 'kip101');
  assert.equal(await page.locator('#banner .banner').count(), 0);
  assert.match(await page.locator('#caption').textContent(), /kip101/);
  assert.deepEqual(page.errors, []);
});

test('an acks=1 loss is shown as allowed, not as a protocol violation', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, 'acks=1 loss after failover');
  const banner = page.locator('#banner .banner');
  await banner.waitFor();
  assert.match(await banner.getAttribute('class'), /banner-allowed/);
  assert.match(await banner.textContent(), /Allowed by acks=1/);
  assert.match(await banner.textContent(), /“m2” at offset 1 was acknowledged with acks=1 and is gone/);
});

test('every built-in scenario (and protocol variant): the page trace equals the CLI trace byte for byte', async () => {
  const page = await openPage(env);
  const { entries } = gallery();
  assert.ok(entries.length >= 13);
  let compared = 0;
  for (const entry of entries) {
    await loadFromGallery(page, entry.name);
    assert.equal(await pageTrace(page), cliTrace(path.join(ROOT, entry.file)), entry.file);
    compared++;
    for (const variant of entry.variants || []) {
      await loadFromGallery(page, entry.name, variant.protocol);
      assert.equal(await pageTrace(page), cliTrace(variant.scenario), `${entry.file} under ${variant.protocol}`);
      compared++;
    }
  }
  assert.equal(entries.filter((e) => e.variants).length, 4);
  assert.ok(compared >= 25, `${compared} traces compared`);
  assert.deepEqual(page.errors, []);
});

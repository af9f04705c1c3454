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

const KIP101 = 'KIP-101: an acknowledged write lost to truncation at the high watermark';

test('the KIP-101 scenario under 0.10: the banner names the lost record; under every later version nothing is lost', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, KIP101, '0.10');
  const banner = page.locator('#banner .banner');
  await banner.waitFor();
  const text = await banner.textContent();
  assert.match(text, /Data loss: “m2” at offset 1 was acknowledged \(acks=all\) and is gone/);
  assert.match(text, /Protocol violation/);
  assert.match(text, /Broker 3 removed it at step 15: truncated to HW 1 \(pre-KIP-101 rule/);
  // "Go to step" jumps to the step that caused it: broker 3 elected without m2.
  await banner.locator('button[data-action="goto"]').click();
  assert.equal(await page.locator('#position').textContent(), '17 / 19');
  assert.match(await page.locator('#caption').textContent(), /Broker 3 was elected leader in epoch 2 from the ISR/);
  // The same steps under every later version: no violation, and m2 is read at the end.
  for (const version of ['0.11', '2.0', '2.1', '2.8', '3.5', '3.7', '4.1']) {
    await loadFromGallery(page, KIP101, version);
    assert.equal(await page.locator('#banner .banner').count(), 0, version);
    assert.equal(await page.locator('[data-testid="version"]').textContent(), `Kafka ${version}`);
    assert.match(await page.locator('#consumer').textContent(), /1: m2/, version);
  }
  assert.deepEqual(page.errors, []);
});

test('Eligible Leader Replicas: 3.7 stays offline, 4.1 elects broker 2 from the ELR', async () => {
  const page = await openPage(env);
  const name = 'Eligible Leader Replicas: elected instead of offline';
  await loadFromGallery(page, name, '3.7');
  await page.locator('#btn-start').click();
  for (let i = 0; i < 13; i++) await page.click('#btn-forward');
  assert.equal(await page.locator('[data-testid="partition-leader"]').textContent(), 'offline: no leader');
  assert.equal(await page.locator('[data-testid="elr"]').count(), 0);
  await loadFromGallery(page, name, '4.1');
  await page.locator('#btn-start').click();
  for (let i = 0; i < 13; i++) await page.click('#btn-forward');
  assert.equal(await page.locator('[data-testid="partition-leader"]').textContent(), 'broker 2');
  assert.match(await page.locator('#caption').textContent(), /broker 2 was elected from the Eligible Leader Replicas \(KIP-966\)/);
  assert.match(await page.locator('#event-log').textContent(), /controller elected broker 2 leader in epoch 2 \(from the ELR\)/);
  assert.deepEqual(page.errors, []);
});

test('a comparison under another version takes that version\'s defaults for the settings the file does not set', async () => {
  const page = await openPage(env);
  const { entries } = gallery();
  const entry = entries.find((e) => e.id === 'kip101-loss-after-restart');
  // The file sets the lag time (30 s) and nothing else of the kind.
  assert.equal(entry.scenario.config.replica_lag_time_max_ms, 30000);
  assert.equal(entry.scenario.config.broker_session_timeout_ms, undefined);
  const expected = { '0.10': [6000, true], '2.8': [18000, false], '4.1': [9000, false] };
  for (const [version, [session, unclean]] of Object.entries(expected)) {
    await loadFromGallery(page, KIP101, version);
    await page.click('#btn-settings');
    const form = page.locator('#settings-form');
    assert.equal(await form.locator('[name="broker_session_timeout_ms"]').inputValue(), String(session), version);
    assert.equal(await form.locator('[name="unclean_leader_election"]').isChecked(), unclean, version);
    assert.equal(await form.locator('[name="replica_lag_time_max_ms"]').inputValue(), '30000', version);
    await page.locator('#dlg-settings button[data-close]').first().click();
  }
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

test('every built-in scenario (and version variant): the page trace equals the CLI trace byte for byte', async () => {
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
  // Five comparisons, each under all eight version presets.
  const compares = entries.filter((e) => e.variants);
  assert.deepEqual(compares.map((e) => e.id).sort(), ['eligible-leader-replicas', 'hw-frozen-under-min-isr', 'kip101-divergence-after-power-loss', 'kip101-loss-after-restart', 'kip279-fast-leader-change']);
  for (const e of compares) assert.deepEqual(e.variants.map((v) => v.protocol), ['0.10', '0.11', '2.0', '2.1', '2.8', '3.5', '3.7', '4.1'], e.id);
  assert.equal(compared, entries.length + 5 * 8, `${compared} traces compared`);
  assert.deepEqual(page.errors, []);
});

test('under 0.10 records are drawn without a leader epoch (message format v2 came with 0.11); from 0.11 with one', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, KIP101, '0.10');
  assert.equal(await page.locator('.cell-epoch').count(), 0);
  assert.match(await page.locator('[data-testid="no-record-epochs"]').textContent(), /no leader epoch before Kafka 0\.11/);
  assert.equal(await page.locator('#producer .record-row', { hasText: /e\d/ }).count(), 0);
  for (const version of ['0.11', '2.0', '2.1', '2.8', '3.5', '3.7', '4.1']) {
    await loadFromGallery(page, KIP101, version);
    assert.ok(await page.locator('.cell-epoch').count() > 0, version);
    assert.equal(await page.locator('[data-testid="no-record-epochs"]').count(), 0, version);
  }
  assert.deepEqual(page.errors, []);
});

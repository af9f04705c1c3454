// The what-if grid on the page: the same cells as `highwater whatif --json`,
// computed in a worker, and a click opens that cell's run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setup, openPage, loadFromGallery, cliBinary, missingKeys, ROOT, RESULTS } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const KIP101 = 'KIP-101: an acknowledged write lost to truncation at the high watermark';

function cliGrid(scenario) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-')), 'scenario.json');
  fs.writeFileSync(file, JSON.stringify(scenario));
  const r = spawnSync(cliBinary(), ['whatif', '--json', file], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).cells;
}

for (const lang of ['en', 'zh-Hant']) {
  test(`the KIP-101 grid on the page is the command line's, cell by cell, and a cell opens its run (${lang})`, async () => {
    const page = await openPage(env, { path: `?lang=${lang}`, viewport: { width: 1440, height: 900 } });
    const gallery = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'gallery.json'), 'utf8'));
    const entry = gallery.entries.find((e) => e.name === KIP101);
    const variant = entry.variants.find((v) => v.protocol === '0.10');
    await page.click('#btn-gallery');
    await page.locator(`.gallery-card[data-id="${entry.id}"] button[data-protocol="0.10"]`).click();
    await page.locator('#dlg-gallery').waitFor({ state: 'hidden' });
    await page.click('#btn-whatif');
    await page.waitForSelector('#dlg-whatif[data-ready="true"]');
    const shown = await page.$$eval('#whatif-grid button[data-protocol]', (bs) => bs.map((b) => ({
      protocol: b.dataset.protocol,
      acks: b.dataset.acks,
      min_insync_replicas: Number(b.dataset.minIsr),
      unclean_leader_election: b.dataset.unclean === 'true',
      outcome: b.closest('td').dataset.outcome,
      step: b.dataset.step === '' ? null : Number(b.dataset.step),
    })));
    const expected = cliGrid(variant.scenario).map(({ protocol, acks, min_insync_replicas, unclean_leader_election, outcome, step }) => ({ protocol, acks, min_insync_replicas, unclean_leader_election, outcome, step }));
    assert.equal(shown.length, 8 * 2 * 3 * 2);
    const key = (c) => `${c.protocol}|${c.acks}|${c.min_insync_replicas}|${c.unclean_leader_election}`;
    assert.deepEqual(shown.sort((a, b) => key(a).localeCompare(key(b))), expected.sort((a, b) => key(a).localeCompare(key(b))));
    assert.ok(expected.some((c) => c.protocol === '0.10' && c.acks === 'all' && c.outcome === 'acked_write_lost'));
    fs.mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS, `whatif-${lang}.png`) });
    if (process.env.HIGHWATER_SCREENSHOTS && lang === 'en') fs.copyFileSync(path.join(RESULTS, 'whatif-en.png'), path.join(ROOT, 'docs', 'screenshot-whatif.png'));
    // 0.10, acks=all, min ISR 2, unclean off: the run opens at the step of the loss.
    const cell = page.locator('#whatif-grid button[data-protocol="0.10"][data-acks="all"][data-min-isr="2"][data-unclean="false"]');
    const step = await cell.getAttribute('data-step');
    await cell.click();
    await page.locator('#dlg-whatif').waitFor({ state: 'hidden' });
    assert.match(await page.locator('#position').textContent(), new RegExp(`^${step} /`));
    assert.equal(await page.locator('#banner .banner-violation').count(), 1);
    assert.equal(await page.locator('[data-testid="version"]').textContent(), lang === 'en' ? 'Kafka 0.10' : await page.locator('[data-testid="version"]').textContent());
    // A cell under 0.11 opens a safe run of the same steps.
    await page.click('#btn-whatif');
    await page.waitForSelector('#dlg-whatif[data-ready="true"]');
    assert.deepEqual(await missingKeys(page), []);
    assert.deepEqual(page.errors, []);
  });
}

test('the grid and the diagram on a phone (390 px, zh-Hans): the grid scrolls inside its dialog, the page does not scroll sideways', async () => {
  const page = await openPage(env, { path: '?lang=zh-Hans', viewport: { width: 390, height: 844 } });
  await page.click('#btn-gallery');
  const gallery = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'gallery.json'), 'utf8'));
  const entry = gallery.entries.find((e) => e.name === KIP101);
  await page.locator(`.gallery-card[data-id="${entry.id}"] button.primary`).click();
  await page.locator('#dlg-gallery').waitFor({ state: 'hidden' });
  await page.keyboard.press('End');
  await page.click('#btn-whatif');
  await page.waitForSelector('#dlg-whatif[data-ready="true"]');
  assert.equal(await page.locator('#whatif-grid button[data-protocol]').count(), 96);
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, 'whatif-zh-Hans-390.png') });
  await page.locator('#dlg-whatif button[data-close]').click();
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth));
  await page.locator('.diagram-panel').scrollIntoViewIfNeeded();
  await page.locator('.diagram-panel').screenshot({ path: path.join(RESULTS, 'diagram-panel-zh-Hans-390.png') });
  assert.deepEqual(await missingKeys(page), []);
  assert.deepEqual(page.errors, []);
});

// The page's first core (www/pkg) has no views a reader opens by choice: the
// fork, the space-time diagram, the operator's view (the `views` feature,
// docs/js-api.md). The first one opened loads the full core
// (www/pkg-quorum), the run is made again in it at the same step, and the
// view is drawn; a first visit that opens none of them loads www/pkg alone.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage, loadFromGallery } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const PLAIN = '/pkg/highwater_bg.wasm';
const FULL = '/pkg-quorum/highwater_bg.wasm';

/** A first visit (no group open) that records every core it asks for. */
async function firstVisit() {
  const wasm = [];
  const page = await openPage(env, { path: '?lang=en', groups: null, context: {} });
  page.on('request', (r) => { const p = new URL(r.url()).pathname; if (/\.wasm$/.test(p)) wasm.push(p); });
  await loadFromGallery(page, 'acks=1 loss after failover', null);
  await page.locator('.broker-row').first().waitFor();
  return { page, wasm };
}

const where = (page) => page.evaluate(() => {
  const pg = document.querySelector('highwater-playground').playground;
  return { position: pg.position, length: pg.sim.length(), views: pg.sim.spaceTime !== undefined, leos: pg.sim.state().brokers.map((b) => b.leo) };
});

test('a first visit loads the core without the views; opening the diagram loads the full core, and the run goes on in it at its step', async () => {
  const { page, wasm } = await firstVisit();
  await page.evaluate(() => document.querySelector('highwater-playground').playground.seek(3));
  const before = await where(page);
  assert.equal(before.views, false, 'the first core has no spaceTime');
  assert.deepEqual(wasm, [], 'no other core asked for yet');
  await page.locator('[data-group-toggle="diagram"]').first().click();
  await page.locator('#diagram svg, #diagram .diagram').first().waitFor({ timeout: 15_000 });
  const after = await where(page);
  assert.deepEqual(wasm, [FULL], 'the full core, once');
  assert.deepEqual({ ...after, views: true }, { ...before, views: true }, 'the same run at the same step');
  assert.equal(after.views, true);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('forking the run loads the full core first: both runs live in it', async () => {
  const { page, wasm } = await firstVisit();
  const opened = await page.evaluate(() => document.querySelector('highwater-playground').playground.openFork('acks=all'));
  assert.equal(opened, true);
  const seen = await page.evaluate(() => {
    const pg = document.querySelector('highwater-playground').playground;
    return { active: pg.forkView.active, text: pg.forkView.text, differences: Array.isArray(pg.sim.differencesWith(pg.forkView.sim)) || typeof pg.sim.differencesWith(pg.forkView.sim) === 'object' };
  });
  assert.deepEqual(seen, { active: true, text: 'acks=all', differences: true });
  assert.deepEqual(wasm, [FULL]);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('when the full core cannot be loaded, the diagram says why once; the steps go on in the first core without asking again', async () => {
  const { page, wasm } = await firstVisit();
  await page.route('**/pkg-quorum/highwater_bg.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.locator('[data-group-toggle="diagram"]').first().click();
  const box = page.locator('#diagram');
  await page.waitForFunction(() => /could not|404/i.test(document.querySelector('highwater-playground').shadowRoot.getElementById('diagram').textContent), null, { timeout: 15_000 });
  assert.match(await box.textContent(), /404/);
  const asked = wasm.length;
  for (const at of [2, 4, 3]) await page.evaluate((n) => document.querySelector('highwater-playground').playground.seek(n), at);
  await page.waitForTimeout(300);
  const seen = await page.evaluate(() => {
    const el = document.querySelector('highwater-playground');
    return { position: el.playground.position, errors: el.shadowRoot.querySelectorAll('.notice-error').length };
  });
  assert.deepEqual(seen, { position: 3, errors: 1 });
  assert.equal(wasm.length, asked, 'not asked for again at each step');
  assert.match(await box.textContent(), /404/);
  await page.context().close();
});

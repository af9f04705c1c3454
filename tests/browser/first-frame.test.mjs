// The first frame (element/first-frame.js, scripts/first-frames.mjs): while
// the wasm is held back, the page and a docs element draw their board from the
// precomputed answers; once the core is there the board drawn from it is the
// same, node for node; a click made meanwhile is given to the live run; and
// what opens on a link, a tour or a step past the end waits for the core.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, brokerStat } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

/** A page whose wasm download waits until `release()`; `body` is a docs page's, or null for the playground page. */
async function heldPage({ path = '', body = null, viewport = { width: 1280, height: 900 } } = {}) {
  const context = await env.browser.newContext({ viewport, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  let release;
  const gate = new Promise((resolve) => { release = resolve; });
  await page.route(/highwater_bg\.wasm$/, async (route) => { await gate; await route.continue(); });
  const url = body === null ? `${env.url}${path}` : `${env.url}first-frame-host.html`;
  if (body !== null) {
    await page.route(url, (route) => route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs</title><script type="module" src="./bundle/highwater-playground.js"></script></head><body><p>Some text.</p>${body}</body></html>`,
    }));
  }
  await page.goto(url);
  page.release = release;
  return page;
}

/** The element's markup, without what only the live core sets (aria-busy, the embed's "Open in Highwater" link, the diagram it loads after). */
function board() {
  const root = document.querySelector('highwater-playground').shadowRoot.getElementById('root').cloneNode(true);
  root.querySelector('#diagram')?.replaceChildren();
  root.querySelector('#open-full')?.removeAttribute('href');
  return root.outerHTML.replace(/ aria-busy="(true|false)"/g, '').replace(/ style=""/g, '');
}

// epochCaches: the broker cards that draw a leader-epoch cache (none under 0.10, the KIP-101 scenario's version).
const cases = [
  { name: 'the page, on its empty run', path: '', epochCaches: 3 },
  { name: 'the page in Chinese', path: '?lang=zh-Hans', epochCaches: 3 },
  { name: 'a docs element at step 8', body: '<highwater-playground scenario="kip101-loss-after-restart" step="8"></highwater-playground>', epochCaches: 0 },
  { name: 'a full-size docs element in Traditional Chinese', body: '<highwater-playground scenario="unclean-election-loss" step="6" controls="full" lang="zh-Hant"></highwater-playground>', epochCaches: 2 },
  { name: 'a docs element without a step', body: '<highwater-playground scenario="isr-shrink-and-expand"></highwater-playground>', epochCaches: 3 },
];

for (const c of cases) {
  test(`${c.name}: drawn from the first frame before the core, and the live board is the same`, async () => {
    const page = await heldPage(c);
    await page.waitForSelector('highwater-playground[data-ready="frame"]');
    const ready = await page.locator('highwater-playground').getAttribute('data-ready');
    assert.equal(ready, 'frame', 'the core is held back: the board is the first frame');
    assert.ok(await page.locator('.broker-row').count() >= 2, 'brokers are drawn');
    assert.equal(await page.locator('.broker-row [data-testid="epoch-cache"]').count(), c.epochCaches, 'the epoch caches are drawn from the frame');
    assert.equal(await page.locator('#app').getAttribute('aria-busy'), 'true', 'busy until the controls work');
    const frame = await page.evaluate(board);
    page.release();
    await page.waitForSelector('highwater-playground[data-ready="true"]');
    const live = await page.evaluate(board);
    assert.equal(live, frame, 'the live board is the first frame, node for node');
    assert.equal(await page.locator('#app').getAttribute('aria-busy'), 'false');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

test('a click on Produce on the first frame is given to the run once the core is there', async () => {
  const page = await heldPage();
  await page.waitForSelector('highwater-playground[data-ready="frame"]');
  await page.fill('#produce-value', 'early');
  await page.click('#btn-produce');
  assert.equal(await page.locator('#position').textContent(), '0 / 0', 'nothing happens on the frame');
  page.release();
  await page.waitForSelector('highwater-playground[data-ready="true"]');
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent === '1 / 1');
  assert.equal(await brokerStat(page, 1, 'leo'), '1');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the keys move along the timeline on the first frame, and the live board opens where the reader went', async () => {
  const page = await heldPage({ body: '<highwater-playground scenario="kip101-loss-after-restart" step="8"></highwater-playground>' });
  await page.waitForSelector('highwater-playground[data-ready="frame"]');
  await page.locator('#btn-forward').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent === '9 / 19');
  const frame = await page.evaluate(board);
  page.release();
  await page.waitForSelector('highwater-playground[data-ready="true"]');
  assert.equal(await page.locator('#position').textContent(), '9 / 19');
  assert.equal(await page.evaluate(board), frame);
  await page.context().close();
});

test('a link, a tour and a step past the run\'s end wait for the core: no first frame', async () => {
  for (const c of [
    { path: '?tour=leo-and-hw' },
    { path: '#s=v1.bm90LWEtbGluaw' },
    { body: '<highwater-playground scenario="kip101-loss-after-restart" step="99"></highwater-playground>' },
    { body: '<highwater-playground tour="leo-and-hw"></highwater-playground>' },
  ]) {
    const page = await heldPage(c);
    // Time for a frame to come, were there one: the element's module, its sheet, words and frame are all served at once here.
    await page.waitForTimeout(1500);
    assert.equal(await page.locator('highwater-playground').getAttribute('data-ready'), null, JSON.stringify(c));
    page.release();
    await page.waitForSelector('highwater-playground[data-ready="true"]');
    await page.context().close();
  }
});

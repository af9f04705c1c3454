// <highwater-playground> in someone else's page: attributes, isolation of
// styles both ways, several on one page (one core instance, each its own
// language and position), lazy loading, the position event.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, loadCore, RESULTS } from './harness.mjs';

let env;
let core;
before(async () => {
  env = await setup();
  core = await loadCore();
});
after(async () => env && env.close());

/** A host page served beside the playground's files (so its module is at ./highwater-playground.js). */
async function hostPage(body, { viewport = { width: 1280, height: 900 }, head = '' } = {}) {
  const context = await env.browser.newContext({ viewport, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.wasmFetches = 0;
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) page.wasmFetches += 1; });
  const url = `${env.url}docs-host-page.html`;
  await page.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Docs</title>${head}<script type="module" src="./highwater-playground.js"></script></head><body>${body}</body></html>`,
  }));
  await page.goto(url);
  return page;
}

const inside = (page, id, selector) => page.locator(`#${id}`).locator(selector);
const ready = (page, id) => page.waitForSelector(`#${id}[data-ready="true"]`);

test('scenario, step and lang attributes: the gallery scenario at that step, in Chinese, in its own shadow root', async () => {
  const page = await hostPage('<h1>High watermark</h1><highwater-playground id="a" scenario="kip101-loss-after-restart" step="8" lang="zh-Hans"></highwater-playground>');
  await ready(page, 'a');
  const sim = core.Simulation.fromScenario(JSON.parse(fs.readFileSync(path.join('tests', 'scenarios', 'kip101-loss-after-restart.json'), 'utf8')));
  const length = sim.length();
  sim.free();
  assert.equal(await inside(page, 'a', '#position').textContent(), `8 / ${length}`);
  assert.ok(await inside(page, 'a', '.broker-row').count() >= 2);
  assert.match(await inside(page, 'a', '#btn-play').getAttribute('aria-label'), /播放/);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en', 'the host page keeps its language');
  assert.equal(await page.evaluate(() => location.hash), '', 'the host page keeps its address');
  assert.equal(await page.evaluate(() => Boolean(document.getElementById('a').shadowRoot.getElementById('cluster'))), true);
  assert.equal(await page.evaluate(() => document.getElementById('cluster')), null, 'nothing of it outside its shadow root');
  assert.deepEqual(await page.evaluate(() => document.querySelector('highwater-playground').missingKeys()), []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the host page styles do not reach in, and its own do not leak out', async () => {
  const head = `<style>
    button { background: rgb(255, 0, 0) !important; font-size: 40px !important; }
    .broker-row, .player { display: none !important; }
    * { letter-spacing: 3px; }
  </style>`;
  const page = await hostPage('<div class="panel" id="outside">A docs panel</div><button id="host-button">host</button><highwater-playground id="a" scenario="two-fetch-rounds" controls="compact"></highwater-playground>', { head });
  await ready(page, 'a');
  assert.ok(await inside(page, 'a', '.broker-row').first().isVisible(), 'broker rows shown despite the host rule');
  const play = await inside(page, 'a', '#btn-play').evaluate((b) => ({ bg: getComputedStyle(b).backgroundColor, size: getComputedStyle(b).fontSize }));
  assert.notEqual(play.bg, 'rgb(255, 0, 0)');
  assert.notEqual(play.size, '40px');
  // Outside: the element's .panel rules (background, border radius) do not apply.
  const outside = await page.locator('#outside').evaluate((d) => ({ radius: getComputedStyle(d).borderTopLeftRadius, border: getComputedStyle(d).borderTopStyle }));
  assert.deepEqual(outside, { radius: '0px', border: 'none' });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('two playgrounds on a page: one core instance, each its own language, position and events; a third loads only when scrolled to', async () => {
  const page = await hostPage(`
    <highwater-playground id="a" scenario="two-fetch-rounds" step="0" controls="compact"></highwater-playground>
    <highwater-playground id="b" scenario="unclean-election-loss" step="2" lang="zh-Hant" controls="compact"></highwater-playground>
    <div style="height: 4000px"></div>
    <highwater-playground id="c" scenario="timed-failover"></highwater-playground>`);
  await ready(page, 'a');
  await ready(page, 'b');
  await page.evaluate(() => {
    window.positions = [];
    document.addEventListener('highwater-position', (e) => window.positions.push({ id: e.target.id, ...e.detail }));
  });
  await inside(page, 'a', '#btn-forward').click();
  await inside(page, 'a', '#btn-forward').click();
  assert.match(await inside(page, 'a', '#position').textContent(), /^2 \//);
  assert.match(await inside(page, 'b', '#position').textContent(), /^2 \//, 'b did not move');
  await inside(page, 'b', '#btn-back').click();
  assert.match(await inside(page, 'b', '#position').textContent(), /^1 \//);
  assert.match(await inside(page, 'a', '#position').textContent(), /^2 \//, 'a did not move');
  // Each speaks its own language after the other drew.
  assert.match(await inside(page, 'a', '#btn-play').getAttribute('aria-label'), /^Play/);
  assert.match(await inside(page, 'b', '#btn-play').getAttribute('aria-label'), /播放/);
  const positions = await page.evaluate(() => window.positions);
  assert.deepEqual(positions.map((p) => [p.id, p.position]), [['a', 1], ['a', 2], ['b', 1]]);
  assert.ok(positions.every((p) => Number.isInteger(p.length) && p.length > 0 && typeof p.scenario === 'string'));
  // The third is far below: not loaded yet.
  assert.equal(await page.evaluate(() => document.getElementById('c').dataset.ready), undefined);
  assert.equal(await page.evaluate(() => Boolean(document.getElementById('c').shadowRoot.getElementById('cluster'))), false);
  await page.locator('#c').scrollIntoViewIfNeeded();
  await ready(page, 'c');
  assert.equal(page.wasmFetches, 1, 'one core instance for the page');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('attributes changed after loading: step seeks, scenario loads, lang translates, controls="none" shows the figure only', async () => {
  const page = await hostPage('<highwater-playground id="a" scenario="two-fetch-rounds" step="1"></highwater-playground>');
  await ready(page, 'a');
  await page.evaluate(() => document.getElementById('a').setAttribute('step', '3'));
  assert.match(await inside(page, 'a', '#position').textContent(), /^3 \//);
  await page.evaluate(() => document.getElementById('a').setAttribute('lang', 'zh-Hans'));
  await page.waitForFunction(() => /播放/.test(document.getElementById('a').shadowRoot.getElementById('btn-play').getAttribute('aria-label')));
  await page.evaluate(() => document.getElementById('a').setAttribute('scenario', 'not-a-scenario'));
  const notice = inside(page, 'a', '.notice-error');
  await notice.waitFor();
  assert.match(await notice.textContent(), /not-a-scenario/);
  assert.match(await inside(page, 'a', '#position').textContent(), /^3 \//, 'the run shown before is kept');
  await page.evaluate(() => { const a = document.getElementById('a'); a.removeAttribute('data-ready'); a.setAttribute('controls', 'none'); });
  await ready(page, 'a');
  assert.equal(await inside(page, 'a', '.player').isVisible(), false);
  assert.ok(await inside(page, 'a', '.broker-row').first().isVisible());
  assert.match(await inside(page, 'a', '#position').textContent(), /^3 \//, 'the same run after laying out again');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a hostile scenario attribute gets a message and a working playground', async () => {
  const page = await hostPage('<highwater-playground id="a" scenario="v1.%%%%not-a-link" step="x"></highwater-playground>');
  await ready(page, 'a');
  await inside(page, 'a', '.notice-error').first().waitFor();
  assert.equal(await inside(page, 'a', '.broker-row').count(), 3);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a tour in an element, and how it looks in a docs column at desktop and phone sizes', async () => {
  fs.mkdirSync(RESULTS, { recursive: true });
  for (const [w, h] of [[1440, 900], [390, 844]]) {
    const page = await hostPage(`<main style="max-width: 760px; margin: 0 auto; padding: 16px; font-family: Georgia, serif">
      <h1>The high watermark</h1><p>The leader moves its HW to the smallest LEO in the ISR.</p>
      <highwater-playground id="a" tour="leo-and-hw" step="4" controls="compact"></highwater-playground>
      <p>In Chinese:</p>
      <highwater-playground id="b" scenario="kip101-loss-after-restart" step="8" lang="zh-Hans" controls="compact"></highwater-playground></main>`, { viewport: { width: w, height: h } });
    await ready(page, 'a');
    await inside(page, 'a', '[data-testid="tour-caption"]').waitFor();
    assert.match(await inside(page, 'a', '#position').textContent(), /^\d+ \//);
    await page.locator('#b').scrollIntoViewIfNeeded();
    await ready(page, 'b');
    await page.screenshot({ path: path.join(RESULTS, `element-docs-${w}.png`), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('the fork attribute: the run and its fork side by side in an element; removing it closes the comparison', async () => {
  const page = await hostPage('<highwater-playground id="a" scenario="kip101-loss-after-restart" step="17" fork="protocol=0.11" lang="zh-Hans"></highwater-playground>', { viewport: { width: 1280, height: 900 } });
  await ready(page, 'a');
  const header = inside(page, 'a', '#compare [data-testid="fork-change"]');
  await header.waitFor();
  assert.match(await header.textContent(), /Kafka 0\.10.*Kafka 0\.11/);
  assert.deepEqual(await inside(page, 'a', '#compare .compare-run [data-outcome]').evaluateAll((els) => els.map((e) => e.dataset.outcome)), ['acked_write_lost', 'safe']);
  await page.evaluate(() => document.getElementById('a').removeAttribute('fork'));
  await page.waitForFunction(() => !document.getElementById('a').shadowRoot.getElementById('root').classList.contains('comparing'));
  assert.equal(await inside(page, 'a', '.broker-row').first().isVisible(), true);
  assert.equal(await page.evaluate(() => location.hash), '');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('an element removed from the page frees its run; moved, it keeps it; added again, it starts afresh', async () => {
  const page = await hostPage('<div id="one"><highwater-playground id="a" scenario="two-fetch-rounds" step="2"></highwater-playground></div><div id="two"></div>');
  await ready(page, 'a');
  // Moved: the same run, at the same step.
  await page.evaluate(() => document.getElementById('two').append(document.getElementById('a')));
  await page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
  assert.equal(await page.evaluate(() => document.getElementById('a').position), 2);
  // Removed: its run is freed and its shadow root emptied.
  const freed = await page.evaluate(async () => {
    const a = document.getElementById('a');
    const sim = a.playground.sim;
    a.remove();
    await new Promise((r) => setTimeout(r, 50));
    let usable = true;
    try { sim.position(); } catch { usable = false; }
    return { playground: a.playground, children: a.shadowRoot.childElementCount, usable };
  });
  assert.deepEqual(freed, { playground: null, children: 0, usable: false });
  // Added again: it loads its attributes' run.
  await page.evaluate(() => {
    const a = document.createElement('highwater-playground');
    a.id = 'b';
    a.setAttribute('scenario', 'two-fetch-rounds');
    a.setAttribute('step', '3');
    document.body.append(a);
  });
  await ready(page, 'b');
  assert.match(await inside(page, 'b', '#position').textContent(), /^3 \//);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

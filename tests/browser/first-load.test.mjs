// What a first load asks for (scripts/bundle.mjs, element/sheets.js, the
// promise caches of words/i18n.js, element/tour.js, element/gallery.js and
// core.js): the element is one module; what is used later (the explorer, the
// grid, the fork view, sharing, the exporters, the tours' words, the words of
// the gallery, the glossary, the rules and the lesson writer) is not fetched
// until it is; and however many elements start at the same moment, each file
// is fetched once. Behaviour only: the times are in
// scripts/bench-first-load.mjs and docs/performance.md.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, loadCore, openPage, brokerStat, addressWritten } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

/** Loads a page; resolves with the paths it requested (each as often as asked) once every element is live. */
async function requests({ path = '', body = null, count = 1 } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 2400 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const asked = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  const url = body === null ? `${env.url}${path}` : `${env.url}first-load-host.html`;
  if (body !== null) {
    await page.route(url, (route) => route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs</title><script type="module" src="./bundle/highwater-playground.js"></script></head><body>${body}</body></html>`,
    }));
  }
  await page.goto(url);
  await page.waitForFunction((n) => document.querySelectorAll('highwater-playground[data-ready="true"]').length === n, count);
  await page.waitForLoadState('networkidle');
  await context.close();
  return asked.filter((p) => !p.endsWith('.html') && p !== '/favicon.svg');
}

const LATER = ['explore-dialog.js', 'whatif-dialog.js', 'share-dialog.js', 'fork-view.js', 'export.js', 'compare.css', 'worker-runner.js', 'explore-worker.js', 'whatif-worker.js', 'tour-worker.js', 'pkg-fast', 'pkg-quorum'];
/** The locale bundles fetched when their dialog or panel first opens (words/i18n.js). */
const LATER_WORDS = ['gallery', 'glossary', 'rules', 'writer'].map((b) => `/${b}.json`);
const laterWords = (asked) => asked.filter((p) => p.startsWith('/locales/') && LATER_WORDS.some((w) => p.endsWith(w)));

test('the page: one module for the element, nothing it does not show (on a first visit the diagram\'s panel is closed)', async () => {
  const asked = await requests();
  const modules = asked.filter((p) => p.endsWith('.js')).sort();
  // index.js picks its poster's language with words/languages.js (no import of its own, preloaded with it).
  assert.deepEqual(modules, ['/bundle/highwater-playground.js', '/index.js', '/words/languages.js'], 'the page script and the bundle');
  for (const later of LATER) assert.ok(!asked.some((p) => p.includes(later)), `${later} is fetched only when used`);
  assert.ok(asked.includes('/pkg/highwater_bg.wasm'));
  assert.ok(asked.includes('/bundle/style.css'), 'the minified style sheet');
  assert.ok(!asked.some((p) => p.startsWith('/locales/zh')), 'no other language');
  assert.deepEqual(laterWords(asked), [], 'no words of a dialog or panel not open');
});

test('five elements starting together fetch each file once; compact ones fetch no tours and no diagram', async () => {
  const ids = ['kip101-loss-after-restart', 'unclean-election-loss', 'isr-shrink-and-expand', 'hw-is-min-isr-leo', 'timed-failover'];
  const asked = await requests({ body: ids.map((id) => `<highwater-playground scenario="${id}" step="3"></highwater-playground>`).join('\n'), count: ids.length });
  const twice = [...new Set(asked.filter((p, i) => asked.indexOf(p) !== i))];
  assert.deepEqual(twice, [], 'no file is fetched twice');
  for (const id of ids) assert.ok(asked.includes(`/first-frames/${id}.json`), `the first frame of ${id}`);
  for (const later of [...LATER, 'diagram-panel.js', 'tours.json', 'tours/index.json']) assert.ok(!asked.some((p) => p.includes(later)), `${later} is not fetched by compact elements`);
  assert.deepEqual(asked.filter((p) => p.endsWith('.js')), ['/bundle/highwater-playground.js']);
  // Their heads' names are gallery.json's own English: no gallery words.
  assert.deepEqual(laterWords(asked), [], 'no words of a dialog or panel not open');
});

test('a gallery scenario in Chinese: its name in its head at the first draw, its words fetched once; the glossary\'s words when the Glossary first opens', async () => {
  const ids = ['kip101-loss-after-restart', 'unclean-election-loss'];
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 2400 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const asked = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  const url = `${env.url}first-load-zh.html`;
  await page.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="zh-Hans"><head><meta charset="utf-8"><title>Docs</title><script type="module" src="./bundle/highwater-playground.js"></script></head><body>${ids.map((id) => `<highwater-playground scenario="${id}" step="3" controls="full"></highwater-playground>`).join('\n')}</body></html>`,
  }));
  // The name each head first shows (read at every frame): the one drawn from the first frame, before the core is live.
  await page.addInitScript(() => {
    window.firstNames = [];
    const look = () => {
      document.querySelectorAll('highwater-playground').forEach((el, i) => {
        const name = el.shadowRoot && el.shadowRoot.getElementById('scenario-name');
        if (name && name.textContent && window.firstNames[i] === undefined) window.firstNames[i] = name.textContent;
      });
      requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  });
  await page.goto(url);
  await page.waitForFunction((n) => document.querySelectorAll('highwater-playground[data-ready="true"]').length === n, ids.length);
  const words = JSON.parse(await (await page.request.get(`${env.url}locales/zh-Hans/gallery.json`)).text());
  const names = await page.evaluate(() => [...document.querySelectorAll('highwater-playground')].map((el) => el.shadowRoot.getElementById('scenario-name').textContent));
  assert.deepEqual(names, ids.map((id) => words[id].name));
  assert.deepEqual(await page.evaluate(() => window.firstNames), ids.map((id) => words[id].name), 'in Chinese from the first draw');
  assert.equal(asked.filter((p) => p === '/locales/zh-Hans/gallery.json').length, 1, 'fetched once for both');
  assert.deepEqual(laterWords(asked).filter((p) => !p.endsWith('/gallery.json')), [], 'no glossary, rules or writer words yet');
  const first = page.locator('highwater-playground').first();
  await first.locator('#btn-glossary').click();
  await first.locator('#dlg-glossary[open]').waitFor();
  assert.equal(await first.locator('#term-hw dt').textContent(), JSON.parse(await (await page.request.get(`${env.url}locales/zh-Hans/glossary.json`)).text()).hw.term);
  assert.deepEqual(await page.evaluate(() => document.querySelector('highwater-playground').missingKeys()), []);
  await context.close();
});

test('a part is fetched at its first use, once, and works (the explorer opens)', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const asked = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  await page.goto(env.url);
  await page.waitForSelector('body[data-ready="true"]');
  assert.ok(!asked.includes('/bundle/explore-dialog.js'));
  await page.click('#btn-tools'); // a first visit: the tools are grouped
  await page.click('#btn-explore');
  await page.locator('#dlg-explore[open]').waitFor();
  await page.locator('#dlg-explore button[data-close]').first().click();
  await page.click('#btn-explore');
  await page.locator('#dlg-explore[open]').waitFor();
  assert.equal(asked.filter((p) => p === '/bundle/explore-dialog.js').length, 1);
  // The space-time diagram comes when its panel is opened, and draws the run.
  await page.locator('#dlg-explore button[data-close]').first().click();
  assert.ok(!asked.includes('/bundle/diagram-panel.js'));
  await page.click('[data-group-toggle="diagram"]');
  await page.locator('#diagram svg').first().waitFor();
  assert.equal(asked.filter((p) => p === '/bundle/diagram-panel.js').length, 1);
  await context.close();
});

/** When the page asked for the core's wasm, and when it first drew the board (ms from navigation); `body`: a docs page of its own. */
async function coreAndFirstDraw(path, body = null) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  if (body) {
    await page.route(`${env.url}${path}`, (route) => route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs</title><script type="module" src="./bundle/highwater-playground.js"></script></head><body>${body}</body></html>`,
    }));
  }
  await page.goto(`${env.url}${path}`);
  await page.waitForFunction(() => document.querySelector('highwater-playground').dataset.ready === 'true');
  const times = await page.evaluate(() => ({
    wasm: performance.getEntriesByType('resource').find((e) => e.name.endsWith('/pkg/highwater_bg.wasm'))?.startTime ?? null,
    drawn: performance.getEntriesByName('highwater:first-draw')[0]?.startTime ?? null,
    ready: document.querySelector('highwater-playground').dataset.ready,
  }));
  await context.close();
  return times;
}

test('with a first frame the core is asked for once the frame is drawn; with a poster or for a link, at once', async () => {
  // A gallery scenario has a frame: the first draw does not share the network with the wasm.
  const framed = await coreAndFirstDraw('framed.html', '<highwater-playground scenario="kip101-loss-after-restart" step="8"></highwater-playground>');
  assert.ok(framed.wasm !== null && framed.drawn !== null, JSON.stringify(framed));
  assert.ok(framed.wasm > framed.drawn, `the wasm after the first draw: ${JSON.stringify(framed)}`);
  assert.equal(framed.ready, 'true', 'the live board replaced the frame');
  // With a poster a board is on screen already: the core is on its way before the frame is drawn.
  const postered = await coreAndFirstDraw('postered.html', '<highwater-playground scenario="kip101-loss-after-restart"><img src="posters/kip101-loss-after-restart.svg" elementtiming="highwater-poster" alt=""></highwater-playground>');
  assert.ok(postered.wasm !== null && postered.drawn !== null && postered.wasm < postered.drawn, JSON.stringify(postered));
  // The page holds the empty run's poster: the same.
  const page = await coreAndFirstDraw('');
  assert.ok(page.wasm !== null && page.drawn !== null && page.wasm < page.drawn, JSON.stringify(page));
  // A link has no frame: the core is asked for before anything is drawn.
  const core = await loadCore();
  const sim = core.Simulation.fromScenario({ version: 1, config: { brokers: 2 }, steps: [{ produce: { value: 'a', acks: 'all' } }] });
  const link = sim.toLink();
  sim.free();
  const linked = await coreAndFirstDraw(`#s=${link}`);
  assert.ok(linked.wasm !== null && linked.drawn !== null && linked.wasm < linked.drawn, JSON.stringify(linked));
});

test('what the page preloads it uses: no "preloaded but not used" warning on the plain page, a tour, a tour in Chinese, the tour with controllers, a link or the embed', async () => {
  const core = await loadCore();
  const sim = core.Simulation.fromScenario({ version: 1, config: { brokers: 3 }, steps: [{ produce: { value: 'm1' } }] });
  const link = sim.toLink();
  sim.free();
  for (const address of ['', '?tour=leo-and-hw', '?lang=zh-Hans&tour=leo-and-hw', '?tour=two-replication-protocols', `#s=${link}`, '?embed']) {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    const warnings = [];
    page.on('console', (m) => { if (/preload/.test(m.text())) warnings.push(m.text()); });
    await page.goto(`${env.url}${address}`);
    await page.waitForSelector('body[data-ready="true"]');
    // Chromium says so a few seconds after the load event.
    await page.waitForTimeout(4000);
    assert.deepEqual(warnings, [], address || '(the plain page)');
    await context.close();
  }
});

test('once the board is live the core warms its common steps on a run of its own, once, and the reader\'s run is left as it was', async () => {
  const page = await openPage(env, { groups: null });
  try {
    await page.locator('#btn-produce').click();
    await page.locator('.broker-row[data-broker="2"] button[data-action="fetch"]').click();
    await addressWritten(page);
    const before = await page.evaluate(() => location.hash);
    const leo = await brokerStat(page, 2, 'leo');
    await page.waitForFunction(() => performance.getEntriesByName('highwater:core-warm').length > 0, null, { timeout: 20000 });
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => performance.getEntriesByName('highwater:core-warm').length), 1, 'warmed once');
    // The warm run produced, fetched, crashed and restarted broker 1: none of it is the reader's.
    assert.equal(await page.evaluate(() => location.hash), before, 'the run in the address is the same');
    assert.equal(await brokerStat(page, 2, 'leo'), leo);
    assert.equal(await brokerStat(page, 1, 'leo'), '1');
    assert.equal(await page.locator('.broker-row.role-leader[data-broker="1"]').count(), 1, 'broker 1 still leads (the warm run crashed its own)');
    assert.deepEqual(page.errors, []);
  } finally {
    await page.context().close();
  }
});

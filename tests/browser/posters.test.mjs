// The posters (www/posters/, scripts/posters.mjs): a picture of each gallery
// scenario at its default step, each built-in tour at its first stop and the
// empty run, in each language, made by the build in Node. In Chromium, the
// page's own core and its own drawing of a moment (the "Moment as SVG"
// export) make the same files byte for byte, so a poster says what the
// element draws and never drifts from the core. In a docs page the element
// shows its poster until its board is drawn, then only the board, with no
// layout shift beyond the docs' figures; the poster's Element Timing entry
// (`elementtiming="highwater-poster"`) is the first drawn board.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, scenarioLink, ROOT } from './harness.mjs';

const WWW = path.join(ROOT, 'www');
let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const gallery = () => JSON.parse(fs.readFileSync(path.join(WWW, 'gallery.json'), 'utf8')).entries;
const tours = () => JSON.parse(fs.readFileSync(path.join(WWW, 'tours', 'index.json'), 'utf8')).tours;

test('a poster for every gallery scenario, every tour and the empty run, in every language, and nothing else', () => {
  const ids = ['default', ...gallery().map((e) => e.id), ...tours().map((id) => `tour-${id}`)];
  const want = ['', 'zh-Hans/', 'zh-Hant/'].flatMap((lang) => ids.map((id) => `${lang}${id}.svg`)).sort();
  const have = fs.readdirSync(path.join(WWW, 'posters'), { recursive: true }).filter((f) => f.endsWith('.svg')).map((f) => f.split(path.sep).join('/')).sort();
  assert.deepEqual(have, want);
});

test('each poster is what the page\'s core and its drawing of a moment make of that run at that step, byte for byte', { timeout: 120000 }, async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${env.url}index.html?embed`);
  const runs = [
    ['default', null, 0],
    ...gallery().map((e) => [e.id, e.scenario, e.focus]),
    ...tours().map((id) => {
      const tour = JSON.parse(fs.readFileSync(path.join(WWW, 'tours', `${id}.json`), 'utf8'));
      return [`tour-${id}`, tour.parts[0].scenario, tour.parts[0].stops[0].at];
    }),
  ];
  const made = await page.evaluate(async (runs) => {
    const { ensureCore } = await import('./core.js');
    const { posterSvg } = await import('./draw/export.js');
    const { setLanguage, t } = await import('./words/i18n.js');
    const core = await ensureCore({ quorum: true });
    const out = {};
    for (const lang of ['en', 'zh-Hans', 'zh-Hant']) {
      await setLanguage(lang);
      for (const [id, scenario, at] of runs) {
        out[`${lang === 'en' ? '' : `${lang}/`}${id}.svg`] = posterSvg(core, scenario ?? { version: 1, config: core.defaultConfig, steps: [] }, at, t);
      }
    }
    return out;
  }, runs);
  for (const [name, svg] of Object.entries(made)) {
    assert.equal(fs.readFileSync(path.join(WWW, 'posters', name), 'utf8'), svg, `posters/${name} is not what the page makes of that run`);
  }
  assert.equal(Object.keys(made).length, runs.length * 3);
  // A poster is a picture the browser draws: each parses as SVG.
  const parsed = await page.evaluate(async (names) => Promise.all(names.map(async (n) => {
    const text = await (await fetch(`./posters/${n}`)).text();
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return doc.querySelector('parsererror') ? n : null;
  })), Object.keys(made));
  assert.deepEqual(parsed.filter(Boolean), []);
  await context.close();
});

/** The host page's rules of docs/embedding.md ("Its room while it loads"). */
function roomRules() {
  const docs = fs.readFileSync(path.join(ROOT, 'docs', 'embedding.md'), 'utf8');
  const section = docs.slice(docs.indexOf('### Its room while it loads'));
  const css = /```css\n([\s\S]*?)```/.exec(section)[1];
  assert.match(css, /highwater-playground img \{[^}]*max-width: 100%/, 'the docs keep a poster within the page');
  return css;
}

/** A docs page with the room rules of docs/embedding.md and an element holding its poster; the bundle held back until `release()`. */
async function posterPage({ width = 1280, height = 900 } = {}) {
  const url = `${env.url}poster-host.html`;
  const body = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Docs</title>'
    + `<style>${roomRules()}</style>`
    + '<script type="module" src="./bundle/highwater-playground.js"></script></head><body><h1>Docs</h1>'
    + '<highwater-playground scenario="two-fetch-rounds" step="4"><img src="posters/two-fetch-rounds.svg" elementtiming="highwater-poster" alt="Two fetch rounds: the board at step 4"></highwater-playground>'
    + '<p>After: a paragraph of the page\'s own text that follows the element.</p>'.repeat(20) + '</body></html>';
  const context = await env.browser.newContext({ viewport: { width, height }, reducedMotion: 'reduce' });
  await context.addInitScript(() => {
    window.__shifts = [];
    window.__timing = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts.push(e.value); }).observe({ type: 'layout-shift', buffered: true });
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__timing.push({ identifier: e.identifier, renderTime: e.renderTime }); }).observe({ type: 'element', buffered: true });
  });
  const page = await context.newPage();
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body }));
  await page.route(/\/bundle\/highwater-playground\.js$/, async (route) => { await held; await route.continue(); });
  // Not until `load`: the held module script keeps the document from loading.
  await page.goto(url, { waitUntil: 'commit' });
  return { page, context, release };
}

/** The poster's box as the reader sees it (null when it has none). */
const posterBox = (page) => page.evaluate(() => {
  const img = document.querySelector('highwater-playground img');
  const r = img.getClientRects()[0];
  return r && img.complete && img.naturalWidth > 0 ? { width: r.width, height: r.height, top: r.top } : null;
});

for (const [width, height] of [[1280, 900], [412, 823]]) {
  test(`the poster shows before any script and until the board is drawn, then only the board, without a jump: ${width} px`, { timeout: 60000 }, async () => {
    const { page, context, release } = await posterPage({ width, height });
    try {
      await page.waitForFunction(() => document.querySelector('highwater-playground img').complete);
      const before = await posterBox(page);
      assert.ok(before && before.width > 100 && before.height > 50, `the poster shows before the module: ${JSON.stringify(before)}`);
      assert.ok(before.width <= width, 'within the page\'s width');
      assert.equal(await page.evaluate(() => customElements.get('highwater-playground')), undefined, 'the module has not run');
      // The poster's own Element Timing entry: the first board a reader sees.
      await page.waitForFunction(() => window.__timing.some((e) => e.identifier === 'highwater-poster'));
      release();
      await page.waitForFunction(() => document.querySelector('highwater-playground').dataset.ready === 'true', null, { timeout: 30000 });
      assert.equal(await posterBox(page), null, 'the poster is gone once the board is drawn');
      const el = await page.evaluate(() => {
        const e = document.querySelector('highwater-playground');
        return { rows: e.shadowRoot.querySelectorAll('.broker-row[data-broker]').length, position: e.shadowRoot.querySelector('#position').textContent.trim() };
      });
      assert.equal(el.rows, 2, 'two-fetch-rounds: two brokers');
      assert.equal(el.position.split(' ')[0], '4');
      await page.waitForTimeout(1000);
      const total = await page.evaluate(() => window.__shifts.reduce((a, b) => a + b, 0));
      assert.ok(total < 0.05, `layout shift ${total.toFixed(4)} over the load`);
    } finally {
      await context.close();
    }
  });
}

test('while the module loads, the poster stays over the board being laid out; a board drawn hides it', { timeout: 60000 }, async () => {
  const { page, context, release } = await posterPage();
  try {
    release();
    // Just defined: the poster is what shows (the board is laid out hidden under it, or not yet).
    await page.waitForFunction(() => customElements.get('highwater-playground'));
    const early = await page.evaluate(() => {
      const el = document.querySelector('highwater-playground');
      const ready = el.dataset.ready;
      const img = el.querySelector('img');
      return { ready, shown: img.getClientRects().length > 0 };
    });
    if (!early.ready) assert.ok(early.shown, 'the poster shows until the board is drawn');
    await page.waitForFunction(() => document.querySelector('highwater-playground').dataset.ready);
    assert.equal(await page.evaluate(() => document.querySelector('highwater-playground img').getClientRects().length), 0);
  } finally {
    await context.close();
  }
});

/** index.html at `suffix`, its bundle held back: where its poster is, and which. */
async function pagePoster(suffix, { locale, width = 1280 } = {}) {
  const context = await env.browser.newContext({ viewport: { width, height: 900 }, locale });
  const page = await context.newPage();
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route(/\/bundle\/highwater-playground\.js$/, async (route) => { await held; await route.continue(); });
  await page.goto(`${env.url}index.html${suffix}`, { waitUntil: 'commit' });
  // index.js has run once it has asked for the bundle.
  await page.waitForFunction(() => [...document.querySelectorAll('link[rel="preload"]')].some((l) => l.href.endsWith('/tours/index.json')) || document.querySelector('highwater-playground[controls="compact"]'));
  const poster = await page.evaluate(() => {
    const img = document.getElementById('poster');
    return img ? { src: new URL(img.src).pathname, alt: img.alt, timing: img.getAttribute('elementtiming') } : null;
  });
  await page.waitForFunction(() => { const img = document.getElementById('poster'); return !img || img.complete; });
  const box = await page.evaluate(() => {
    const img = document.getElementById('poster');
    return img && img.complete ? img.getBoundingClientRect().right : null;
  });
  release();
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  const after = await page.evaluate(() => document.getElementById('poster')?.getClientRects().length ?? 0);
  await context.close();
  return { poster, after, right: box };
}

test('the page\'s own poster: the empty run\'s board in its language, none for a link or a tour, gone once the page is drawn', { timeout: 90000 }, async () => {
  const plain = await pagePoster('');
  assert.deepEqual(plain.poster, { src: '/posters/default.svg', alt: '', timing: 'highwater-poster' });
  assert.equal(plain.after, 0, 'hidden once the board is drawn');
  const phone = await pagePoster('', { width: 412 });
  assert.ok(phone.right > 0 && phone.right <= 412, `the poster within a phone's width: its right edge at ${phone.right}`);
  assert.equal((await pagePoster('?lang=zh-Hant')).poster.src, '/posters/zh-Hant/default.svg');
  assert.equal((await pagePoster('', { locale: 'zh-CN' })).poster.src, '/posters/zh-Hans/default.svg');
  assert.equal((await pagePoster('?embed')).poster.src, '/posters/default.svg');
  assert.equal((await pagePoster('?tour=leo-and-hw')).poster, null, 'a tour opens on its own first stop');
  assert.equal((await pagePoster(`#s=${await scenarioLink('two-fetch-rounds')}`)).poster, null, 'a link opens its own run');
});

test('a poster follows the reader\'s colour scheme: the board\'s dark panel where the reader prefers dark, white where light', { timeout: 60000 }, async () => {
  const seen = {};
  for (const colorScheme of ['light', 'dark']) {
    const context = await env.browser.newContext({ viewport: { width: 800, height: 600 }, colorScheme });
    const page = await context.newPage();
    await page.route(`${env.url}poster-scheme.html`, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>Poster</title><body style="margin:0"><img src="posters/acks1-loss-after-failover.svg" alt="">' }));
    await page.goto(`${env.url}poster-scheme.html`);
    await page.waitForFunction(() => document.querySelector('img').complete);
    // What the reader sees (a screenshot), read back pixel by pixel by the browser.
    const shot = (await page.locator('img').screenshot()).toString('base64');
    seen[colorScheme] = await page.evaluate(async (data) => {
      const image = new Image();
      image.src = `data:image/png;base64,${data}`;
      await image.decode();
      const canvas = Object.assign(document.createElement('canvas'), { width: image.width, height: image.height });
      const context2d = canvas.getContext('2d');
      context2d.drawImage(image, 0, 0);
      const pixel = (x, y) => [...context2d.getImageData(x, y, 1, 1).data.slice(0, 3)];
      return { corner: pixel(4, 4), far: pixel(image.width - 4, image.height - 4) };
    }, shot);
    await context.close();
  }
  assert.deepEqual(seen.light, { corner: [255, 255, 255], far: [255, 255, 255] });
  assert.deepEqual(seen.dark, { corner: [0x16, 0x1b, 0x22], far: [0x16, 0x1b, 0x22] });
});

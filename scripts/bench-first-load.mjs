#!/usr/bin/env node
// First load on a phone: Highwater against RaftScope, in the same run.
//
//   scripts/fetch-raftscope.sh && node scripts/bench-first-load.mjs
//     [--runs 7] [--profile fast|slow|both] [--json FILE] [--waterfall]
//     [--tour NAME] [--scenario NAME [--step N]] [--without-poster]
//     [--without-preload] [--gzip]
//
// --tour opens the full page at that tour's first stop (index.html?tour=NAME);
// --scenario and --step give the docs page's element a gallery scenario and
// step other than the default (a topic of several partitions:
// --tour broker-dies --scenario broker-dies-and-returns --step 9).
//
// What it measures, per load, from navigation start (performance.now() of
// the page), in a fresh browser context each time (cold: no HTTP cache, no
// code cache, no open connection carried over):
//   full page  www/index.html: first drawn state = its poster's paint
//              (Element Timing, `elementtiming="highwater-poster"`: the
//              page without a tour has one) or the performance mark
//              `highwater:first-draw` (the board drawn: from the first
//              frame, or from the core), or else the first broker
//              (`.broker-row`) in the element's shadow root, whichever
//              comes first; also the live
//              board (data-ready="true": the controls work) and the mark
//              `highwater:core-ready` ("n/a" where the page sets none);
//   docs page  a plain page of a few paragraphs and one
//              <highwater-playground scenario="kip101-loss-after-restart">
//              holding its poster (posters/<scenario>.svg; none with
//              --without-poster, which takes the full page's out too, or
//              --step), with the room rules of
//              docs/embedding.md, the element's bundle (the npm
//              package's main module) and the preload of its core that
//              docs/embedding.md shows (none with --without-preload, which
//              takes the full page's, in index.js, out too): the same three moments;
//   RaftScope  its index.html: first drawn state = the first `g.server` in
//              its svg (script.js draws all five in one go).
// And on every page its layout shift over the whole load: the sum of the
// Layout Instability API's `layout-shift` entries without recent input, from
// navigation start until the network is idle (the docs page has prose under
// the element within the phone's first screen, where a shift counts).
// The times are taken in the page by a MutationObserver (addInitScript),
// when the DOM holds the drawing, i.e. before that frame is painted.
// Bytes: the sum of CDP Network.loadingFinished encodedDataLength (what came
// over the wire, compressed bodies plus response headers) of the responses that
// finished before the first drawn state, and of all responses once the
// network has been idle for a second; requests: those finished before it.
// The loads are interleaved (full, RaftScope, docs, full, RaftScope, …) so
// that a slower moment of the machine hits all three alike.
//
// The phone: viewport 412x823 at deviceScaleFactor 2.625, isMobile, hasTouch
// (Lighthouse's viewport), CPU slowed 4x
// (Emulation.setCPUThrottlingRate), and the network of one of two profiles
// (Network.emulateNetworkConditions: latency added to every request,
// throughput in bytes per second from these bits per second):
//   Fast 4G   170 ms,  9 Mbit/s down,   1.5 Mbit/s up
//   Slow 4G   150 ms,  1.6 Mbit/s down, 750 kbit/s up   (Lighthouse's mobile numbers)
// DevTools' own presets differ a little (they scale throughput by 0.9, and
// its Slow 4G adds 562.5 ms).
// Both sites are served by scripts/serve.mjs from 127.0.0.1 over HTTP/1.1
// (at most 6 connections per host in Chromium), compressed as a CDN sends
// them (brotli at quality 11; with --gzip, gzip at level 9 only, as a host
// without brotli does), each from its own server on its own port; each page is
// loaded once, unmeasured, before the runs (it fills the server's cache of
// compressed files). Needs www/pkg (make
// build), target/raftscope (scripts/fetch-raftscope.sh) and Chromium
// (CHROMIUM, default /usr/bin/chromium).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WWW = path.join(ROOT, 'www');
const RAFTSCOPE = path.join(ROOT, 'target', 'raftscope');

const mbit = (n) => (n * 1e6) / 8; // bytes per second
const PROFILES = {
  fast: { name: 'Fast 4G', latency: 170, downloadThroughput: mbit(9), uploadThroughput: mbit(1.5) },
  slow: { name: 'Slow 4G', latency: 150, downloadThroughput: mbit(1.6), uploadThroughput: mbit(0.75) },
};
const PHONE = { viewport: { width: 412, height: 823 }, deviceScaleFactor: 2.625, isMobile: true, hasTouch: true };
const CPU_SLOWDOWN = 4;
const IDLE_MS = 1000; // the network is idle once nothing has been in flight for this long
const LOAD_TIMEOUT_MS = 120_000;

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    profile: { type: 'string', default: 'both' },
    json: { type: 'string' },
    waterfall: { type: 'boolean', default: false },
    tour: { type: 'string' },
    scenario: { type: 'string', default: 'kip101-loss-after-restart' },
    step: { type: 'string' },
    'without-poster': { type: 'boolean', default: false },
    'without-preload': { type: 'boolean', default: false },
    gzip: { type: 'boolean', default: false },
  },
});
const ENCODINGS = values.gzip ? ['gzip'] : ['br', 'gzip'];
const NAME = /^[a-z0-9-]{1,64}$/;
if (values.tour !== undefined && !NAME.test(values.tour)) fail(`--tour must be a tour's name, not ${values.tour}`);
if (!NAME.test(values.scenario)) fail(`--scenario must be a gallery scenario's name, not ${values.scenario}`);
if (values.step !== undefined && !/^[0-9]{1,5}$/.test(values.step)) fail(`--step must be a step number, not ${values.step}`);
// A poster is of the scenario's default step: with another step the docs page has none.
const POSTER = !values['without-poster'] && values.step === undefined;
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) fail(`--runs must be a positive integer, not ${values.runs}`);
const profiles = values.profile === 'both' ? ['fast', 'slow'] : [values.profile];
if (!profiles.every((p) => PROFILES[p])) fail(`--profile must be fast, slow or both, not ${values.profile}`);
if (!fs.existsSync(path.join(WWW, 'pkg', 'highwater_bg.wasm'))) fail('www/pkg is missing; run make build first');
if (!fs.existsSync(path.join(RAFTSCOPE, 'index.html')) || !fs.existsSync(path.join(RAFTSCOPE, 'bootstrap-slider', 'js', 'bootstrap-slider.js'))) {
  fail('RaftScope is missing: target/raftscope/index.html (and its submodules\' files); run scripts/fetch-raftscope.sh first');
}

function fail(message) {
  console.error(`bench-first-load: ${message}`);
  process.exit(2);
}

// The docs page: some prose, then one element, near enough the top that it
// starts at once (it loads when within 300px of the viewport).
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Truncation after a restart</title>
  <style>body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 44rem; padding: 0 1rem; }
    highwater-playground { display: block; } highwater-playground:not([data-ready]) { min-height: 440px; }
    @media (max-width: 600px) { highwater-playground:not([data-ready]) { min-height: 480px; } }
    highwater-playground img { display: block; max-width: 100%; height: auto; }</style>
  <script type="module" src="/bundle/highwater-playground.js"></script>${values['without-preload'] ? '' : `
  <link rel="preload" href="/pkg/highwater_bg.wasm" as="fetch" crossorigin fetchpriority="low">`}
</head>
<body>
  <h1>Truncation after a restart</h1>
  <p>Before KIP-101 a follower that restarted truncated its log to its high watermark, then fetched from the leader.</p>
  <highwater-playground scenario="${values.scenario}"${values.step === undefined ? '' : ` step="${values.step}"`}>${POSTER ? `<img src="/posters/${values.scenario}.svg" elementtiming="highwater-poster" alt="The board of this run">` : ''}</highwater-playground>
  <p>If the leader failed at that moment, the follower could become leader with fewer records than were acknowledged.</p>
  <p>Step through the run above: the loss happens at step eight.</p>
  <p>With leader epochs the follower asks the leader where its epoch ends, and truncates only what diverges.</p>
  <p>The leader answers with the end offset of that epoch in its own log, and the follower keeps every record before it.</p>
  <p>A record the leader acknowledged to a producer with acks=all is then on every replica in the ISR, and stays there.</p>
  <p>Restart the follower at another step to see where the two rules part.</p>
</body>
</html>
`;

// Runs in every page before its own scripts: records, in performance.now()
// milliseconds, when each drawn state first appears in the DOM.
function watchFirstDraw() {
  const seen = (window.__firstLoad = {});
  const mark = (name) => {
    if (seen[name] === undefined) seen[name] = performance.now();
  };
  const onShadow = (root) => {
    const check = () => {
      if (root.querySelector('.broker-row')) {
        mark('board');
        observer.disconnect();
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(root, { childList: true, subtree: true });
  };
  // The element's shadow root is made in its constructor: watch it from there.
  const attachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attachShadow.call(this, init);
    if (this.localName === 'highwater-playground') onShadow(root);
    return root;
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes' && r.target.localName === 'highwater-playground' && r.target.getAttribute('data-ready') === 'true') mark('ready');
    }
    if (seen.servers === undefined && document.querySelector('svg #servers .server')) mark('servers');
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-ready'] });
  // A poster (elementtiming="highwater-poster"): when the browser painted it.
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.identifier === 'highwater-poster' && seen.poster === undefined) seen.poster = e.renderTime || e.loadTime;
  }).observe({ type: 'element', buffered: true });
  // Layout shift over the whole load (CLS counts the shifts no input explains).
  seen.shift = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) seen.shift += e.value;
  }).observe({ type: 'layout-shift', buffered: true });
}

const PAGES = [
  { id: 'full', label: 'full page', site: 'highwater', path: values.tour ? `/index.html?tour=${values.tour}` : '/index.html', drawn: 'ready' },
  { id: 'raftscope', label: 'RaftScope', site: 'raftscope', path: '/index.html', drawn: 'servers' },
  { id: 'docs', label: 'docs page', site: 'highwater', path: '/bench-docs.html', drawn: 'ready' },
];

const median = (xs) => {
  const s = xs.filter((x) => x !== null && x !== undefined).sort((a, b) => a - b);
  if (!s.length) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x, digits = 0) => (x === null || x === undefined ? null : Number(x.toFixed(digits)));

/** One cold load of a page; resolves with what was measured. */
async function load(browser, url, page, profile) {
  const context = await browser.newContext(PHONE);
  try {
    await context.addInitScript(watchFirstDraw);
    const tab = await context.newPage();
    const errors = [];
    tab.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    tab.on('pageerror', (e) => errors.push(String(e)));
    const cdp = await context.newCDPSession(tab);
    await cdp.send('Network.enable');
    if (profile) {
      await cdp.send('Network.emulateNetworkConditions', { offline: false, ...pick(profile, ['latency', 'downloadThroughput', 'uploadThroughput']), connectionType: 'cellular4g' });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    }
    // The requests, in CDP's clock (seconds); wallTime pairs that clock with the page's.
    const requests = new Map();
    let clock = null; // ms to add to a CDP timestamp * 1000 to get epoch ms
    let lastActivity = Date.now();
    cdp.on('Network.requestWillBeSent', (e) => {
      if (!/^https?:/.test(e.request.url)) return;
      if (clock === null) clock = e.wallTime * 1000 - e.timestamp * 1000;
      requests.set(e.requestId, { url: e.request.url, type: e.type, start: e.timestamp, end: null, bytes: 0, status: null });
      lastActivity = Date.now();
    });
    cdp.on('Network.responseReceived', (e) => {
      const r = requests.get(e.requestId);
      if (r) r.status = e.response.status;
    });
    cdp.on('Network.loadingFinished', (e) => {
      const r = requests.get(e.requestId);
      if (r) Object.assign(r, { end: e.timestamp, bytes: e.encodedDataLength });
      lastActivity = Date.now();
    });
    cdp.on('Network.loadingFailed', (e) => {
      const r = requests.get(e.requestId);
      if (r) Object.assign(r, { end: e.timestamp, failed: e.errorText });
      lastActivity = Date.now();
    });

    await tab.goto(url, { waitUntil: 'commit', timeout: LOAD_TIMEOUT_MS });
    await tab.waitForFunction((name) => window.__firstLoad[name] !== undefined || document.body?.dataset.ready === 'error' || document.querySelector('highwater-playground[data-ready="error"]'),
      page.drawn, { timeout: LOAD_TIMEOUT_MS, polling: 100 });
    // Then until the network is idle (bounded).
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const inFlight = [...requests.values()].some((r) => r.end === null);
      if (!inFlight && Date.now() - lastActivity >= IDLE_MS) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const inPage = await tab.evaluate(() => {
      const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
      return {
        timeOrigin: performance.timeOrigin,
        seen: window.__firstLoad,
        firstDrawMark: at('highwater:first-draw'),
        coreReady: at('highwater:core-ready'),
        error: document.body.dataset.ready === 'error' || !!document.querySelector('highwater-playground[data-ready="error"]'),
      };
    });
    if (inPage.error) throw new Error(`${url}: the page shows an error`);
    const toPage = (ts) => (ts === null ? null : ts * 1000 + clock - inPage.timeOrigin);
    const list = [...requests.values()].map((r) => ({
      url: new URL(r.url).pathname,
      start: round(toPage(r.start), 1),
      end: round(toPage(r.end), 1),
      bytes: r.bytes,
      status: r.status,
      ...(r.failed ? { failed: r.failed } : {}),
    })).sort((a, b) => a.start - b.start);
    // The full page's own mark where it has one (the observer sees the same moment, a microtask later).
    // A poster counts where it came first (its paint, against the others' DOM moments: in its disfavour).
    const board = inPage.firstDrawMark ?? inPage.seen.board ?? inPage.seen.ready;
    const firstDraw = page.site === 'highwater' ? Math.min(board ?? Infinity, inPage.seen.poster ?? Infinity) : inPage.seen[page.drawn];
    const before = list.filter((r) => r.end !== null && r.end <= firstDraw);
    return {
      firstDraw: round(firstDraw, 1),
      live: round(inPage.seen.ready ?? null, 1),
      coreReady: round(inPage.coreReady, 1),
      shift: round(inPage.seen.shift ?? null, 4),
      bytesBefore: before.reduce((s, r) => s + r.bytes, 0),
      requestsBefore: before.length,
      bytesTotal: list.reduce((s, r) => s + r.bytes, 0),
      requestsTotal: list.length,
      errors,
      requests: list,
    };
  } finally {
    await context.close();
  }
}

function pick(o, keys) {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

// --- the run ---------------------------------------------------------------

const started = Date.now();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-first-load-'));
// The page's files as they are in www/, beside the docs page (serve.mjs keeps to one root).
const site = path.join(tmp, 'www');
fs.cpSync(WWW, site, { recursive: true, dereference: true });
fs.writeFileSync(path.join(site, 'bench-docs.html'), DOCS_PAGE);
if (values['without-poster']) {
  // The page as it was before it had a poster.
  const index = fs.readFileSync(path.join(site, 'index.html'), 'utf8');
  const without = index.replace(/<img id="poster"[^>]*>/, '');
  if (without === index) fail('www/index.html has no <img id="poster"> to take out');
  fs.writeFileSync(path.join(site, 'index.html'), without);
}
if (values['without-preload']) {
  // The page as it was before index.js asked for its core.
  const script = fs.readFileSync(path.join(site, 'index.js'), 'utf8');
  const call = "preload(viewsOpen ? 'pkg-quorum/highwater_bg.wasm' : 'pkg/highwater_bg.wasm', 'low');";
  const without = script.replace(call, '');
  if (without === script) fail(`www/index.js has no ${call} to take out`);
  fs.writeFileSync(path.join(site, 'index.js'), without);
}
const servers = {
  highwater: await serve({ port: 0, root: site, encodings: ENCODINGS }),
  raftscope: await serve({ port: 0, root: RAFTSCOPE, encodings: ENCODINGS }),
};
const urlOf = (page) => `http://127.0.0.1:${servers[page.site].address().port}${page.path}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});

const results = {
  date: new Date().toISOString(),
  runs: RUNS,
  phone: { ...PHONE, cpuSlowdown: CPU_SLOWDOWN },
  encodings: ENCODINGS,
  pages: {
    full: `${PAGES[0].path}${values['without-poster'] ? ' (its poster taken out)' : ''}${values['without-preload'] ? ' (index.js\'s preload of its core taken out)' : ''}`,
    docs: `scenario="${values.scenario}"${values.step === undefined ? '' : ` step="${values.step}"`}${POSTER ? ' holding its poster' : ''}${values['without-preload'] ? '' : ', its core preloaded'}`,
  },
  chromium: browser.version(),
  profiles: {},
};
try {
  // Warm the servers' caches of compressed files (not measured, not throttled).
  for (const page of PAGES) {
    const w = await load(browser, urlOf(page), page, null);
    if (page.site === 'raftscope' && w.errors.length) console.error(`bench-first-load: RaftScope logs errors: ${w.errors.join('; ')}`);
  }
  for (const key of profiles) {
    const profile = PROFILES[key];
    const loads = Object.fromEntries(PAGES.map((p) => [p.id, []]));
    for (let i = 0; i < RUNS; i++) {
      for (const page of PAGES) {
        const r = await load(browser, urlOf(page), page, profile);
        loads[page.id].push(r);
        process.stderr.write(`${profile.name} ${i + 1}/${RUNS} ${page.label}: ${r.firstDraw} ms\n`);
      }
    }
    results.profiles[key] = { ...profile, pages: Object.fromEntries(PAGES.map((p) => [p.id, summarise(loads[p.id])])) };
  }
} finally {
  await browser.close();
  for (const s of Object.values(servers)) s.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
results.seconds = Math.round((Date.now() - started) / 1000);

function summarise(loads) {
  const field = (f) => {
    const xs = loads.map((l) => l[f]).filter((x) => x !== null);
    return xs.length ? { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) } : null;
  };
  // The representative load: the one whose first draw is the median (the lower middle for an even count).
  const order = [...loads].sort((a, b) => a.firstDraw - b.firstDraw);
  const representative = order[Math.floor((order.length - 1) / 2)];
  return {
    firstDraw: field('firstDraw'),
    live: field('live'),
    coreReady: field('coreReady'),
    shift: field('shift'),
    bytesBefore: field('bytesBefore'),
    requestsBefore: field('requestsBefore'),
    bytesTotal: field('bytesTotal'),
    requestsTotal: field('requestsTotal'),
    errors: [...new Set(loads.flatMap((l) => l.errors))],
    loads: loads.map(({ requests, ...rest }) => rest),
    waterfall: { firstDraw: representative.firstDraw, requests: representative.requests },
  };
}

// --- the report --------------------------------------------------------------

const ms = (x) => (x === null || x === undefined ? 'n/a' : `${Math.round(x)}`);
const range = (f, fmt = ms) => (f ? `${fmt(f.median)} (${fmt(f.min)}–${fmt(f.max)})` : 'n/a');
const kb = (x) => (x / 1024).toFixed(1);
const shiftText = (x) => (x === null || x === undefined ? 'n/a' : x.toFixed(3));

const lines = [];
lines.push(`Phone: ${PHONE.viewport.width}x${PHONE.viewport.height} @${PHONE.deviceScaleFactor}, CPU ${CPU_SLOWDOWN}x slower; ${values.gzip ? 'gzip' : 'brotli'}, HTTP/1.1; ${RUNS} cold loads each, interleaved; ${results.chromium}.`);
lines.push(`Full page ${results.pages.full}; docs page <highwater-playground ${results.pages.docs}>.`);
lines.push(`Medians, (min–max). Times in ms from navigation start; KB = 1024 bytes over the wire (${values.gzip ? 'gzipped' : 'compressed'} bodies + headers); requests finished before the first draw.`);
for (const key of profiles) {
  const p = results.profiles[key];
  const rs = p.pages.raftscope.firstDraw.median;
  lines.push('', `**${p.name}** (${p.latency} ms, ${(p.downloadThroughput * 8) / 1e6} Mbit/s down, ${(p.uploadThroughput * 8) / 1e6} Mbit/s up)`, '');
  lines.push('| page | first draw (ms) | × RaftScope | KB before first draw | requests before | live board (ms) | × RaftScope | core ready (ms) | KB / requests, whole load | layout shift, whole load |');
  lines.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const page of [PAGES[0], PAGES[2], PAGES[1]]) {
    const s = p.pages[page.id];
    const hw = page.site === 'highwater';
    const liveRatio = hw && s.live ? (s.live.median / rs).toFixed(2) : '–';
    lines.push(`| ${page.label} | ${range(s.firstDraw)} | ${(s.firstDraw.median / rs).toFixed(2)} | ${range(s.bytesBefore, kb)} | ${range(s.requestsBefore)} | ${hw ? range(s.live) : '–'} | ${liveRatio} | ${hw ? range(s.coreReady) : '–'} | ${kb(s.bytesTotal.median)} / ${ms(s.requestsTotal.median)} | ${range(s.shift, shiftText)} |`);
  }
  const errors = PAGES.flatMap((page) => p.pages[page.id].errors.map((e) => `${page.label}: ${e}`));
  if (errors.length) lines.push('', `Console errors: ${errors.join('; ')}`);
}
lines.push('', `(${results.seconds} s for the whole run)`);
console.log(lines.join('\n'));

if (values.waterfall) {
  for (const key of profiles) {
    const p = results.profiles[key];
    for (const page of PAGES) {
      const w = p.pages[page.id].waterfall;
      const span = Math.max(w.firstDraw, ...w.requests.map((r) => r.end ?? r.start));
      const bar = (a, b) => {
        const width = 40;
        const from = Math.round((a / span) * width);
        const to = Math.max(from + 1, Math.round(((b ?? a) / span) * width));
        return ' '.repeat(from) + '#'.repeat(to - from);
      };
      console.log(`\n${p.name}, ${page.label}: the median load (first draw at ${ms(w.firstDraw)} ms, | marks it)`);
      const drawAt = Math.round((w.firstDraw / span) * 40);
      for (const r of w.requests) {
        const b = bar(r.start, r.end).padEnd(41).split('');
        if (b[drawAt] === ' ') b[drawAt] = '|';
        console.log(`${ms(r.start).padStart(6)} ${ms(r.end).padStart(6)} ${kb(r.bytes).padStart(7)} KB  ${b.join('')}  ${r.url}${r.failed ? ` (${r.failed})` : ''}`);
      }
    }
  }
}

if (values.json) {
  fs.writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
  console.error(`wrote ${values.json}`);
}

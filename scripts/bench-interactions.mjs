#!/usr/bin/env node
// Measures how long the page's interactions take on a big run, as Chromium's
// Event Timing reports them (from the input to the next paint): Produce, Fetch
// on a follower, step forward, step back and a tour's Next, at CPU 1x and 4x
// (CDP Emulation.setCPUThrottlingRate), several times each, with real clicks
// (Event Timing only reports real input). Also the layout shift after the
// first draw. bench-page.mjs runs it after its own table.
//
//   node scripts/bench-interactions.mjs [--reps 7] [--rates 1,4] [--open-groups] [--cluster] [--first]
// --first measures a page's first clicks instead: the default page opened
// --reps times, idle 2.5 s once live, then its first Produce and first Fetch
// (at the last of --rates): where the core's first call of a function
// compiles it.
// --cluster measures the board of a topic instead: 12 partitions of three
// replicas on 6 brokers in 3 racks, 20 records in each partition (the
// cluster map open above the board), with Produce, Fetch, choosing another
// partition on the map, a preferred election and the steps.
// The page is measured as a first visit finds it (its tools and panels
// collapsed: www/element/groups.js); --open-groups opens every one first,
// as a reader who opened them all would find it (the page before grouping).
// Needs www/pkg (make build) and Chromium (CHROMIUM, default /usr/bin/chromium).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BROKERS = 7;
export const RECORDS = 240;
const THRESHOLD_MS = 16; // the smallest durationThreshold Event Timing takes
const BATCH = 40; // records produced between two fetch rounds

/**
 * The big run: 7 brokers in manual mode, 240 records in every log, all
 * committed (batches of produces, each followed by three fetch rounds: the
 * first copies the records, the next two carry the new HW to every follower).
 */
export async function bigRunLink() {
  const core = await import(path.join(ROOT, 'www', 'pkg', 'highwater.js'));
  core.initSync({ module: fs.readFileSync(path.join(ROOT, 'www', 'pkg', 'highwater_bg.wasm')) });
  const steps = [];
  for (let i = 0; i < RECORDS; i++) {
    steps.push({ produce: { value: `r${i}`, acks: '1' } });
    if ((i + 1) % BATCH === 0) for (let round = 0; round < 3; round++) for (let b = 2; b <= BROKERS; b++) steps.push({ fetch: b });
  }
  const sim = core.Simulation.fromScenario({ version: 1, name: 'Interaction bench', config: { brokers: BROKERS }, steps });
  const state = sim.state(0, 0);
  const link = sim.toLink();
  const leos = state.brokers.map((b) => b.log_end_offset);
  const hws = state.brokers.map((b) => b.high_watermark);
  sim.free();
  return { link, leos, hws };
}

export const CLUSTER = { brokers: 6, partitions: 12, replication_factor: 3, racks: ['a', 'b', 'c', 'a', 'b', 'c'] };
const CLUSTER_RECORDS = 20; // per partition

/**
 * The topic's run: manual mode, 20 records in each of the 12 partitions,
 * all committed (a batch of 4 per partition, then three fetch rounds of
 * every broker's fetchers).
 */
export async function clusterRunLink() {
  const core = await import(path.join(ROOT, 'www', 'pkg', 'highwater.js'));
  core.initSync({ module: fs.readFileSync(path.join(ROOT, 'www', 'pkg', 'highwater_bg.wasm')) });
  const steps = [];
  for (let batch = 0; batch < CLUSTER_RECORDS / 4; batch++) {
    for (let p = 0; p < CLUSTER.partitions; p++) for (let i = 0; i < 4; i++) steps.push({ produce: { value: `p${p}-${batch * 4 + i}`, acks: '1', partition: p } });
    for (let round = 0; round < 3; round++) for (let b = 1; b <= CLUSTER.brokers; b++) steps.push({ fetch: b });
  }
  const sim = core.Simulation.fromScenario({ version: 1, name: 'Interaction bench: a topic', config: CLUSTER, steps });
  const state = sim.state(0, 0, 0);
  const link = sim.toLink();
  const hws = state.partitions.map((p) => p.high_watermark);
  sim.free();
  return { link, leos: hws, hws };
}

/** Collects Event Timing entries (max duration per interaction) and layout shifts, from the start of the page. */
function observe() {
  const hw = (window.__bench = { interactions: new Map(), shifts: [] });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (!e.interactionId) continue;
      const prev = hw.interactions.get(e.interactionId);
      if (!prev || e.duration > prev.duration) hw.interactions.set(e.interactionId, { duration: e.duration, name: e.name, startTime: e.startTime });
    }
  }).observe({ type: 'event', durationThreshold: 16, buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) hw.shifts.push({ value: e.value, startTime: e.startTime, hadRecentInput: e.hadRecentInput });
  }).observe({ type: 'layout-shift', buffered: true });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Clicks `selector` and returns the interaction's duration in ms (THRESHOLD_MS - 1 when Chromium reported none: it was under the threshold).
 * The click is the mouse's, at the middle of the element found first: a
 * locator's click() also checks, inside the page's own event handlers, that
 * the element it clicks is the one hit (elementsFromPoint on every pointer
 * event, about 7 ms at 4x), which a reader's click does not do.
 */
async function timedClick(page, selector, settleMs) {
  const target = page.locator(selector).first();
  await target.scrollIntoViewIfNeeded();
  const box = await target.boundingBox();
  if (!box) throw new Error(`bench-interactions: ${selector} is not shown`);
  const before = await page.evaluate(() => [...window.__bench.interactions.keys()]);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  // The entry comes after the next paint; wait for two frames and a little more.
  const deadline = Date.now() + settleMs + 1500;
  let found = null;
  while (Date.now() < deadline) {
    await page.waitForTimeout(100);
    found = await page.evaluate((seen) => {
      const fresh = [...window.__bench.interactions.entries()].filter(([id]) => !seen.includes(id));
      return fresh.length ? Math.max(...fresh.map(([, v]) => v.duration)) : null;
    }, before);
    if (found !== null) break;
  }
  await page.waitForTimeout(settleMs); // the step's animation ends before the next click
  return found ?? THRESHOLD_MS - 1;
}

async function throttle(page, rate) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  return cdp;
}

/**
 * Runs the interactions at each CPU rate; returns rows
 * { what, rate, durations } and the layout shift after the first draw.
 */
/** Before the page's scripts: every group open (the page remembers open groups in localStorage). */
function openEveryGroup() {
  localStorage.setItem('highwater.open-groups', JSON.stringify(['tools', 'network', 'operator', 'events', 'diagram']));
}

export async function measureInteractions({ browser, base, reps = 7, rates = [1, 4], openGroups = false, cluster = false, log = () => {} }) {
  const { link, leos, hws } = cluster ? await clusterRunLink() : await bigRunLink();
  log(`big run: LEOs ${leos.join('/')}, HWs ${hws.join('/')}, link ${link.length} characters`);
  const results = [];
  let cls = 0;
  let shifts = 0;
  for (const rate of rates) {
    const settle = 400 * rate;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(observe);
    if (openGroups) await context.addInitScript(openEveryGroup);
    // The topic's bench uses Preferred, among the tools: opened, as by a reader who used it.
    else if (cluster) await context.addInitScript(() => localStorage.setItem('highwater.open-groups', JSON.stringify(['tools'])));
    const page = await context.newPage();
    await page.goto(`${base}#s=${encodeURIComponent(link)}`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForTimeout(500);
    await throttle(page, rate);
    const rows = cluster ? { produce: [], fetch: [], partition: [], preferred: [], back: [], forward: [] } : { produce: [], fetch: [], back: [], forward: [], next: [] };
    for (let i = 0; i < reps; i++) {
      rows.produce.push(await timedClick(page, '#btn-produce', settle));
      // On a topic: the first follower of the partition shown (a broker may hold no replica of it).
      rows.fetch.push(await timedClick(page, cluster ? '.broker-row button[data-action="fetch"]' : '.broker-row[data-broker="2"] button[data-action="fetch"]', settle));
      if (cluster) {
        // Another partition on the board, from the map's rows (5, then 0 again).
        rows.partition.push(await timedClick(page, `#cluster-map button.map-row[data-partition="${i % 2 ? 0 : 5}"]`, settle));
        rows.preferred.push(await timedClick(page, '#btn-elect-preferred', settle));
      }
      rows.back.push(await timedClick(page, '#btn-back', settle));
      rows.forward.push(await timedClick(page, '#btn-forward', settle));
    }
    // Layout shifts after the first draw that no input explains (CLS counts those).
    const shifted = await page.evaluate(() => {
      const first = performance.getEntriesByName('highwater:first-draw')[0];
      const from = first ? first.startTime : 0;
      const after = window.__bench.shifts.filter((s) => s.startTime > from && !s.hadRecentInput);
      return { total: after.reduce((a, s) => a + s.value, 0), count: after.length };
    });
    cls = Math.max(cls, shifted.total);
    shifts += shifted.count;
    await context.close();

    if (cluster) {
      for (const [what, durations] of Object.entries(rows)) results.push({ what, rate, durations });
      log(`CPU ${rate}x done`);
      continue;
    }
    // A tour's Next, on the tour's own run.
    const tourContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await tourContext.addInitScript(observe);
    if (openGroups) await tourContext.addInitScript(openEveryGroup);
    const tourPage = await tourContext.newPage();
    while (rows.next.length < reps) {
      await tourPage.goto(`${base}?tour=leo-and-hw`);
      await tourPage.waitForSelector('body[data-ready="true"]');
      await tourPage.waitForSelector('button[data-tour="next"]');
      await tourPage.waitForTimeout(300);
      await throttle(tourPage, rate);
      while (rows.next.length < reps && (await tourPage.locator('button[data-tour="next"]').count())) {
        rows.next.push(await timedClick(tourPage, 'button[data-tour="next"]', settle * 2));
      }
    }
    await tourContext.close();
    for (const [what, durations] of Object.entries(rows)) results.push({ what, rate, durations });
    log(`CPU ${rate}x done`);
  }
  return { results, cls, shifts, leos };
}

/**
 * A page's first clicks: the default page (the empty run) opened afresh
 * `loads` times, each left idle for 2.5 s once its controls are live (as a
 * reader takes in the page), then its first Produce and its first Fetch (on
 * broker 2), at CPU `rate`. The first call of each of the core's functions
 * compiles it: this is where that shows.
 */
export async function measureFirstClicks({ browser, base, loads = 7, rate = 4, log = () => {} }) {
  const rows = { produce: [], fetch: [] };
  for (let i = 0; i < loads; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(observe);
    const page = await context.newPage();
    await page.goto(base);
    await page.waitForSelector('body[data-ready="true"]');
    await throttle(page, rate);
    await page.waitForTimeout(2500);
    rows.produce.push(await timedClick(page, '#btn-produce', 400 * rate));
    rows.fetch.push(await timedClick(page, '.broker-row[data-broker="2"] button[data-action="fetch"]', 400 * rate));
    await context.close();
  }
  log(`first clicks at ${rate}x done`);
  return { results: Object.entries(rows).map(([what, durations]) => ({ what, rate, durations })), cls: 0, shifts: 0 };
}

const LABEL = { produce: 'Produce (Producer panel)', fetch: 'Fetch on a follower (2; a topic: the first of the partition shown)', forward: 'step forward', back: 'step back', next: "tour's Next (leo-and-hw)", partition: 'another partition (the map\'s row)', preferred: 'Preferred election' };

/** The results as a Markdown table: median and range per interaction and rate. */
export function interactionTable({ results, cls, shifts }) {
  const fmt = (d) => (d < THRESHOLD_MS ? `<${THRESHOLD_MS}` : d.toFixed(0));
  const lines = ['| interaction | CPU | median | range | runs |', '| --- | --- | --- | --- | --- |'];
  for (const r of results) {
    lines.push(`| ${LABEL[r.what]} | ${r.rate}x | ${fmt(median(r.durations))} ms | ${fmt(Math.min(...r.durations))} to ${fmt(Math.max(...r.durations))} ms | ${r.durations.map(fmt).join(' ')} |`);
  }
  lines.push('', `layout shift after the first draw (no recent input): ${cls.toFixed(4)} (${shifts} shifts)`);
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { reps: { type: 'string', default: '7' }, rates: { type: 'string', default: '1,4' }, 'open-groups': { type: 'boolean', default: false }, cluster: { type: 'boolean', default: false }, first: { type: 'boolean', default: false } } });
  const { chromium } = await import('playwright-core');
  const { serve } = await import('./serve.mjs');
  const server = await serve({ port: 0, root: path.join(ROOT, 'www') });
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  try {
    if (values.first) {
      const rate = values.rates.split(',').map(Number).filter((x) => x >= 1).at(-1) || 4;
      const out = await measureFirstClicks({ browser, base, loads: Math.max(1, Number(values.reps) || 7), rate, log: (m) => console.error(m) });
      console.log(interactionTable(out).split('\n').slice(0, -2).join('\n'));
      console.log(`\nChromium ${browser.version()} headless (--disable-gpu), ${process.platform}/${process.arch}, viewport 1280x900, the default page's first Produce and first Fetch, one of each per load`);
    } else {
      const openGroups = values['open-groups'];
      const cluster = values.cluster;
      const out = await measureInteractions({ browser, base, reps: Math.max(1, Number(values.reps) || 7), rates: values.rates.split(',').map(Number).filter((x) => x >= 1), openGroups, cluster, log: (m) => console.error(m) });
      console.log(interactionTable(out));
      const run = cluster ? `${CLUSTER.partitions} partitions on ${CLUSTER.brokers} brokers, HWs ${out.leos.join('/')}` : `${BROKERS} brokers, LEOs ${out.leos.join('/')}`;
      console.log(`\nChromium ${browser.version()} headless (--disable-gpu), ${process.platform}/${process.arch}, viewport 1280x900, ${run}, ${openGroups ? 'every group open' : 'a first visit (groups closed)'}`);
    }
  } finally {
    await browser.close();
    server.close();
  }
}

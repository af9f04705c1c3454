#!/usr/bin/env node
// Measures the web page in headless Chromium and prints a small table:
//   (a) navigation to the first drawn state (median of 5 loads),
//   (b) frame times while playing 5 brokers in timed mode with 200 records
//       drawn per log (requestAnimationFrame timestamps over a few seconds),
//   (c) the wasm file, raw and gzipped,
//   (d) the interactions on a big run (bench-interactions.mjs; --no-interactions leaves them out).
//
//   node scripts/bench-page.mjs [--seconds 5] [--reps 7] [--no-interactions]
// Needs www/pkg (make build) and Chromium (CHROMIUM, default /usr/bin/chromium).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';
import { measureInteractions, interactionTable } from './bench-interactions.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WASM = path.join(ROOT, 'www', 'pkg', 'highwater_bg.wasm');
const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, reps: { type: 'string', default: '7' }, 'no-interactions': { type: 'boolean', default: false } } });
const SECONDS = Math.max(1, Number(values.seconds) || 5);
const LOADS = 5;
const RECORDS = 200;
const BROKERS = 5;
const TAIL_STEPS = 400; // more than Play goes through in the seconds measured

if (!fs.existsSync(WASM)) {
  console.error('bench-page: www/pkg is missing; run make build first');
  process.exit(2);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/**
 * The run the frame-time part plays: 5 brokers, timed mode, 200 records
 * replicated first, then a tail of steps (a record and 200 ms of clock each)
 * that Play goes through. The page opens it where the tail starts: Play at
 * the end would rewind to step 0, where the logs are empty.
 */
async function playLink() {
  const core = await import(path.join(ROOT, 'www', 'pkg', 'highwater.js'));
  core.initSync({ module: fs.readFileSync(WASM) });
  const steps = [];
  for (let i = 0; i < RECORDS; i++) steps.push({ produce: { value: `r${i}`, acks: '1' } });
  steps.push({ advance_ms: 3000 });
  const from = steps.length;
  for (let i = 0; i < TAIL_STEPS; i++) steps.push(i % 2 ? { advance_ms: 200 } : { produce: { value: `t${i}`, acks: '1' } });
  const sim = core.Simulation.fromScenario({ version: 1, name: 'Frame-time bench', config: { brokers: BROKERS, auto_fetch: true, link_latency_ms: 40 }, steps });
  sim.seek(from);
  const state = sim.state(0, 0);
  const leos = state.brokers.map((b) => b.log_end_offset);
  const link = sim.toLink();
  sim.free();
  return { link, leos, from };
}

const server = await serve({ port: 0, root: path.join(ROOT, 'www') });
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});

try {
  // (a) Navigation to the first drawn state.
  const firstDraw = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(base);
    await page.waitForSelector('body[data-ready="true"]');
    firstDraw.push(await page.evaluate(() => performance.getEntriesByName('highwater:first-draw')[0].startTime));
    await context.close();
  }

  // (b) Frame times while playing.
  const { link, leos, from } = await playLink();
  const context = await browser.newContext({ viewport: { width: 2400, height: 1400 } });
  const page = await context.newPage();
  await page.goto(`${base}#s=${link}&at=${from}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.selectOption('#zoom', 'dense');
  const countCells = () => page.evaluate(() => [...document.querySelector('highwater-playground').shadowRoot.querySelectorAll('.broker-row')].map((r) => r.querySelectorAll('.cell').length));
  await page.click('#btn-play');
  const stamps = await page.evaluate((seconds) => new Promise((resolve) => {
    const ts = [];
    const frame = (t) => {
      ts.push(t);
      if (t - ts[0] < seconds * 1000) requestAnimationFrame(frame);
      else resolve(ts);
    };
    requestAnimationFrame(frame);
  }), SECONDS);
  const stepsPlayed = await page.locator('#position').textContent();
  const cells = await countCells(); // drawn while playing, at the last frame measured
  await page.click('#btn-play');
  await context.close();
  const frames = stamps.slice(1).map((t, i) => t - stamps[i]);
  const slow = frames.filter((f) => f > 16.7).length;
  const missed = frames.filter((f) => f > 25).length; // a vsync missed at 60 Hz

  // (c) The wasm file.
  const raw = fs.statSync(WASM).size;
  const gz = zlib.gzipSync(fs.readFileSync(WASM), { level: 9 }).length;

  const rows = [
    ['first drawn state after navigation (median of 5)', `${median(firstDraw).toFixed(0)} ms`, `loads: ${firstDraw.map((x) => x.toFixed(0)).join(', ')} ms`],
    ['frame time while playing, median', `${median(frames).toFixed(1)} ms`, `${frames.length} frames over ${SECONDS} s`],
    ['frame time while playing, p95', `${percentile(frames, 95).toFixed(1)} ms`, `${BROKERS} brokers, timed mode, records drawn per log: ${cells.join('/')}`],
    ['frames over 16.7 ms', `${((100 * slow) / frames.length).toFixed(1)} %`, 'rAF timestamps jitter around 16.67 ms at 60 Hz'],
    ['frames over 25 ms (a missed vsync)', `${((100 * missed) / frames.length).toFixed(1)} %`, `longest ${Math.max(...frames).toFixed(1)} ms; LEOs ${leos.join('/')}, timeline at ${stepsPlayed} after play (from step ${from})`],
    ['wasm size, raw', `${(raw / 1024).toFixed(0)} KiB`, `${raw} bytes`],
    ['wasm size, gzip -9', `${(gz / 1024).toFixed(0)} KiB`, `${gz} bytes`],
  ];
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  console.log(`| ${'measure'.padEnd(w0)} | ${'value'.padStart(w1)} | notes`);
  console.log(`|${'-'.repeat(w0 + 2)}|${'-'.repeat(w1 + 2)}|------`);
  for (const [a, b, c] of rows) console.log(`| ${a.padEnd(w0)} | ${b.padStart(w1)} | ${c}`);
  console.log(`\nChromium ${browser.version()} headless (--disable-gpu), ${process.platform}/${process.arch}`);

  // (d) The interactions on a big run.
  if (!values['no-interactions']) {
    const out = await measureInteractions({ browser, base, reps: Math.max(1, Number(values.reps) || 7) });
    console.log(`\nInteractions, ${out.leos.length} brokers, LEOs ${out.leos.join('/')}, viewport 1280x900 (Event Timing duration, ms)\n`);
    console.log(interactionTable(out));
  }
} finally {
  await browser.close();
  server.close();
}

// The worst-case inputs, natively and in wasm: each reproducer in
// tests/worst-case/ and each fuzz seed in tests/fuzz-seeds/ (its links, and
// files with no link twin), run with `highwater run` under /usr/bin/time
// (wall time, peak RSS, exit status), then loaded in headless Chromium as the
// page loads a link (`Simulation.fromLink` / `fromScenario`, then the trace as
// one text, the step ends, the registration refusals, the last step's last
// 2,000 events and `state()`), one fresh page per input. Wasm memory is
// the instance's `memory.buffer.byteLength` (it only grows, so it is the
// peak so far); JS heap is `performance.memory.usedJSHeapSize` with the
// events still held. Prints a markdown table. Aim: under 1 s and 200 MB
// each, or refused at once.
//
// Usage: node scripts/worst-case.mjs [--timeout SECONDS] [FILE ...]
// Needs target/release/highwater, target/release/examples/fuzz (its --decode
// turns a link into a file for `highwater run`) and www/pkg: `make bench-worst`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values, positionals } = parseArgs({ options: { timeout: { type: 'string', default: '60' } }, allowPositionals: true });
const TIMEOUT = Number(values.timeout);
const HIGHWATER = path.join(ROOT, 'target/release/highwater');
const FUZZ = path.join(ROOT, 'target/release/examples/fuzz');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-worst-'));

function defaultInputs() {
  const list = (dir) => fs.readdirSync(path.join(ROOT, dir)).sort().map((f) => path.join(dir, f));
  const seeds = list('tests/fuzz-seeds');
  const links = new Set(seeds.filter((f) => f.endsWith('.link')).map((f) => f.replace(/\.link$/, '')));
  return [
    ...list('tests/worst-case').filter((f) => f.endsWith('.json')),
    // The worst cases' links are the rows above; a file with a link twin is that link's row.
    ...seeds.filter((f) => !path.basename(f).startsWith('worst-case-')).filter((f) => f.endsWith('.link') || (f.endsWith('.json') && !links.has(f.replace(/\.json$/, '')))),
  ];
}

/** Runs a command under /usr/bin/time and `timeout`: { seconds, kib, code, stderr, timedOut }. */
function timed(args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', 'timeout', '-s', 'KILL', String(TIMEOUT), ...args], {
    cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26,
  });
  const lines = r.stderr.trimEnd().split('\n');
  const [seconds, kib] = lines.pop().split(' ').map(Number);
  const stderr = lines.filter((l) => !l.startsWith('Command ')).join('\n');
  const code = r.status;
  return { seconds, kib, code, stderr, timedOut: code === 137 || code === 124 || (r.signal ?? '') !== '' };
}

function nativeOutcome(r) {
  if (r.timedOut) return `timed out after ${TIMEOUT} s`;
  if (r.code === 0) return 'finished';
  const limit = r.stderr.match(/\(limit (MAX_\w+)\)/);
  if (r.code === 2 && limit) return `stopped at ${limit[1]}`;
  return 'refused';
}

/** `highwater run` on a file; a link is decoded first (its time and memory count too). */
function native(file) {
  let scenario = file;
  let decode = { seconds: 0, kib: 0 };
  if (file.endsWith('.link')) {
    scenario = path.join(TMP, path.basename(file) + '.json');
    const r = spawnSync(FUZZ, ['--decode', file], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
    decode = timed([FUZZ, '--decode', file]);
    if (r.status !== 0) return { ...decode, outcome: nativeOutcome(decode) };
    fs.writeFileSync(scenario, r.stdout);
  }
  const r = timed([HIGHWATER, 'run', scenario]);
  return { seconds: r.seconds + decode.seconds, kib: Math.max(r.kib, decode.kib), outcome: nativeOutcome(r) };
}

const LAUNCH = {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--enable-precise-memory-info'],
};

/** Loads one input in a fresh page, as the page loads a link or a file. */
async function wasm(browser, url, file) {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const kind = file.endsWith('.link') ? 'link' : 'scenario';
  const page = await browser.newPage();
  try {
    await page.goto(`${url}/pkg/highwater.js`);
    const run = page.evaluate(async ({ text, kind }) => {
      const { default: init, Simulation } = await import('/pkg/highwater.js');
      const exports = await init();
      const t0 = performance.now();
      let sim;
      try {
        sim = kind === 'link' ? Simulation.fromLink(text) : Simulation.fromScenario(text);
      } catch (e) {
        return { build: (performance.now() - t0) / 1000, refused: String(e.message ?? e), memory: exports.memory.buffer.byteLength };
      }
      const build = (performance.now() - t0) / 1000;
      const built = exports.memory.buffer.byteLength;
      const trace = sim.traceText();
      const lines = trace ? trace.slice(0, -1).split('\n') : [];
      sim.stepEnds();
      sim.registrationRefusals();
      sim.stepEvents(sim.length(), 2000);
      const events = lines;
      const state = sim.state(0, 200);
      const load = (performance.now() - t0) / 1000;
      const heap = performance.memory ? performance.memory.usedJSHeapSize : null;
      const out = { build, load, events: events.length, stopped: state.stopped ?? null, built, memory: exports.memory.buffer.byteLength, heap };
      sim.free();
      return out;
    }, { text, kind });
    const timeout = new Promise((resolve) => setTimeout(() => resolve({ timedOut: true }), TIMEOUT * 1000));
    return await Promise.race([run, timeout]);
  } finally {
    // A page still busy in wasm may not close: give it a moment, the caller relaunches.
    await Promise.race([page.close().catch(() => {}), new Promise((r) => setTimeout(r, 2000))]);
  }
}

function wasmOutcome(w) {
  if (w.timedOut) return `timed out after ${TIMEOUT} s`;
  if (w.refused !== undefined) return 'refused';
  const limit = w.stopped && w.stopped.match(/\(limit (MAX_\w+)\)/);
  return limit ? `stopped at ${limit[1]}` : 'finished';
}

const mb = (bytes) => (bytes === null || bytes === undefined ? '–' : `${(bytes / 1e6).toFixed(0)} MB`);
const s = (x) => (x === undefined ? '–' : `${x.toFixed(2)} s`);

const inputs = positionals.length ? positionals : defaultInputs();
const server = await serve({ port: 0, root: path.join(ROOT, 'www') });
const url = `http://127.0.0.1:${server.address().port}`;
let browser = await chromium.launch(LAUNCH);
const rows = [];
try {
  for (const file of inputs) {
    const n = native(file);
    let w;
    try {
      w = await wasm(browser, url, file);
    } catch (e) {
      w = { error: String(e.message ?? e).split('\n')[0] };
    }
    if (w.timedOut || w.error) {
      await Promise.race([browser.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
      browser = await chromium.launch(LAUNCH);
    }
    const wo = w.error ? `error: ${w.error}` : wasmOutcome(w);
    let outcome = wo === n.outcome ? n.outcome : `${n.outcome} (native) / ${wo} (wasm)`;
    if (w.refused !== undefined) outcome += `: ${w.refused.length > 70 ? w.refused.slice(0, 70) + '…' : w.refused}`;
    const bytes = fs.statSync(path.join(ROOT, file)).size;
    rows.push(`| \`${path.basename(file)}\` (${bytes.toLocaleString('en')} B) | ${s(n.seconds)} | ${mb(n.kib * 1024)} | ${s(w.build)} | ${s(w.load)} | ${mb(w.built ?? w.memory)} | ${mb(w.memory)} | ${mb(w.heap)} | ${w.events ?? '–'} | ${outcome} |`);
    console.error(`worst-case: ${file}: ${outcome}`);
  }
} finally {
  await Promise.race([browser.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
  server.close();
  fs.rmSync(TMP, { recursive: true, force: true });
}
console.log(`Worst-case inputs, ${os.cpus().length} cores; native: \`highwater run\` (a link decoded first), wall time and peak RSS; wasm: headless Chromium, a fresh page per input; time out at ${TIMEOUT} s.`);
console.log('');
console.log('| input | native time | native peak RSS | wasm: fromLink / fromScenario | wasm: + trace, state() (as the page loads) | wasm memory after fromLink | after loading | JS heap after | trace lines | outcome |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);

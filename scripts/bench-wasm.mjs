// The engine in WebAssembly (headless Chromium) against the native build on
// the same workloads: the timed produce run (src/bench.rs) and the exhaustive
// explorer on 3 brokers, Kafka 3.7, min ISR 2, acks=all, 2 records, depth 8
// (examples/bench.rs searches the same). Each side runs RUNS times, taking
// turns; the table gives the median and the range of each figure, and of the
// ratio the medians' (the machine's load moves both).
// Usage: node scripts/bench-wasm.mjs [RECORDS [RUNS]]   (after `make build`)
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const records = Number(process.argv[2] ?? 1_000_000);
const runs = Number(process.argv[3] ?? 3);
const explorer = { config: { brokers: 3, protocol: '3.7', min_insync_replicas: 2 }, depth: 8, max_produces: 2 };

execFileSync('cargo', ['build', '--quiet', '--release', '--example', 'bench'], { stdio: 'inherit' });
function nativeRun() {
  const out = execFileSync('cargo', ['run', '--quiet', '--release', '--example', 'bench', '--', String(records)], { encoding: 'utf8' });
  const figure = (label) => Number(out.match(new RegExp(`${label}\\s+(\\d+)`))[1]);
  return { events: figure('events/second'), states: figure('states/second'), generated: figure('generated/second'), distinct: figure('distinct states') };
}

const server = await serve({ port: 0, root: 'www' });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/pkg/highwater.js`);
  const wasmRun = () => page.evaluate(async ({ records, explorer }) => {
    const { default: init, benchTimedRun, explore, limits } = await import('/pkg/highwater.js');
    await init();
    let t = performance.now();
    const run = benchTimedRun(records);
    const runSeconds = (performance.now() - t) / 1000;
    t = performance.now();
    const out = explore({ ...explorer, max_states: limits().max_explorer_states }, () => true);
    const exploreSeconds = (performance.now() - t) / 1000;
    return { events: run.events / runSeconds, states: out.states / exploreSeconds, generated: out.generated / exploreSeconds, distinct: out.states, found: out.found };
  }, { records, explorer });
  const native = [], wasm = [];
  for (let i = 0; i < runs; i++) {
    native.push(nativeRun());
    wasm.push(await wasmRun());
  }
  if (wasm.some((w) => w.distinct !== native[0].distinct)) throw new Error('the wasm explorer searched another state space than the native one');
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
  const n = (x) => Math.round(x).toLocaleString('en');
  const cell = (xs) => (xs.length > 1 ? `${n(median(xs))} (${n(sorted(xs)[0])} to ${n(sorted(xs).at(-1))})` : n(xs[0]));
  const row = (name, key) => {
    const ns = native.map((r) => r[key]), ws = wasm.map((r) => r[key]);
    console.log(`| ${name} | ${cell(ns)} | ${cell(ws)} | ${(median(ws) / median(ns)).toFixed(2)} |`);
  };
  console.log(`engine: ${records.toLocaleString('en')} records, 3 brokers, auto-fetch; explorer: ${n(native[0].distinct)} distinct states, found=${wasm[0].found}; ${runs} runs each, median (range)`);
  console.log('| workload | native /s | wasm (Chromium) /s | wasm / native |');
  console.log('| --- | --- | --- | --- |');
  row('engine events', 'events');
  row('explorer distinct states', 'states');
  row('explorer states generated', 'generated');
} finally {
  await browser.close();
  server.close();
}

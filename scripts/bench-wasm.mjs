// The engine in WebAssembly (headless Chromium) against the native build on
// the same workloads: the timed produce run (src/bench.rs) and the exhaustive
// explorer on 3 brokers, Kafka 3.7, min ISR 2, acks=all, depth 8.
// Usage: node scripts/bench-wasm.mjs [RECORDS]   (after `make build`)
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const records = Number(process.argv[2] ?? 1_000_000);
const native = execFileSync('cargo', ['run', '--quiet', '--release', '--example', 'bench', '--', String(records)], { encoding: 'utf8' });
const figure = (label) => Number(native.match(new RegExp(`${label}\\s+(\\d+)`))[1]);
const nativeEvents = figure('events/second');
const nativeStates = figure('states/second');
const nativeGenerated = figure('generated/second');

const server = await serve({ port: 0, root: 'www' });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/pkg/highwater.js`);
  const wasm = await page.evaluate(async (records) => {
    const { default: init, benchTimedRun, explore, limits } = await import('/pkg/highwater.js');
    await init();
    let t = performance.now();
    const run = benchTimedRun(records);
    const runSeconds = (performance.now() - t) / 1000;
    t = performance.now();
    const out = explore({ config: { brokers: 3, protocol: '3.7', min_insync_replicas: 2 }, depth: 8, max_states: limits().max_explorer_states }, () => true);
    const exploreSeconds = (performance.now() - t) / 1000;
    return { events: run.events / runSeconds, runSeconds, states: out.states, statesPerSecond: out.states / exploreSeconds,
      generatedPerSecond: out.generated / exploreSeconds, found: out.found };
  }, records);
  const row = (name, n, w) => console.log(`| ${name} | ${Math.round(n).toLocaleString('en')} | ${Math.round(w).toLocaleString('en')} | ${(w / n).toFixed(2)} |`);
  console.log(`engine: ${records.toLocaleString('en')} records, 3 brokers, auto-fetch; explorer: ${wasm.states.toLocaleString('en')} states, found=${wasm.found}`);
  console.log('| workload | native /s | wasm (Chromium) /s | wasm / native |');
  console.log('| --- | --- | --- | --- |');
  row('engine events', nativeEvents, wasm.events);
  row('explorer distinct states', nativeStates, wasm.statesPerSecond);
  row('explorer states generated', nativeGenerated, wasm.generatedPerSecond);
} finally {
  await browser.close();
  server.close();
}

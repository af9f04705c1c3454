// The engine in WebAssembly (headless Chromium) against the native build on
// the same workloads: the timed produce run (src/boundary/bench.rs) and the exhaustive
// explorer on 3 brokers, Kafka 3.7, min ISR 2, acks=all, 2 records, depth 8
// (examples/bench.rs searches the same). Both wasm packages are measured:
// www/pkg (built for size: the page's core; the engine only, as it has no
// explorer) and www/pkg-fast (built for speed: the Web Workers that run the
// explorer and the what-if grid). Each
// side runs RUNS times, taking turns; the table gives the median and the
// range of each figure, and of the ratio the medians' (the machine's load
// moves both).
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
  // The plain explorer's part (its first line starts "explorer:"; "explorer with a quorum" comes before it).
  const part = out.slice(out.search(/^explorer:/m));
  const figure = (label) => Number((label === 'events/second' ? out : part).match(new RegExp(`${label}\\s+(\\d+)`))[1]);
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
  const wasmRun = (pkg) => page.evaluate(async ({ records, explorer, pkg }) => {
    const { default: init, benchTimedRun, explore, limits } = await import(`/${pkg}/highwater.js`);
    await init();
    let t = performance.now();
    const run = benchTimedRun(records);
    const runSeconds = (performance.now() - t) / 1000;
    if (!explore) return { events: run.events / runSeconds };
    t = performance.now();
    const out = explore({ ...explorer, max_states: limits().max_explorer_states }, () => true);
    const exploreSeconds = (performance.now() - t) / 1000;
    return { events: run.events / runSeconds, states: out.states / exploreSeconds, generated: out.generated / exploreSeconds, distinct: out.states, found: out.found };
  }, { records, explorer, pkg });
  const packages = ['pkg', 'pkg-fast'];
  const native = [], wasm = { pkg: [], 'pkg-fast': [] };
  for (let i = 0; i < runs; i++) {
    native.push(nativeRun());
    for (const pkg of packages) wasm[pkg].push(await wasmRun(pkg));
  }
  for (const pkg of packages) {
    if (wasm[pkg].some((w) => w.distinct !== undefined && w.distinct !== native[0].distinct)) throw new Error(`the wasm explorer (${pkg}) searched another state space than the native one`);
  }
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
  const n = (x) => Math.round(x).toLocaleString('en');
  const cell = (xs) => (xs.length > 1 ? `${n(median(xs))} (${n(sorted(xs)[0])} to ${n(sorted(xs).at(-1))})` : n(xs[0]));
  const row = (name, key, pkg) => {
    const ns = native.map((r) => r[key]), ws = wasm[pkg].map((r) => r[key]);
    console.log(`| ${name} | ${pkg} | ${cell(ns)} | ${cell(ws)} | ${(median(ws) / median(ns)).toFixed(2)} |`);
  };
  console.log(`engine: ${records.toLocaleString('en')} records, 3 brokers, auto-fetch; explorer: ${n(native[0].distinct)} distinct states, found=${wasm['pkg-fast'][0].found}; ${runs} runs each, median (range)`);
  console.log('| workload | wasm package | native /s | wasm (Chromium) /s | wasm / native |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const pkg of packages) {
    row('engine events', 'events', pkg);
    if (wasm[pkg][0].states === undefined) continue;
    row('explorer distinct states', 'states', pkg);
    row('explorer states generated', 'generated', pkg);
  }
} finally {
  await browser.close();
  server.close();
}

// The explorer in the page's Web Workers (www/workers/explorer.js: one
// leading, the others helping) against itself on one worker and against the
// command line on the same threads, on the explorer benchmark's search
// (3 brokers, 3.7, min ISR 2, acks=all, 2 records, depth 8). Each setting
// runs RUNS times in turns; the table gives the best distinct states/s of
// each, and checks that every run found the same states.
// Usage: node scripts/bench-explorer-workers.mjs [RUNS [WORKERS...]]   (after `make build`)
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const runs = Number(process.argv[2] ?? 3);
const counts = process.argv.length > 3 ? process.argv.slice(3).map(Number) : [1, 2, 4];
const options = { config: { brokers: 3, protocol: '3.7', min_insync_replicas: 2, auto_fetch: false }, depth: 8, max_produces: 2, max_states: 5000000 };
const args = ['explore', '--json', '--brokers', '3', '--protocol', '3.7', '--min-isr', '2', '--depth', '8', '--max-produces', '2', '--max-states', '5000000'];

execFileSync('cargo', ['build', '--quiet', '--release', '--bin', 'highwater'], { stdio: 'inherit' });
const native = (threads) => {
  const o = JSON.parse(execFileSync('target/release/highwater', [...args, '--threads', String(threads)], { encoding: 'utf8' }));
  return { states: o.states, rate: o.states_per_second };
};

const server = await serve({ port: 0, root: 'www' });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/pkg/highwater.js`);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const inPage = (workers) => page.evaluate(async ({ options, workers }) => {
    const { explore } = await import('/workers/explorer.js');
    const t = performance.now();
    const out = await explore({ ...options, workers });
    return { states: out.states, rate: out.states / ((performance.now() - t) / 1000) };
  }, { options, workers });
  const best = {};
  const note = (key, r) => {
    (best[key] ??= []).push(r);
  };
  for (let i = 0; i < runs; i++) {
    for (const w of counts) {
      note(`page, ${w} worker${w > 1 ? 's' : ''}`, await inPage(w));
      note(`command line, ${w} thread${w > 1 ? 's' : ''}`, native(w));
    }
  }
  const states = new Set(Object.values(best).flat().map((r) => r.states));
  if (states.size !== 1) throw new Error(`the runs searched different state spaces: ${[...states].join(', ')}`);
  const one = Math.max(...best['page, 1 worker'].map((r) => r.rate));
  console.log(`${[...states][0].toLocaleString('en')} distinct states each run; ${cores} cores (navigator.hardwareConcurrency); best of ${runs}\n`);
  console.log('| search | distinct states/s | against the page on 1 worker |');
  console.log('| --- | --- | --- |');
  for (const [key, rs] of Object.entries(best)) {
    const rate = Math.max(...rs.map((r) => r.rate));
    console.log(`| ${key} | ${Math.round(rate).toLocaleString('en')} | ${(rate / one).toFixed(2)}x |`);
  }
} finally {
  await browser.close();
  server.close();
}

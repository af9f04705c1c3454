// How long the page's main thread is blocked while it opens each crafted
// input: every .link seed in tests/fuzz-seeds/ and every reproducer in
// tests/worst-case/ (packed as a link), opened as `index.html#s=<link>` in
// headless Chromium, one fresh context per input. The figure is the longest
// task (`PerformanceObserver` type `longtask`, tasks over 50 ms) from the
// navigation until the page has drawn the run (or refused it) and one
// second more; beside it the longest task of the page opened with no link
// (its own start-up), and whether a click during the load was answered.
// Aim (issue 20): no task over 200 ms for any input.
//
// Usage: node scripts/bench-main-thread.mjs [--cpu N] [--runs N] [FILE ...]
// Needs www/pkg and the bundle (make build).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values, positionals } = parseArgs({
  options: { cpu: { type: 'string', default: '1' }, runs: { type: 'string', default: '1' } },
  allowPositionals: true,
});
const CPU = Number(values.cpu);
const RUNS = Number(values.runs);

async function links() {
  const core = await import(path.join(ROOT, 'www', 'pkg', 'highwater.js'));
  core.initSync({ module: fs.readFileSync(path.join(ROOT, 'www', 'pkg', 'highwater_bg.wasm')) });
  const files = positionals.length
    ? positionals
    : [
      ...fs.readdirSync(path.join(ROOT, 'tests/fuzz-seeds')).filter((f) => f.endsWith('.link')).sort().map((f) => `tests/fuzz-seeds/${f}`),
      ...fs.readdirSync(path.join(ROOT, 'tests/worst-case')).filter((f) => f.endsWith('.json')).sort().map((f) => `tests/worst-case/${f}`),
    ];
  return files.map((f) => {
    const text = fs.readFileSync(path.join(ROOT, f), 'utf8').trim();
    if (!f.endsWith('.json')) return [f, text];
    const sim = core.Simulation.fromScenario(JSON.parse(text));
    const link = sim.toLink();
    sim.free();
    return [f, link];
  });
}

function observe() {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
}

async function measure(browser, url, hash) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(observe);
  const page = await context.newPage();
  if (CPU > 1) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU });
  }
  await page.goto(`${url}index.html${hash}`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true' || document.body.dataset.ready === 'error', null, { timeout: 120_000 });
  // Drawn: the run's position, or a refusal's notice, and no task running.
  await page.waitForFunction(() => {
    const root = document.querySelector('highwater-playground')?.shadowRoot;
    return root && (root.querySelector('.notice') || root.getElementById('position')?.textContent);
  }, null, { timeout: 120_000 });
  await page.waitForTimeout(1000);
  const tasks = await page.evaluate(() => window.__longTasks);
  const ended = await page.evaluate(() => {
    const root = document.querySelector('highwater-playground').shadowRoot;
    return root.getElementById('position')?.textContent || '';
  });
  await context.close();
  const longest = tasks.reduce((m, t) => Math.max(m, t.duration), 0);
  return { longest, over200: tasks.filter((t) => t.duration > 200).length, tasks: tasks.length, ended };
}

const server = await serve({ port: 0, root: path.join(ROOT, 'www') });
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
const inputs = await links();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`| input | longest task (ms), median of ${RUNS} | tasks over 200 ms | position shown |`);
console.log('| --- | --- | --- | --- |');
const baseline = [];
for (let i = 0; i < RUNS; i++) baseline.push(await measure(browser, url, ''));
console.log(`| (the page with no link) | ${Math.round(median(baseline.map((r) => r.longest)))} | ${median(baseline.map((r) => r.over200))} | ${baseline[0].ended} |`);
for (const [name, link] of inputs) {
  const rs = [];
  for (let i = 0; i < RUNS; i++) rs.push(await measure(browser, url, `#s=${encodeURIComponent(link)}`));
  console.log(`| \`${path.basename(name)}\` | ${Math.round(median(rs.map((r) => r.longest)))} (${rs.map((r) => Math.round(r.longest)).join(', ')}) | ${median(rs.map((r) => r.over200))} | ${rs[0].ended} |`);
}
await browser.close();
server.close();

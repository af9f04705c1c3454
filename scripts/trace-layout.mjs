#!/usr/bin/env node
// Counts the style and layout work of the big run's interactions from a
// Chromium trace (devtools.timeline): for Produce, Fetch on a follower, step
// back and step forward, the elements whose style was recomputed
// (UpdateLayoutTree's elementCount), the layout objects that needed layout
// (Layout's dirtyObjects) and the number of layouts, summed over the events
// from the click to the second frame after it (the step's paint, then the
// animation's setup). Counts, not times: they hold from one run
// to the next on a busy machine, where the durations of
// bench-interactions.mjs do not.
//
//   node scripts/trace-layout.mjs [--reps 3] [--zoom normal|compact|dense]
// Needs www/pkg (make build) and Chromium (CHROMIUM, default /usr/bin/chromium).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bigRunLink, BROKERS } from './bench-interactions.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const CLICKS = [
  ['Produce', '#btn-produce'],
  ['Fetch on follower 2', '.broker-row[data-broker="2"] button[data-action="fetch"]'],
  ['step back', '#btn-back'],
  ['step forward', '#btn-forward'],
];

/** Sums the style and layout events of the page's frame (the one with the most layout objects; not a frame of the browser's own). */
function count(events) {
  const sum = { styled: 0, dirty: 0, layouts: 0 };
  const layouts = events.filter((e) => e.ph === 'X' && e.name === 'Layout' && e.args?.beginData);
  const main = layouts.reduce((best, e) => ((e.args.beginData.totalObjects || 0) > (best?.args.beginData.totalObjects || 0) ? e : best), null)?.args.beginData.frame;
  for (const e of events) {
    if (e.ph !== 'X' || e.args?.beginData?.frame !== main) continue;
    if (e.name === 'UpdateLayoutTree') sum.styled += e.args.elementCount || 0;
    if (e.name === 'Layout') {
      sum.dirty += e.args.beginData.dirtyObjects || 0;
      sum.layouts += 1;
    }
  }
  return sum;
}

async function traced(page, cdp, selector) {
  const events = [];
  const onData = (d) => events.push(...d.value);
  cdp.on('Tracing.dataCollected', onData);
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] }, transferMode: 'ReportEvents' });
  await page.locator(selector).first().click();
  // Two frames: the step's paint; the animation's setup comes after it.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await cdp.send('Tracing.end');
  await done;
  cdp.off('Tracing.dataCollected', onData);
  await page.waitForTimeout(800); // the step's animation ends before the next click
  return count(events);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { reps: { type: 'string', default: '3' }, zoom: { type: 'string', default: 'normal' } } });
  const reps = Math.max(1, Number(values.reps) || 3);
  const { chromium } = await import('playwright-core');
  const { serve } = await import('./serve.mjs');
  const server = await serve({ port: 0, root: path.join(ROOT, 'www') });
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const { link, leos } = await bigRunLink();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}#s=${encodeURIComponent(link)}`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.locator('#zoom').evaluate((el, value) => { el.value = value; el.dispatchEvent(new Event('change')); }, values.zoom);
    await page.waitForTimeout(500);
    const cells = await page.locator('.broker-row[data-broker="1"] .cell').count();
    const cdp = await context.newCDPSession(page);
    const rows = new Map(CLICKS.map(([what]) => [what, []]));
    for (let i = 0; i < reps; i++) for (const [what, selector] of CLICKS) rows.get(what).push(await traced(page, cdp, selector));
    console.log('| interaction | elements styled | layout objects dirty | layouts |');
    console.log('| --- | --- | --- | --- |');
    const runs = (list, key) => list.map((r) => r[key]).join(' / ');
    for (const [what, list] of rows) console.log(`| ${what} | ${runs(list, 'styled')} | ${runs(list, 'dirty')} | ${runs(list, 'layouts')} |`);
    console.log(`\nChromium ${browser.version()} headless, viewport 1280x900, ${BROKERS} brokers, LEOs ${leos.join('/')}, ${reps} runs each (a first visit), ${values.zoom} cells (${cells} in a row)`);
  } finally {
    await browser.close();
    server.close();
  }
}

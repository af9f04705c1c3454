#!/usr/bin/env node
// What a reader of a docs page moves over the network for Highwater: bytes
// transferred (gzip, as scripts/serve.mjs --gzip serves the built www/; with
// --brotli, brotli as it serves by default), requests,
// and the five largest files, for each of these pages:
//
//   one element         <highwater-playground scenario="kip101-loss-after-restart" step="8">
//   a tour, a question  <highwater-playground tour="leo-and-hw" step="N">, N its first question, until its choices show
//   the same, no question  the same tour with its questions taken out (the tour file answered without them)
//   the tour, answers from a worker  as "a tour, a question" with www/tour-answers/ missing (the page then checks the tour in a worker, as before the build wrote them)
//   three elements      three gallery scenarios on one page, each scrolled into view
//
// Each page in a fresh browser context (no cache), until its elements are
// ready and the network has been idle for 500 ms. Bytes are what came over
// the wire (`request.sizes()`: headers and the encoded body), the workers'
// requests included.
//
//   node scripts/weight.mjs [--json FILE] [--brotli]     after make build
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WWW = path.join(ROOT, 'www');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TOUR = 'leo-and-hw';

const page = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Docs</title>
<script type="module" src="./bundle/highwater-playground.js"></script></head><body>
<h1>Kafka replication</h1><p>A lesson.</p>
${body}
</body></html>`;

const tourData = JSON.parse(fs.readFileSync(path.join(WWW, 'tours', `${TOUR}.json`), 'utf8'));
const question = tourData.parts.flatMap((p) => p.stops).findIndex((s) => s.predict) + 1;
const withoutQuestions = structuredClone(tourData);
for (const part of withoutQuestions.parts) for (const stop of part.stops) delete stop.predict;

const CASES = [
  { name: 'one element', html: page('<highwater-playground scenario="kip101-loss-after-restart" step="8"></highwater-playground>'), count: 1 },
  { name: 'a tour, a question', html: page(`<highwater-playground tour="${TOUR}" step="${question}"></highwater-playground>`), count: 1, choices: true },
  {
    name: 'the same tour, no question',
    html: page(`<highwater-playground tour="${TOUR}" step="${question}"></highwater-playground>`),
    count: 1,
    routes: { [`tours/${TOUR}.json`]: JSON.stringify(withoutQuestions) },
  },
  {
    name: 'a tour, a question, answers from a worker',
    html: page(`<highwater-playground tour="${TOUR}" step="${question}"></highwater-playground>`),
    count: 1,
    choices: true,
    missing: [`tour-answers/${TOUR}.json`],
  },
  {
    name: 'three elements',
    html: page(['kip101-loss-after-restart', 'unclean-election-loss', 'isr-shrink-and-expand']
      .map((id, i) => `<highwater-playground scenario="${id}" step="${3 + i}"></highwater-playground><p style="height:900px">Text.</p>`).join('\n')),
    count: 3,
  },
];

async function measure(browser, url, c) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route(`${url}docs.html`, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: c.html }));
  for (const [file, body] of Object.entries(c.routes || {})) await context.route(`${url}${file}`, (route) => route.fulfill({ contentType: 'application/json', body }));
  for (const file of c.missing || []) await context.route(`${url}${file}`, (route) => route.fulfill({ status: 404, body: '' }));
  const p = await context.newPage();
  // Every request of the context: the page's and its workers'.
  const responses = [];
  context.on('requestfinished', (r) => responses.push(r));
  await p.goto(`${url}docs.html`);
  const hosts = p.locator('highwater-playground');
  for (let i = 0; i < c.count; i++) {
    await hosts.nth(i).scrollIntoViewIfNeeded();
    await p.waitForFunction((el) => el.dataset.ready === 'true', await hosts.nth(i).elementHandle(), { timeout: 60000 });
  }
  if (c.choices) await p.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#tour button[data-tour="choice"]:not([disabled])'), null, { timeout: 60000 });
  // Quiet for 500 ms: whatever the page still fetches is counted.
  for (let last = -1; last !== responses.length; ) {
    last = responses.length;
    await p.waitForTimeout(500);
  }
  const files = [];
  for (const r of responses) {
    const s = await r.sizes();
    files.push({ path: new URL(r.url()).pathname, bytes: s.responseHeadersSize + s.responseBodySize });
  }
  await context.close();
  const bytes = files.reduce((a, f) => a + f.bytes, 0);
  return { name: c.name, bytes, requests: files.length, largest: files.sort((a, b) => b.bytes - a.bytes).slice(0, 5) };
}

const { values } = parseArgs({ options: { json: { type: 'string' }, brotli: { type: 'boolean', default: false } } });
const server = await serve({ port: 0, root: WWW, encodings: values.brotli ? ['br', 'gzip'] : ['gzip'] });
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const results = [];
try {
  for (const c of CASES) results.push(await measure(browser, url, c));
} finally {
  await browser.close();
  server.close();
}
const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
const exact = (n) => n.toLocaleString("en-US");
console.log(`| page | bytes (${values.brotli ? 'brotli' : 'gzip'}, headers included) | requests | largest |`);
console.log('| --- | ---: | ---: | --- |');
for (const r of results) console.log(`| ${r.name} | ${exact(r.bytes)} | ${r.requests} | ${r.largest.slice(0, 3).map((f) => `${f.path} ${kb(f.bytes)}`).join(', ')} |`);
const q = results.find((r) => r.name === 'a tour, a question');
const none = results.find((r) => r.name === 'the same tour, no question');
console.log(`\na question costs ${(100 * (q.bytes - none.bytes) / none.bytes).toFixed(1)} % over the same tour without one`);
if (values.json) fs.writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);

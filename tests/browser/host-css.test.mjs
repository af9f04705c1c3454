// The host page's CSS does not reach in: a right-to-left host (`dir=rtl`),
// rules on the element's own selector (which beat `:host`), and a root font
// size of 62.5% leave the element's layout (the boxes of its key parts) and
// its computed font sizes as on a bare page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, RESULTS, ALL_GROUPS, scenarioLink } from './harness.mjs';

let env;
let link;
before(async () => {
  env = await setup();
  link = await scenarioLink('kip101-loss-after-restart');
});
after(async () => env && env.close());

const HOSTILE = `<style>
  html { font-size: 62.5%; }
  highwater-playground { color: red; display: block; font: 30px serif; letter-spacing: 3px; line-height: 3; text-transform: uppercase; text-align: right; word-spacing: 9px; }
</style>`;

async function hostPage({ head = '', dir = null }) {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 1000 }, reducedMotion: 'reduce' });
  // Every panel open (they are drawn only when open), so that each part can be compared.
  await context.addInitScript((names) => localStorage.setItem('highwater.open-groups', JSON.stringify(names)), ALL_GROUPS);
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  const url = `${env.url}host-css-page.html`;
  await page.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"${dir ? ` dir="${dir}"` : ''}><head><meta charset="utf-8"><title>Docs</title>${head}
<script type="module" src="./highwater-playground.js"></script></head><body style="margin:0"><highwater-playground id="a" scenario="${link}" step="12" controls="full"></highwater-playground></body></html>`,
  }));
  await page.goto(url);
  await page.waitForSelector('#a[data-ready="true"]');
  return page;
}

/** Boxes of the element's key parts (relative to it) and computed font sizes. */
function layout() {
  const host = document.getElementById('a');
  const root = host.shadowRoot;
  const o = host.getBoundingClientRect();
  const out = {};
  const parts = ['#scenario-name', '#btn-play', '#btn-start', '#timeline', '#position', '#caption', '.broker-row[data-broker="1"]', '.broker-row[data-broker="1"] .cell', '.broker-row[data-broker="1"] .marker-hw', '#producer', '#consumer', '.operator-view', '.operator-metrics', '#event-log', '#btn-tours', '#lang'];
  for (const sel of parts) {
    const el = root.querySelector(sel);
    if (!el) { out[sel] = null; continue; }
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    out[sel] = { box: [r.left - o.left, r.top - o.top, r.width, r.height].map(Math.round), font: cs.fontSize, family: cs.fontFamily, colour: cs.color, spacing: cs.letterSpacing, transform: cs.textTransform, direction: cs.direction };
  }
  // The position reads "12 / 19" left to right.
  const pos = root.getElementById('position');
  const range = document.createRange();
  range.setStart(pos.firstChild, 0);
  range.setEnd(pos.firstChild, 2);
  out.firstNumberLeft = Math.round(range.getBoundingClientRect().left - pos.getBoundingClientRect().left);
  return out;
}

test('a right-to-left host, rules on the element selector and a 62.5% root font size leave the element as on a bare page', async () => {
  const bare = await hostPage({});
  // Ready is the first draw; a panel's part may come a frame later (under a
  // loaded machine it once had not): wait until every part is drawn.
  await bare.waitForFunction((source) => Object.values(new Function(`return ${source}`)()()).every((v) => v !== null), layout.toString(), { timeout: 10_000 }).catch(() => {});
  const expected = await bare.evaluate(layout);
  await bare.context().close();
  assert.ok(Object.values(expected).every((v) => v !== null), 'every part is drawn');
  fs.mkdirSync(RESULTS, { recursive: true });
  for (const [name, options] of [['rtl', { dir: 'rtl' }], ['element-rules', { head: HOSTILE }], ['all', { dir: 'rtl', head: HOSTILE }]]) {
    const page = await hostPage(options);
    await page.locator('#a').screenshot({ path: path.join(RESULTS, `host-css-${name}.png`) });
    assert.deepEqual(await page.evaluate(layout), expected, name);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

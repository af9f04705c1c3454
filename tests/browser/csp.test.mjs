// The element under a strict Content-Security-Policy and under Trusted Types:
// the same figure as without (records, HW/LEO markers and ticks at the same
// places), no policy violation, and the exports work. The policies are the
// ones docs/embedding.md states; the host page is served with them as headers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, RESULTS, scenarioLink } from './harness.mjs';

/** What docs/embedding.md says the element needs. */
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' blob:";
/** The policy the issue was reported under: everything but the PNG export works. */
const WITHOUT_BLOB = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
const TRUSTED_TYPES = `${STRICT_CSP}; require-trusted-types-for 'script'; trusted-types highwater`;

let env;
let link;
before(async () => {
  env = await setup();
  link = await scenarioLink('kip101-loss-after-restart');
});
after(async () => env && env.close());

/** Every violation the page reports, collected before any of its scripts run. */
const LISTEN = `window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sample || '') + ' ' + (e.sourceFile || '') + ':' + e.lineNumber), true);`;

/** A host page with the element (served with `csp` as its header, when given). */
async function hostPage(csp, attributes) {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 1000 }, reducedMotion: 'reduce', acceptDownloads: true });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.addInitScript(LISTEN);
  const url = `${env.url}csp-host-page.html`;
  await page.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    headers: csp ? { 'Content-Security-Policy': csp } : {},
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs</title>
<script type="module" src="./highwater-playground.js"></script></head><body><highwater-playground id="a" ${attributes}></highwater-playground></body></html>`,
  }));
  await page.goto(url);
  await page.waitForSelector('#a[data-ready]', { timeout: 15000 });
  return page;
}

/** Where records, markers and ticks are, relative to the element (rounded to a pixel). */
function figure() {
  const host = document.getElementById('a');
  const origin = host.getBoundingClientRect();
  const out = {};
  for (const el of host.shadowRoot.querySelectorAll('.broker-row .cell, .broker-row .marker, .ruler .tick')) {
    const row = el.closest('[data-broker]');
    const what = el.classList.contains('tick') ? `tick ${el.textContent}` : el.classList.contains('marker') ? `marker ${el.dataset.marker || el.dataset.remoteMarker}` : `cell ${el.querySelector('.cell-offset').textContent}`;
    const r = el.getBoundingClientRect();
    out[`${row ? `broker ${row.dataset.broker}` : 'ruler'} ${what}`] = [Math.round(r.left - origin.left), Math.round(r.top - origin.top), Math.round(r.width)];
  }
  return out;
}

/** Opens the Tools group (collapsed on a first visit) where Export is. */
async function openTools(inside) {
  if (await inside.locator('#btn-tools').getAttribute('aria-expanded') === 'false') await inside.locator('#btn-tools').click();
}

async function exportFile(page, kind) {
  const inside = page.locator('#a');
  await openTools(inside);
  await inside.locator('#export-menu summary').click();
  const [download] = await Promise.all([page.waitForEvent('download'), inside.locator(`#export-menu button[data-export="${kind}"]`).click()]);
  return fs.readFileSync(await download.path());
}

test('a strict CSP and Trusted Types draw the same figure as no policy, with no violation, and the PNG export works', async () => {
  const attributes = `scenario="${link}" step="12" controls="full"`;
  const plain = await hostPage(null, attributes);
  const expected = await plain.evaluate(figure);
  assert.ok(Object.keys(expected).filter((k) => k.includes('cell')).length >= 6, 'records are drawn');
  assert.ok(new Set(Object.entries(expected).filter(([k]) => k.includes('cell')).map(([, v]) => v[0])).size >= 2, 'records at several offsets');
  await plain.context().close();
  fs.mkdirSync(RESULTS, { recursive: true });
  for (const [name, csp] of [['csp', STRICT_CSP], ['trusted-types', TRUSTED_TYPES]]) {
    const page = await hostPage(csp, attributes);
    assert.equal(await page.getAttribute('#a', 'data-ready'), 'true', `${name}: drawn`);
    assert.deepEqual(await page.evaluate(figure), expected, `${name}: records, markers and ticks where they are without a policy`);
    await page.locator('#a').screenshot({ path: path.join(RESULTS, `csp-${name}.png`) });
    const png = await exportFile(page, 'moment_png');
    assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], `${name}: the moment as a PNG`);
    const diagram = await exportFile(page, 'diagram_png');
    assert.deepEqual([...diagram.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], `${name}: the diagram as a PNG`);
    // The search runs in a worker, whose URL Trusted Types check.
    const inside = page.locator('#a');
    await inside.locator('#btn-explore').click();
    await inside.locator('#explore-form [name="depth"]').fill('3');
    await inside.locator('#btn-explore-start').click();
    await inside.locator('#explore-result:not([hidden]), #banner .banner').first().waitFor({ timeout: 60000 });
    assert.equal(await inside.locator('#explore-result.error, #explore-result[data-kind="error"]').count(), 0, `${name}: the search ran`);
    assert.deepEqual(await page.evaluate(() => window.__violations), [], `${name}: no violation`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('without img-src blob: the figure is the same and the PNG export says the policy refused it', async () => {
  const attributes = `scenario="${link}" step="12" controls="full"`;
  const plain = await hostPage(null, attributes);
  const expected = await plain.evaluate(figure);
  await plain.context().close();
  const page = await hostPage(WITHOUT_BLOB, attributes);
  assert.deepEqual(await page.evaluate(figure), expected);
  assert.deepEqual(await page.evaluate(() => window.__violations), [], 'no violation before an export');
  const inside = page.locator('#a');
  await openTools(inside);
  await inside.locator('#export-menu summary').click();
  await inside.locator('#export-menu button[data-export="moment_png"]').click();
  const note = inside.locator('#notices .notice-error');
  await note.waitFor();
  assert.match(await note.textContent(), /This moment \(PNG\): this page's Content-Security-Policy does not allow images from blob: URLs \(img-src blob:\)/);
  const svg = await exportFile(page, 'moment_svg');
  assert.match(svg.toString('utf8'), /^<\?xml/, 'the SVG export works');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the page itself (index.html and ?embed) runs under the strict CSP with no violation', async () => {
  for (const query of ['', '?embed']) {
    const context = await env.browser.newContext({ viewport: { width: 800, height: 500 }, reducedMotion: 'reduce' });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.addInitScript(LISTEN);
    await page.route(`${env.url}${query}`, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': TRUSTED_TYPES } });
    });
    await page.goto(`${env.url}${query}#s=${link}&at=8`);
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.locator('#position').textContent(), '8 / 19');
    assert.equal(await page.locator('#root').evaluate((el) => el.classList.contains('compact')), query === '?embed', `${query || 'the page'}: its size`);
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).marginTop), '0px', 'the page style sheet applies');
    assert.deepEqual(await page.evaluate(() => window.__violations), [], `${query || 'the page'}: no violation`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('the markup built without an HTML parser is the tree the parser makes of it', async () => {
  const page = await hostPage(null, 'scenario="hw-is-min-isr-leo"');
  const same = await page.evaluate(async () => {
    const { MARKUP, markupFragment } = await import('./element/template.js');
    const parsed = document.createElement('template');
    parsed.innerHTML = MARKUP;
    const text = (f) => { const d = document.createElement('div'); d.append(f); return d.innerHTML; };
    return [text(markupFragment()), text(parsed.content)];
  });
  assert.equal(same[0], same[1]);
  await page.context().close();
});

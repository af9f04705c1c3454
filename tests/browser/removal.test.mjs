// An element removed at any moment (while its core, locale, gallery or tour
// loads, while it autoplays) leaves nothing behind in the host page: no
// unhandled rejection, no error; and the module adds no global to the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => env && env.close());

const LISTEN = `window.__leaks = [];
window.addEventListener('unhandledrejection', (e) => window.__leaks.push('unhandledrejection: ' + (e.reason && e.reason.stack || e.reason)));
window.addEventListener('error', (e) => window.__leaks.push('error: ' + e.message));`;

async function hostPage() {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'no-preference' });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.addInitScript(LISTEN);
  const url = `${env.url}removal-host-page.html`;
  await page.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs</title><script type="module" src="./highwater-playground.js"></script></head><body><main id="m"></main></body></html>',
  }));
  await page.goto(url);
  await page.waitForFunction(() => customElements.get('highwater-playground'));
  return page;
}

const CASES = [
  ['a gallery scenario', { scenario: 'kip101-loss-after-restart', step: '3' }],
  ['a tour', { tour: 'leo-and-hw', step: '2' }],
  ['autoplay', { scenario: 'kip101-loss-after-restart', step: '0', autoplay: '' }],
  ['a tour with autoplay', { tour: 'hw-truncation-loss', step: '3', autoplay: '' }],
];
const DELAYS_MS = [0, 1, 10, 50, 200, 600, 1500];

test('an element removed at any moment of its loading or autoplay throws nothing into the host page', async () => {
  const page = await hostPage();
  for (const [name, attrs] of CASES) {
    for (const delay of DELAYS_MS) {
      await page.evaluate(async ({ attrs, delay }) => {
        const el = document.createElement('highwater-playground');
        for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
        document.getElementById('m').append(el);
        await new Promise((r) => setTimeout(r, delay));
        el.remove();
      }, { attrs, delay });
    }
    // Whatever it was doing settles: its fetches end and its timers run out.
    await page.waitForLoadState('networkidle');
    await page.evaluate(() => new Promise((r) => setTimeout(r, 1200)));
    assert.deepEqual(await page.evaluate(() => window.__leaks), [], name);
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('attributes changed while an element loads throw nothing into the host page', async () => {
  const page = await hostPage();
  for (const delay of [0, 5, 20, 80, 300]) {
    await page.evaluate(async (delay) => {
      const el = document.createElement('highwater-playground');
      el.setAttribute('scenario', 'kip101-loss-after-restart');
      el.setAttribute('height', '150px'); // all in view, so all load
      document.getElementById('m').append(el);
      await new Promise((r) => setTimeout(r, delay));
      el.setAttribute('step', '4');
      el.setAttribute('autoplay', '');
      el.setAttribute('fork', 'acks@8=1');
      el.setAttribute('controls', 'full');
    }, delay);
  }
  await page.waitForFunction(() => [...document.querySelectorAll('highwater-playground')].every((el) => el.dataset.ready));
  await page.waitForLoadState('networkidle');
  assert.deepEqual(await page.evaluate(() => window.__leaks), []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the module adds no global to the host page', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const url = `${env.url}globals-host-page.html`;
  await page.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: '<!doctype html><html><head><meta charset="utf-8"><title>x</title></head><body><highwater-playground scenario="hw-is-min-isr-leo"></highwater-playground><script type="module" src="./highwater-playground.js"></script></body></html>' }));
  await page.goto(url);
  await page.waitForSelector('highwater-playground[data-ready="true"]');
  assert.deepEqual(await page.evaluate(() => Object.getOwnPropertyNames(globalThis).filter((k) => /highwater/i.test(k))), []);
  // Its one mark: the core shared by the bundle's copy of core.js and the JS API's, under a
  // registered symbol, not enumerable, not writable (docs/embedding.md).
  assert.deepEqual(await page.evaluate(() => Object.getOwnPropertySymbols(globalThis).map((s) => {
    const d = Object.getOwnPropertyDescriptor(globalThis, s);
    return { key: Symbol.keyFor(s) ?? s.description, enumerable: d.enumerable, writable: d.writable, configurable: d.configurable };
  })), [{ key: 'highwater.core', enumerable: false, writable: false, configurable: false }]);
  // The tests' locale check asks an element instead.
  assert.deepEqual(await page.evaluate(() => document.querySelector('highwater-playground').missingKeys()), []);
  await context.close();
});

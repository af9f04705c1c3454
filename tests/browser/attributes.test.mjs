// The element's attributes and failures say what they do: a removed height
// gives back the old height; a step past the end opens the end and says so;
// a scenario attribute that cannot be opened keeps the run and says that; a
// core that cannot be fetched (with the locales and styles gone too) is a
// sentence in English and a logo of its size, not raw keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, ROOT } from './harness.mjs';

/** Every key of the English tables of the page's words (ui.json and the bundles its dialogs fetch), as t() names them. */
function localeKeys() {
  const out = [];
  const walk = (o, prefix) => {
    for (const [k, v] of Object.entries(o)) {
      if (v && typeof v === 'object' && !('other' in v)) walk(v, `${prefix}${k}.`);
      else out.push(`${prefix}${k}`);
    }
  };
  for (const bundle of ['ui', 'gallery', 'glossary', 'rules', 'writer']) {
    walk(JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'locales', 'en', `${bundle}.json`), 'utf8')), bundle === 'ui' ? '' : `${bundle}.`);
  }
  return out;
}

let env;
before(async () => { env = await setup(); });
after(async () => env && env.close());

async function hostPage(body, { block = null } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  if (block) await page.route(block, (route) => route.abort());
  const url = `${env.url}attributes-host-page.html`;
  await page.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs</title><script type="module" src="./highwater-playground.js"></script></head><body>${body}</body></html>`,
  }));
  await page.goto(url);
  return page;
}

const inside = (page, selector) => page.locator('#a').locator(selector);

test('height is the most the element takes (shorter boards leave no band); removing it gives back the height it had', async () => {
  const page = await hostPage('<highwater-playground id="a" scenario="hw-is-min-isr-leo"></highwater-playground>');
  await page.waitForSelector('#a[data-ready="true"]');
  const natural = (await page.locator('#a').boundingBox()).height;
  await page.evaluate(() => document.getElementById('a').setAttribute('height', '300px'));
  assert.equal((await page.locator('#a').boundingBox()).height, 300);
  await page.evaluate(() => document.getElementById('a').removeAttribute('height'));
  assert.equal((await page.locator('#a').boundingBox()).height, natural);
  assert.equal(await page.evaluate(() => document.getElementById('a').getAttribute('style')), '', 'nothing of it left inline');
  // A height above the board's: the element fits the board, no blank band below it.
  await page.evaluate((h) => document.getElementById('a').setAttribute('height', `${h + 400}px`), natural);
  assert.equal((await page.locator('#a').boundingBox()).height, natural);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a step past the end opens the last step and says so; a tour step past the end opens its last', async () => {
  const page = await hostPage('<highwater-playground id="a" scenario="kip101-loss-after-restart" step="99999"></highwater-playground>');
  await page.waitForSelector('#a[data-ready="true"]');
  assert.equal(await inside(page, '#position').textContent(), '19 / 19');
  const note = await inside(page, '#notices').textContent();
  assert.match(note, /asks for step 99,999, but the run has 19 steps; showing the end/);
  assert.doesNotMatch(note, /not a (step )?number/);
  await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<highwater-playground id="b" tour="leo-and-hw" step="99999"></highwater-playground>'));
  const b = page.locator('#b');
  await b.locator('[data-testid="tour-count"]').waitFor();
  const [n, total] = (await b.locator('[data-testid="tour-count"]').textContent()).match(/\d+/g).map(Number);
  assert.equal(n, total, 'the last stop of the tour');
  await b.locator('#notices .notice', { hasText: `asks for tour step 99,999, but this tour has ${total} steps` }).waitFor();
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the page: ?tour= with a step past the end opens the tour at its last step, saying so', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  await page.goto(`${env.url}?tour=leo-and-hw&step=99999`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.locator('[data-testid="tour-count"]').waitFor();
  const [n, total] = (await page.locator('[data-testid="tour-count"]').textContent()).match(/\d+/g).map(Number);
  assert.equal(n, total);
  const notes = await page.locator('#notices').textContent();
  assert.match(notes, new RegExp(`asks for tour step 99,999, but this tour has ${total} steps; showing the last`));
  await context.close();
});

test('switching scenario to an id that does not exist keeps the run shown, and says so', async () => {
  const page = await hostPage('<highwater-playground id="a" scenario="kip101-loss-after-restart" step="8"></highwater-playground>');
  await page.waitForSelector('#a[data-ready="true"]');
  const name = await inside(page, '#embed-name').textContent();
  await page.evaluate(() => document.getElementById('a').setAttribute('scenario', 'no-such-scenario'));
  const note = inside(page, '#notices .notice-error');
  await note.waitFor();
  assert.match(await note.textContent(), /there is no gallery scenario “no-such-scenario”\. The run shown before stays\./);
  assert.doesNotMatch(await note.textContent(), /fresh playground/);
  assert.equal(await inside(page, '#position').textContent(), '8 / 19', 'the run kept');
  assert.equal(await inside(page, '#embed-name').textContent(), name);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a core that cannot be fetched, with the locales and styles gone too: an English sentence, no raw keys, a logo of its size', async () => {
  // The first frames too: with nothing to draw, the element says why where the scenario's name would be.
  const page = await hostPage('<highwater-playground id="a" scenario="hw-is-min-isr-leo" controls="full"></highwater-playground>', { block: /\.(wasm|css)$|\/locales\/|\/first-frames\// });
  await page.waitForSelector('#a[data-ready="error"]');
  assert.equal(await inside(page, '#scenario-name').textContent(), 'The simulation core could not be loaded');
  assert.match(await inside(page, '#scenario-description').textContent(), /Build it with “make build” and reload\./);
  const keys = await page.evaluate((all) => {
    const known = new Set(all);
    const root = document.getElementById('a').shadowRoot;
    return [...root.querySelectorAll('*')].flatMap((el) => [el.childElementCount ? '' : el.textContent.trim(), el.getAttribute('aria-label') || '', el.getAttribute('title') || '']).filter((s) => known.has(s));
  }, localeKeys());
  assert.deepEqual(keys, [], 'no locale key shown as text');
  const logo = await inside(page, 'svg.logo').boundingBox();
  assert.ok(logo.width <= 40 && logo.height <= 40, `logo ${logo.width}x${logo.height}`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a core that fails after the first frame is drawn: the frame stays, the notice says why, data-ready is "error"', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  // The core's download is held until the frame is on the board, then refused.
  let held;
  const heldRoute = new Promise((resolve) => { held = resolve; });
  await page.route(/\.wasm$/, (route) => held(route));
  const url = `${env.url}attributes-host-page.html`;
  await page.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs</title><script type="module" src="./highwater-playground.js"></script></head><body><highwater-playground id="a" scenario="hw-is-min-isr-leo"></highwater-playground></body></html>',
  }));
  await page.goto(url);
  await page.waitForSelector('#a[data-ready="frame"]');
  const name = await inside(page, '#scenario-name').textContent();
  const position = await inside(page, '#position').textContent();
  await (await heldRoute).abort();
  await page.waitForSelector('#a[data-ready="error"]');
  assert.match(await inside(page, '#notices .notice-error').textContent(), /could not be loaded|make build/i);
  assert.equal(await inside(page, '#scenario-name').textContent(), name, 'the frame\'s board stays');
  assert.equal(await inside(page, '#position').textContent(), position);
  assert.equal(await inside(page, '#app').getAttribute('aria-busy'), 'false');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('without step an element opens at its scenario\'s telling moment: where a guarantee first breaks, else the end', async () => {
  const page = await hostPage(`<highwater-playground id="a" scenario="kip101-loss-after-restart"></highwater-playground>
    <highwater-playground id="b" scenario="two-fetch-rounds"></highwater-playground>`);
  await page.waitForSelector('#a[data-ready="true"]');
  await page.waitForSelector('#b[data-ready="true"]');
  assert.equal(await page.locator('#a').locator('#position').textContent(), '17 / 19');
  // At that step the banner names the broken guarantee.
  assert.match(await page.locator('#a').locator('#banner').textContent(), /acks=all/);
  assert.equal(await page.locator('#b').locator('#position').textContent(), '4 / 4');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// The tours' answers (scripts/tour-answers.mjs, www/tour-answers/<id>.json):
// what the model says of each built-in tour, computed by the build. Each file
// is what the workers' core says of the tour now, with the tour's
// fingerprint; a tour's question shows its choices from it without starting
// the workers' core, and a file made from another version of the tour is not
// used (the tour is checked in a worker, as before).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, ROOT, ensureBuilt } from './harness.mjs';
import { tourFingerprint } from '../../www/element/tour-fingerprint.js';

const WWW = path.join(ROOT, 'www');
let env;
let fast;
before(async () => {
  ensureBuilt();
  env = await setup();
  fast = await import(`${path.join(WWW, 'pkg-fast', 'highwater.js')}?tour-answers`);
  fast.initSync({ module: fs.readFileSync(path.join(WWW, 'pkg-fast', 'highwater_bg.wasm')) });
});
after(async () => { await env?.close(); });

const tours = JSON.parse(fs.readFileSync(path.join(WWW, 'tours', 'index.json'), 'utf8')).tours;
const text = (id) => fs.readFileSync(path.join(WWW, 'tours', `${id}.json`), 'utf8');

test('each file is what the workers\' core says of its tour now, with the tour\'s fingerprint', () => {
  for (const id of tours) {
    const file = JSON.parse(fs.readFileSync(path.join(WWW, 'tour-answers', `${id}.json`), 'utf8'));
    assert.equal(file.highwater_tour_answers, 1);
    assert.equal(file.tour, id);
    assert.equal(file.fingerprint, tourFingerprint(JSON.parse(text(id))), id);
    assert.deepEqual(file.checked, fast.checkBuiltInTour(text(id)), id);
    assert.ok(file.checked.predictions.length > 0, `${id} asks a question`);
  }
  // A fingerprint tells two versions of a tour apart.
  const data = JSON.parse(text(tours[0]));
  const changed = structuredClone(data);
  changed.parts[0].stops[0].at += 1;
  assert.notEqual(tourFingerprint(changed), tourFingerprint(data));
});

/** The page at a tour's first question, with every request recorded; `route` may answer some itself. */
async function atQuestion(id, route = null) {
  const stops = JSON.parse(text(id)).parts.flatMap((p) => p.stops);
  const n = stops.findIndex((s) => s.predict) + 1;
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  if (route) await context.route(route.url, route.handle);
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  const asked = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  await page.goto(`${env.url}?lang=en&tour=${id}&step=${n}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.locator('#tour button[data-tour="choice"]:not([disabled])').first().waitFor();
  const choices = await page.locator('#tour button[data-tour="choice"]').evaluateAll((bs) => bs.map((b) => b.dataset.value ?? b.textContent.trim()));
  return { page, asked, choices, stop: stops[n - 1] };
}

test('a tour\'s question shows the model\'s choices from the tour\'s answers: the workers\' core is not loaded', async () => {
  for (const id of ['leo-and-hw', 'two-replication-protocols']) {
    const { page, asked, choices } = await atQuestion(id);
    const file = JSON.parse(fs.readFileSync(path.join(WWW, 'tour-answers', `${id}.json`), 'utf8'));
    assert.ok(asked.includes(`/tour-answers/${id}.json`), `${id}: its answers are read`);
    assert.deepEqual(asked.filter((p) => /pkg-fast|tour-worker/.test(p)), [], `${id}: no worker, no workers' core`);
    assert.ok(choices.length >= 2, `${id}: ${choices}`);
    assert.equal(await page.evaluate(() => document.querySelector('highwater-playground').playground.tour.checking), 'done');
    // The choices are the model's, in its order, shown in words.
    assert.equal(choices.length, file.checked.predictions[0].choices.length, `${id}: one button per choice`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('answers made from another version of the tour are not used: the tour is checked in a worker, with the same choices', async () => {
  const id = 'leo-and-hw';
  const plain = await atQuestion(id);
  await plain.page.context().close();
  const stale = JSON.parse(fs.readFileSync(path.join(WWW, 'tour-answers', `${id}.json`), 'utf8'));
  stale.fingerprint = '00000000';
  // A wrong answer in the stale file: were it used, the question would show it.
  stale.checked.predictions[0].choices = [41, 42];
  const { page, asked, choices } = await atQuestion(id, {
    url: `${env.url}tour-answers/${id}.json`,
    handle: (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify(stale) }),
  });
  await page.waitForFunction(() => document.querySelector('highwater-playground').playground.tour.checking === 'done');
  assert.ok(asked.some((p) => p.endsWith('/tour-worker.js')) && asked.some((p) => p.startsWith('/pkg-fast/')), 'checked in a worker');
  assert.deepEqual(choices, plain.choices, 'the model\'s choices, not the stale file\'s');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

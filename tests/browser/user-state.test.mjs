// No user's work is lost to a tour, a link or a bad link (issue 38): a tour
// started from the Tours dialog and closed offers the learner's own run
// back with Undo; a bad `#s=` typed into the same tab leaves the run shown
// and puts its address back; after a `#t=` link in the same tab, Back
// brings the run and its address back together, and the tour ends.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, produce, ROOT } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => env && env.close());

const host = (page) => page.locator('highwater-playground');
const length = async (page) => Number((await host(page).locator('#position').textContent()).split('/')[1].trim());

async function threeSteps(page) {
  for (const value of ['mine-1', 'mine-2', 'mine-3']) await produce(page, value);
  await page.waitForFunction(() => location.hash.startsWith('#s='));
  assert.equal(await length(page), 3);
  return page.evaluate(() => location.hash);
}

test('a tour from the Tours dialog, closed: the learner\'s three steps come back with Undo, in the address too', async () => {
  const page = await openPage(env);
  const mine = await threeSteps(page);
  await page.click('#btn-tours');
  await page.locator('#tour-list button[data-start-tour]').first().click();
  await host(page).locator('#tour [data-testid="tour-title"]').waitFor();
  await host(page).locator('#tour button.close[data-tour="close"]').click();
  const undo = host(page).locator('#notices .notice-action', { hasText: 'Undo' });
  await undo.waitFor();
  assert.match(await host(page).locator('#notices').textContent(), /Undo brings back your run/);
  await undo.click();
  await page.waitForFunction((h) => location.hash === h, mine);
  assert.equal(await length(page), 3);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a bad #s= typed into the same tab: the run shown stays, and the address is its own again', async () => {
  const page = await openPage(env);
  const mine = await threeSteps(page);
  await page.evaluate(() => { location.hash = '#s=v1.AAAA'; });
  await host(page).locator('#notices .notice-error').waitFor();
  assert.match(await host(page).locator('#notices .notice-error').textContent(), /The run shown before stays/);
  await page.waitForFunction((h) => location.hash === h, mine);
  assert.equal(await length(page), 3);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a #t= link in the same tab, then Back: the learner\'s run and its address, and no tour', async () => {
  const pkg = await import(`${path.join(ROOT, 'www', 'pkg-fast', 'highwater.js')}?user-state`);
  pkg.initSync({ module: fs.readFileSync(path.join(ROOT, 'www', 'pkg-fast', 'highwater_bg.wasm')) });
  const link = pkg.tourToLink(fs.readFileSync(path.join(ROOT, 'examples', 'tours', 'acks-1-loss.json'), 'utf8'));
  const page = await openPage(env);
  const mine = await threeSteps(page);
  await page.evaluate((l) => { location.hash = `#t=${l}`; }, link);
  await host(page).locator('#tour [data-testid="tour-title"]').waitFor();
  await page.goBack();
  await page.waitForFunction((h) => location.hash === h, mine);
  await host(page).locator('#tour').waitFor({ state: 'hidden' });
  await page.waitForFunction(() => {
    const p = document.querySelector('highwater-playground').shadowRoot.querySelector('#position');
    return p && p.textContent.split('/')[1].trim() === '3';
  });
  assert.equal(await page.evaluate(() => location.hash), mine);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a tour from the Tours dialog is one Back away from the learner\'s run: Back ends it and brings the run and its address back', async () => {
  const page = await openPage(env);
  const mine = await threeSteps(page);
  await page.click('#btn-tours');
  await page.locator('#tour-list button[data-start-tour]').first().click();
  await host(page).locator('#tour [data-testid="tour-title"]').waitFor();
  await page.waitForFunction(() => new URL(location.href).searchParams.has('tour'));
  await page.goBack();
  await page.waitForFunction((h) => location.hash === h && !new URL(location.href).searchParams.has('tour'), mine);
  await host(page).locator('#tour').waitFor({ state: 'hidden' });
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.split('/')[1].trim() === '3');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

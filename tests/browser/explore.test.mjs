// "Find a way to lose data": the search runs in a worker, finds the legacy
// loss and loads it; a long search can be cancelled.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage, applySettings } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('legacy settings: the search finds a loss and loads it into the timeline', async () => {
  const page = await openPage(env);
  await applySettings(page, { brokers: 2, protocol: 'legacy' });
  await page.click('#btn-explore');
  await page.locator('#explore-settings', { hasText: 'legacy' }).waitFor();
  await page.locator('#explore-form [name="acks"]').selectOption('all');
  await page.locator('#explore-form [name="depth"]').fill('8');
  await page.click('#btn-explore-start');
  const banner = page.locator('#banner .banner');
  await banner.waitFor({ timeout: 120000 });
  assert.match(await banner.textContent(), /Protocol violation/);
  assert.match(await banner.textContent(), /acknowledged \(acks=all\) and is gone|diverged/);
  // The found run is the timeline now: several steps, under legacy.
  const [position, length] = (await page.locator('#position').textContent()).split(' / ').map(Number);
  assert.ok(length >= 3 && position === length, `${position} / ${length}`);
  assert.match(await page.locator('#caption').textContent(), /legacy/);
  assert.deepEqual(page.errors, []);
});

test('a long search under modern settings can be cancelled', async () => {
  const page = await openPage(env);
  await page.click('#btn-explore');
  await page.locator('#explore-form [name="depth"]').fill('30');
  await page.locator('#explore-form [name="max_states"]').fill('50000000');
  await page.click('#btn-explore-start');
  // Progress arrives from the worker.
  await page.waitForFunction(() => /states/.test(document.querySelector('#explore-status').textContent));
  assert.equal(await page.locator('#btn-explore-start').isDisabled(), true);
  await page.click('#btn-explore-cancel');
  await page.locator('#explore-result', { hasText: 'Cancelled' }).waitFor();
  assert.equal(await page.locator('#btn-explore-start').isDisabled(), false);
  const status = await page.locator('#explore-status').textContent();
  // The worker is gone: no progress comes after the cancel (checked after the page has drawn a few frames).
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 300)))));
  assert.equal(await page.locator('#explore-status').textContent(), status);
  // The page still works, and nothing was loaded.
  assert.equal(await page.locator('#position').textContent(), '0 / 0');
  assert.deepEqual(page.errors, []);
});

test('a search that finds nothing says so, with the depth and the states searched', async () => {
  const page = await openPage(env);
  await page.click('#btn-explore');
  await page.locator('#explore-form [name="depth"]').fill('3');
  await page.click('#btn-explore-start');
  const result = page.locator('#explore-result');
  await result.waitFor({ timeout: 60000 });
  assert.match(await result.textContent(), /Nothing found up to depth 3 in [\d,]+ states/);
});

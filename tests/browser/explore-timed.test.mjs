// The search runs in manual mode even when the playground is in timed mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage, loadFromGallery } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('"Find a way to lose data" from a timed-mode scenario searches manual steps and reports its result', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, 'Timed failover');
  await page.click('#btn-explore');
  await page.locator('#dlg-explore[open]').waitFor(); // the explorer is loaded at its first use
  assert.match(await page.locator('#explore-settings').textContent(), /manual mode/);
  await page.locator('#explore-form [name=depth]').fill('3');
  await page.locator('#explore-form button[type=submit]').click();
  await page.locator('#explore-result').waitFor({ state: 'visible' });
  const text = await page.locator('#explore-result').textContent();
  assert.match(text, /Nothing found up to depth 3/, text);
});

// The page never writes a link it cannot open: a run whose link is longer
// than the core's reader takes (limits.max_link_chars) is not copied by Copy
// link (a message says so and offers the scenario file), and the address bar
// is not given it (the run leaves the address bar, with a message).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setup, openPage, loadCore, produce, missingKeys, addressWritten } from './harness.mjs';

let env;
let core;
before(async () => { env = await setup(); core = await loadCore(); });
after(async () => env && env.close());

/** A value that does not compress: every produce of it adds about its length to the link. */
function noise(seed, length = 1000) {
  let x = seed * 2654435761 % 4294967296;
  let out = '';
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  while (out.length < length) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[x % alphabet.length];
  }
  return out;
}

/** The longest run of such produces whose link the reader still opens, with room for less than one more. */
function nearTheLimit() {
  const max = core.limits().max_link_chars;
  const steps = [];
  let link = '';
  for (let i = 0; ; i++) {
    const next = [...steps, { produce: { value: noise(i + 1), acks: '1' } }];
    const sim = core.Simulation.fromScenario({ version: 1, config: { brokers: 2 }, steps: next });
    const l = sim.toLink();
    sim.free();
    if (l.length > max - 600) return { link, max, steps: steps.length };
    steps.push(next[next.length - 1]);
    link = l;
  }
}

test('a run too long for a link: Copy link refuses and offers the scenario file, the address bar drops the run, a reload never meets a link it refuses', async () => {
  const { link, max, steps } = nearTheLimit();
  assert.ok(link.length <= max);
  const page = await openPage(env, { hash: `#s=${link}`, context: { permissions: ['clipboard-read', 'clipboard-write'] } });
  assert.equal(await page.locator('#position').textContent(), `${steps} / ${steps}`);
  await addressWritten(page);
  assert.ok((await page.evaluate(() => location.hash)).startsWith('#s=v1.'), 'a run that fits is in the address bar');
  await page.evaluate(() => navigator.clipboard.writeText('before'));
  // One more produce of 1,000 characters takes the link past the limit.
  await produce(page, noise(9999), '1');
  await page.locator('#position', { hasText: `${steps + 1} / ${steps + 1}` }).waitFor();
  const notice = page.locator('#notices .notice-error', { hasText: 'address bar' });
  await notice.waitFor();
  assert.equal(await page.evaluate(() => location.hash), '', 'the address bar does not carry a link its reader refuses');
  await page.click('#btn-copy-link');
  const refused = page.locator('#notices .notice-error', { hasText: 'Nothing was copied' });
  await refused.waitFor();
  assert.match(await refused.textContent(), new RegExp(`a link opens at most ${max.toLocaleString('en')}`));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'before', 'nothing copied');
  const [download] = await Promise.all([page.waitForEvent('download'), refused.locator('button', { hasText: 'Download the scenario' }).click()]);
  const scenario = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.equal(scenario.steps.length, steps + 1, 'the file holds the whole run');
  // A reload opens the address as it is now: the page without the run, and no refused link.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.deepEqual(await page.locator('#notices .notice-error').allTextContents(), [], 'a reload opens no refused link');
  assert.deepEqual(await missingKeys(page), []);
  assert.deepEqual(page.errors, []);
});

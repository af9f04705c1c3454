// The playground driven through its controls, read back from the DOM.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage, brokerStat, applySettings, produce, brokerButton } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('acks=all on 2 brokers: the follower HW moves only on the second fetch round', async () => {
  const page = await openPage(env);
  await applySettings(page, { brokers: 2 });
  await page.locator('.broker-row[data-broker="2"]').waitFor();
  assert.equal(await page.locator('.broker-row').count(), 2);

  await produce(page, 'm1', 'all');
  assert.equal(await brokerStat(page, 1, 'leo'), '1');
  assert.equal(await page.locator('#producer [data-result]').first().textContent(), 'pending');

  // Round 1 copies the record: the follower has it, but its HW is still 0.
  await brokerButton(page, 2, 'fetch').click();
  assert.equal(await brokerStat(page, 2, 'leo'), '1');
  assert.equal(await brokerStat(page, 2, 'hw'), '0');
  assert.equal(await brokerStat(page, 1, 'hw'), '0', 'the leader has not heard the follower has it yet');
  assert.equal(await page.locator('#producer [data-result]').first().textContent(), 'pending');

  // Round 2 tells the leader; the leader's HW and then the follower's move to 1.
  await brokerButton(page, 2, 'fetch').click();
  assert.equal(await brokerStat(page, 1, 'hw'), '1');
  assert.equal(await brokerStat(page, 2, 'hw'), '1');
  assert.equal(await page.locator('#producer [data-result]').first().textContent(), 'acked');
  // The leader's view of the follower is drawn as a marker at offset 1.
  assert.equal(await page.locator('.broker-row[data-broker="1"] [data-remote-marker="2"]').count(), 1);
  assert.deepEqual(page.errors, []);
});

test('killing the leader: after the session timeout a new leader with a bumped epoch', async () => {
  const page = await openPage(env);
  await produce(page, 'm1', 'all');
  await brokerButton(page, 2, 'fetch').click();
  await brokerButton(page, 3, 'fetch').click();
  assert.equal(await page.locator('[data-testid="partition-leader"]').textContent(), 'broker 1');
  assert.equal(await page.locator('[data-testid="partition-epoch"]').textContent(), '0');

  await brokerButton(page, 1, 'crash').click();
  assert.equal(await page.locator('.broker-row[data-broker="1"] [data-testid="role"]').textContent(), 'down');
  await page.click('#btn-session');
  assert.equal(await page.locator('[data-testid="partition-leader"]').textContent(), 'broker 2');
  assert.equal(await page.locator('[data-testid="partition-epoch"]').textContent(), '1');
  assert.equal(await page.locator('.broker-row[data-broker="2"] [data-testid="role"]').textContent(), 'leader');
  assert.equal(await brokerStat(page, 2, 'epoch'), '1');

  // And an explicit election moves it again, to the chosen broker, epoch 2.
  await page.selectOption('#elect-target', '3');
  await page.click('#btn-elect');
  assert.equal(await page.locator('[data-testid="partition-leader"]').textContent(), 'broker 3');
  assert.equal(await page.locator('[data-testid="partition-epoch"]').textContent(), '2');
  assert.deepEqual(page.errors, []);
});

test('keyboard: arrows step back and forward, space plays and pauses', async () => {
  const page = await openPage(env);
  await produce(page, 'a', '1');
  await produce(page, 'b', '1');
  await page.locator('#cluster').click({ position: { x: 5, y: 5 } });
  assert.equal(await page.locator('#position').textContent(), '2 / 2');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.locator('#position').textContent(), '1 / 2');
  assert.equal(await brokerStat(page, 1, 'leo'), '1');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.locator('#position').textContent(), '2 / 2');
  await page.keyboard.press('Space');
  assert.equal(await page.locator('#btn-play').getAttribute('aria-pressed'), 'true');
  await page.waitForFunction(() => document.querySelector('#position').textContent !== '2 / 2');
  await page.keyboard.press('Space');
  assert.equal(await page.locator('#btn-play').getAttribute('aria-pressed'), 'false');
  // Play only advanced the clock through the core: the steps are advance_ms.
  assert.match(await page.locator('#caption').textContent(), /advance the clock/);
  assert.deepEqual(page.errors, []);
});

test('settings: an invalid combination is refused with a clear message and nothing changes', async () => {
  const page = await openPage(env);
  await produce(page, 'm1', 'all');
  await brokerButton(page, 3, 'fetch').click();
  await applySettings(page, { brokers: 2 });
  // Step 2 fetches on broker 3, which would not exist: the core says so, the run stays.
  const error = page.locator('#settings-error');
  await error.waitFor();
  assert.match(await error.textContent(), /broker 3 does not exist/);
  await page.locator('#dlg-settings button[data-close]').first().click();
  assert.equal(await page.locator('.broker-row').count(), 3);
  assert.equal(await page.locator('#position').textContent(), '2 / 2');

  await applySettings(page, { min_insync_replicas: 5 });
  assert.match(await error.textContent(), /min_insync_replicas/);
  await page.locator('#dlg-settings button[data-close]').first().click();

  // A valid change rebuilds the same steps and says so.
  await applySettings(page, { protocol: 'legacy' });
  await page.locator('.notice', { hasText: 'rebuilt from the same 2 step(s)' }).waitFor();
  assert.match(await page.locator('#caption').textContent(), /legacy/);
});

test('a step the core refuses is reported and the run is kept', async () => {
  const page = await openPage(env);
  await produce(page, 'm1', '1');
  await page.fill('#produce-value', 'é'.repeat(600)); // 600 characters, 1200 bytes: over the core's limit
  await page.click('#btn-produce');
  await page.locator('.notice-error', { hasText: 'longer than the limit' }).waitFor();
  assert.equal(await page.locator('#position').textContent(), '1 / 1');
  assert.equal(await brokerStat(page, 1, 'leo'), '1');
  // Electing the broker that already leads is not possible now: the core says why.
  await page.locator('.broker-row[data-broker="1"] summary').click();
  await brokerButton(page, 1, 'elect').click();
  await page.locator('.notice-warn', { hasText: 'broker 1 is already the leader' }).waitFor();
  assert.equal(await page.locator('[data-testid="partition-epoch"]').textContent(), '0');
  assert.deepEqual(page.errors, []);
});

test('a panic in the core: an error is shown and the page recovers the run', async () => {
  const context = await env.browser.newContext({ reducedMotion: 'reduce' });
  // The first instance of the glue traps (as a Rust panic does) on one value.
  await context.route(/\/pkg\/highwater\.js$/, async (route) => {
    const response = await route.fetch();
    let body = await response.text();
    body = body.replace('apply(step) {', 'apply(step) { if (JSON.stringify(step).includes("__trap__")) throw new WebAssembly.RuntimeError("unreachable");');
    await route.fulfill({ response, body });
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.url);
  await page.waitForSelector('body[data-ready="true"]');
  await produce(page, 'kept', '1');
  await produce(page, '__trap__', '1');
  await page.locator('.notice-error', { hasText: 'stopped unexpectedly' }).waitFor();
  // Rebuilt from the last good state, on a fresh instance: the first record is there, the failed one is not.
  await page.waitForFunction(() => document.querySelector('#position').textContent === '1 / 1');
  assert.equal(await brokerStat(page, 1, 'leo'), '1');
  await produce(page, 'after', '1');
  assert.equal(await brokerStat(page, 1, 'leo'), '2');
  assert.equal(await page.locator('#position').textContent(), '2 / 2');
  assert.deepEqual(errors, []);
  await context.close();
});

// The playground driven through its controls, read back from the DOM.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage, brokerStat, applySettings, produce, brokerButton, loadCore, onSourceModules, addressWritten } from './harness.mjs';

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
  // At the end, Space plays the run again from its start, and stops at its end: nothing is added.
  await page.keyboard.press('Space');
  assert.equal(await page.locator('#btn-play').getAttribute('aria-pressed'), 'true');
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#btn-play').getAttribute('aria-pressed') === 'false');
  assert.equal(await page.locator('#position').textContent(), '2 / 2');
  // Space pauses a playing run.
  await page.keyboard.press('Home');
  assert.equal(await page.locator('#position').textContent(), '0 / 2');
  await page.keyboard.press('Space');
  await page.keyboard.press('Space');
  assert.equal(await page.locator('#btn-play').getAttribute('aria-pressed'), 'false');
  assert.notEqual(await page.locator('#position').textContent(), '2 / 2');
  assert.match(await page.locator('#position').textContent(), / \/ 2$/);
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
  await applySettings(page, { protocol: '0.10' });
  await page.locator('.notice', { hasText: 'rebuilt from the same 2 steps' }).waitFor();
  assert.equal(await page.locator('[data-testid="version"]').textContent(), 'Kafka 0.10');
  assert.deepEqual(page.errors, []);
});

test('settings: a topic of several partitions, its replication factor and the brokers\' racks', async () => {
  const page = await openPage(env);
  const form = page.locator('#settings-form');
  await page.click('#btn-settings');
  assert.equal(await form.locator('[name="partitions"]').inputValue(), '1');
  assert.equal(await form.locator('[name="replication_factor"]').inputValue(), '', 'blank: the default');
  assert.equal(await form.locator('[name="racks"]').inputValue(), '', 'blank: no racks');
  assert.equal(await form.locator('[name="auto_leader_rebalance"]').isChecked(), true);
  assert.equal(await form.locator('[name="leader_imbalance_per_broker_percentage"]').inputValue(), '10');
  await page.locator('#dlg-settings button[data-close]').first().click();
  // Racks for two of three brokers: refused before the run changes.
  await applySettings(page, { partitions: 4, racks: 'a, b' });
  const error = page.locator('#settings-error');
  await error.waitFor();
  assert.match(await error.textContent(), /2 names for 3 brokers/);
  await page.locator('#dlg-settings button[data-close]').first().click();
  assert.equal(await page.locator('#cluster-map button.map-row').count(), 0);
  await applySettings(page, { partitions: 4, replication_factor: 2, racks: 'a, b,a' });
  await page.locator('#dlg-settings').waitFor({ state: 'hidden' });
  await page.locator('#cluster-map button.map-row').first().waitFor();
  assert.equal(await page.locator('#cluster-map button.map-row').count(), 4);
  const core = await loadCore();
  await addressWritten(page);
  const linked = core.Simulation.fromLink(/#s=([^&]+)/.exec(page.url())[1]);
  const config = linked.scenario().config;
  assert.deepEqual([config.partitions, config.replication_factor, config.racks], [4, 2, ['a', 'b', 'a']]);
  const state = linked.state(undefined, undefined, 0);
  assert.ok(state.partitions.every((p) => p.replicas.length === 2 && new Set(p.replicas.map((b) => config.racks[b - 1])).size === 2), 'rack-aware: each partition in both racks');
  linked.free();
  // The form shows the run's topic when opened again.
  await page.click('#btn-settings');
  assert.equal(await form.locator('[name="racks"]').inputValue(), 'a,b,a');
  assert.equal(await form.locator('[name="replication_factor"]').inputValue(), '2');
  assert.deepEqual(page.errors, []);
});

test('settings: switching the version takes its defaults for settings left at the old defaults, and keeps the others', async () => {
  const page = await openPage(env);
  const form = page.locator('#settings-form');
  const field = (name) => form.locator(`[name="${name}"]`);
  await page.click('#btn-settings');
  // The picker offers the eight presets, the run's one chosen.
  assert.deepEqual(await field('protocol').locator('option').evaluateAll((os) => os.map((o) => o.value)), ['0.10', '0.11', '2.0', '2.1', '2.8', '3.5', '3.7', '4.1']);
  assert.equal(await field('protocol').inputValue(), '3.7');
  assert.equal(await field('unclean_leader_election').isChecked(), false);
  assert.equal(await field('broker_session_timeout_ms').inputValue(), '9000');
  assert.equal(await field('replica_lag_time_max_ms').inputValue(), '30000');
  // A setting changed by hand before the switch is kept.
  await field('replica_lag_time_max_ms').fill('12345');
  await field('protocol').selectOption('0.10');
  // The form shows 0.10's defaults before anything is applied.
  assert.equal(await field('unclean_leader_election').isChecked(), true);
  assert.equal(await field('broker_session_timeout_ms').inputValue(), '6000');
  assert.equal(await field('replica_lag_time_max_ms').inputValue(), '12345');
  assert.match(await page.locator('#settings-version-notes').textContent(), /unclean\.leader\.election\.enable on/);
  await form.locator('button[type="submit"]').click();
  await page.locator('#dlg-settings').waitFor({ state: 'hidden' });
  assert.equal(await page.locator('[data-testid="version"]').textContent(), 'Kafka 0.10');
  assert.equal(await page.locator('#btn-session').textContent(), '+6 s session');
  // The whole config is what the core's withProtocol makes of it, settings without a field in the form included.
  const core = await loadCore();
  await addressWritten(page);
  const linked = core.Simulation.fromLink(/#s=([^&]+)/.exec(page.url())[1]);
  const expected = core.withProtocol({ ...core.defaultConfig(), replica_lag_time_max_ms: 12345 }, '0.10');
  assert.deepEqual(linked.scenario().config, expected);
  linked.free();
  // The run's config, as the core has it, through the link: a fresh page opens the same settings.
  const other = await openPage(env, { hash: page.url().slice(page.url().indexOf('#')) });
  await other.click('#btn-settings');
  const f2 = (name) => other.locator(`#settings-form [name="${name}"]`);
  assert.equal(await f2('protocol').inputValue(), '0.10');
  assert.equal(await f2('unclean_leader_election').isChecked(), true);
  assert.equal(await f2('broker_session_timeout_ms').inputValue(), '6000');
  assert.equal(await f2('replica_lag_time_max_ms').inputValue(), '12345');
  // And back to 3.7: the 0.10 defaults turn into 3.7's again; the hand-set lag stays.
  await f2('protocol').selectOption('3.7');
  assert.equal(await f2('unclean_leader_election').isChecked(), false);
  assert.equal(await f2('broker_session_timeout_ms').inputValue(), '9000');
  assert.equal(await f2('replica_lag_time_max_ms').inputValue(), '12345');
  assert.deepEqual([...page.errors, ...other.errors], []);
});

test('an old link or file naming "legacy", "kip101" or "modern" opens under the preset it stands for', async () => {
  const core = await loadCore();
  for (const [alias, name] of [['legacy', '0.10'], ['kip101', '0.11'], ['modern', '3.7']]) {
    const sim = core.Simulation.fromScenario({ version: 1, config: { brokers: 2, protocol: alias }, steps: [{ produce: { value: 'm1', acks: '1' } }] });
    const link = sim.toLink();
    sim.free();
    const page = await openPage(env, { hash: `#s=${link}` });
    assert.equal(await page.locator('[data-testid="version"]').textContent(), `Kafka ${name}`, alias);
    await page.click('#btn-settings');
    assert.equal(await page.locator('#settings-form [name="protocol"]').inputValue(), name, alias);
    // The version's own defaults, as the scenario does not set them.
    const version = core.versions().versions.find((v) => v.name === name);
    assert.equal(await page.locator('#settings-form [name="broker_session_timeout_ms"]').inputValue(), String(version.defaults.broker_session_timeout_ms), alias);
    assert.equal(await page.locator('#settings-form [name="unclean_leader_election"]').isChecked(), version.defaults.unclean_leader_election, alias);
    assert.deepEqual(page.errors, [], alias);
    await page.context().close();
  }
});

test('a fast restart: the broker is drawn as starting until its old session expires, then registers', async () => {
  const page = await openPage(env);
  await produce(page, 'm1', 'all');
  await brokerButton(page, 2, 'fetch').click();
  await brokerButton(page, 3, 'fetch').click();
  await page.click('button[data-advance="1000"]');
  await page.click('button[data-advance="1000"]');
  await brokerButton(page, 2, 'crash').click();
  await brokerButton(page, 2, 'restart').click();
  const row = page.locator('.broker-row[data-broker="2"]');
  // Restarted at 2 s; the old session (9 s under 3.7) runs to 11 s.
  assert.equal(await row.locator('[data-testid="role"]').textContent(), 'starting');
  assert.match(await row.locator('[data-testid="starting-note"]').textContent(), /old session until 11\.0 s, 9 s from now/);
  assert.match(await page.locator('#caption').textContent(), /its old session is valid until 11\.0 s/);
  // It serves nothing: Fetch and Elect are unavailable and say why; Restart is not offered; Crash is.
  const fetch = brokerButton(page, 2, 'fetch');
  assert.equal(await fetch.getAttribute('aria-disabled'), 'true');
  assert.match(await fetch.getAttribute('title'), /starting/);
  assert.equal(await brokerButton(page, 2, 'restart').count(), 0);
  assert.equal(await brokerButton(page, 2, 'crash').count(), 1);
  assert.equal(await brokerButton(page, 2, 'elect').getAttribute('aria-disabled'), 'true');
  await fetch.click({ force: true }); // as a user can: the button stays focusable and says why
  await page.locator('.notice-warn', { hasText: 'cannot fetch until the controller accepts its registration' }).waitFor();
  assert.equal(await page.locator('#position').textContent(), '7 / 7', 'nothing was applied');
  // 8 s later (10 s) it still waits; at 11 s the controller fences the old session and it registers.
  for (let i = 0; i < 8; i++) await page.click('button[data-advance="1000"]');
  assert.equal(await row.locator('[data-testid="role"]').textContent(), 'starting');
  assert.match(await row.locator('[data-testid="starting-note"]').textContent(), /until 11\.0 s, 1 s from now/);
  await page.click('button[data-advance="1000"]');
  assert.equal(await row.locator('[data-testid="role"]').textContent(), 'follower');
  assert.equal(await row.locator('[data-testid="starting-note"]').count(), 0);
  const caption = await page.locator('#caption').textContent();
  assert.match(caption, /Broker 2 registered with the controller again/);
  assert.match(await page.locator('#event-log').textContent(), /broker 2 registered with the controller/);
  // A fetch works again.
  assert.equal(await brokerButton(page, 2, 'fetch').getAttribute('aria-disabled'), null);
  assert.deepEqual(page.errors, []);
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
  // The page on the source modules (the bundle holds the glue, minified), and the first
  // instance of the glue trapping (as a Rust panic does) on one value.
  await onSourceModules(context);
  await context.route(/\/pkg\/highwater\.js$/, async (route) => {
    const response = await route.fetch();
    let body = await response.text();
    body = body.replace(/apply\(step(, last)?\) \{/, (head) => `${head} if (JSON.stringify(step).includes("__trap__")) throw new WebAssembly.RuntimeError("unreachable");`);
    assert.notEqual(body, await response.text(), 'the glue has an apply(step…) to patch');
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
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent === '1 / 1');
  assert.equal(await brokerStat(page, 1, 'leo'), '1');
  await produce(page, 'after', '1');
  assert.equal(await brokerStat(page, 1, 'leo'), '2');
  assert.equal(await page.locator('#position').textContent(), '2 / 2');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a panic in one element\'s run leaves the other elements of the page working, their runs replayed on the new core', async () => {
  const context = await env.browser.newContext({ reducedMotion: 'reduce' });
  await context.route(/\/pkg\/highwater\.js$/, async (route) => {
    const response = await route.fetch();
    const body = (await response.text()).replace(/apply\(step(, last)?\) \{/, (head) => `${head} if (JSON.stringify(step).includes("__trap__")) throw new WebAssembly.RuntimeError("unreachable");`);
    await route.fulfill({ response, body });
  });
  const url = `${env.url}two-elements-host.html`;
  await context.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Two</title><script type="module" src="./highwater-playground.js"></script></head><body>'
      + '<highwater-playground id="a" scenario="hw-is-min-isr-leo"></highwater-playground><highwater-playground id="b" scenario="kip101-loss-after-restart" step="8"></highwater-playground></body></html>',
  }));
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => [...document.querySelectorAll('highwater-playground')].every((el) => el.dataset.ready === 'true'));
  const at = (id) => page.evaluate((id) => {
    const el = document.getElementById(id);
    const s = el.playground.sim.state();
    return { position: el.position, length: el.length, leos: s.brokers.map((b) => b.log_end_offset) };
  }, id);
  const before = await at('b');
  // Element a's step traps the shared core.
  await page.evaluate(() => document.getElementById('a').playground.apply({ produce: { value: '__trap__', acks: '1' } }));
  await page.waitForFunction(() => document.getElementById('a').shadowRoot.querySelector('.notice-error')?.textContent.includes('stopped unexpectedly'));
  // Element b, untouched, still shows its run, and steps on the new core.
  await page.evaluate(() => document.getElementById('b').playground.draw());
  assert.deepEqual(await at('b'), before, 'b\'s run is replayed as it was');
  await page.evaluate((p) => document.getElementById('b').playground.seek(p), before.position + 1);
  assert.equal((await at('b')).position, before.position + 1, 'b steps forward');
  await page.evaluate(() => document.getElementById('a').playground.apply({ produce: { value: 'after', acks: '1' } }));
  assert.ok((await at('a')).leos[0] >= 1, 'a works again too');
  assert.deepEqual(errors, []);
  await context.close();
});

test('an empty run has nothing to play: Play is disabled and not drawn as the primary action; a step makes it so', async () => {
  const page = await openPage(env);
  assert.equal(await page.locator('#position').textContent(), '0 / 0');
  assert.equal(await page.locator('#btn-play').isDisabled(), true);
  const idle = await page.locator('#btn-play').evaluate((b) => getComputedStyle(b).backgroundColor);
  await produce(page, 'm1', '1');
  assert.equal(await page.locator('#btn-play').isDisabled(), false);
  const ready = await page.locator('#btn-play').evaluate((b) => getComputedStyle(b).backgroundColor);
  assert.notEqual(ready, idle, 'Play is the accent colour once there is a run to play');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// KIP-841's two actions from a broker's menu (a cut to the controller only,
// a controlled shutdown), and KIP-497's maximal ISR on the leader's card:
// what the card says is the core's state at that position.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage, loadCore, pageTrace } from './harness.mjs';

let env;
let core;
before(async () => {
  env = await setup();
  core = await loadCore();
});
after(async () => { await env?.close(); });

const root = (page) => page.locator('highwater-playground');

async function menuAction(page, broker, action) {
  const card = root(page).locator(`.broker-row[data-broker="${broker}"]`);
  await card.locator('details.more > summary').click();
  await card.locator(`button[data-action="${action}"]`).click();
}

test('a broker menu cuts a broker from the controller only, and reconnects it', async () => {
  const page = await openPage(env);
  await menuAction(page, 2, 'cut-controller');
  const card = root(page).locator('.broker-row[data-broker="2"]');
  await card.locator('[data-testid="controller-cut"]').waitFor();
  assert.match(await pageTrace(page), /broker 2 cut from the controller \(it still reaches the other brokers\)/);
  // The same menu now offers the way back, and no second cut.
  await card.locator('details.more > summary').click();
  assert.equal(await card.locator('button[data-action="cut-controller"]').count(), 0);
  await card.locator('button[data-action="heal-broker"]').click();
  await card.locator('[data-testid="controller-cut"]').waitFor({ state: 'detached' });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a controlled shutdown of the leader moves leadership first, then stops the broker', async () => {
  const page = await openPage(env);
  await menuAction(page, 1, 'controlled-shutdown');
  await root(page).locator('.broker-row.role-leader[data-broker="2"]').waitFor();
  await root(page).locator('.broker-row.is-down[data-broker="1"]').waitFor();
  const trace = await pageTrace(page);
  assert.match(trace, /controlled shutdown/i);
  // The page's board is the core's state after the same step.
  const sim = core.Simulation.fromScenario({ version: 1, config: {}, steps: [{ controlled_shutdown: 1 }] });
  const state = sim.state();
  sim.free();
  assert.equal(state.partition.leader, 2, 'leadership moved to another ISR member');
  assert.equal(state.brokers[0].alive, false, 'then broker 1 stopped');
  assert.ok(!state.partition.isr.includes(1), 'and left the ISR');
  assert.equal(await root(page).locator('[data-testid="partition-isr"]').textContent(), `{${state.partition.isr.join(', ')}}`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("the leader's card shows the maximal ISR while an expansion waits for the controller, as the core has it", async () => {
  const scenario = {
    version: 1,
    config: { protocol: '3.7', brokers: 2 },
    steps: [
      { crash: { broker: 2 } }, { advance_ms: 20000 }, { produce: { value: 'm1', acks: '1' } },
      { cut_controller: 1 }, { restart: 2 }, { fetch: 2 }, { fetch: 2 }, { produce: { value: 'm2', acks: '1' } },
    ],
  };
  const sim = core.Simulation.fromScenario(scenario);
  const link = sim.toLink();
  const leader = sim.state().brokers[0];
  sim.free();
  assert.deepEqual([leader.isr, leader.maximal_isr, leader.high_watermark], [[1], [1, 2], 1], 'the core: pending expansion');
  const page = await openPage(env, { hash: `#s=${link}` });
  const card = root(page).locator('.broker-row[data-broker="1"]');
  const shown = card.locator('[data-testid="maximal-isr"]');
  await shown.waitFor();
  assert.match(await shown.textContent(), /maximal ISR \{1, 2\}/);
  assert.match(await card.locator('.leader-view').textContent(), /ISR \{1\}/);
  // Once the controller answers, the ISR is the maximal ISR and the line goes.
  const healed = core.Simulation.fromScenario({ ...scenario, steps: [...scenario.steps, { heal: 1 }] });
  assert.deepEqual(healed.state().brokers[0].isr, [1, 2]);
  const healedLink = healed.toLink();
  healed.free();
  await page.evaluate((l) => { location.hash = `#s=${l}`; }, healedLink);
  await shown.waitFor({ state: 'detached' });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("before 2.7 the card says the leader's ISR write to ZooKeeper waits, not KIP-497's maximal ISR", async () => {
  const scenario = {
    version: 1,
    config: { protocol: '2.1', brokers: 2 },
    steps: [
      { crash: { broker: 2 } }, { advance_ms: 20000 }, { produce: { value: 'm1', acks: '1' } },
      { cut_controller: 1 }, { restart: 2 }, { fetch: 2 }, { fetch: 2 }, { produce: { value: 'm2', acks: '1' } },
    ],
  };
  const sim = core.Simulation.fromScenario(scenario);
  const link = sim.toLink();
  const state = sim.state();
  sim.free();
  const leader = state.brokers[0];
  assert.equal(state.alter_partition, false);
  assert.deepEqual([leader.isr, leader.maximal_isr, leader.high_watermark], [[1], [1, 2], 1], 'the core: m2 waits for broker 2');
  const page = await openPage(env, { hash: `#s=${link}` });
  const shown = root(page).locator('.broker-row[data-broker="1"] [data-testid="maximal-isr"]');
  await shown.waitFor();
  assert.match(await shown.textContent(), /ISR write waiting \{1, 2\}/);
  assert.match(await shown.getAttribute('title'), /cannot reach ZooKeeper/);
  assert.doesNotMatch(await shown.getAttribute('title'), /KIP-497|AlterPartition/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('asking to shut down (KRaft): the broker stays up, tagged, out of the ISR, and stops at its next heartbeat', async () => {
  const page = await openPage(env);
  await menuAction(page, 3, 'begin-controlled-shutdown');
  const card = root(page).locator('.broker-row[data-broker="3"]');
  await card.locator('[data-testid="shutting-down"]').waitFor();
  // The card says what the core has after the same step.
  const sim = core.Simulation.fromScenario({ version: 1, config: {}, steps: [{ begin_controlled_shutdown: 3 }] });
  const state = sim.state();
  sim.free();
  assert.equal(state.brokers[2].alive, true, 'still up');
  assert.equal(state.brokers[2].shutdown_at_ms, 2000, 'until its next heartbeat');
  assert.equal(state.brokers[2].fetcher_stopped_for_shutdown, true, 'it left the ISR, so it stopped fetching');
  assert.equal(await root(page).locator('[data-testid="partition-isr"]').textContent(), `{${state.partition.isr.join(', ')}}`);
  assert.match(await card.locator('[data-testid="shutting-down"]').getAttribute('title'), /2,000 ms/);
  assert.match(await pageTrace(page), /broker 3 stops fetching: it is shutting down/);
  // Not offered twice.
  await card.locator('details.more > summary').click();
  assert.equal(await card.locator('button[data-action="begin-controlled-shutdown"]').count(), 0);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the consumer panel says when the leader the controller names is down, and Consume records why it read nothing', async () => {
  const scenario = { version: 1, config: {}, steps: [{ produce: { value: 'm1', acks: 'all' } }, { fetch: 2 }, { fetch: 3 }, { fetch: 2 }, { fetch: 3 }, { crash: { broker: 1 } }] };
  const sim = core.Simulation.fromScenario(scenario);
  const link = sim.toLink();
  sim.free();
  const page = await openPage(env, { hash: `#s=${link}` });
  const panel = root(page).locator('#consumer');
  await panel.getByText('Broker 1 still leads, but it is down').waitFor();
  assert.equal(await panel.getByText('Readable now').count(), 0);
  await root(page).locator('#btn-consume').click();
  assert.match(await pageTrace(page), /consumer: NETWORK_EXCEPTION: leader broker 1 is down/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('slowing a broker\'s links in manual mode says that latency shows in timed mode, and the notice switches to it (Undo brings the manual run back)', async () => {
  const page = await openPage(env);
  await menuAction(page, 2, 'delay');
  const notice = root(page).locator('.notice', { hasText: 'links now take 400 ms' });
  await notice.waitFor();
  assert.equal(await notice.locator('.notice-text').textContent(), "Broker 2's links now take 400 ms, but in manual mode each fetch is one whole round, so nothing arrives late: latency shows in timed mode, where followers fetch on their own and messages take time on the way.");
  await notice.locator('button', { hasText: 'Switch to timed mode' }).click();
  await page.waitForFunction(() => document.querySelector('highwater-playground').pg.config.auto_fetch === true);
  assert.equal(await page.evaluate(() => document.querySelector('highwater-playground').pg.steps.length), 1, 'the same step, in timed mode');
  await root(page).locator('.notice button', { hasText: 'Undo' }).click();
  await page.waitForFunction(() => document.querySelector('highwater-playground').pg.config.auto_fetch === false);
  // In timed mode the same action says nothing more.
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// A topic on a cluster in the page: the cluster map above the board shows
// each partition's replicas, leader and counts as the core reports them;
// choosing a partition (its row, or the element's `partition` attribute)
// puts it on the board; a broker without a replica of it says so; Produce
// takes a key or a partition; a topic of one partition loads none of the
// map's code; a bad `partition` is a notice that changes nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, loadCore, ROOT, missingKeys, noHorizontalScroll } from './harness.mjs';

let env;
let core;
before(async () => { env = await setup(); core = await loadCore(); });
after(async () => { await env?.close(); });

const scenario = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', 'cluster', `${name}.json`), 'utf8'));

/** The core's link of a scenario and its state at `at` with partition `p` on the board. */
function expected(s, at, p = 0) {
  const sim = core.Simulation.fromScenario(s);
  const link = sim.toLink();
  sim.seek(at);
  const state = sim.state(undefined, undefined, p);
  sim.free();
  return { link, state };
}

/** What the map shows: per row, its partition and each cell's broker and kind; the counts. */
function mapShown() {
  const root = document.querySelector('highwater-playground').shadowRoot;
  const rows = [...root.querySelectorAll('#cluster-map button.map-row')].map((row) => ({
    partition: Number(row.dataset.partition),
    pressed: row.getAttribute('aria-pressed'),
    cells: [...row.querySelectorAll('.map-cell')].map((c) => ({ broker: Number(c.dataset.broker), kind: c.dataset.kind, preferred: c.classList.contains('preferred') })),
  }));
  const count = (id) => Number(root.querySelector(`[data-testid="${id}"]`).dataset.count);
  return { rows, urp: count('map-urp'), offline: count('map-offline'), underMin: count('map-under-min-isr') };
}

async function open(page, link, at, lang = 'en') {
  await page.goto(`${env.url}?lang=${lang}#s=${link}&at=${at}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.locator('#cluster-map button.map-row').first().waitFor();
}

test('the map shows every partition as the core does, and a row puts its partition on the board', async () => {
  const s = scenario('broker-dies-and-returns');
  const at = 9; // broker 2 down and fenced: its partitions moved
  const { link, state } = expected(s, at);
  const page = await openPage(env, { path: '?lang=en' });
  await open(page, link, at);
  const shown = await page.evaluate(mapShown);
  assert.equal(shown.rows.length, state.partitions.length);
  const down = new Set(state.brokers.filter((b) => !b.alive).map((b) => b.id));
  for (const p of state.partitions) {
    const row = shown.rows.find((r) => r.partition === p.id);
    const held = row.cells.filter((c) => c.kind !== 'none').map((c) => c.broker).sort();
    assert.deepEqual(held, [...p.replicas].sort(), `partition ${p.id}: the cells with a replica are its replicas`);
    assert.deepEqual(row.cells.filter((c) => c.kind === 'leader').map((c) => c.broker), p.leader === null ? [] : [p.leader], `partition ${p.id}: leader`);
    for (const c of row.cells.filter((x) => x.kind !== 'none' && x.kind !== 'leader')) {
      const want = down.has(c.broker) ? 'down' : p.elr.includes(c.broker) ? 'elr' : p.isr.includes(c.broker) ? 'isr' : 'out';
      assert.equal(c.kind, want, `partition ${p.id}, broker ${c.broker}`);
    }
    assert.deepEqual(row.cells.filter((c) => c.preferred).map((c) => c.broker), [p.preferred_leader]);
  }
  assert.equal(shown.urp, state.partitions.filter((p) => p.under_replicated).length);
  assert.ok(shown.urp > 0, 'broker 2 is down: some partitions are under-replicated');
  assert.equal(shown.offline, state.partitions.filter((p) => p.offline).length);
  assert.deepEqual(shown.rows.map((r) => r.pressed), shown.rows.map((r) => String(r.partition === 0)));

  // A row chosen: its partition on the board, the element says so with an event.
  const other = state.partitions.find((p) => p.leader !== state.partitions[0].leader) ?? state.partitions[1];
  const { state: chosen } = expected(s, at, other.id);
  const announced = page.evaluate(() => new Promise((resolve) => document.querySelector('highwater-playground').addEventListener('highwater-partition', (e) => resolve(e.detail.partition), { once: true })));
  await page.locator(`#cluster-map button[data-partition="${other.id}"]`).click();
  assert.equal(await announced, other.id);
  await page.locator('[data-testid="partition-shown"]', { hasText: `partition ${other.id}` }).waitFor();
  assert.equal((await page.locator('[data-testid="partition-leader"]').textContent()).trim(), `broker ${chosen.partition.leader}`);
  assert.equal((await page.locator('[data-testid="partition-epoch"]').textContent()).trim(), String(chosen.partition.leader_epoch));
  // The board: a row per replica of the partition, in it its LEO; the other brokers on one line.
  const replicas = chosen.brokers.filter((b) => b.replica !== false);
  assert.deepEqual(await page.locator('#cluster .broker-row').evaluateAll((rows) => rows.map((r) => Number(r.dataset.broker))), replicas.map((b) => b.id));
  for (const b of replicas) {
    assert.equal((await page.locator(`.broker-row[data-broker="${b.id}"] [data-stat="leo"]`).textContent()).trim(), String(b.log_end_offset), `broker ${b.id}'s LEO in partition ${other.id}`);
  }
  assert.deepEqual(await page.locator('[data-testid="no-replica"] [data-broker]').evaluateAll((xs) => xs.map((x) => Number(x.dataset.broker))), chosen.brokers.filter((b) => b.replica === false).map((b) => b.id));
  assert.equal(await page.locator(`#cluster-map button[data-partition="${other.id}"]`).getAttribute('aria-pressed'), 'true');
  assert.deepEqual(await missingKeys(page), []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('Produce in a topic of several partitions sends to the partition chosen, or where the key goes', async () => {
  const s = scenario('broker-dies-and-returns');
  const { link } = expected(s, 0);
  const page = await openPage(env, { path: '?lang=en' });
  await open(page, link, 0);
  // The partition shown is the one chosen for Produce at first.
  await page.locator('#cluster-map button[data-partition="4"]').click();
  assert.equal(await page.locator('#produce-partition').inputValue(), '4');
  await page.fill('#produce-value', 'to-four');
  await page.click('#btn-produce');
  // By key: where Kafka's partitioner puts it, as the core computes it.
  await page.selectOption('#produce-partition', '');
  await page.fill('#produce-key', 'user-17');
  await page.fill('#produce-value', 'keyed');
  await page.click('#btn-produce');
  const check = core.Simulation.fromScenario({ ...s, steps: [{ produce: { value: 'to-four', acks: 'all', partition: 4 } }, { produce: { value: 'keyed', acks: 'all', key: 'user-17' } }] });
  const rows = check.state().producer;
  check.free();
  const shown = await page.locator('#producer .record-row').evaluateAll((lis) => lis.map((li) => [li.querySelector('.rec-value').textContent, Number(li.querySelector('[data-partition]').dataset.partition)]));
  assert.deepEqual(shown, rows.map((r) => [r.value, r.partition]));
  assert.equal(shown[0][1], 4);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the partition attribute chooses the partition; a bad one is a notice and changes nothing', async () => {
  const page = await openPage(env, { path: '?lang=en' });
  await page.evaluate(() => {
    document.body.innerHTML = '<highwater-playground id="pg" scenario="lose-a-rack-two-replicas-in-one-rack" partition="2" step="8"></highwater-playground>';
  });
  const el = page.locator('#pg');
  await el.locator('[data-testid="partition-shown"]').waitFor();
  assert.equal((await el.locator('[data-testid="partition-shown"]').textContent()).trim(), 'partition 2');
  await page.evaluate(() => document.getElementById('pg').setAttribute('partition', '5'));
  await el.locator('[data-testid="partition-shown"]', { hasText: 'partition 5' }).waitFor();
  for (const bad of ['x', '99']) {
    await page.evaluate((v) => document.getElementById('pg').setAttribute('partition', v), bad);
    await el.locator('.notice').last().waitFor();
    assert.equal((await el.locator('[data-testid="partition-shown"]').textContent()).trim(), 'partition 5', `partition="${bad}" leaves the board where it was`);
  }
  const notices = await el.locator('.notice').allTextContents();
  assert.ok(notices.some((n) => n.includes('"x" is not a partition number')), notices.join(' | '));
  assert.ok(notices.some((n) => n.includes('partition 99: the topic has partitions 0 to 5')), notices.join(' | '));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a topic of one partition loads none of the map', async () => {
  const page = await openPage(env, { path: '?lang=en' });
  const asked = [];
  page.on('request', (r) => asked.push(r.url()));
  const sim = core.Simulation.fromScenario({ version: 1, config: { brokers: 3 }, steps: [{ produce: { value: 'm1' } }, { fetch: 2 }] });
  const link = sim.toLink();
  sim.free();
  await page.goto(`${env.url}?lang=en#s=${link}&at=2`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.locator('.broker-row').first().waitFor();
  assert.equal(await page.locator('#cluster-map').isHidden(), true);
  assert.deepEqual(asked.filter((u) => /cluster-map/.test(u)), []);
  await page.context().close();
});

for (const [lang, colorScheme] of [['en', 'light'], ['zh-Hant', 'dark']]) {
  test(`12 partitions on 7 brokers in 3 racks stay on a 390 px phone (${lang}, ${colorScheme})`, async () => {
    const s = {
      version: 1,
      name: '12 x 7',
      config: { brokers: 7, partitions: 12, replication_factor: 3, racks: ['a', 'b', 'c', 'a', 'b', 'c', 'a'], min_insync_replicas: 2, auto_fetch: true, protocol: '4.1' },
      steps: [{ produce: { value: 'x' } }, { advance_ms: 1000 }, { crash: { rack: 'a' } }, { advance_ms: 10000 }],
    };
    const { link, state } = expected(s, 4);
    const page = await openPage(env, { path: `?lang=${lang}`, viewport: { width: 390, height: 844 }, colorScheme });
    await open(page, link, 4, lang);
    const shown = await page.evaluate(mapShown);
    assert.equal(shown.rows.length, 12);
    assert.equal(shown.urp, state.partitions.filter((p) => p.under_replicated).length);
    const box = await page.locator('#cluster-map').boundingBox();
    assert.ok(box.width <= 390 && box.x >= 0, JSON.stringify(box));
    assert.ok(await noHorizontalScroll(page));
    // The brokers are grouped by rack: a, then b, then c.
    const order = shown.rows[0].cells.map((c) => c.broker);
    assert.deepEqual(order, [1, 4, 7, 2, 5, 3, 6]);
    await page.locator('#cluster-map').screenshot({ path: path.join(ROOT, 'test-results', `cluster-map-phone-${lang}-${colorScheme}.png`) });
    assert.deepEqual(await missingKeys(page), []);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

test('the space-time diagram and the moment export draw the partition on the board', async () => {
  const s = scenario('broker-dies-and-returns');
  const at = 9;
  const sim = core.Simulation.fromScenario(s);
  const link = sim.toLink();
  const len = sim.length();
  const whole = sim.spaceTime(1, len);
  const third = sim.spaceTime(1, len, undefined, 3);
  sim.seek(at);
  const state = sim.state(undefined, undefined, 3);
  sim.free();
  assert.ok(third.arrows.length > 0 && third.arrows.length < whole.arrows.length, `${third.arrows.length} of ${whole.arrows.length}`);
  const page = await openPage(env, { path: '?lang=en', source: true });
  await open(page, link, at);
  await page.locator('#cluster-map button.map-row[data-partition="3"]').click();
  const note = page.locator('#diagram-partition');
  await note.waitFor();
  assert.match(await note.textContent(), /^Partition 3, the one on the board/);
  const drawn = await page.evaluate(async () => (await document.querySelector('highwater-playground').playground.loadDiagram()).data());
  assert.deepEqual(drawn.arrows, third.arrows, 'the panel draws partition 3\'s diagram');
  assert.deepEqual(drawn.marks, third.marks);
  // The moment: partition 3's replicas only, its line named.
  const moment = await page.evaluate(async ({ scenario, at }) => {
    const { core } = await import('./core.js');
    const ex = await import('./draw/export.js');
    const sim = core().Simulation.fromScenario(scenario);
    sim.seek(at);
    const text = ex.momentSvg(sim.state(undefined, undefined, 3), undefined, { partition: 3 });
    sim.free();
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return { brokers: [...doc.querySelectorAll('g.mo-broker')].map((g) => Number(g.getAttribute('data-broker'))), texts: [...doc.querySelectorAll('svg > text')].map((e) => e.textContent) };
  }, { scenario: s, at });
  const replicas = state.brokers.filter((b) => b.replica !== false).map((b) => b.id);
  assert.equal(replicas.length, 3);
  assert.deepEqual(moment.brokers, replicas);
  assert.ok(moment.texts.some((x) => x.startsWith(`Partition 3: leader broker ${state.partition.leader},`)), moment.texts.join(' | '));
  // Another partition: the note and the diagram follow.
  await page.locator('#cluster-map button.map-row[data-partition="0"]').click();
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#diagram-partition').textContent.startsWith('Partition 0'));
  assert.deepEqual(page.errors, []);
});

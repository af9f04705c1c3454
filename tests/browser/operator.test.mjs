// The operator's view panel shows what the core's `Simulation.operator()`
// reports: the describe line and every metric, in English and in Chinese,
// with no missing words and no page errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, loadCore, ROOT } from './harness.mjs';

let env;
let core;
before(async () => { env = await setup(); core = await loadCore(); });
after(async () => { await env?.close(); });

const entry = (id) => JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'gallery.json'), 'utf8')).entries.find((e) => e.id === id);

/** The core's views at the given positions (null: the end), and the scenario's link. */
function expected(id, positions) {
  const sim = core.Simulation.fromScenario(entry(id).scenario);
  const link = sim.toLink();
  const length = sim.length();
  const views = positions.map((p) => {
    const at = p === null ? length : p;
    sim.seek(at);
    return { at, view: sim.operator() };
  });
  sim.free();
  return { link, length, views };
}

/** What the panel shows: the describe line, and per metric its value and per-broker text. */
function shown() {
  const panel = document.querySelector('highwater-playground').shadowRoot.querySelector('#operator');
  const rows = [...panel.querySelectorAll('tr[data-metric]')].map((tr) => ({
    name: tr.dataset.metric,
    label: tr.querySelector('.metric-name').textContent,
    value: tr.querySelector('.metric-value').dataset.value,
    brokers: tr.querySelector('.metric-brokers')?.textContent ?? '',
    help: tr.querySelector('.metric-help').textContent,
    count: tr.querySelector('.metric-count')?.textContent ?? '',
  }));
  return { describe: panel.querySelector('pre.operator-describe').textContent, rows, visible: panel.offsetParent !== null };
}

const CASES = [
  { id: 'isr-shrink-and-expand', positions: [0, 7, null] },
  { id: 'eligible-leader-replicas', positions: [9, 13, null] },
  { id: 'offline-without-unclean', positions: [null] },
];

for (const lang of ['en', 'zh-Hans']) {
  test(`the operator's view shows the core's describe line and metrics (${lang})`, async () => {
    const page = await openPage(env, { path: `?lang=${lang}` });
    for (const { id, positions } of CASES) {
      const { link, views } = expected(id, positions);
      for (const { at, view } of views) {
        await page.goto(`${env.url}?lang=${lang}#s=${link}&at=${at}`);
        await page.waitForSelector('body[data-ready="true"]');
        await page.waitForFunction((n) => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.trim().startsWith(`${n} /`), at);
        await page.waitForFunction((d) => document.querySelector('highwater-playground').shadowRoot.querySelector('#operator pre')?.textContent === d, view.describe);
        const s = await page.evaluate(shown);
        const where = `${id} at ${at}`;
        assert.ok(s.visible, where);
        assert.equal(s.describe, view.describe, where);
        assert.deepEqual(s.rows.map((r) => r.name), view.metrics.map((m) => m.name), where);
        for (const [i, m] of view.metrics.entries()) {
          const r = s.rows[i];
          assert.equal(r.label, m.name, `${where}: Kafka's spelling`);
          assert.equal(r.value, String(m.value), `${where}: ${m.name}`);
          // Each broker's value (or that it is down) in broker order.
          const numbers = [...r.brokers.matchAll(/broker (\d+)[:：]\s*(\d+|[^·]+)/g)].map((x) => x[2].trim());
          assert.equal(numbers.length, m.per_broker.length, `${where}: ${m.name} per broker: ${r.brokers}`);
          m.per_broker.forEach((v, b) => {
            if (v === null) assert.doesNotMatch(numbers[b], /^\d+$/, `${where}: ${m.name} broker ${b + 1} is down`);
            else assert.equal(numbers[b], String(v), `${where}: ${m.name} broker ${b + 1}`);
          });
          assert.ok(r.help.trim().length > 0, `${where}: ${m.name} explained`);
          if (lang === 'zh-Hans') assert.match(r.help, /[\u4e00-\u9fff]/, `${where}: ${m.name} explained in Chinese`);
          assert.equal(Boolean(r.count), m.meter, `${where}: ${m.name} says count`);
        }
      }
    }
    // Some state with a problem was shown: the values are not all zero.
    assert.deepEqual(await page.evaluate(() => document.querySelector('highwater-playground').missingKeys()), []);
    assert.deepEqual(page.errors, []);
  });
}

test('the core reports the expected values the panel is checked against', () => {
  const [, shrunk, last] = expected('isr-shrink-and-expand', [0, 7, null]).views;
  const value = (v, name) => v.view.metrics.find((m) => m.name === name).value;
  assert.equal(value(shrunk, 'IsrShrinksPerSec'), 1);
  assert.equal(value(shrunk, 'UnderReplicatedPartitions'), 1);
  assert.equal(value(last, 'IsrExpandsPerSec'), 1);
  const [offline] = expected('offline-without-unclean', [null]).views;
  assert.match(offline.view.describe, /\tLeader: none\t/);
  assert.equal(value(offline, 'OfflinePartitionsCount'), 1);
  const [elr] = expected('eligible-leader-replicas', [9]).views;
  assert.match(elr.view.describe, /\tElr: 2\tLastKnownElr: $/);
});

test('a topic: the describe options list the core\'s partitions, and each metric is charted over the run', async () => {
  const id = 'broker-dies-and-returns';
  const sim = core.Simulation.fromScenario(entry(id).scenario);
  const link = sim.toLink();
  const series = sim.operatorSeries(200);
  sim.seek(9);
  const view = sim.operator();
  sim.free();
  const urp = view.lists.find((l) => l.option === '--under-replicated-partitions');
  assert.equal(urp.partitions.length, 4, 'broker 2 fenced: four partitions under-replicated');
  const page = await openPage(env, { path: `?lang=en#s=${link}&at=9` });
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#operator pre'));
  const el = page.locator('highwater-playground');
  assert.equal(await el.locator('#operator pre.operator-describe').textContent(), view.describe, 'every partition by default');
  await el.locator('#describe-option').selectOption('--under-replicated-partitions');
  assert.equal(await el.locator('#operator pre.operator-describe').textContent(), urp.output);
  await el.locator('#describe-option').selectOption('--unavailable-partitions');
  assert.equal(await el.locator('#operator pre.operator-describe').count(), 0);
  assert.match(await el.locator('[data-testid="describe-none"]').textContent(), /every partition has a leader on a live broker/);
  // A chart per metric, its words from the core's samples.
  const charts = el.locator('svg[data-metric-chart]');
  assert.equal(await charts.count(), view.metrics.length);
  const samples = series.metrics.find((m) => m.name === 'UnderReplicatedPartitions').values;
  assert.equal(Math.max(...samples), 4);
  const chart = el.locator('svg[data-metric-chart="UnderReplicatedPartitions"]');
  const label = await chart.getAttribute('aria-label');
  assert.match(label, /0 at the start, at most 4 \(step \d+\), 0 at the end/);
  // Its first point goes to the start of the run.
  const box = await chart.boundingBox();
  await chart.click({ position: { x: 4, y: box.height / 2 } });
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.trim().startsWith('0 /'));
  assert.deepEqual(page.errors, []);
});

test('the panel is not in the embed', async () => {
  const page = await openPage(env, { path: '?embed', viewport: { width: 800, height: 500 } });
  assert.equal(await page.locator('section.panel.operator').isVisible(), false);
  assert.deepEqual(page.errors, []);
});

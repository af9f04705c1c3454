// The fork view: the KIP-101 gallery scenario and a fork of it drawn side by
// side by www/compare.js in the page, the marked cells being exactly the
// core's differences; the fork's text round-trips through the wasm binding;
// the fork replays to the trace `highwater run` prints for it; screenshots
// at 1440 and 390 px in English and Simplified Chinese.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, cliTrace, missingKeys, noHorizontalScroll, ROOT, RESULTS } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const KIP101 = fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', 'kip101-loss-after-restart.json'), 'utf8');

/**
 * In the page: forks the scenario, runs both, seeks both to `position`
 * (a run that stopped early to its last step), draws the compare view into a
 * host that replaces the page's content, and reports what it drew.
 */
async function drawCompare(page, changeText, position, scenarioText = KIP101) {
  return page.evaluate(async ({ scenarioText, changeText, position }) => {
    const { core } = await import('./core.js');
    const { compareView, diffId } = await import('./compare.js');
    const { patch } = await import('./dom.js');
    if (!document.querySelector('link[href="compare.css"]')) {
      const link = Object.assign(document.createElement('link'), { rel: 'stylesheet', href: 'compare.css' });
      document.head.append(link);
      await new Promise((done) => { link.onload = done; });
    }
    const c = core();
    const forked = c.forkScenario(scenarioText, changeText);
    const original = JSON.parse(scenarioText);
    const runs = [original, forked.scenario].map((s) => {
      const sim = c.Simulation.fromScenario(s);
      const at = Math.min(position, sim.length());
      sim.seek(at);
      return { sim, at, length: sim.length(), scenario: s, outcome: c.runOutcome(s) };
    });
    const [a, b] = runs;
    const differences = a.sim.differencesWith(b.sim);
    const epochs = (p) => !['0.10', 'legacy'].includes(p);
    const side = (r) => ({ state: r.sim.state(), scenario: r.scenario, outcome: r.outcome, position: r.at, length: r.length });
    let host = document.getElementById('compare-host');
    if (!host) {
      for (const el of document.body.children) el.style.display = 'none';
      host = document.createElement('main');
      host.id = 'compare-host';
      host.style.padding = '12px';
      document.body.prepend(host);
    }
    patch(host, compareView({
      left: side(a), right: side(b), differences, change: forked.change, position,
      recordEpochs: { left: epochs(original.config.protocol), right: epochs(forked.scenario.config.protocol) },
    }));
    const ids = (sel) => [...host.querySelectorAll(sel)].flatMap((el) => el.dataset.diff.split(' '));
    return {
      differences,
      expectedIds: differences.map(diffId),
      listed: ids('.compare-diff-list li[data-diff]'),
      markedLeft: ids('[data-side="left"] [data-diff]'),
      markedRight: ids('[data-side="right"] [data-diff]'),
      marks: host.querySelectorAll('.compare-runs .diff-mark').length,
      markedElements: host.querySelectorAll('.compare-runs .diff').length,
      header: host.querySelector('[data-testid="fork-change"]').textContent,
      outcomes: [...host.querySelectorAll('.compare-run [data-outcome]')].map((el) => el.dataset.outcome),
      forkScenario: forked.scenario,
      forkTrace: b.sim.traceText(),
      summary: forked.change,
    };
  }, { scenarioText, changeText, position });
}

/** What a broker's stat or cell shows on one side, and whether it is marked. */
async function shown(page, side, selector) {
  return page.locator(`#compare-host [data-side="${side}"] ${selector}`).evaluate((el) => ({ text: el.textContent, marked: el.classList.contains('diff'), diff: el.dataset.diff ?? null }));
}

test('KIP-101 forked to 0.11: the marked cells are the core\'s differences, and the fork replays as the command line runs it', async () => {
  const page = await openPage(env, { path: '?lang=en', viewport: { width: 1440, height: 1000 } });
  const r = await drawCompare(page, 'protocol=0.11', 19);
  assert.ok(r.differences.length > 0);
  // Every difference is listed once and marked in at least one run; nothing else is marked.
  assert.deepEqual([...r.listed].sort(), [...r.expectedIds].sort());
  assert.deepEqual(new Set([...r.markedLeft, ...r.markedRight]), new Set(r.expectedIds));
  assert.ok(r.marks >= r.markedElements, 'every marked element has its visible ≠');
  // The loss: a violation in the original only, m2 at offset 1 on brokers 1 and 3 only in the fork.
  const violation = r.differences.find((d) => d.kind === 'violation');
  assert.deepEqual([violation.only_in, violation.violation, violation.value, violation.offset], ['left', 'acked_write_lost', 'm2', 1]);
  assert.ok(r.markedLeft.includes(`violation:left:acked_write_lost:1:true`));
  assert.ok(!r.markedRight.some((id) => id.startsWith('violation:')));
  for (const broker of [1, 3]) {
    const d = r.differences.find((x) => x.kind === 'record_missing' && x.broker === broker);
    assert.deepEqual([d.offset, d.only_in, d.value], [1, 'right', 'm2']);
    const cell = await shown(page, 'right', `section[data-broker="${broker}"] .cells .cell[data-diff="record_missing:${broker}:1"]`);
    assert.match(cell.text, /^1m2/);
    const absent = await shown(page, 'left', `section[data-broker="${broker}"] .cells .cell.fork-absent`);
    assert.equal(absent.diff, `record_missing:${broker}:1`);
  }
  // Each LEO and HW difference is drawn with the core's numbers on both sides.
  for (const d of r.differences.filter((x) => x.kind === 'log_end_offset' || x.kind === 'high_watermark')) {
    const stat = d.kind === 'log_end_offset' ? 'leo' : 'hw';
    for (const side of ['left', 'right']) {
      const s = await shown(page, side, `section[data-broker="${d.broker}"] [data-stat="${stat}"]`);
      assert.ok(s.marked, `${side} ${d.kind} ${d.broker}`);
      assert.equal(s.text.match(/^\d+/)[0], String(d[side]));
    }
  }
  // Broker 2's LEO is the same in both runs: not marked.
  assert.equal((await shown(page, 'left', 'section[data-broker="2"] [data-stat="leo"]')).marked, false);
  assert.equal(r.header, 'Fork: Kafka 0.10 → Kafka 0.11');
  assert.deepEqual(r.outcomes, ['acked_write_lost', 'safe']);
  assert.deepEqual(r.summary, { text: 'protocol=0.11', setting: 'protocol', step: null, from: '0.10', to: '0.11' });
  // The fork is the scenario file the command line runs: the same trace, line for line.
  assert.equal(r.forkTrace, cliTrace(r.forkScenario));
  assert.equal(r.forkScenario.config.protocol, '0.11');

  // Earlier, before the runs part (step 7): no record differs; a different step shows nothing from the end.
  const early = await drawCompare(page, 'protocol=0.11', 7);
  assert.ok(early.differences.every((d) => !['violation', 'record_missing', 'record_value'].includes(d.kind)), JSON.stringify(early.differences));
  assert.deepEqual(new Set([...early.markedLeft, ...early.markedRight]), new Set(early.expectedIds));
  assert.deepEqual(await missingKeys(page), []);
  assert.deepEqual(page.errors, []);
});

test('a no-op fork shows no differences; acks=1 turns the protocol violation into a loss acks=1 allows', async () => {
  const page = await openPage(env, { path: '?lang=en', viewport: { width: 1440, height: 900 } });
  const same = await drawCompare(page, 'min_insync_replicas=1', 19);
  assert.deepEqual(same.differences, []);
  assert.equal(same.markedElements, 0);
  assert.equal(await page.locator('#compare-host [data-testid="no-differences"]').count(), 1);
  const acks = await drawCompare(page, 'acks=1', 19);
  const v = acks.differences.filter((d) => d.kind === 'violation').map((d) => [d.only_in, d.protocol_violation]);
  assert.deepEqual(v, [['left', true], ['right', false]]);
  assert.deepEqual(acks.outcomes, ['acked_write_lost', 'acks1_write_lost']);
  assert.equal(acks.header, 'Fork: acks of every write all → 1');
  assert.deepEqual(new Set([...acks.markedLeft, ...acks.markedRight]), new Set(acks.expectedIds));
  assert.deepEqual(page.errors, []);
});

test('change text round-trips through the wasm binding; bad text and impossible changes throw naming the problem; the chooser offers what fits', async () => {
  const page = await openPage(env, { path: '?lang=en' });
  const r = await page.evaluate(async (scenarioText) => {
    const { core } = await import('./core.js');
    const { forkChoices } = await import('./compare.js');
    const { buildFragment, parseFragment } = await import('./share.js');
    const c = core();
    const texts = ['protocol=4.1', 'acks=all', 'acks@8=1', 'min_insync_replicas=2', 'unclean_leader_election=false', 'replica_lag_time_max_ms=10000', 'enable_idempotence=true', 'step@14=crash:3', 'step@1=produce:hello%20%E4%B8%96:0:2', 'step@2=heal:1:2', 'step@2=elect'];
    const back = texts.map((x) => c.changeText(c.parseChange(x)));
    const error = (f) => { try { f(); return null; } catch (e) { return e.message; } };
    const scenario = JSON.parse(scenarioText);
    const choices = forkChoices(scenario, 8, c.versions.versions.map((v) => v.name));
    // Every offered option is a change the core takes.
    const offered = choices.flatMap((ch) => (ch.options || []).map((o) => c.changeText(o.change)));
    const taken = offered.map((x) => error(() => c.forkScenario(scenarioText, x)));
    const stepChoice = choices.find((ch) => ch.kind === 'step');
    return {
      texts, back,
      parsed: c.parseChange('acks@8=1'),
      bad: ['min_isr=2', 'acks@0=all', 'step@3=produce:a b:1', 'protocol=9.9'].map((x) => error(() => c.parseChange(x))),
      impossible: ['acks@2=1', 'min_insync_replicas=4', 'step@99=fetch:2'].map((x) => error(() => c.forkScenario(scenarioText, x))),
      kinds: choices.map((ch) => (ch.step ? `${ch.kind}@${ch.step}` : ch.kind)),
      offered, taken,
      stepText: c.changeText(stepChoice.change({ crash: { broker: 3, lose_unflushed: 0 } })),
      // The link carries the change as written, %XX and all.
      fragments: texts.map((x) => parseFragment(buildFragment('v1.abc', 3, x))),
      plain: parseFragment(buildFragment('v1.abc', 3)),
    };
  }, KIP101);
  assert.deepEqual(r.back, r.texts);
  assert.deepEqual(r.parsed, { change: 'acks', step: 8, acks: '1' });
  assert.match(r.bad[0], /unknown setting "min_isr"/);
  assert.match(r.bad[1], /steps are numbered from 1/);
  assert.match(r.bad[2], /must be percent-encoded/);
  assert.match(r.bad[3], /"9.9" is not a version preset/);
  assert.equal(r.impossible[0], 'acks@2: step 2 is a fetch step, not a produce');
  assert.match(r.impossible[1], /min_insync_replicas: 4 must be between 1 and brokers \(3\)/);
  assert.equal(r.impossible[2], 'step 99: the scenario has steps 1..=19');
  // At step 8: both produce steps so far (latest first), a step to replace, and the settings.
  assert.deepEqual(r.kinds, ['protocol', 'acks_all', 'acks@8', 'acks@1', 'min_insync_replicas', 'unclean_leader_election', 'enable_idempotence', 'replica_lag_time_max_ms', 'step@8']);
  assert.ok(r.offered.includes('protocol=0.11') && !r.offered.includes('protocol=0.10'), r.offered.join(' '));
  assert.ok(r.offered.includes('acks@8=1') && r.offered.includes('min_insync_replicas=2'));
  assert.deepEqual(r.taken, r.offered.map(() => null));
  assert.equal(r.stepText, 'step@8=crash:3');
  assert.deepEqual(r.fragments.map((f) => [f.link, f.at, f.fork]), r.texts.map((x) => ['v1.abc', 3, x]));
  assert.deepEqual(r.plain, { link: 'v1.abc', at: 3, badAt: null, fork: null });
  assert.deepEqual(page.errors, []);
});

test('a long log is shown where the runs differ: the record at offset 16 is marked in both runs', async () => {
  // KIP-101 after 15 records written and replicated everywhere: m2 is at offset 16.
  const s = JSON.parse(KIP101);
  const before = Array.from({ length: 15 }, (_, i) => [{ produce: { value: `x${i}`, acks: 'all' } }, { fetch: 2 }, { fetch: 3 }, { fetch: 2 }, { fetch: 3 }]).flat();
  s.steps = [...before, ...s.steps];
  const page = await openPage(env, { path: '?lang=en', viewport: { width: 1440, height: 1000 } });
  const r = await drawCompare(page, 'protocol=0.11', s.steps.length, JSON.stringify(s));
  const missing = r.differences.filter((d) => d.kind === 'record_missing').map((d) => [d.broker, d.offset, d.value]);
  assert.deepEqual(missing, [[1, 16, 'm2'], [3, 16, 'm2']]);
  assert.deepEqual(new Set([...r.markedLeft, ...r.markedRight]), new Set(r.expectedIds));
  const ticks = await page.locator('#compare-host [data-side="left"] .ruler .tick').allTextContents();
  assert.ok(Number(ticks[0]) > 0 && ticks.includes('16'), ticks.join(' '));
  assert.match((await shown(page, 'right', 'section[data-broker="3"] .cell[data-diff="record_missing:3:16"]')).text, /^16m2/);
  assert.equal((await shown(page, 'left', 'section[data-broker="3"] .cell.fork-absent')).diff, 'record_missing:3:16');
  assert.deepEqual(page.errors, []);
});

for (const lang of ['en', 'zh-Hans']) {
  for (const width of [1440, 390]) {
    test(`the compare view at ${width} px (${lang}): no horizontal scroll, every word from the locales`, async () => {
      const page = await openPage(env, { path: `?lang=${lang}`, viewport: { width, height: width > 800 ? 1000 : 844 } });
      const r = await drawCompare(page, 'protocol=0.11', 19);
      assert.deepEqual(new Set([...r.markedLeft, ...r.markedRight]), new Set(r.expectedIds));
      const [left, right] = await page.locator('#compare-host .compare-run').evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON()));
      if (width > 900) assert.ok(Math.abs(left.top - right.top) < 2 && right.left > left.right, 'side by side');
      else assert.ok(right.top >= left.bottom, 'stacked, the original first');
      assert.ok(await noHorizontalScroll(page));
      if (lang !== 'en') assert.match(r.header, /假设：从 Kafka 0.10 换成 Kafka 0.11/);
      fs.mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: path.join(RESULTS, `compare-${lang}-${width}.png`), fullPage: true });
      assert.deepEqual(await missingKeys(page), []);
      assert.deepEqual(page.errors, []);
    });
  }
}

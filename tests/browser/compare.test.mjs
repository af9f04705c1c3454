// The fork view: the KIP-101 gallery scenario and a fork of it drawn side by
// side by www/draw/compare.js in the page, the marked cells being exactly the
// core's differences; the fork's text round-trips through the wasm binding;
// the fork replays to the trace `highwater run` prints for it; screenshots
// at 1440 and 390 px in English and Simplified Chinese.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, loadCore, cliTrace, missingKeys, noHorizontalScroll, ROOT, RESULTS, addressWritten } from './harness.mjs';

let env;
let core;
before(async () => { env = await setup(); core = await loadCore(); });
after(async () => { await env?.close(); });

const KIP101 = fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', 'kip101-loss-after-restart.json'), 'utf8');

/**
 * Opens the comparison as a link does (`#s=<link>&at=<position>&fork=<change>`),
 * waits until the page draws it, and reports what it drew beside what the
 * core says of the two runs (a run that stopped early is shown at its last step).
 */
async function drawCompare(page, changeText, position, scenarioText = KIP101) {
  const sim = core.Simulation.fromScenario(JSON.parse(scenarioText));
  const link = sim.toLink();
  sim.free();
  const url = new URL(page.url());
  await page.goto(`${url.origin}${url.pathname}${url.search}#s=${link}&at=${position}&fork=${changeText}`);
  await page.waitForFunction(([text, at]) => {
    const pg = document.querySelector('highwater-playground').playground;
    return pg && pg.forkView && pg.forkView.text === text && pg.sim.position() === Math.min(at, pg.sim.length())
      && pg.root.querySelector('#compare [data-testid="fork-change"]');
  }, [changeText, position]);
  return page.evaluate(async () => {
    const { diffId } = await import('./draw/compare.js');
    const pg = document.querySelector('highwater-playground').playground;
    const host = pg.root.getElementById('compare');
    const differences = pg.sim.differencesWith(pg.forkView.sim);
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
      forkScenario: pg.forkView.scenarios.right,
      forkTrace: pg.forkView.sim.traceText(),
      summary: pg.forkView.change,
      hash: location.hash,
    };
  });
}

/** What a broker's stat or cell shows on one side, and whether it is marked. */
async function shown(page, side, selector) {
  return page.locator(`#compare [data-side="${side}"] ${selector}`).evaluate((el) => ({ text: el.textContent, marked: el.classList.contains('diff'), diff: el.dataset.diff ?? null }));
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
  assert.ok(r.markedLeft.includes(`violation:left:acked_write_lost:1:true:`));
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
  assert.equal(await page.locator('#compare [data-testid="no-differences"]').count(), 1);
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
    const { forkChoices } = await import('./draw/compare.js');
    const { buildFragment, parseFragment } = await import('./element/share.js');
    const c = core();
    const texts = ['protocol=4.1', 'acks=all', 'acks@8=1', 'min_insync_replicas=2', 'unclean_leader_election=false', 'replica_lag_time_max_ms=10000', 'enable_idempotence=true', 'step@14=crash:3', 'step@1=produce:hello%20%E4%B8%96:0:2', 'step@2=heal:1:2', 'step@2=elect'];
    const back = texts.map((x) => c.changeText(c.parseChange(x)));
    const error = (f) => { try { f(); return null; } catch (e) { return e.message; } };
    const scenario = JSON.parse(scenarioText);
    const choices = forkChoices(scenario, 8, c.versions.versions);
    // Under 0.11 (which has the idempotent producer) turning it on is offered and taken too.
    const at011 = c.forkScenario(scenarioText, 'protocol=0.11').scenario;
    const choices011 = forkChoices(at011, 8, c.versions.versions);
    const idempotence011 = choices011.find((ch) => ch.kind === 'enable_idempotence');
    const taken011 = idempotence011 && error(() => c.forkScenario(JSON.stringify(at011), c.changeText(idempotence011.options[0].change)));
    // A file that names 0.10 by its alias ("legacy") is 0.10 all the same.
    const legacy = forkChoices({ ...scenario, config: { ...scenario.config, protocol: 'legacy' } }, 8, c.versions.versions).map((ch) => (ch.step ? `${ch.kind}@${ch.step}` : ch.kind));
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
      offered, taken, legacy, idempotence011: idempotence011 && idempotence011.options.map((o) => c.changeText(o.change)), taken011,
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
  // At step 8: both produce steps so far (latest first), a step to replace, and the settings;
  // enable.idempotence is not offered under 0.10, whose client has none.
  assert.deepEqual(r.kinds, ['protocol', 'acks_all', 'acks@8', 'acks@1', 'min_insync_replicas', 'unclean_leader_election', 'replica_lag_time_max_ms', 'step@8']);
  assert.deepEqual(r.legacy, r.kinds);
  assert.deepEqual(r.idempotence011, ['enable_idempotence=true']);
  assert.equal(r.taken011, null);
  assert.ok(r.offered.includes('protocol=0.11') && !r.offered.includes('protocol=0.10'), r.offered.join(' '));
  assert.ok(r.offered.includes('acks@8=1') && r.offered.includes('min_insync_replicas=2'));
  assert.deepEqual(r.taken, r.offered.map(() => null));
  assert.equal(r.stepText, 'step@8=crash:3');
  assert.deepEqual(r.fragments.map((f) => [f.link, f.at, f.fork]), r.texts.map((x) => ['v1.abc', 3, x]));
  assert.deepEqual(r.plain, { link: 'v1.abc', at: 3, badAt: null, fork: null, tour: null });
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
  const ticks = await page.locator('#compare [data-side="left"] .ruler .tick').allTextContents();
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
      const [left, right] = await page.locator('#compare .compare-run').evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON()));
      if (width > 900) assert.ok(Math.abs(left.top - right.top) < 2 && right.left > left.right, 'side by side');
      else {
        // Stacked, one at a time: the original first, the fork a tap away in the same place.
        assert.ok(left.height > 0 && right.height === 0, 'the original shown, the fork behind the switch');
        await page.locator('#compare button[data-compare-show="right"]').click();
        const [l2, r2] = await page.locator('#compare .compare-run').evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON()));
        assert.ok(l2.height === 0 && r2.height > 0 && Math.abs(r2.top - left.top) < 2, 'the fork in the original\'s place');
        await page.locator('#compare button[data-compare-show="left"]').click();
      }
      assert.ok(await noHorizontalScroll(page));
      if (lang !== 'en') assert.match(r.header, /假设：从 Kafka 0.10 换成 Kafka 0.11/);
      fs.mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: path.join(RESULTS, `compare-${lang}-${width}.png`), fullPage: true });
      if (process.env.HIGHWATER_SCREENSHOTS && lang === 'en' && width === 1440) await page.locator('#compare').screenshot({ path: path.join(ROOT, 'docs', 'screenshot-compare.png') });
      assert.deepEqual(await missingKeys(page), []);
      assert.deepEqual(page.errors, []);
    });
  }
}

test('What if… on the page: the chooser forks at the step, the link carries the fork and reopens it, the timeline moves both, Back to the run closes it', async () => {
  const sim = core.Simulation.fromScenario(JSON.parse(KIP101));
  const link = sim.toLink();
  sim.free();
  const page = await openPage(env, { hash: `#s=${link}&at=8`, viewport: { width: 1440, height: 1000 } });
  await page.click('#btn-fork');
  await page.locator('#dlg-fork').waitFor();
  // The first choice is the version: choose 0.11 and fork.
  assert.match(await page.locator('#fork-kind option').first().textContent(), /Kafka version/);
  await page.selectOption('#fork-value', { label: 'Kafka 0.11' });
  await page.click('#btn-fork-apply');
  await page.locator('#compare [data-testid="fork-change"]').waitFor();
  assert.equal(await page.locator('#compare [data-testid="fork-change"]').textContent(), 'Fork: Kafka 0.10 → Kafka 0.11');
  await addressWritten(page);
  assert.match(await page.evaluate(() => location.hash), /&at=8&fork=protocol=0\.11$/);
  assert.equal(await page.locator('.layout').isVisible(), false, 'the single run gives way to the two');
  // The shared timeline: End moves both runs; the loss shows in the original only.
  await page.keyboard.press('End');
  await page.waitForFunction(() => /&at=19&fork=/.test(location.hash));
  assert.deepEqual(await page.locator('#compare .compare-run [data-outcome]').evaluateAll((els) => els.map((e) => e.dataset.outcome)), ['acked_write_lost', 'safe']);
  assert.ok(await page.locator('#compare [data-side="left"] [data-diff^="violation:"]').count() > 0);
  // The link reopens the same comparison in a new page.
  const href = await page.evaluate(() => location.href);
  const again = await env.browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await again.goto(href);
  await again.locator('#compare [data-testid="fork-change"]').waitFor();
  assert.equal(await again.locator('#position').textContent(), '19 / 19');
  await again.close();
  // Back to the run: the comparison closes, the link loses the fork, the run stays at its step.
  await page.click('#btn-fork-close');
  assert.equal(await page.locator('.layout').isVisible(), true);
  await page.waitForFunction(() => !/fork=/.test(location.hash));
  assert.equal(await page.locator('#position').textContent(), '19 / 19');
  // A change the core refuses, in a link: a message, and the run without a fork.
  await page.goto(`${env.url}#s=${link}&at=3&fork=min_insync_replicas=9`);
  await page.locator('.notice-error', { hasText: 'min_insync_replicas' }).waitFor();
  assert.equal(await page.locator('.layout').isVisible(), true);
  assert.deepEqual(page.errors, []);
});

test('a fork the core refuses is said in the page\'s language: the core\'s sentence through the phrase table', async () => {
  const sim = core.Simulation.fromScenario(JSON.parse(KIP101));
  const link = sim.toLink();
  sim.free();
  const cases = [
    ['min_isr=2', /未知的设置 "min_isr"/],
    ['acks@2=1', /acks@2：第 2 步是 fetch，不是生产/],
    ['step@99=fetch:2', /step 99：场景只有第 1 到第 19 步/],
    ['protocol=9.9', /"9\.9" 不是可选的 Kafka 版本/],
  ];
  for (const [change, expected] of cases) {
    const page = await openPage(env, { path: '?lang=zh-Hans', hash: `#s=${link}&at=3&fork=${change}` });
    const notice = page.locator('.notice-error');
    await notice.waitFor();
    assert.match(await notice.textContent(), expected, change);
    assert.equal(await page.locator('.layout').isVisible(), true, 'the run, without a fork');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

for (const [width, height] of [[1440, 900], [1280, 720], [390, 844]]) {
  test(`What if… at ${width}x${height}: the runs open with their brokers in view, side by side or (a phone) one at a time with a switch (the description, the step notes and the one run's banner give way while comparing; the page scrolls up by what is missing, never past the comparison's bar)`, async () => {
    const sim = core.Simulation.fromScenario(JSON.parse(KIP101));
    const link = sim.toLink();
    sim.free();
    const page = await openPage(env, { hash: `#s=${link}&at=19`, viewport: { width, height } });
    await page.click('#btn-fork');
    await page.locator('#dlg-fork').waitFor();
    await page.selectOption('#fork-value', { label: 'Kafka 0.11' });
    await page.click('#btn-fork-apply');
    await page.locator('#compare [data-testid="fork-change"]').waitFor();
    const shown = () => page.locator('#compare .broker-row').evaluateAll((list) => list.filter((r) => r.offsetParent).map((r) => {
      const b = r.getBoundingClientRect();
      return { side: r.closest('[data-side]').dataset.side, broker: r.dataset.broker, top: Math.round(b.top), bottom: Math.round(b.bottom) };
    }));
    const phone = width < 900;
    let rows = await shown();
    // Side by side, both runs; stacked (a phone), one at a time, the original first.
    assert.deepEqual(rows.map((r) => r.side), phone ? ['left', 'left', 'left'] : ['left', 'left', 'left', 'right', 'right', 'right']);
    for (const r of rows) assert.ok(r.top >= 0 && r.bottom <= height, `${r.side} broker ${r.broker}: ${r.top}-${r.bottom}`);
    if (phone) {
      await page.locator('#compare button[data-compare-show="right"]').click();
      rows = await shown();
      assert.deepEqual(rows.map((r) => r.side), ['right', 'right', 'right']);
      for (const r of rows) assert.ok(r.top >= 0 && r.bottom <= height, `${r.side} broker ${r.broker}: ${r.top}-${r.bottom}`);
      assert.equal(await page.locator('#compare button[data-compare-show="right"]').getAttribute('aria-pressed'), 'true');
    } else {
      assert.equal(await page.locator('#compare .compare-switch').isVisible(), false, 'side by side: no switch');
    }
    const bar = await page.locator('#compare-bar').boundingBox();
    assert.ok(bar.y >= 0, 'Back to the run stays in view');
    assert.equal(await page.locator('#banner').isVisible(), false);
    // Back to the run: the banner and the description return.
    await page.click('#btn-fork-close');
    assert.equal(await page.locator('#banner .banner').isVisible(), true);
    assert.equal(await page.locator('#scenario-description').isVisible(), true);
    assert.deepEqual(page.errors, []);
  });
}

// The JS API checks its arguments at the boundary (src/boundary/wasm.rs,
// `args`): a value of the wrong type is a TypeError, a number that is not
// whole or out of range a RangeError, each naming the function. No argument
// reaches a trap (`fromLink(123)` once read 123 as a string's address) or a
// panic (`benchTimedRun(1e9)`), and the same instance keeps working after
// every refusal. Runs both packages in Node (scripts/build-wasm.sh builds them).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, ensureBuilt } from './harness.mjs';

const cores = {};
const SCENARIO = { version: 1, steps: [{ produce: { value: 'm1', acks: 'all' } }, { fetch: 2 }, { fetch: 3 }] };

before(async () => {
  ensureBuilt();
  for (const dir of ['pkg', 'pkg-quorum', 'pkg-fast']) {
    const core = await import(`${join(ROOT, 'www', dir, 'highwater.js')}?arguments=${dir}`);
    core.initSync({ module: readFileSync(join(ROOT, 'www', dir, 'highwater_bg.wasm')) });
    cores[dir] = core;
  }
});

/** `f()` throws `type` with a message naming `name`; then the core still runs a scenario and no panic is recorded. */
function refused(core, type, name, f) {
  assert.throws(f, (e) => {
    assert.equal(e.constructor.name, type.name, `${name}: ${e.constructor.name}: ${e.message}`);
    assert.ok(e.message.startsWith(name), `${name}: ${e.message}`);
    assert.ok(e.message.length < 800, e.message);
    return true;
  });
  assert.equal(core.lastPanic(), undefined, `${name}: no panic`);
  const sim = core.Simulation.fromScenario(SCENARIO);
  assert.equal(sim.state().brokers.length, 3);
  sim.free();
}

for (const dir of ['pkg', 'pkg-quorum', 'pkg-fast']) {
  test(`${dir}: a link or a change that is not a string is a TypeError, not a trap`, () => {
    const core = cores[dir];
    for (const bad of [123, {}, null, undefined, [], true, () => 'v1.x', Symbol('x'), 12n]) {
      refused(core, TypeError, 'fromLink: text', () => core.Simulation.fromLink(bad));
      if (core.forkScenario) {
        refused(core, TypeError, 'parseChange: text', () => core.parseChange(bad));
        refused(core, TypeError, 'forkScenario: changeText', () => core.forkScenario(SCENARIO, bad));
      }
      refused(core, TypeError, 'withProtocol: protocol', () => core.withProtocol({}, bad));
      refused(core, TypeError, 'whatifScenario: protocol', () => core.whatifScenario(SCENARIO, bad, 'all', 1, false));
    }
    const link = core.Simulation.fromScenario(SCENARIO).toLink();
    assert.equal(core.Simulation.fromLink(link).length(), 3, 'a good link still loads');
  });

  // The views (the fork's comparison among them) are in the full cores (the `views` test below).
  if (dir !== 'pkg') test(`${dir}: differencesWith takes a Simulation: anything else is a TypeError saying what it got`, () => {
    const core = cores[dir];
    const sim = core.Simulation.fromScenario(SCENARIO);
    for (const [bad, got] of [[123, 'number'], [{}, 'object'], [null, 'null'], [undefined, 'undefined'], [[], 'an array'], ['v1.x', 'string']]) {
      assert.throws(() => sim.differencesWith(bad), (e) => e instanceof TypeError && e.message === `expected an instance of Simulation, got ${got}`);
      assert.equal(core.lastPanic(), undefined);
    }
    // The run is untouched and compares as before: with itself, nothing differs.
    const other = core.Simulation.fromScenario(SCENARIO);
    assert.deepEqual(sim.differencesWith(other), []);
    assert.equal(sim.length(), 3);
    sim.free();
    other.free();
  });

  test(`${dir}: a scenario, step or options that is neither an object nor JSON text is a TypeError`, () => {
    const core = cores[dir];
    for (const bad of [123, null, undefined, true, () => ({})]) {
      refused(core, TypeError, 'fromScenario: scenario', () => core.Simulation.fromScenario(bad));
      refused(core, TypeError, 'runOutcome: scenario', () => core.runOutcome(bad));
      if (core.explore) {
        refused(core, TypeError, 'whatif: scenario', () => core.whatif(bad, () => true));
        refused(core, TypeError, 'explore: options', () => core.explore(bad, () => true));
      }
      if (core.changeText) refused(core, TypeError, 'changeText: change', () => core.changeText(bad));
      const sim = core.Simulation.fromScenario(SCENARIO);
      refused(core, TypeError, 'apply: step', () => sim.apply(bad));
      sim.free();
    }
    const cyclic = { version: 1 };
    cyclic.self = cyclic;
    refused(core, TypeError, 'fromScenario: scenario', () => core.Simulation.fromScenario(cyclic));
    if (core.explore) {
      refused(core, TypeError, 'whatif: progress', () => core.whatif(SCENARIO, 'not a function'));
      refused(core, TypeError, 'explore: progress', () => core.explore({ config: {} }, null));
    }
    refused(core, TypeError, 'whatifScenario: uncleanLeaderElection', () => core.whatifScenario(SCENARIO, '3.7', 'all', 1, 'yes'));
  });

  test(`${dir}: the explorer's numbers and the what-if cell's acks and min.insync.replicas out of range are a RangeError`, () => {
    const core = cores[dir];
    const config = { brokers: 2 };
    for (const [option, value] of core.explore ? [['depth', 0], ['depth', 65], ['max_states', 0], ['max_states', 12_000_001], ['max_produces', 0], ['max_produces', 17]] : []) {
      refused(core, RangeError, `explore: options.${option}: ${value} is out of range`, () => core.explore({ config, [option]: value }, () => false));
    }
    refused(core, RangeError, 'whatifScenario: acks: "2" is not "0", "1" or "all"', () => core.whatifScenario(SCENARIO, '3.7', '2', 1, false));
    refused(core, RangeError, 'whatifScenario: minInsyncReplicas: 0', () => core.whatifScenario(SCENARIO, '3.7', 'all', 0, false));
    // In range, the search runs (stopped at once by its callback).
    if (core.explore) assert.equal(typeof core.explore({ config, depth: 2, max_produces: 16 }, () => false).states, 'number');
  });

  test(`${dir}: positions and counts are whole numbers in range, not wrapped`, () => {
    const core = cores[dir];
    const sim = core.Simulation.fromScenario(SCENARIO);
    for (const bad of [2 ** 32 + 5, 2 ** 53, NaN, -1, 1.5, Infinity, 4]) {
      refused(core, RangeError, 'seek: position', () => sim.seek(bad));
      assert.equal(sim.position(), 3, `seek(${bad}) left the position alone`);
    }
    for (const bad of [-1, NaN, 0.5, 2 ** 53, -Infinity]) {
      refused(core, RangeError, 'eventsSince: index', () => sim.eventsSince(bad));
      refused(core, RangeError, 'eventsIn: from', () => sim.eventsIn(bad, 2));
      refused(core, RangeError, 'eventsIn: to', () => sim.eventsIn(0, bad));
      refused(core, RangeError, 'stepEvents: step', () => sim.stepEvents(bad));
      refused(core, RangeError, 'stepEvents: last', () => sim.stepEvents(1, bad));
      refused(core, RangeError, 'stepText: step', () => sim.stepText(bad));
      refused(core, RangeError, 'state: logFrom', () => sim.state(bad));
      refused(core, RangeError, 'state: logCount', () => sim.state(0, bad));
      refused(core, RangeError, 'logEnd: partition', () => sim.logEnd(bad));
      if (sim.spaceTime) {
        refused(core, RangeError, 'spaceTime: from', () => sim.spaceTime(bad, 3));
        refused(core, RangeError, 'spaceTime: maxArrows', () => sim.spaceTime(1, 3, bad));
        refused(core, RangeError, 'spaceTime: partition', () => sim.spaceTime(1, 3, undefined, bad));
        refused(core, RangeError, 'operatorSeries: maxPoints', () => sim.operatorSeries(bad));
      }
      refused(core, RangeError, 'apply: last', () => sim.apply({ fetch: 2 }, bad));
    }
    for (const bad of ['1', null, {}]) {
      refused(core, TypeError, 'seek: position', () => sim.seek(bad));
      refused(core, TypeError, 'eventsSince: index', () => sim.eventsSince(bad));
    }
    let message = '';
    try { sim.seek(2 ** 32 + 5); } catch (e) { message = e.message; }
    assert.equal(message, 'seek: position: 4294967301 is not a whole number in 0..=3');
    // Good arguments still work, and optional ones may be left out.
    sim.seek(1);
    assert.equal(sim.position(), 1);
    assert.equal(sim.eventsSince(0).length, sim.stepEvents(1).length);
    assert.ok(sim.state(undefined, undefined).brokers.length === 3);
    // The log's end without the state: the largest LEO the state gives, at every position.
    for (let at = 0; at <= sim.length(); at++) {
      sim.seek(at);
      assert.equal(sim.logEnd(), Math.max(...sim.state().brokers.map((b) => b.log_end_offset)), `logEnd at ${at}`);
      assert.equal(sim.logEnd(0), sim.logEnd());
    }
    refused(core, RangeError, 'logEnd: partition', () => sim.logEnd(1));
    sim.seek(1);
    // A topic: each partition's own log end.
    const topic = core.Simulation.fromScenario({ version: 1, config: { brokers: 3, partitions: 2 }, steps: [{ produce: { value: 'a', acks: '1', partition: 1 } }, { produce: { value: 'b', acks: '1', partition: 1 } }] });
    assert.deepEqual([topic.logEnd(0), topic.logEnd(1)], [0, 2]);
    for (const p of [0, 1]) assert.equal(topic.logEnd(p), Math.max(...topic.state(0, 0, p).brokers.map((b) => b.log_end_offset)));
    topic.free();
    if (sim.spaceTime) {
      assert.ok(sim.spaceTime(1, 3).arrows.length > 0);
      // One partition: partition 0 is the whole diagram, 1 is not a partition of it.
      assert.deepEqual(sim.spaceTime(1, 3, undefined, 0), sim.spaceTime(1, 3));
      refused(core, RangeError, 'spaceTime: partition', () => sim.spaceTime(1, 3, undefined, 1));
      assert.equal(sim.operatorSeries(2).positions.length, 2);
    }
    assert.ok(sim.apply({ fetch: 2 }, undefined).length > 0);
    sim.free();
    refused(core, RangeError, 'whatifScenario: minInsyncReplicas', () => core.whatifScenario(SCENARIO, '3.7', 'all', 2 ** 32 + 1, false));
  });

  test(`${dir}: benchTimedRun is bounded like every run`, () => {
    const core = cores[dir];
    for (const bad of [1e9, 1_000_001, -1, NaN, 2 ** 32 + 5]) refused(core, RangeError, 'benchTimedRun: records', () => core.benchTimedRun(bad));
    refused(core, TypeError, 'benchTimedRun: records', () => core.benchTimedRun('10'));
    assert.equal(core.benchTimedRun(10).records, 10);
  });

  test(`${dir}: an error quoting hostile text is short and escaped`, () => {
    const core = cores[dir];
    const long = 'a'.repeat(100_000);
    for (const f of [
      () => core.Simulation.fromScenario({ version: 1, config: { [long]: 1 } }),
      () => core.Simulation.fromScenario({ version: 1, steps: [{ produce: { value: 'x', acks: long } }] }),
      () => core.withProtocol({}, long),
      () => core.Simulation.fromScenario({ version: 1, steps: [`x\u202e\u001b]0;pwned\u0007\u0000`] }),
      () => core.parseChange(`${long}=1`),
    ]) {
      assert.throws(f, (e) => {
        assert.ok(e.message.length < 800, `${e.message.length}: ${e.message.slice(0, 200)}`);
        assert.doesNotMatch(e.message, /[\u0000-\u001f\u202e]/);
        return true;
      });
    }
  });
}

// The tour author's calls are in the workers' core only (the `authoring`
// feature, src/boundary/authoring.rs), checked as the others are.
test('pkg-fast: the tour calls take only a string, and refuse text past the limit with a RangeError', () => {
  const core = cores['pkg-fast'];
  // Each call, its argument's name, and what it says of "{}".
  const calls = [
    ['checkTour', 'text', 'highwater_tour: missing'],
    ['checkBuiltInTour', 'text', 'tour: missing field `id`'],
    ['tourToLink', 'text', 'highwater_tour: missing'],
    ['tourFromLink', 'link', 'tour link: does not start with "v1."'],
  ];
  for (const [name, arg, empty] of calls) {
    assert.equal(typeof core[name], 'function', name);
    assert.equal(name in cores.pkg, false, `the page's core has no ${name}`);
    for (const bad of [123, {}, null, undefined, [], true, () => '{}', Symbol('x'), 12n]) {
      refused(core, TypeError, `${name}: ${arg}: expected a string`, () => core[name](bad));
    }
    refused(core, RangeError, `${name}: ${arg}`, () => core[name](' '.repeat(name === 'tourFromLink' ? 2_000_001 : 1_048_577)));
    refused(core, Error, empty, () => core[name]('{}'));
  }
});

for (const dir of ['pkg', 'pkg-quorum', 'pkg-fast']) {
  test(`${dir}: a build in slices checks its arguments and gives the run fromScenario gives`, () => {
    const core = cores[dir];
    for (const bad of [123, {}, null, undefined, []]) refused(core, TypeError, 'buildLink: text', () => core.Simulation.buildLink(bad));
    refused(core, TypeError, 'buildScenario: scenario', () => core.Simulation.buildScenario(42));
    const build = core.Simulation.buildScenario(SCENARIO);
    for (const bad of [0, -1, 1.5, NaN, 2 ** 53]) refused(core, RangeError, 'run: slice', () => build.run(bad));
    refused(core, TypeError, 'run: slice', () => build.run('10'));
    assert.throws(() => build.finish(), /not computed yet/, 'finish before the end');
    let calls = 0;
    while (!build.run(1)) calls += 1;
    assert.ok(calls >= 2, `${calls}`);
    assert.equal(build.stepsDone(), 3);
    assert.equal(build.stepsTotal(), 3);
    const sim = build.finish();
    assert.throws(() => build.finish(), /finished/);
    const whole = core.Simulation.fromScenario(SCENARIO);
    assert.equal(sim.traceText(), whole.traceText());
    assert.deepEqual(sim.state(), whole.state());
    sim.free();
    whole.free();
    build.free();
  });
}

// The views a reader opens by choice are in the full cores: the page's first core leaves them out.
test('the fork, the space-time diagram and the operator\'s view are in www/pkg-quorum and www/pkg-fast, not www/pkg', () => {
  const simulation = ['spaceTime', 'operator', 'operatorSeries', 'differencesWith'];
  const module = ['forkScenario', 'parseChange', 'changeText'];
  for (const name of simulation) assert.equal(name in cores.pkg.Simulation.prototype, false, `pkg: Simulation.${name}`);
  for (const name of module) assert.equal(name in cores.pkg, false, `pkg: ${name}`);
  for (const dir of ['pkg-quorum', 'pkg-fast']) {
    for (const name of simulation) assert.equal(typeof cores[dir].Simulation.prototype[name], 'function', `${dir}: Simulation.${name}`);
    for (const name of module) assert.equal(typeof cores[dir][name], 'function', `${dir}: ${name}`);
  }
});

// The searches are the workers' (www/pkg-fast): the page's cores leave them out.
test('explore and whatif are in www/pkg-fast alone', () => {
  for (const dir of ['pkg', 'pkg-quorum']) {
    assert.equal(cores[dir].explore, undefined, dir);
    assert.equal(cores[dir].whatif, undefined, dir);
  }
  assert.equal(typeof cores['pkg-fast'].explore, 'function');
  assert.equal(typeof cores['pkg-fast'].whatif, 'function');
});

for (const dir of ['pkg', 'pkg-quorum', 'pkg-fast']) {
  // A progress callback that starts the search again went one level deeper
  // each time, until the module trapped ("memory access out of bounds", at
  // a depth of 201 in pkg and 161 in pkg-fast).
  if (dir === 'pkg-fast') test(`${dir}: a progress callback that calls explore or whatif again is refused with an error, not a trap`, () => {
    const core = cores[dir];
    const config = { brokers: 2, protocol: '0.10', unclean_leader_election: false };
    for (const [outer, call] of [
      ['explore', (progress) => core.explore({ config, depth: 3 }, progress)],
      ['whatif', (progress) => core.whatif(SCENARIO, progress)],
    ]) {
      for (const inner of ['explore', 'whatif']) {
        let depth = 0;
        const errors = [];
        const again = () => {
          depth += 1;
          try {
            if (inner === 'explore') core.explore({ config, depth: 3 }, again);
            else core.whatif(SCENARIO, again);
          } catch (err) {
            errors.push(err);
          }
          return false;
        };
        const outcome = call(again);
        assert.equal(typeof outcome, 'object', `${outer} returns after the refused ${inner}`);
        assert.equal(depth, 1, `${outer} -> ${inner}: refused at the first re-entry`);
        assert.equal(errors.length, 1);
        assert.equal(errors[0].message, `${inner}: called from the progress callback of ${outer}; a search does not start inside another (call it after ${outer} returns)`);
        assert.equal(core.lastPanic(), undefined);
      }
    }
    // And after them, a search runs as before.
    assert.equal(typeof core.explore({ config, depth: 2 }, () => true).states, 'number');
  });

  test(`${dir}: apply takes a bare "consume" as a scenario file does`, () => {
    const core = cores[dir];
    const sim = core.Simulation.fromScenario(SCENARIO);
    const events = sim.apply('"consume"');
    assert.ok(events.some((e) => e.type === 'consumed'), JSON.stringify(events));
    assert.deepEqual(sim.scenario().steps.at(-1), { consume: null });
    assert.throws(() => sim.apply('"fetch"'), (e) => e.message === 'step: "fetch" needs its argument: a broker id, like {"fetch": 2}');
    assert.throws(() => sim.apply('"dance"'), (e) => e.message === 'step: unknown step "dance"');
    assert.equal(sim.length(), 4, 'a refused step leaves the run as it was');
    sim.free();
  });
}

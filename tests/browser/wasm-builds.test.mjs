// The three wasm packages are one core: www/pkg (built for size, the page's,
// without the controller quorum), www/pkg-quorum (the same with it, which the
// page loads for a run with controllers) and www/pkg-fast (built for speed,
// the Web Workers' that run the explorer and the what-if grid) give the same
// traces; the searches are in www/pkg-fast alone, and give the command line's
// answers; www/pkg refuses a run with controllers with the words the page
// knows (core.js, NO_QUORUM_IN_CORE), and is smaller for it. Runs all three in
// Node (scripts/build-wasm.sh builds them).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, ensureBuilt, cliBinary } from './harness.mjs';
import { NO_QUORUM_IN_CORE, needsQuorumCore } from '../../www/core.js';

const cores = {};

before(async () => {
  ensureBuilt();
  for (const dir of ['pkg', 'pkg-quorum', 'pkg-fast']) {
    // A query string makes each its own module instance.
    const core = await import(`${join(ROOT, 'www', dir, 'highwater.js')}?build=${dir}`);
    core.initSync({ module: readFileSync(join(ROOT, 'www', dir, 'highwater_bg.wasm')) });
    cores[dir] = core;
  }
});

/** What `f(core)` gives with each package; asserts they agree and returns it. */
function same(what, f) {
  const small = f(cores.pkg);
  assert.deepEqual(f(cores['pkg-quorum']), small, what);
  assert.deepEqual(f(cores['pkg-fast']), small, what);
  return small;
}

/** The same with the two packages that have the quorum; www/pkg refuses the scenario, saying so. */
function sameWithQuorum(what, f) {
  assert.throws(() => f(cores.pkg), (err) => needsQuorumCore(err) && err.message.includes(`config.controllers: ${NO_QUORUM_IN_CORE}`), `${what}: www/pkg refuses it`);
  const quorum = f(cores['pkg-quorum']);
  assert.deepEqual(f(cores['pkg-fast']), quorum, what);
  return quorum;
}

test('the traces of every shipped scenario are the same in every build; one with controllers is refused by www/pkg alone', () => {
  const dir = join(ROOT, 'tests/scenarios');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.ok(files.length >= 10, `${files.length} scenarios`);
  let withQuorum = 0;
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    const controllers = JSON.parse(text).config?.controllers ?? 0;
    if (controllers > 0) withQuorum += 1;
    (controllers > 0 ? sameWithQuorum : same)(f, ({ Simulation }) => {
      const sim = Simulation.fromScenario(text);
      try {
        return { trace: sim.traceText(), link: sim.toLink() };
      } finally {
        sim.free();
      }
    });
  }
  assert.ok(withQuorum >= 1, 'a shipped scenario has controllers');
});

test('www/pkg is smaller than www/pkg-quorum: the quorum\'s engine is not in it', () => {
  const size = (dir) => statSync(join(ROOT, 'www', dir, 'highwater_bg.wasm')).size;
  // At 2026-12-06: 859,856 against 934,039 bytes (298,434 against 325,522 gzipped).
  assert.ok(size('pkg') < size('pkg-quorum') - 20_000, `www/pkg ${size('pkg')} bytes, www/pkg-quorum ${size('pkg-quorum')}`);
});

/** The command line's answer to a search (`highwater explore --json`, one thread). */
function nativeExplore(args) {
  return JSON.parse(execFileSync(cliBinary(), ['explore', ...args, '--json', '--threads', '1'], { encoding: 'utf8' }));
}

/** What a search answers, without its timings. */
const answer = (o) => Object.fromEntries(['found', 'states', 'generated', 'depth', 'complete', 'stopped', 'symmetries', 'violation', 'scenario', 'link'].map((k) => [k, o[k]]));

// The searches run in the workers (www/pkg-fast): the page's two cores leave them out.
test('the explorer and the what-if grid are in www/pkg-fast alone; its explorer finds the run, in the states, the command line finds', () => {
  for (const dir of ['pkg', 'pkg-quorum']) assert.deepEqual([typeof cores[dir].explore, typeof cores[dir].whatif], ['undefined', 'undefined'], dir);
  const { explore } = cores['pkg-fast'];
  const found = explore({ config: { brokers: 2, protocol: '0.10', unclean_leader_election: false }, acks: 'all', depth: 8 }, () => true);
  assert.equal(found.found, true);
  assert.equal(found.violation.kind, 'committed_divergence');
  assert.deepEqual(answer(found), answer(nativeExplore(['--brokers', '2', '--protocol', '0.10', '--unclean', 'false', '--acks', 'all', '--depth', '8'])));
  const nothing = explore({ config: { brokers: 3, protocol: '3.7', min_insync_replicas: 2 }, depth: 6, max_produces: 2 }, () => true);
  assert.equal(nothing.found, false);
  assert.equal(nothing.complete, true);
  assert.ok(nothing.states > 10_000, `${nothing.states} states`);
  assert.deepEqual(answer(nothing), answer(nativeExplore(['--brokers', '3', '--protocol', '3.7', '--min-isr', '2', '--depth', '6', '--max-produces', '2'])));
});

test('the what-if grid in www/pkg-fast is the command line\'s', () => {
  const file = join(ROOT, 'tests/scenarios', readdirSync(join(ROOT, 'tests/scenarios')).filter((f) => f.endsWith('.json')).sort()[0]);
  const grid = cores['pkg-fast'].whatif(readFileSync(file, 'utf8'), () => true);
  assert.ok(grid.cells.length > 0 && grid.complete, 'a complete grid');
  const native = JSON.parse(execFileSync(cliBinary(), ['whatif', file, '--json'], { encoding: 'utf8' }));
  assert.deepEqual(grid.cells, native.cells);
});

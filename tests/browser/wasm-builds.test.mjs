// The three wasm packages are one core: www/pkg (built for size, the page's,
// without the controller quorum), www/pkg-quorum (the same with it, which the
// page loads for a run with controllers) and www/pkg-fast (built for speed,
// the Web Workers' that run the explorer and the what-if grid) give the same
// traces, the same searches and the same grid; www/pkg refuses a run with
// controllers with the words the page knows (core.js, NO_QUORUM_IN_CORE), and
// is smaller for it. Runs all three in Node (scripts/build-wasm.sh builds them).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, ensureBuilt } from './harness.mjs';
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

test('the explorer finds the same run, and searches the same states, in both builds', () => {
  const found = same('0.10', ({ explore }) =>
    explore({ config: { brokers: 2, protocol: '0.10', unclean_leader_election: false }, acks: 'all', depth: 8 }, () => true));
  assert.equal(found.found, true);
  assert.equal(found.violation.kind, 'committed_divergence');
  const nothing = same('3.7', ({ explore }) =>
    explore({ config: { brokers: 3, protocol: '3.7', min_insync_replicas: 2 }, depth: 6, max_produces: 2 }, () => true));
  assert.equal(nothing.found, false);
  assert.equal(nothing.complete, true);
  assert.ok(nothing.states > 10_000, `${nothing.states} states`);
});

test('the what-if grid is the same in both builds', () => {
  const scenario = readFileSync(join(ROOT, 'tests/scenarios', readdirSync(join(ROOT, 'tests/scenarios')).filter((f) => f.endsWith('.json')).sort()[0]), 'utf8');
  const grid = same('grid', ({ whatif }) => whatif(scenario, () => true));
  assert.ok(grid.cells.length > 0 && grid.complete, 'a complete grid');
});

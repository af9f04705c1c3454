// The two wasm packages are one core: www/pkg (built for size, the page's)
// and www/pkg-fast (built for speed, the Web Workers' that run the explorer
// and the what-if grid) give the same traces, the same searches and the same
// grid. Runs both in Node (scripts/build-wasm.sh builds them).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, ensureBuilt } from './harness.mjs';

const cores = {};

before(async () => {
  ensureBuilt();
  for (const dir of ['pkg', 'pkg-fast']) {
    // A query string makes each its own module instance.
    const core = await import(`${join(ROOT, 'www', dir, 'highwater.js')}?build=${dir}`);
    core.initSync({ module: readFileSync(join(ROOT, 'www', dir, 'highwater_bg.wasm')) });
    cores[dir] = core;
  }
});

/** What `f(core)` gives with each package; asserts they agree and returns it. */
function same(what, f) {
  const small = f(cores.pkg);
  const fast = f(cores['pkg-fast']);
  assert.deepEqual(fast, small, what);
  return small;
}

test('the traces of every shipped scenario are the same in both builds', () => {
  const dir = join(ROOT, 'tests/scenarios');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.ok(files.length >= 10, `${files.length} scenarios`);
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    same(f, ({ Simulation }) => {
      const sim = Simulation.fromScenario(text);
      try {
        return { trace: sim.traceText(), link: sim.toLink() };
      } finally {
        sim.free();
      }
    });
  }
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

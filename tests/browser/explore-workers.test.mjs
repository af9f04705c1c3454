// The explorer in several Web Workers (www/workers/explorer.js): the same
// answer with one worker and with several, and the same as the command line
// on any number of threads (the same states, states generated, run found
// step for step, link); Stop stops every worker at once; the page's own
// "Find a way to lose data" uses the machine's cores, at most 4.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setup, openPage } from './harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(ROOT, 'target', 'release', 'highwater');

let env;
before(async () => {
  const built = spawnSync('cargo', ['build', '--release', '--quiet', '--bin', 'highwater'], { cwd: ROOT, stdio: 'inherit' });
  assert.equal(built.status, 0, 'the command line builds');
  env = await setup();
});
after(async () => { await env?.close(); });

/** The command line's answer (`highwater explore --json`). */
function native(args, threads) {
  const out = spawnSync(BIN, ['explore', '--json', '--threads', String(threads), ...args], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout);
}

/** The page's answer with `workers` workers. */
function inPage(page, options, workers) {
  return page.evaluate(async ({ options, workers }) => {
    const { explore } = await import('./workers/explorer.js');
    return explore({ ...options, workers });
  }, { options, workers });
}

const same = (r) => ({ found: r.found, states: r.states, generated: r.generated, depth: r.depth, complete: r.complete, steps: r.scenario?.steps ?? null, link: r.link });

const CASES = [
  {
    what: '0.10, 2 brokers, a lost write (found)',
    args: ['--brokers', '2', '--protocol', '0.10', '--unclean', 'false', '--depth', '8', '--goal', 'lost-write'],
    options: { config: { brokers: 2, protocol: '0.10', unclean_leader_election: false, auto_fetch: false }, depth: 8, max_produces: 3, goal: 'lost_write', max_states: 2000000 },
  },
  {
    what: '3.7, 3 brokers, min ISR 2, depth 6 (nothing, every state searched)',
    args: ['--brokers', '3', '--protocol', '3.7', '--min-isr', '2', '--depth', '6', '--max-produces', '2'],
    options: { config: { brokers: 3, protocol: '3.7', min_insync_replicas: 2, auto_fetch: false }, depth: 6, max_produces: 2, max_states: 2000000 },
  },
];

for (const c of CASES) {
  test(`one worker, two, three and the command line give one answer: ${c.what}`, async () => {
    const page = await openPage(env);
    const expected = same(native(c.args, 1));
    assert.deepEqual(same(native(c.args, 2)), expected, 'the command line on 2 threads');
    for (const workers of [1, 2, 3]) {
      assert.deepEqual(same(await inPage(page, c.options, workers)), expected, `${workers} workers`);
    }
    assert.ok(expected.states > 1000, `${expected.states} states`);
    assert.deepEqual(page.errors, []);
  });
}

test('aborting a search stops every one of its workers at once', async () => {
  const page = await openPage(env);
  const exploreWorkers = () => page.workers().filter((w) => w.url().endsWith('/explore-worker.js'));
  await page.evaluate(async () => {
    const { explore } = await import('./workers/explorer.js');
    window.stopSearch = new AbortController();
    window.searchEnded = explore({ config: { brokers: 3, auto_fetch: false }, depth: 30, max_states: 10000000, workers: 3 }, {
      progress: (states) => { window.searchStates = states; },
      signal: window.stopSearch.signal,
    }).then(() => 'finished', (err) => `stopped: ${err.name}`);
  });
  await page.waitForFunction(() => window.searchStates > 0);
  assert.equal(exploreWorkers().length, 3, 'three workers share the search');
  await page.evaluate(() => window.stopSearch.abort());
  assert.equal(await page.evaluate(() => window.searchEnded), 'stopped: AbortError');
  for (let i = 0; i < 50 && exploreWorkers().length; i++) await page.waitForTimeout(20);
  assert.equal(exploreWorkers().length, 0, 'no worker left');
  assert.deepEqual(page.errors, []);
});

test('the page searches with the machine\'s cores, at most 4, and bad worker counts are refused', async () => {
  const page = await openPage(env);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  assert.equal(await page.evaluate(async () => (await import('./workers/explorer.js')).defaultWorkers()), Math.min(cores, 4));
  for (const workers of [0, 17, 2.5]) {
    const message = await page.evaluate(async (workers) => {
      const { explore } = await import('./workers/explorer.js');
      return explore({ config: { auto_fetch: false }, depth: 3, workers }).then(() => 'ran', (err) => err.message);
    }, workers);
    assert.match(message, /workers/, `workers: ${workers}`);
  }
  assert.deepEqual(page.errors, []);
});

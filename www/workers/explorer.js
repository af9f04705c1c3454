// The counterexample explorer in Web Workers, for a page's own script
// (`highwater-playground/explorer` in the npm package): the page's "Find a
// way to lose data" runs the same. The answer does not depend on the number
// of workers: the same states, the same run found, step for step, as
// `highwater explore` on any number of threads.

import { WorkerRunner } from './worker-runner.js';

const WORKER = new URL('./explore-worker.js', import.meta.url);

/** Workers by default: the machine's cores, at most 4 (at least 1). */
export function defaultWorkers() {
  const cores = (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 1;
  return Math.max(1, Math.min(cores, 4));
}

/**
 * Runs the search (the options of the core's `explore`, with `workers`:
 * 1 to 16, default `defaultWorkers()`; random walks take one). `progress`
 * hears (states, depth) now and then; aborting `signal` stops every worker
 * at once and rejects with its reason. Resolves to what `explore` returns.
 */
export function explore(options, { progress = () => {}, signal } = {}) {
  const workers = options.strategy === 'random' ? 1 : (options.workers ?? defaultWorkers());
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const runner = new WorkerRunner(WORKER);
    const abort = () => {
      runner.cancel();
      reject(signal.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
    const settle = (f) => (value) => {
      signal?.removeEventListener('abort', abort);
      f(value);
    };
    runner.start({ ...options, workers }, {
      progress: ({ states, depth }) => progress(states, depth),
      done: settle(resolve),
      error: settle((message) => reject(new Error(message))),
    }, { helpers: Number.isInteger(workers) && workers > 1 && workers <= 16 ? workers - 1 : 0 });
  });
}

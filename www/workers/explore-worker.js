// Runs the core's counterexample search off the main thread, alone or
// shared by several workers. The page cancels a search by terminating every
// worker of it (worker-runner.js).
//
// Alone:   in:  { options }                     (see explore() in the core)
// Leading: in:  { options, ports }              a MessagePort to each helper
//          it holds the search (the core's ExploreFrontier): for each batch
//          it sends each helper the paths of its part, expands the first
//          part itself, and merges the parts in their order, so the answer
//          is the one `highwater explore` gives on any number of threads.
// Helping: in:  { options, port, role: 'helper' }
//          on the port: { level, start, end, paths } → { words } or { error }
// out (alone or leading): { type: 'progress', states, depth }
//                         { type: 'done', result }
//                         { type: 'error', message }

// The core built for speed (www/pkg-fast, scripts/build-wasm.sh): this worker
// is loaded only when a search starts, so its larger file costs no first load.
import init, { explore, ExploreFrontier, ExploreHelper, lastPanic } from '../pkg-fast/highwater.js';
import { failureMessage } from './worker-error.js';

/** Progress posts at most this often. */
const REPORT_MS = 50;
let lastReport = 0;

function report(states, depth) {
  const now = Date.now();
  if (now - lastReport >= REPORT_MS) {
    lastReport = now;
    self.postMessage({ type: 'progress', states, depth });
  }
}

self.onmessage = async (event) => {
  const { options, ports, port, role } = event.data || {};
  if (role === 'helper') {
    help(options, port);
    return;
  }
  try {
    await init();
    const result = ports && ports.length ? await lead(options, ports) : explore(options, (states, depth) => (report(states, depth), true));
    self.postMessage({ type: 'done', result });
  } catch (err) {
    self.postMessage({ type: 'error', message: failureMessage(err, lastPanic) });
  }
};

/** Expands what the leading worker sends on `port`, and sends back the children. */
async function help(options, port) {
  let helper = null;
  let failed = null;
  try {
    await init();
    helper = new ExploreHelper(options);
  } catch (err) {
    failed = failureMessage(err, lastPanic);
  }
  port.onmessage = (event) => {
    if (failed) return port.postMessage({ error: failed });
    const { level, start, end, paths } = event.data || {};
    try {
      const words = helper.expand(level, start, end, paths);
      port.postMessage({ words }, [words.buffer]);
    } catch (err) {
      failed = failureMessage(err, lastPanic);
      port.postMessage({ error: failed });
    }
  };
}

/** The search, shared with a helper at the other end of each port. */
async function lead(options, ports) {
  const frontier = new ExploreFrontier(options);
  // One request at a time per helper: a batch's part, answered before the next.
  const helpers = ports.map((port) => {
    let waiting = null;
    port.onmessage = (event) => {
      const { words, error } = event.data || {};
      const w = waiting;
      waiting = null;
      if (!w) return;
      if (error) w.reject(new Error(error));
      else w.resolve(words);
    };
    return (message, transfer) => new Promise((resolve, reject) => {
      waiting = { resolve, reject };
      port.postMessage(message, transfer);
    });
  });
  const parts = helpers.length + 1;
  for (let batch = frontier.nextBatch(); batch; batch = frontier.nextBatch()) {
    const [level, start, end] = batch;
    const bound = (i) => start + Math.floor(((end - start) * i) / parts);
    const theirs = helpers.map((send, k) => {
      const [from, to] = [bound(k + 1), bound(k + 2)];
      const paths = frontier.paths(from, to);
      return send({ level, start: from, end: to, paths }, [paths.buffer]);
    });
    const own = frontier.expand(bound(0), bound(1));
    frontier.merge([own, ...(await Promise.all(theirs))]);
    report(frontier.states, level + 1);
  }
  return frontier.outcome();
}

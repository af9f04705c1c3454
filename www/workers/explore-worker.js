// Runs the core's counterexample search off the main thread. The page
// cancels a search by terminating this worker.
//
// in:  { options }          (see explore() in the core)
// out: { type: 'progress', states, depth }
//      { type: 'done', result }
//      { type: 'error', message }

// The core built for speed (www/pkg-fast, scripts/build-wasm.sh): this worker
// is loaded only when a search starts, so its larger file costs no first load.
import init, { explore, lastPanic } from '../pkg-fast/highwater.js';
import { failureMessage } from './worker-error.js';

let lastReport = 0;

self.onmessage = async (event) => {
  const { options } = event.data || {};
  try {
    await init();
    const result = explore(options, (states, depth) => {
      const now = Date.now();
      if (now - lastReport >= 50) {
        lastReport = now;
        self.postMessage({ type: 'progress', states, depth });
      }
      return true;
    });
    self.postMessage({ type: 'done', result });
  } catch (err) {
    self.postMessage({ type: 'error', message: failureMessage(err, lastPanic) });
  }
};

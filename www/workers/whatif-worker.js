// Runs the what-if grid (every version preset × acks × min ISR × unclean
// election) off the main thread, one cell after another.
//
// in:  { options: { scenario } }
// out: { type: 'progress', done, total }
//      { type: 'done', result: { cells, complete } }
//      { type: 'error', message }

// The core built for speed (www/pkg-fast, scripts/build-wasm.sh): this worker
// is loaded only when a search starts, so its larger file costs no first load.
import init, { whatif, lastPanic } from '../pkg-fast/highwater.js';
import { failureMessage } from './worker-error.js';

self.onmessage = async (event) => {
  const { options } = event.data || {};
  try {
    await init();
    const result = whatif(options.scenario, (done, total) => {
      self.postMessage({ type: 'progress', done, total });
      return true;
    });
    self.postMessage({ type: 'done', result });
  } catch (err) {
    self.postMessage({ type: 'error', message: failureMessage(err, lastPanic) });
  }
};

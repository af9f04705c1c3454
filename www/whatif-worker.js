// Runs the what-if grid (every version preset × acks × min ISR × unclean
// election) off the main thread, one cell after another.
//
// in:  { options: { scenario } }
// out: { type: 'progress', done, total }
//      { type: 'done', result: { cells, complete } }
//      { type: 'error', message }

import init, { whatif, lastPanic } from './pkg/highwater.js';
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

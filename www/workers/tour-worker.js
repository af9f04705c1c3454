// Reads and checks a tour off the main thread: a docs author's tour file
// (its text, or a `#t=` link's), a built-in tour, or a tour file written as
// a link. One request per worker; the page cancels one by terminating it.
//
// in:  { options: { call, text } }   call: 'checkTour' | 'checkBuiltInTour' | 'tourFromLink' | 'tourToLink'
// out: { type: 'done', result }      (see the calls in src/boundary/authoring.rs)
//      { type: 'error', message }

// The core built for speed (www/pkg-fast, scripts/build-wasm.sh): only it has
// the tour calls (the `authoring` feature), so the page's core, on the first
// load, does not carry them.
import init, { checkTour, checkBuiltInTour, tourFromLink, tourToLink, lastPanic } from '../pkg-fast/highwater.js';
import { failureMessage } from './worker-error.js';

const CALLS = new Map([
  ['checkTour', checkTour],
  ['checkBuiltInTour', checkBuiltInTour],
  ['tourFromLink', tourFromLink],
  ['tourToLink', tourToLink],
]);

self.onmessage = async (event) => {
  const { options } = event.data || {};
  try {
    const call = CALLS.get(options && options.call);
    if (!call) throw new TypeError(`tour-worker: unknown call ${JSON.stringify(String(options && options.call)).slice(0, 80)}`);
    await init();
    self.postMessage({ type: 'done', result: call(options.text) });
  } catch (err) {
    self.postMessage({ type: 'error', message: failureMessage(err, lastPanic) });
  }
};

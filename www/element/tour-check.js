// The page's side of the tour check: a tour file's text, a built-in tour or
// a `#t=` link read and checked by the model in a Web Worker
// (../workers/tour-worker.js, on the core built for speed), so that the
// page's own core, on the first load, carries none of it. Each request
// starts its own worker (requests may overlap, and none waits behind
// another); one not answered within 20 s is cancelled by terminating it.
//
// Every function returns a Promise that rejects with an Error whose message
// is the core's (the reader's, bounded: it quotes at most 60 characters of
// the file), or says that the check took too long.

import { WorkerRunner } from '../workers/worker-runner.js';

const WORKER = new URL('../workers/tour-worker.js', import.meta.url);
const TIMEOUT_MS = 20_000;

/** What a value is, for a message: `null`, `an array`, `a number`… */
function kind(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'undefined';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Runs one call of the tour worker on `text`; `name` is the function's, for a message. */
function request(call, text, name = call) {
  if (typeof text !== 'string') return Promise.reject(new TypeError(`${name}: expected a string, got ${kind(text)}`));
  return new Promise((resolve, reject) => {
    const runner = new WorkerRunner(WORKER);
    const timer = setTimeout(() => {
      runner.cancel();
      reject(new Error(`the tour took longer than ${TIMEOUT_MS / 1000} s to check`));
    }, TIMEOUT_MS);
    runner.start({ call, text }, {
      progress() {},
      done(result) {
        clearTimeout(timer);
        resolve(result);
      },
      error(message) {
        clearTimeout(timer);
        reject(new Error(message));
      },
    });
  });
}

/**
 * A tour file's text (`"highwater_tour": 1`, docs/tours.md), read and
 * checked: `{ tour, findings, predictions }`, `tour` the file as read.
 */
export function checkTourText(text) {
  return request('checkTour', text, 'checkTourText');
}

/** A built-in tour (the parsed `www/tours/<id>.json`), checked: `{ findings, predictions }`. */
export function checkBuiltInTour(data) {
  if (typeof data === 'string') return request('checkBuiltInTour', data);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return Promise.reject(new TypeError(`checkBuiltInTour: expected a tour object, got ${kind(data)}`));
  }
  let text;
  try {
    text = JSON.stringify(data);
  } catch (err) {
    return Promise.reject(new TypeError(`checkBuiltInTour: cannot be written as JSON (${err && err.message})`));
  }
  return request('checkBuiltInTour', text);
}

/** A tour link (the text after `#t=`), decoded, read and checked as `checkTourText`. */
export function tourFromLink(link) {
  return request('tourFromLink', link);
}

/** A tour file's text as a link's text (`v1.…`, to put after `#t=`). */
export function tourToLink(text) {
  return request('tourToLink', text);
}

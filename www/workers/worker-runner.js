// Runs a long computation of the core in a Web Worker ("Find a way to lose
// data" in explore-worker.js, the what-if grid in whatif-worker.js) and
// cancels it by terminating the worker: the page never waits for it.

const OWN = new URL('./', import.meta.url).href;
let policy = null;

/**
 * The worker's URL as Trusted Types want it (a page with
 * `require-trusted-types-for 'script'` refuses a plain string): a policy
 * named `highwater` that passes only this folder's own modules. Without
 * Trusted Types, the URL as it is.
 */
function scriptUrl(url) {
  if (typeof trustedTypes === 'undefined') return url;
  policy ??= trustedTypes.createPolicy('highwater', {
    createScriptURL: (u) => {
      if (!u.startsWith(OWN)) throw new TypeError(`highwater: ${u} is not one of its workers`);
      return u;
    },
  });
  return policy.createScriptURL(String(url));
}

export class WorkerRunner {
  constructor(workerUrl) {
    this.workerUrl = workerUrl;
    this.worker = null;
  }

  get running() {
    return this.worker !== null;
  }

  /** handlers: { progress(message), done(result), error(message) }; the worker posts { type, … }. */
  start(options, handlers) {
    this.cancel();
    let worker;
    try {
      worker = new Worker(scriptUrl(this.workerUrl), { type: 'module' });
    } catch (err) {
      handlers.error(err && err.message ? err.message : String(err));
      return;
    }
    this.worker = worker;
    const finish = () => {
      if (this.worker === worker) this.worker = null;
      worker.terminate();
    };
    worker.onmessage = (event) => {
      const m = event.data || {};
      if (this.worker !== worker) return;
      if (m.type === 'progress') handlers.progress(m);
      else if (m.type === 'done') { finish(); handlers.done(m.result); }
      else if (m.type === 'error') { finish(); handlers.error(m.message); }
    };
    worker.onerror = (event) => {
      if (this.worker !== worker) return;
      event.preventDefault();
      finish();
      handlers.error(event.message || 'the worker failed to start');
    };
    worker.postMessage({ options });
  }

  /** Stops a running computation; true if there was one. */
  cancel() {
    if (!this.worker) return false;
    this.worker.terminate();
    this.worker = null;
    return true;
  }
}

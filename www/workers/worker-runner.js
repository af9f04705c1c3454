// Runs a long computation of the core in a Web Worker ("Find a way to lose
// data" in explore-worker.js, shared by several; the what-if grid in
// whatif-worker.js) and cancels it by terminating its workers: the page
// never waits for it.

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
    /** Every worker of the computation running now (the first leads). */
    this.workers = [];
  }

  get running() {
    return this.workers.length > 0;
  }

  /**
   * handlers: { progress(message), done(result), error(message) }; the
   * leading worker posts { type, … }. `helpers` more workers of the same
   * file help it (explore-worker.js): each gets { options, port, role:
   * 'helper' }, and the leading one { options, ports }, a MessagePort to
   * each. Cancelling, finishing or failing stops every one of them at once.
   */
  start(options, handlers, { helpers = 0 } = {}) {
    this.cancel();
    const workers = [];
    try {
      for (let i = 0; i <= helpers; i++) workers.push(new Worker(scriptUrl(this.workerUrl), { type: 'module' }));
    } catch (err) {
      for (const w of workers) w.terminate();
      handlers.error(err && err.message ? err.message : String(err));
      return;
    }
    this.workers = workers;
    const current = () => this.workers === workers;
    const finish = () => {
      if (current()) this.workers = [];
      for (const w of workers) w.terminate();
    };
    const [lead, ...others] = workers;
    lead.onmessage = (event) => {
      const m = event.data || {};
      if (!current()) return;
      if (m.type === 'progress') handlers.progress(m);
      else if (m.type === 'done') { finish(); handlers.done(m.result); }
      else if (m.type === 'error') { finish(); handlers.error(m.message); }
    };
    for (const w of workers) {
      w.onerror = (event) => {
        if (!current()) return;
        event.preventDefault();
        finish();
        handlers.error(event.message || 'the worker failed to start');
      };
    }
    const ports = others.map((helper) => {
      const { port1, port2 } = new MessageChannel();
      helper.postMessage({ options, port: port2, role: 'helper' }, [port2]);
      return port1;
    });
    if (ports.length) lead.postMessage({ options, ports }, ports);
    else lead.postMessage({ options });
  }

  /** Stops a running computation (every worker of it); true if there was one. */
  cancel() {
    if (!this.workers.length) return false;
    for (const w of this.workers) w.terminate();
    this.workers = [];
    return true;
  }
}

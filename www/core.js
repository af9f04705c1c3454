// Loads the simulation core (the WebAssembly package in ./pkg) and replaces
// it with a fresh instance after a panic: a trapped instance cannot be used
// again, and wasm-bindgen's init() keeps the instance it made first, so a new
// copy of the JavaScript glue is imported under another URL.
//
// ./pkg has no controller quorum (built without the `quorum` feature: most
// runs have no controllers, and do not download its engine). A run with
// controllers needs ./pkg-quorum, the same core with the quorum: the first
// such run loads it (`ensureCore({ quorum: true })`, or a refusal that says
// `NO_QUORUM_IN_CORE`), and the page stays on it: it runs every scenario,
// and runs made in ./pkg are made again in it, step for step the same.
// ./pkg has no views a reader opens by choice either (the `views` feature:
// the fork, the space-time diagram, the operator's view): the first one
// opened loads ./pkg-quorum, the full core, the same way
// (`ensureCore({ views: true })`; `core().views` says whether they are there).

import * as firstGlue from './pkg/highwater.js';

// One core for the page, however this module is reached: the element's
// bundle holds a copy of it, and a page may import this file (the JS API)
// too; both copies keep their state here. It is the module's one mark on the
// host's global object: a registered symbol (no name a host script could
// take or collide with), not enumerable, not writable.
const SHARED = Symbol.for('highwater.core');
if (!Object.hasOwn(globalThis, SHARED)) {
  Object.defineProperty(globalThis, SHARED, {
    value: {
      compiled: {}, // per core (plain, quorum): Promise<WebAssembly.Module>, compiled once
      generation: 0,
      current: null,
      first: null, // the first load, shared by every playground on the page
      quorum: false, // a run needed the quorum: every later load is of ./pkg-quorum
      quorumLoad: null, // the load of ./pkg-quorum, shared
    },
  });
}
const shared = globalThis[SHARED];

/** The two builds of the core: its files, relative to this module. */
const CORES = {
  plain: { glue: './pkg/highwater.js', wasm: './pkg/highwater_bg.wasm' },
  quorum: { glue: './pkg-quorum/highwater.js', wasm: './pkg-quorum/highwater_bg.wasm' },
};

/** How ./pkg refuses a scenario with controllers (`config::NO_QUORUM_IN_CORE`). */
export const NO_QUORUM_IN_CORE = 'this core is built without the controller quorum';

/** True when an error is ./pkg refusing a run with controllers: ./pkg-quorum runs it. */
export function needsQuorumCore(err) {
  return Boolean(err && typeof err.message === 'string' && err.message.includes(NO_QUORUM_IN_CORE));
}

/** The loaded core: { Simulation, lastPanic, limits, defaultConfig, versions, withProtocol, whatifScenario, forkScenario, parseChange, changeText, runOutcome, generation, quorum, views } (the fork's three functions only where `views`). */
export function core() {
  if (!shared.current) throw new Error('the simulation core is not loaded yet');
  return shared.current;
}

/** True once the core is loaded (no download or compilation left). */
export function coreLoaded() {
  return shared.current !== null;
}

/** The core, loaded once for the page: every playground shares the instance. Call it early: the download starts at once. */
export function ensureCore({ quorum = false, views = false } = {}) {
  if (quorum || views) return ensureFullCore();
  if (shared.current) return Promise.resolve(shared.current);
  // The core with the quorum on its way serves every playground.
  if (shared.quorumLoad) return shared.quorumLoad;
  if (!shared.first) {
    shared.first = loadCore();
    shared.first.catch(() => { shared.first = null; });
  }
  return shared.first;
}

/**
 * The full core, with the controller quorum and the views (./pkg-quorum),
 * loaded once for the page in place of ./pkg: its generation is new, so each
 * playground makes its run again in it (`Playground.draw`).
 */
function ensureFullCore() {
  if (shared.current && shared.current.quorum) return Promise.resolve(shared.current);
  shared.quorum = true;
  if (!shared.quorumLoad) {
    shared.quorumLoad = (async () => {
      // A first load under way is let finish: its instance is replaced after.
      if (shared.first) await shared.first.catch(() => {});
      return shared.current && shared.current.quorum ? shared.current : loadCore();
    })();
    shared.quorumLoad.catch(() => { shared.quorumLoad = null; });
  }
  return shared.quorumLoad;
}

/**
 * The wasm, compiled while it downloads (served as application/wasm); a host
 * that serves it as another type gets the slower route, compiled once whole.
 */
function compile(which) {
  if (!shared.compiled[which]) {
    shared.compiled[which] = (async () => {
      const url = new URL(CORES[which].wasm, import.meta.url);
      const response = await fetch(url);
      if (!response.ok) throw new Error(`could not load ${url.pathname} (${response.status})`);
      const typed = /^application\/wasm\b/.test(response.headers.get('Content-Type') || '');
      if (typed && WebAssembly.compileStreaming) return WebAssembly.compileStreaming(response);
      return WebAssembly.compile(await response.arrayBuffer());
    })();
    shared.compiled[which].catch(() => { shared.compiled[which] = null; });
  }
  return shared.compiled[which];
}

/**
 * Loads a fresh instance of the core (the first, or a new one after a
 * panic): ./pkg-quorum once a run or a view has needed it (or with `quorum` or `views`), else ./pkg.
 */
export async function loadCore({ quorum = false, views = false } = {}) {
  if (quorum || views) shared.quorum = true;
  const which = shared.quorum ? 'quorum' : 'plain';
  const module = await compile(which);
  const generation = (shared.generation += 1);
  // The first instance of ./pkg uses the glue imported with this module; any
  // other, a fresh copy under another URL (the query makes it a module of its own).
  const mod = generation === 1 && which === 'plain' ? firstGlue : await import(new URL(`${CORES[which].glue}?instance=${generation}`, import.meta.url).href);
  await mod.default({ module_or_path: module });
  shared.current = {
    Simulation: mod.Simulation,
    lastPanic: mod.lastPanic,
    limits: mod.limits(),
    defaultConfig: mod.defaultConfig(),
    versions: mod.versions(),
    withProtocol: mod.withProtocol,
    whatifScenario: mod.whatifScenario,
    forkScenario: mod.forkScenario,
    parseChange: mod.parseChange,
    changeText: mod.changeText,
    runOutcome: mod.runOutcome,
    generation,
    quorum: which === 'quorum',
    views: which === 'quorum',
  };
  if (generation === 1 && typeof performance !== 'undefined' && performance.mark) performance.mark('highwater:core-ready');
  return shared.current;
}

/**
 * The engine's common paths run once on a run of its own, a step at a time
 * when the page is idle, after a playground's first live draw: the browser
 * compiles a WebAssembly function when it is first called, and without this
 * a page's first Produce, Fetch, Crash or link paid for compiling theirs
 * (about 40, 10, 15 and 10 ms at 4x CPU). Once per instance of the core;
 * nothing of it is shown, and a step that fails ends it quietly. Its end is
 * the mark `highwater:core-warm`.
 */
export function warmCore() {
  const c = shared.current;
  if (!c || shared.warmed === c.generation) return;
  shared.warmed = c.generation;
  const idle = typeof requestIdleCallback === 'function' ? (f) => requestIdleCallback(f, { timeout: 3000 }) : (f) => setTimeout(f, 100);
  let sim = null;
  const steps = [
    () => { sim = c.Simulation.fromScenario({ version: 1, steps: [] }); },
    () => sim.apply({ produce: { value: 'w', acks: 'all' } }),
    () => sim.apply({ fetch: 2 }),
    () => { sim.state(0, 20); sim.stepText(sim.position()); },
    () => sim.toLink(),
    () => sim.apply({ crash: { broker: 1 } }),
    () => sim.apply({ restart: 1 }),
  ];
  const stop = () => {
    try {
      if (sim) sim.free();
    } catch {
      // an instance that died meanwhile frees nothing
    }
  };
  const next = () => {
    // A core replaced meanwhile (after a panic) is warmed once a playground draws from it.
    if (shared.current !== c) return stop();
    if (!steps.length) {
      stop();
      if (typeof performance !== 'undefined' && performance.mark) performance.mark('highwater:core-warm');
      return;
    }
    try {
      steps.shift()();
    } catch {
      return stop();
    }
    idle(next);
  };
  idle(next);
}

/**
 * True when an error means the core instance is dead: a trap (a Rust panic
 * aborts into `unreachable`) or a panic message recorded by the core.
 */
export function isCrash(err) {
  if (err instanceof WebAssembly.RuntimeError) return true;
  if (err && err.name === 'RuntimeError') return true;
  try {
    return Boolean(shared.current && shared.current.lastPanic());
  } catch {
    return true; // the instance cannot even answer
  }
}

/** The panic message of the current instance, if it recorded one. */
export function panicMessage() {
  try {
    return (shared.current && shared.current.lastPanic()) || null;
  } catch {
    return null;
  }
}

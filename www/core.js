// Loads the simulation core (the WebAssembly package in ./pkg) and replaces
// it with a fresh instance after a panic: a trapped instance cannot be used
// again, and wasm-bindgen's init() keeps the instance it made first, so a new
// copy of the JavaScript glue is imported under another URL.

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
      compiled: null, // Promise<WebAssembly.Module>, compiled once
      generation: 0,
      current: null,
      first: null, // the first load, shared by every playground on the page
    },
  });
}
const shared = globalThis[SHARED];

/** The loaded core: { Simulation, explore, lastPanic, limits, defaultConfig, versions, withProtocol, whatifScenario, forkScenario, parseChange, changeText, runOutcome, generation }. */
export function core() {
  if (!shared.current) throw new Error('the simulation core is not loaded yet');
  return shared.current;
}

/** True once the core is loaded (no download or compilation left). */
export function coreLoaded() {
  return shared.current !== null;
}

/** The core, loaded once for the page: every playground shares the instance. Call it early: the download starts at once. */
export function ensureCore() {
  if (shared.current) return Promise.resolve(shared.current);
  if (!shared.first) {
    shared.first = loadCore();
    shared.first.catch(() => { shared.first = null; });
  }
  return shared.first;
}

/**
 * The wasm, compiled while it downloads (served as application/wasm); a host
 * that serves it as another type gets the slower route, compiled once whole.
 */
function compile() {
  if (!shared.compiled) {
    shared.compiled = (async () => {
      const url = new URL('./pkg/highwater_bg.wasm', import.meta.url);
      const response = await fetch(url);
      if (!response.ok) throw new Error(`could not load ${url.pathname} (${response.status})`);
      const typed = /^application\/wasm\b/.test(response.headers.get('Content-Type') || '');
      if (typed && WebAssembly.compileStreaming) return WebAssembly.compileStreaming(response);
      return WebAssembly.compile(await response.arrayBuffer());
    })();
    shared.compiled.catch(() => { shared.compiled = null; });
  }
  return shared.compiled;
}

/** Loads a fresh instance of the core (the first, or a new one after a panic). */
export async function loadCore() {
  const module = await compile();
  const generation = (shared.generation += 1);
  // The first instance uses the glue imported with this module; a later one, a fresh copy under another URL.
  const mod = generation === 1 ? firstGlue : await import(new URL(`./pkg/highwater.js?instance=${generation}`, import.meta.url).href);
  await mod.default({ module_or_path: module });
  shared.current = {
    Simulation: mod.Simulation,
    explore: mod.explore,
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
  };
  if (generation === 1 && typeof performance !== 'undefined' && performance.mark) performance.mark('highwater:core-ready');
  return shared.current;
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

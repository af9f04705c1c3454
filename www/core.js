// Loads the simulation core (the WebAssembly package in ./pkg) and replaces
// it with a fresh instance after a panic: a trapped instance cannot be used
// again, and wasm-bindgen's init() keeps the instance it made first, so a new
// copy of the JavaScript glue is imported under another URL.

let compiled = null; // Promise<WebAssembly.Module>, compiled once
let generation = 0;
let current = null;
let first = null; // the first load, shared by every playground on the page

/** The loaded core: { Simulation, explore, lastPanic, limits, defaultConfig, versions, withProtocol, whatifScenario, forkScenario, parseChange, changeText, runOutcome, generation }. */
export function core() {
  if (!current) throw new Error('the simulation core is not loaded yet');
  return current;
}

/** The core, loaded once for the page: every playground shares the instance. */
export function ensureCore() {
  if (current) return Promise.resolve(current);
  if (!first) {
    first = loadCore();
    first.catch(() => { first = null; });
  }
  return first;
}

function compile() {
  if (!compiled) {
    compiled = (async () => {
      const url = new URL('./pkg/highwater_bg.wasm', import.meta.url);
      const response = await fetch(url);
      if (!response.ok) throw new Error(`could not load ${url.pathname} (${response.status})`);
      return WebAssembly.compile(await response.arrayBuffer());
    })();
    compiled.catch(() => { compiled = null; });
  }
  return compiled;
}

/** Loads a fresh instance of the core (the first, or a new one after a panic). */
export async function loadCore() {
  const module = await compile();
  generation += 1;
  const glue = generation === 1 ? './pkg/highwater.js' : `./pkg/highwater.js?instance=${generation}`;
  const mod = await import(glue);
  await mod.default({ module_or_path: module });
  current = {
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
  return current;
}

/**
 * True when an error means the core instance is dead: a trap (a Rust panic
 * aborts into `unreachable`) or a panic message recorded by the core.
 */
export function isCrash(err) {
  if (err instanceof WebAssembly.RuntimeError) return true;
  if (err && err.name === 'RuntimeError') return true;
  try {
    return Boolean(current && current.lastPanic());
  } catch {
    return true; // the instance cannot even answer
  }
}

/** The panic message of the current instance, if it recorded one. */
export function panicMessage() {
  try {
    return (current && current.lastPanic()) || null;
  } catch {
    return null;
  }
}

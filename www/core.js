// Loads the simulation core (the WebAssembly package in ./pkg) and replaces
// it with a fresh instance after a panic: a trapped instance cannot be used
// again, and wasm-bindgen's init() keeps the instance it made first, so a new
// copy of the JavaScript glue is imported under another URL.

let compiled = null; // WebAssembly.Module, compiled once
let generation = 0;
let current = null;

/** The loaded core: { Simulation, explore, lastPanic, limits, defaultConfig, versions, withProtocol, whatifScenario, forkScenario, parseChange, changeText, runOutcome, generation }. */
export function core() {
  if (!current) throw new Error('the simulation core is not loaded yet');
  return current;
}

/** Loads the core (the first time) or a fresh instance of it (after a panic). */
export async function loadCore() {
  if (!compiled) {
    const url = new URL('./pkg/highwater_bg.wasm', import.meta.url);
    const response = await fetch(url);
    if (!response.ok) throw new Error(`could not load ${url.pathname} (${response.status})`);
    compiled = await WebAssembly.compile(await response.arrayBuffer());
  }
  generation += 1;
  const glue = generation === 1 ? './pkg/highwater.js' : `./pkg/highwater.js?instance=${generation}`;
  const mod = await import(glue);
  await mod.default({ module_or_path: compiled });
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

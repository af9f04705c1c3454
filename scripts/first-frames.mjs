#!/usr/bin/env node
// Writes www/first-frames/<id>.json: for each gallery scenario (and `default`,
// the empty run the page opens on), what the core answers to the questions a
// first draw asks of a run (its trace, events, refusals, and at every
// position its state and operator's view), computed here by the core the
// page loads for it (www/pkg-quorum: www/pkg is the same core without the
// controller quorum, and gives the same answers for a run without one). The element draws a scenario from this file while
// the core is still on its way, then draws it again from the live core: the
// same answers, so the same board (tests/browser/first-frame.test.mjs).
//
//   node scripts/first-frames.mjs        after scripts/gallery.mjs
import fs from 'node:fs';
import path from 'node:path';
import { WWW, loadCore, writeFolder } from './generated.mjs';

const OUT = path.join(WWW, 'first-frames');
/** The file's format; the page ignores a file of another. */
export const FORMAT = 1;

if (!fs.existsSync(path.join(WWW, 'gallery.json'))) {
  console.error('first-frames: www/gallery.json is missing; run make build');
  process.exit(1);
}
const core = await loadCore('pkg-quorum', 'first-frames');

/** The answers for one scenario, at every position of its run. */
function frame(scenario, focus) {
  const sim = core.Simulation.fromScenario(scenario);
  try {
    const length = sim.length();
    const stepEnds = Array.from(sim.stepEnds());
    const positions = [];
    for (let at = 0; at <= length; at++) {
      sim.seek(at);
      positions.push({ state: sim.state(), operator: sim.operator() });
    }
    return {
      highwater_frame: FORMAT,
      focus, // where an element without `step` opens (gallery.json)
      facts: { versions: core.versions(), limits: core.limits(), defaultConfig: core.defaultConfig() },
      scenario: sim.scenario(),
      length,
      trace: sim.traceText(),
      stepEnds,
      refusals: sim.registrationRefusals(),
      events: sim.eventsIn(0, stepEnds.length ? stepEnds[stepEnds.length - 1] : 0),
      positions,
    };
  } finally {
    sim.free();
  }
}

const { entries } = JSON.parse(fs.readFileSync(path.join(WWW, 'gallery.json'), 'utf8'));
const frames = [['default', { version: 1, config: core.defaultConfig(), steps: [] }, 0], ...entries.map((e) => [e.id, e.scenario, e.focus])];
fs.mkdirSync(OUT, { recursive: true });
const bytes = writeFolder(OUT, new Map(frames.map(([id, scenario, focus]) => [`${id}.json`, `${JSON.stringify(frame(scenario, focus))}\n`])));
console.log(`first-frames: ${frames.length} files in www/first-frames/ (${bytes} bytes)`);

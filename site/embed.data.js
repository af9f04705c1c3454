// Build-time data (a VitePress data loader): the link text of gallery
// scenarios, made by the installed package's own core in Node, for the
// iframe embed's #s= fragment.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { initSync, Simulation } from 'highwater-playground/pkg/highwater.js';

const require = createRequire(import.meta.url);
const IDS = ['kip101-loss-after-restart', 'hw-is-min-isr-leo'];

export default {
  load() {
    initSync({ module: fs.readFileSync(require.resolve('highwater-playground/pkg/highwater_bg.wasm')) });
    const gallery = JSON.parse(fs.readFileSync(require.resolve('highwater-playground/gallery.json'), 'utf8'));
    const out = {};
    for (const id of IDS) {
      const entry = gallery.entries.find((e) => e.id === id);
      if (!entry) throw new Error(`embed.data.js: no scenario ${id} in the package's gallery`);
      const sim = Simulation.fromScenario(entry.scenario);
      out[id] = { name: entry.name, link: sim.toLink(), length: sim.length() };
      sim.free();
    }
    return out;
  },
};

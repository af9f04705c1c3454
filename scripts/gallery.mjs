#!/usr/bin/env node
// Writes www/gallery.json, the page's scenario gallery, from
// tests/scenarios/*.json and tests/scenarios/cluster/*.json: name, description, a one-line summary, the file,
// the Kafka version it is written for, the step an element opens at without
// `step` (focus: the first broken guarantee, else the end) and the scenario itself; the scenarios
// whose point is comparing versions also get one variant per version preset.
// Reads the version presets from the core (www/pkg-quorum, which runs every
// scenario, those with controllers too: build it first).
//
//   node scripts/gallery.mjs [--out www/gallery.json]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { settingsDigest } from '../www/element/gallery-digest.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCENARIOS = path.join(ROOT, 'tests', 'scenarios');
const PKG = path.join(ROOT, 'www', 'pkg-quorum');
const outArg = process.argv.indexOf('--out');
const OUT = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(ROOT, 'www', 'gallery.json');

if (!fs.existsSync(path.join(PKG, 'highwater_bg.wasm'))) {
  console.error('gallery: www/pkg-quorum is missing; build the core first (scripts/build-wasm.sh)');
  process.exit(1);
}
const core = await import(path.join(PKG, 'highwater.js'));
core.initSync({ module: fs.readFileSync(path.join(PKG, 'highwater_bg.wasm')) });

// Every version preset, oldest first, as the core names them.
const PROTOCOLS = core.versions().versions.map((v) => v.name);
// Scenarios that show how the versions differ on the same steps.
const COMPARE = new Set([
  'kip101-loss-after-restart', 'kip101-divergence-after-power-loss', 'kip279-fast-leader-change', 'hw-frozen-under-min-isr',
  'eligible-leader-replicas',
]);
// Gallery order: the basics first, then failures, then the version comparisons.
const ORDER = [
  'two-fetch-rounds', 'hw-is-min-isr-leo', 'isr-shrink-and-expand', 'timed-failover', 'not-enough-replicas',
  'acks1-loss-after-failover', 'offline-without-unclean', 'unclean-election-loss', 'isolated-old-leader',
  'controller-failover-during-broker-failure', 'kip101-loss-after-restart', 'kip101-divergence-after-power-loss', 'kip279-fast-leader-change', 'hw-frozen-under-min-isr',
  'eligible-leader-replicas',
];

/** The version preset a scenario runs under, as the core reads it (aliases and the default resolved). */
function protocolOf(scenario, file) {
  let sim;
  try {
    sim = core.Simulation.fromScenario({ ...scenario, steps: [] });
    return sim.scenario().config.protocol;
  } catch (err) {
    throw new Error(`${file}: ${err.message}`);
  } finally {
    sim?.free();
  }
}

/** The settings a scenario runs under, as the core reads them (every default filled in). */
function configOf(scenario, file) {
  let sim;
  try {
    sim = core.Simulation.fromScenario({ ...scenario, steps: [] });
    return sim.scenario().config;
  } catch (err) {
    throw new Error(`${file}: ${err.message}`);
  } finally {
    sim?.free();
  }
}

/** The card's one line: the first sentence, or the first few when it is short. */
function summary(text) {
  const sentences = text.replace(/\s+/g, ' ').trim().split(/(?<=[.!?])\s+/);
  let out = '';
  for (const s of sentences) {
    out = `${out} ${s.trim()}`.trim();
    if (out.length >= 70) break;
  }
  return out;
}

/**
 * The step an element without `step` opens at, the scenario's telling
 * moment: where a guarantee first breaks, else the end of the run (what the
 * steps lead to).
 */
function focusOf(scenario, file) {
  const sim = core.Simulation.fromScenario(scenario);
  try {
    const steps = sim.state().violations.map((v) => v.step);
    return steps.length ? Math.min(...steps) : sim.length();
  } catch (err) {
    throw new Error(`${file}: ${err.message}`);
  } finally {
    sim.free();
  }
}

// One partition's scenarios, then a topic's on a cluster (`cluster/`), each group in its order.
const CLUSTER_ORDER = ['broker-dies-and-returns', 'rolling-restart', 'lose-a-rack-rack-aware', 'lose-a-rack-two-replicas-in-one-rack', 'unclean-election-on-one-partition'];
const files = [
  ...fs.readdirSync(SCENARIOS).filter((f) => f.endsWith('.json')),
  ...fs.readdirSync(path.join(SCENARIOS, 'cluster')).filter((f) => f.endsWith('.json')).map((f) => `cluster/${f}`),
].sort();
const rank = (f) => {
  const name = path.basename(f, '.json');
  if (f.startsWith('cluster/')) return ORDER.length + 1 + (CLUSTER_ORDER.includes(name) ? CLUSTER_ORDER.indexOf(name) : CLUSTER_ORDER.length);
  const i = ORDER.indexOf(name);
  return i < 0 ? ORDER.length : i;
};
files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

const entries = files.map((file) => {
  const id = path.basename(file, '.json');
  let scenario;
  try {
    scenario = JSON.parse(fs.readFileSync(path.join(SCENARIOS, file), 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${err.message}`);
  }
  const entry = {
    id,
    name: scenario.name || id,
    description: scenario.description || '',
    summary: summary(scenario.description || ''),
    file: `tests/scenarios/${file}`,
    protocol: protocolOf(scenario, file),
    scenario,
    focus: focusOf(scenario, file),
  };
  if (COMPARE.has(id)) {
    // Only the protocol changes: the file's own (partial) config, so that the
    // settings it does not write take each version's defaults.
    entry.variants = PROTOCOLS.map((protocol) => ({
      protocol,
      scenario: { ...scenario, config: { ...(scenario.config || {}), protocol } },
    }));
  }
  // The settings the entry's words are about (its own, and each version's),
  // each as a short digest: a run is shown with the entry's words only under one of them.
  entry.configs = [scenario, ...(entry.variants || []).map((v) => v.scenario)].map((s) => settingsDigest(configOf(s, file)));
  return entry;
});

const missing = [...COMPARE].filter((id) => !entries.some((e) => e.id === id));
if (missing.length) console.error(`gallery: warning: no scenario file for ${missing.join(', ')}`);

fs.mkdirSync(path.dirname(OUT), { recursive: true });
// Written beside and renamed into place: test files run in parallel and each
// rewrites the gallery, so a reader must never see a half-written file.
const tmp = `${OUT}.${process.pid}.tmp`;
fs.writeFileSync(tmp, `${JSON.stringify({ entries }, null, 1)}\n`);
fs.renameSync(tmp, OUT);
console.log(`gallery: ${entries.length} scenarios -> ${path.relative(process.cwd(), OUT) || OUT}`);

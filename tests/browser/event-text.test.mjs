// The event log's words: every event the core emits, in every scenario under
// every version preset (and a few runs made to reach rarer events), renders
// in English exactly as the core's trace line, and in Chinese with no
// placeholder or key left over. The three events.json files have the same
// keys and placeholders, and every variant of the core's `Event` enum has a
// template. Runs the wasm package in Node (build it with scripts/build-wasm.sh).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { flatten, fill } from '../../www/words/i18n.js';
import { eventLine, eventText, PHRASES, phrase, snakeCase, quoted } from '../../www/words/event-text.js';
import { deflateRawSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LANGS = ['en', 'zh-Hans', 'zh-Hant'];
const PLURAL_FORMS = new Set(['zero', 'one', 'two', 'few', 'many', 'other']);

const tables = Object.fromEntries(LANGS.map((code) => {
  const json = JSON.parse(readFileSync(join(ROOT, `www/locales/${code}/events.json`), 'utf8'));
  return [code, new Map(flatten(json, 'events'))];
}));

/** A `t` over one language's events table (as www/words/i18n.js's, without fallback). */
function translator(code) {
  const table = tables[code];
  const plural = new Intl.PluralRules(code);
  return (key, params = {}) => {
    let value = table.get(key);
    if (value === undefined) return key;
    if (typeof value === 'object') value = value[plural.select(Number(params.count ?? 0))] ?? value.other;
    return fill(value, params);
  };
}
const T = Object.fromEntries(LANGS.map((code) => [code, translator(code)]));

function placeholders(value) {
  const texts = typeof value === 'object' ? Object.values(value) : [value];
  return [...new Set(texts.flatMap((s) => [...String(s).matchAll(/\{([a-zA-Z0-9_.]+)\}/g)].map((m) => m[1])))].sort();
}

/** The variant names of `pub enum Event` in src/model/event.rs, snake_cased. */
function coreEventTypes() {
  const src = readFileSync(join(ROOT, 'src/model/event.rs'), 'utf8');
  const body = src.slice(src.indexOf('pub enum Event {'));
  const lines = body.slice(0, body.indexOf('\n}\n')).split('\n').slice(1);
  const names = lines.map((l) => /^    ([A-Z][A-Za-z0-9]*)\b/.exec(l)?.[1]).filter(Boolean);
  return names.map(snakeCase);
}

const CORE_TYPES = coreEventTypes();

function hasTemplate(code, type) {
  const key = `events.${type}`;
  for (const k of tables[code].keys()) if (k === key || k.startsWith(`${key}.`)) return true;
  return false;
}

// ----- runs -------------------------------------------------------------------

// The core with the controller quorum (www/pkg-quorum): it runs every scenario, those with controllers too.
const pkg = join(ROOT, 'www/pkg-quorum/highwater.js');
const wasmBuilt = existsSync(pkg);
let wasm = null;
if (wasmBuilt) {
  wasm = await import(pkg);
  wasm.initSync({ module: readFileSync(join(ROOT, 'www/pkg-quorum/highwater_bg.wasm')) });
}

const produce = (value, acks = 'all', to) => ({ produce: to ? { value, acks, to } : { value, acks } });

/** Runs made to reach events the shipped scenarios do not. */
const CRAFTED = [
  {
    // KIP-841's two halves: a broker cut from the controller only, and a controlled shutdown.
    name: 'controller cut and controlled shutdown',
    config: { brokers: 3, protocol: '3.7' },
    steps: [
      produce('m1'), { fetch: 2 }, { fetch: 3 }, { fetch: 2 }, { fetch: 3 },
      { cut_controller: 3 }, { advance_ms: 10000 }, { fetch: 3 }, { heal: 3 }, { advance_ms: 1000 }, { fetch: 3 },
      { controlled_shutdown: 1 }, produce('m2'), { fetch: 3 }, { restart: 1 }, { advance_ms: 1000 }, { fetch: 1 },
    ],
  },
  {
    // KIP-497: an AlterPartition in flight, its answer ignored after the controller changed the ISR.
    name: 'alter partition in flight',
    config: { brokers: 3, protocol: '3.7', auto_fetch: true, replica_lag_time_max_ms: 10000 },
    steps: [
      { delay: { broker: 1, ms: 10000 } }, { pause: 2 }, produce('m1', '1'), { advance_ms: 15001 },
      { cut_controller: 3 }, { advance_ms: 45000 }, { resume: 2 }, { advance_ms: 35000 }, { crash: { broker: 1 } },
    ],
  },
  {
    name: 'timed faults',
    config: { brokers: 3, auto_fetch: true, seed: 3, link_latency_ms: 2 },
    steps: [
      produce('m1'), { advance_ms: 1000 }, { cut: [2, 1] }, produce('m2', '1'), { advance_ms: 700 },
      { heal: [2, 1] }, { partition: [1, 3] }, { advance_ms: 700 }, { heal: 'all' }, { advance_ms: 1000 },
      { pause: 2 }, produce('m3', '0'), { advance_ms: 300 }, { resume: 2 }, { advance_ms: 1000 },
      { delay: { broker: 3, ms: 50 } }, produce('m4'), { advance_ms: 2000 },
      { isolate: 1 }, produce('m5', '1'), { advance_ms: 40000 }, { heal: 1 }, { advance_ms: 5000 },
      { crash: { broker: 2, lose_unflushed: 1 } }, { advance_ms: 100 }, { restart: 2 }, { advance_ms: 30000 }, { consume: null },
    ],
  },
  {
    name: 'unclean election, manual',
    config: { brokers: 3, unclean_leader_election: true, auto_offset_reset: 'earliest' },
    steps: [
      produce('a'), { fetch: 2 }, { fetch: 2 }, { fetch: 3 }, produce('b', '1'), { fetch: 2 }, { consume: null },
      { crash: { broker: 1 } }, { crash: { broker: 2 } }, { advance_ms: 60000 }, { elect: 3 },
      produce('c', '1'), { restart: 2 }, { advance_ms: 100 }, { fetch: 2 }, { fetch: 2 }, { consume: null },
      { restart: 1 }, { advance_ms: 100 }, { fetch: 1 }, { fetch: 1 },
    ],
  },
  {
    name: 'automatic leader rebalance',
    config: { brokers: 3, protocol: '3.7', auto_fetch: true, leader_imbalance_check_interval_ms: 30000 },
    steps: [{ advance_ms: 1000 }, { crash: { broker: 1 } }, { advance_ms: 20000 }, { restart: 1 }, { advance_ms: 60000 }],
  },
  {
    name: 'rack faults',
    config: { brokers: 4, racks: ['a', 'a', 'b', 'b'], protocol: '3.7', auto_fetch: true },
    steps: [
      produce('m1'), { advance_ms: 1000 }, { isolate: { rack: 'a' } }, { isolate: { rack: 'a' } }, { advance_ms: 20000 },
      { heal: 'all' }, { advance_ms: 2000 }, { crash: { rack: 'b' } }, { crash: { rack: 'b' } }, { fetch: { broker: 2, from: 3 } },
    ],
  },
  {
    // The KRaft quorum without pre-vote: an old leader cut off resigns
    // (check-quorum), a new one's first record is truncated away, a voter
    // with a higher epoch deposes a healthy leader, a crash and a restart,
    // a graceful resignation.
    name: 'controller quorum, 3.7',
    config: { brokers: 3, protocol: '3.7', controllers: 3 },
    steps: [
      { isolate: { controller: 1 } }, { advance_ms: 2043 }, { isolate: { controller: 3 } }, { heal: { controller: 1 } },
      { advance_ms: 6000 }, { heal: 'all' }, { advance_ms: 3000 }, { crash: { controller: 2 } }, { advance_ms: 3000 },
      { restart: { controller: 2 } }, { advance_ms: 3000 }, { resign: null }, { advance_ms: 3000 },
      { crash: { controller: 2 } }, { crash: { controller: 2 } }, { isolate: { controller: 1 } }, { isolate: { controller: 1 } },
    ],
  },
  {
    // With pre-vote (4.0): the followers of a dead leader ask first; a
    // restarted leader comes back resigned.
    name: 'controller quorum, 4.1',
    config: { brokers: 3, protocol: '4.1', controllers: 3, auto_fetch: true },
    steps: [
      { advance_ms: 1000 }, { crash: { controller: 1 } }, { advance_ms: 8000 }, { restart: { controller: 1 } },
      { isolate: { controller: 2 } }, { advance_ms: 5000 }, { heal: { controller: 2 } }, { resign: null }, { advance_ms: 4000 },
    ],
  },
  {
    // The controller on the quorum: fencing, an offline partition and an
    // election as records the brokers apply once committed; a restarted
    // broker registers fenced and is unfenced once caught up; a new active
    // controller replays the log.
    name: 'controller on the quorum, 4.1',
    config: { brokers: 3, protocol: '4.1', controllers: 3, auto_fetch: true },
    steps: [
      { advance_ms: 1000 }, { crash: { broker: 1 } }, { crash: { broker: 2 } }, { crash: { broker: 3 } }, { advance_ms: 12000 },
      { restart: 2 }, { advance_ms: 1000 }, { crash: { controller: 1 } }, { advance_ms: 12000 },
    ],
  },
  {
    name: 'rejected steps',
    config: { brokers: 3 },
    steps: [
      produce('x'), { elect: 1 }, { crash: { broker: 2 } }, { crash: { broker: 2 } }, { restart: 3 },
      { isolate: 3 }, { isolate: 3 }, { heal: [1, 2] }, { heal: 'all' }, { heal: 'all' }, { fetch: 1 }, { fetch: 2 }, { pause: 3 }, { pause: 3 }, { resume: 3 }, { resume: 3 },
      { cut: [1, 3] }, { cut: [1, 3] }, { partition: [1, 3] }, { partition: [1, 3] }, { heal: 'all' },
      { advance_ms: 20000 }, { elect: 2 }, { elect: 3 },
      { restart: 2 }, { restart: 2 }, { fetch: 2 },
    ],
  },
  {
    name: 'a value the trace must quote',
    config: { brokers: 2 },
    steps: [
      produce('q"b\\c\nd\te\r\u0000 中文 \u00a0\u200b😀e\u0301\u2028x\u007f\u0085'), { fetch: 2 }, { fetch: 2 }, { consume: null },
    ],
  },
  {
    name: 'producer retries, expiry and no leader',
    config: { brokers: 2, min_insync_replicas: 2, delivery_timeout_ms: 1000, retry_backoff_ms: 100 },
    steps: [
      produce('r1'), { fetch: 2 }, { crash: { broker: 2 } }, produce('r2'), { advance_ms: 3000 },
      { crash: { broker: 1 } }, { advance_ms: 20000 }, produce('r3', '1'), { consume: null }, produce('r4', '0'),
    ],
  },
  {
    // One request in flight: m2 waits in the client for it, and its delivery.timeout.ms runs out there.
    name: 'producer in-flight limit and expiry in the client',
    config: { brokers: 2, max_in_flight_requests_per_connection: 1, request_timeout_ms: 5000, delivery_timeout_ms: 8000 },
    steps: [produce('f1'), produce('f2'), { advance_ms: 9000 }],
  },
  {
    name: 'consumer offset reset none',
    config: { brokers: 3, protocol: '0.10', auto_offset_reset: 'none' },
    steps: [
      produce('a', '1'), produce('b', '1'), { consume: null }, { crash: { broker: 1 } }, { advance_ms: 20000 },
      { consume: null }, produce('c', '1'),
    ],
  },
  {
    name: 'consumer truncation detection without reset',
    config: { brokers: 3, protocol: '3.7', auto_offset_reset: 'none' },
    steps: [
      produce('a'), { fetch: 2 }, { fetch: 3 }, { fetch: 2 }, { fetch: 3 }, produce('b', '1'), { fetch: 2 }, { fetch: 2 },
      { consume: null }, { crash: { broker: 1 } }, { crash: { broker: 2 } }, { advance_ms: 20000 }, { elect: 3 },
      { restart: 1 }, { restart: 2 }, { advance_ms: 1000 }, { consume: null }, { consume: null },
    ],
  },
  {
    name: 'eligible leader replicas, last known leader',
    config: { brokers: 3, protocol: '4.1', min_insync_replicas: 2 },
    steps: [
      produce('a'), { fetch: 2 }, { fetch: 3 }, { fetch: 2 }, { fetch: 3 }, { crash: { broker: 3 } }, { advance_ms: 20000 },
      { crash: { broker: 2 } }, { advance_ms: 20000 }, { crash: { broker: 1 } }, { advance_ms: 20000 },
      { restart: 1 }, { advance_ms: 1000 }, { restart: 2 }, { restart: 3 }, { advance_ms: 1000 }, { fetch: 2 }, { fetch: 3 },
    ],
  },
];

function worstCase(name) {
  return JSON.parse(readFileSync(join(ROOT, `tests/worst-case/${name}.json`), 'utf8'));
}

/** Every run: each scenario under each preset, the crafted runs, two worst cases. */
function runs() {
  const presets = wasm.versions().versions.map((v) => v.name);
  // A scenario with a controller quorum runs under the KRaft presets only.
  const kraft = new Set(wasm.versions().versions.filter((v) => v.rules.includes('kraft_controller')).map((v) => v.name));
  const dir = join(ROOT, 'tests/scenarios');
  const out = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const scenario = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    for (const p of presets.filter((name) => !scenario.config.controllers || kraft.has(name))) {
      out.push({ name: `${file} @ ${p}`, scenario: { ...scenario, config: { ...scenario.config, protocol: p } } });
    }
    // As the golden trace runs it (its own preset, or the default).
    out.push({ name: file, scenario, golden: file.replace(/\.json$/, '') });
  }
  for (const c of CRAFTED) {
    for (const p of c.config.protocol ? [c.config.protocol] : presets) {
      out.push({ name: `${c.name} @ ${p}`, scenario: { version: 1, config: { ...c.config, protocol: p }, steps: c.steps } });
    }
  }
  out.push({ name: 'isr-change-spin', scenario: worstCase('isr-change-spin') });
  out.push({ name: 'in-flight-responses', scenario: worstCase('in-flight-responses') });
  return out;
}

let collected = null;
function collect() {
  if (collected) return collected;
  const events = [];
  const byType = new Map();
  for (const run of runs()) {
    const sim = wasm.Simulation.fromScenario(run.scenario);
    try {
      const list = sim.eventsSince(0);
      for (const e of list) {
        events.push({ run: run.name, e });
        // A controller's role change shares a broker's type name (its variant is `Controller…`).
        const type = e.controller != null && (e.type === 'became_leader' || e.type === 'became_follower') ? `controller_${e.type}` : e.type;
        if (!byType.has(type)) byType.set(type, []);
        if (byType.get(type).length < 400) byType.get(type).push(e);
      }
      if (run.golden) run.trace = list.map((e) => e.line);
    } finally {
      sim.free();
    }
    if (run.golden) {
      const version = run.scenario.config.protocol ?? wasm.defaultConfig().protocol;
      const path = join(ROOT, `tests/golden/${run.golden}.${version}.trace`);
      if (existsSync(path)) {
        const golden = readFileSync(path, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
        assert.deepEqual(run.trace.map((l) => l.replace(/\n/g, '\\n')), golden, `${run.name}: the events are not the golden trace`);
      }
    }
  }
  collected = { events, byType };
  return collected;
}

// ----- tables -----------------------------------------------------------------

test('the three events.json files have the same keys and placeholders', () => {
  const en = tables.en;
  for (const code of ['zh-Hans', 'zh-Hant']) {
    const other = tables[code];
    assert.deepEqual([...other.keys()].filter((k) => !en.has(k)), [], `${code}: keys English lacks`);
    assert.deepEqual([...en.keys()].filter((k) => !other.has(k)), [], `${code}: keys missing`);
    for (const [key, value] of en) {
      assert.deepEqual(placeholders(other.get(key)), placeholders(value), `${code} ${key}: placeholders differ`);
      const isPlural = (v) => typeof v === 'object';
      assert.equal(isPlural(other.get(key)), isPlural(value), `${code} ${key}: plural in one language only`);
      if (isPlural(value)) {
        for (const form of Object.keys(other.get(key))) assert.ok(PLURAL_FORMS.has(form), `${code} ${key}: ${form}`);
      }
    }
  }
});

test('the English phrases in event-text.js are those of locales/en/events.json', () => {
  for (const [key, english] of Object.entries(PHRASES)) {
    assert.equal(tables.en.get(`events.${key}`), english, key);
  }
});

test('every variant of the core Event enum has a template in every language', () => {
  assert.ok(CORE_TYPES.length >= 40, `only ${CORE_TYPES.length} variants parsed from src/model/event.rs`);
  for (const code of LANGS) {
    const missing = CORE_TYPES.filter((type) => !hasTemplate(code, type));
    assert.deepEqual(missing, [], `${code}: event types without a template`);
  }
});

test('Chinese text keeps to the term table', () => {
  for (const [code, wrong] of [
    ['zh-Hans', /[訊網預設逾時載資鏈斷當機執緒]/],
    // Taiwan usage, not the mainland words in traditional characters.
    ['zh-Hant', /消息|网|默认|超时|网络|網絡|默認|設置|線程|宕機|刷盤|數據|信息|超時|文件|支持/],
  ]) {
    for (const [key, value] of tables[code]) {
      const text = typeof value === 'object' ? Object.values(value).join(' ') : value;
      assert.doesNotMatch(text, wrong, `${code} ${key}: ${text}`);
    }
  }
});

test('quoted() writes a value as the core does', () => {
  assert.equal(quoted('m1'), '"m1"');
  assert.equal(quoted('a"b\\c\n'), '"a\\"b\\\\c\\n"');
});

// ----- events -----------------------------------------------------------------

test('English lines are the core trace lines, for every event of every run', { skip: !wasmBuilt && 'www/pkg-quorum is not built' }, () => {
  const { events } = collect();
  assert.ok(events.length > 1000, `only ${events.length} events`);
  const wrong = [];
  for (const { run, e } of events) {
    const line = eventLine(e, T.en);
    if (line !== e.line) wrong.push(`${run}\n  core: ${e.line}\n  page: ${line}`);
  }
  assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${events.length} lines differ`);
});

test('every event type seen has a template, and Chinese leaves nothing unfilled', { skip: !wasmBuilt && 'www/pkg-quorum is not built' }, () => {
  const { byType } = collect();
  for (const type of byType.keys()) {
    assert.ok(CORE_TYPES.includes(type), `${type}: not a variant in src/model/event.rs`);
    for (const code of LANGS) assert.ok(hasTemplate(code, type), `${code}: no template for ${type}`);
  }
  for (const code of ['zh-Hans', 'zh-Hant']) {
    for (const list of byType.values()) {
      for (const e of list) {
        const line = eventLine(e, T[code]);
        assert.doesNotMatch(line, /\{[a-z_]+\}/, `${code}: ${line}`);
        assert.doesNotMatch(line, /events\.[a-z_]/, `${code}: ${line}`);
        assert.notEqual(eventText(e, T[code]), eventText(e, T.en), `${code}: untranslated: ${line}`);
      }
    }
  }
});

test('free text the core composes is translated where it has a phrase', { skip: !wasmBuilt && 'www/pkg-quorum is not built' }, () => {
  const { byType } = collect();
  const fields = { response_ignored: 'reason', isr_change_failed: 'reason', partition_offline: 'reason', consume_failed: 'error', consumer_position_reset: 'reason', step_rejected: 'reason', violation: 'detail' };
  const untranslated = new Set();
  for (const [type, field] of Object.entries(fields)) {
    for (const e of byType.get(type) ?? []) {
      if (eventText(e, T['zh-Hans']).includes(e[field])) untranslated.add(`${type}: ${e[field]}`);
    }
  }
  assert.deepEqual([...untranslated], []);
});

test('coverage of the Event variants', { skip: !wasmBuilt && 'www/pkg-quorum is not built' }, (t) => {
  const { byType } = collect();
  const unreached = CORE_TYPES.filter((type) => !byType.has(type));
  t.diagnostic(`variants reached: ${CORE_TYPES.length - unreached.length} of ${CORE_TYPES.length}`);
  if (unreached.length) t.diagnostic(`not reached by any run: ${unreached.join(', ')}`);
  assert.ok(unreached.length <= 3, `unreached: ${unreached.join(', ')}`);
});

/** Scenarios the core refuses, one per kind of sentence it can say about them. */
const REFUSED = [
  '{"version":1,"config":{"brokerz":3}}',
  '{"version":1,"steps":[{"produce":{}}]}',
  '{"version":1,"steps":[{"produce":{"value":"a","acks":"2"}}]}',
  '{"version":1,"steps":[{"fetch":"x"}]}',
  '{"version":1,"config":{"protocol":"9.9"}}',
  '{"version":1,"config":{"brokers":-1}}',
  '{"version":1,"config":{"brokers":9}}',
  '{"version":1,"config":{"brokers":3,"min_insync_replicas":5}}',
  '{"version":1,"config":{"brokers":3,"replication_factor":4}}',
  '{"version":1,"config":{"brokers":3,"racks":["a","b"]}}',
  '{"version":1,"config":{"brokers":2,"racks":["a",""]}}',
  '{"version":1,"config":{"partitions":2,"assignment":[[1,2,3]]}}',
  '{"version":1,"config":{"partitions":2,"replication_factor":2,"assignment":[[1,2],[3]]}}',
  '{"version":1,"config":{"assignment":[[1,2,4]]}}',
  '{"version":1,"config":{"assignment":[[1,2,2]]}}',
  '{"version":1,"steps":[{"produce":{"value":"a","partition":1}}]}',
  '{"version":1,"steps":[{"consume":{"partition":4}}]}',
  '{"version":1,"config":{"retries":9999999999}}',
  '{"version":1,"config":{"seed":9007199254740993}}',
  '{"version":1,"config":{"seed":1.5}}',
  '{"version":1,"config":{"auto_fetch":"yes"}}',
  '{"version":1,"config":{"auto_offset_reset":"x"}}',
  '{"version":1,"steps":[{"crash":{"broker":1,"x":2}}]}',
  '{"version":1,"steps":[{"consume":{"x":1}}]}',
  '{"version":1,"steps":[{"crash":{"rack":"a"}}]}',
  '{"version":1,"config":{"brokers":3,"racks":["b","a","b"]},"steps":[{"isolate":{"rack":"z"}}]}',
  '{"version":1,"steps":[{"crash":{"rack":"a","broker":1}}]}',
  '{"version":1,"steps":[{"isolate":"a"}]}',
  '{"version":1,"steps":[{"fetch":{"broker":1,"to":2}}]}',
  '{"version":1,"steps":[{"fetch":"1"}]}',
  '{"version":1,"steps":[{"fly":2}]}',
  '{"version":1,"steps":["fetch"]}',
  '{"version":1,"steps":["elect"]}',
  '{"version":1,"steps":["heal"]}',
  '{"version":1,"steps":["cut"]}',
  '{"version":1,"steps":["fly"]}',
  '{"version":1,"steps":[{"fetch":2,"crash":1}]}',
  '{"version":1,"steps":[{"heal":"x"}]}',
  '{"version":1,"steps":[{"cut":[1]}]}',
  '{"version":1,"steps":[{"produce":{"value":"a","to":9}}]}',
  '{"version":1,"steps":[{"advance_ms":3600001}]}',
  '{"version":1,"steps":{}}',
  '{"version":1,"name":1}',
  `{"version":1,"name":"${'n'.repeat(300)}"}`,
  '{"version":1,"version":1}',
  '{"steps":[]}',
  '{"version":1.5}',
  '[1]',
  '{"version":1,',
  '{"version":1} x',
  '{"version":1,"steps":[1,]}',
  '{"version" 1}',
  '{1:2}',
  '{"version":tru}',
  '{"version":1e999}',
  '{"version":"\\q"}',
  '{"version":"\\ud800"}',
  '{"version":"\\u12"}',
  '{"version":1,"name":"a\u0001"}',
  // User text the core quotes as an excerpt with its length (text::quoted).
  JSON.stringify({ version: 1, ['k'.repeat(500)]: 1 }),
  JSON.stringify({ version: 1, config: { protocol: 'x'.repeat(300) } }),
  JSON.stringify({ version: 1, steps: [{ ['z'.repeat(100)]: 1 }] }),
];

/** English words of the core's sentences that a translation leaves nowhere (names, values and JSON aside). */
const ENGLISH = /\b(expected|invalid|unknown|missing|field|variant|string|integer|floating|boolean|sequence|map|line|column|longer|limit|range|must|between|larger|reader|supported|appears|twice|needs|argument|like|while|parsing|trailing|characters?|object|value|key|number|link|scenario|does|not|is)\b/i;

function untranslated(text) {
  const bare = text
    .replace(/`[^`]*`/g, '')
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^{}]*\}/g, '')
    .replace(/\b[a-z_]+(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)+\b|\bsteps\[\d+\]|\b(?:config|version|name|steps|description|link|scenario)(?=：)/g, '');
  return ENGLISH.exec(bare)?.[0];
}

test('a scenario the core refuses is explained in Chinese: every sentence, from the core, serde and serde_json, through the phrase table', { skip: !wasmBuilt && 'www/pkg-quorum is not built' }, () => {
  const messages = new Set();
  for (const text of REFUSED) {
    assert.throws(() => wasm.Simulation.fromScenario(text), (err) => {
      messages.add(err.message);
      // The same scenario in a link: the link's prefix, then the same sentence.
      const link = `v1.${deflateRawSync(Buffer.from(text)).toString('base64url')}`;
      assert.throws(() => wasm.Simulation.fromLink(link), (e) => e.message === `link: ${err.message}`, link);
      messages.add(`link: ${err.message}`);
      return true;
    }, text);
  }
  const left = [];
  for (const m of messages) {
    for (const code of ['zh-Hans', 'zh-Hant']) {
      const zh = phrase(m, T[code]);
      const word = untranslated(zh);
      if (zh === m || word) left.push(`${code}: ${m} -> ${zh}${word ? ` ("${word}")` : ''}`);
    }
    // English renders each sentence exactly as the core wrote it.
    assert.equal(phrase(m, T.en), m);
  }
  assert.deepEqual(left, []);
});

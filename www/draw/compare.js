// The fork view: the original run and a fork of it (the same steps with ONE
// thing changed) side by side at the same position of a shared timeline,
// with every difference the core reported (`Simulation.differencesWith`,
// `fork.rs`) highlighted on both sides and listed in words. Pure: states,
// differences and the change's summary in, descriptions of DOM out. No
// protocol logic: which cells differ, and how, is what the core says.
//
// A highlighted element carries class `diff`, `data-diff` (the difference's
// id, `diffId`) and a visible "≠" mark beside it, so that colour is never the
// only sign. At 1440 px the two runs stand side by side; under 900 px they
// are stacked, the original above the fork (compare.css).

import { h } from './dom.js';
import { t } from '../words/i18n.js';
import { renderCluster, renderProducer } from './render.js';
import { describeStep, formatTime, violationHeadline, verdict, resultLabel, roleText, braces } from '../words/describe.js';
import { TONE } from './whatif.js';
import { excerpt } from '../words/user-text.js';

const has = (v) => v !== null && v !== undefined;
const SIDES = ['left', 'right'];
/** Offsets a run's log shows at most: what fits beside a broker's figures in half of a 1440 px page, in compact cells (compare.css). */
const WINDOW = 12;

/** A stable id for one difference (the same id marks its cells and its line in the list). */
export function diffId(d) {
  switch (d.kind) {
    case 'role':
    case 'log_end_offset':
    case 'high_watermark':
      return `${d.kind}:${d.broker}`;
    case 'record_value':
    case 'record_epoch':
    case 'record_missing':
      return `${d.kind}:${d.broker}:${d.offset}`;
    case 'produce_result':
      return `${d.kind}:${d.request}`;
    case 'consumer_read':
      return `${d.kind}:${d.read}`;
    case 'violation':
      return `${d.kind}:${d.only_in}:${d.violation}:${d.offset ?? ''}:${d.protocol_violation}:${d.allowed_by ?? ''}`;
    default:
      return d.kind;
  }
}

/** Which differences mark which element, per side: a map from a place ("leo:2", "cell:3:1") to ids. */
function places(differences) {
  const out = { left: new Map(), right: new Map() };
  const add = (side, place, id) => {
    const m = out[side];
    if (!m.has(place)) m.set(place, []);
    m.get(place).push(id);
  };
  const both = (place, id) => SIDES.forEach((s) => add(s, place, id));
  for (const d of differences) {
    const id = diffId(d);
    switch (d.kind) {
      case 'time': both('time', id); break;
      case 'stopped': SIDES.forEach((s) => { if (has(d[s])) add(s, 'stopped', id); }); break;
      case 'leader': both('partition-leader', id); break;
      case 'partition_epoch': both('partition-epoch', id); break;
      case 'isr': both('partition-isr', id); break;
      case 'elr': both('partition-elr', id); both('partition-isr', id); break;
      case 'partition_high_watermark': both('partition-hw', id); break;
      case 'role': both(`role:${d.broker}`, id); break;
      case 'log_end_offset': both(`leo:${d.broker}`, id); break;
      case 'high_watermark': both(`hw:${d.broker}`, id); break;
      case 'record_value':
      case 'record_epoch': both(`cell:${d.broker}:${d.offset}`, id); break;
      case 'record_missing':
        add(d.only_in, `cell:${d.broker}:${d.offset}`, id);
        add(d.only_in === 'left' ? 'right' : 'left', `absent:${d.broker}:${d.offset}`, id);
        break;
      case 'produce_result': both(`produce:${d.request}`, id); break;
      case 'consumer_read': both(`read:${d.read}`, id); break;
      case 'consumer_position': both('consumer-position', id); break;
      case 'violation': add(d.only_in, `violation:${id}`, id); break;
      default: both(d.kind, id);
    }
  }
  return out;
}

const mark = (ids) => h('span', { class: 'diff-mark', 'aria-hidden': 'true', 'data-diff-mark': ids.join(' ') }, '≠');

/** An element description with the diff class, its ids, its visible ≠ and, for screen readers, a word. */
function marked(v, ids) {
  const attrs = { ...v.attrs, class: `${v.attrs.class ? `${v.attrs.class} ` : ''}diff`, 'data-diff': ids.join(' ') };
  return { ...v, attrs, children: [...v.children, mark(ids), h('span', { class: 'visually-hidden' }, ` (${t('compare.differs')})`)] };
}

/**
 * Marks the elements of a `renderCluster`/`renderProducer` description that
 * a difference names, without changing how render.js draws them: walks the
 * description and returns a new one.
 */
function annotate(v, at, ctx = {}) {
  if (!v || typeof v !== 'object' || 'text' in v) return v;
  const a = v.attrs || {};
  const inner = { ...ctx };
  if (a['data-broker'] !== undefined && v.tag === 'section') inner.broker = a['data-broker'];
  let place = null;
  if (a['data-testid'] && a['data-testid'].startsWith('partition-')) place = a['data-testid'];
  else if (a['data-testid'] === 'role' && has(inner.broker)) place = `role:${inner.broker}`;
  else if (a['data-stat'] === 'leo' && has(inner.broker)) place = `leo:${inner.broker}`;
  else if (a['data-stat'] === 'hw' && has(inner.broker)) place = `hw:${inner.broker}`;
  else if (inner.inCells && typeof v.key === 'number') place = `cell:${inner.broker}:${v.key}`;
  else if (inner.inRecords && v.tag === 'li' && typeof v.key === 'number') place = `produce:${v.key + 1}`;
  if (v.tag === 'div' && a.class === 'cells-run') inner.inCells = true;
  if (v.tag === 'ol' && a.class === 'records') inner.inRecords = true;
  let children = v.children.map((c) => annotate(c, at, inner)).flat();
  if (inner.inCells && !ctx.inCells) {
    // Records only the other run has here: an empty, dashed slot with the mark.
    for (const [key, ids] of at) {
      const [kind, broker, offset] = key.split(':');
      if (kind !== 'absent' || broker !== String(inner.broker)) continue;
      if (Number(offset) < (ctx.windowStart || 0) || Number(offset) >= (ctx.windowStart || 0) + ctx.windowCount) continue;
      children.push(h('div', { class: 'cell fork-absent diff', key: `absent${offset}`, style: { '--o': Number(offset) }, 'data-diff': ids.join(' '), title: t('compare.absent_title', { offset }) },
        h('span', { class: 'cell-offset' }, offset), h('span', { class: 'cell-value' }, '∅'), mark(ids)));
    }
  }
  // Without its memo: the marks depend on the other run too, which the memo does not say.
  const attrs = { ...a };
  delete attrs.memo;
  const out = { ...v, attrs, children };
  const ids = place && at.get(place);
  if (!ids) return out;
  return marked(out, ids);
}

/** One run's column. side: { state, outcome, position, length, label } */
function runColumn(which, side, at, view) {
  const s = side.state;
  const recordEpochs = view.recordEpochs ? view.recordEpochs[which] !== false : true;
  const stopped = at.get('stopped');
  const time = h('span', { 'data-testid': 'time' }, formatTime(s.time_ms));
  // The logs cut to the window, as the main page asks the core for them (`state(from, count)`).
  const end = view.windowStart + view.windowCount;
  const windowed = { ...s, brokers: s.brokers.map((b) => ({ ...b, log_window_start: view.windowStart, log: b.log.filter((r) => r.offset >= view.windowStart && r.offset < end) })) };
  const cluster = renderCluster(windowed, { windowStart: view.windowStart, windowCount: view.windowCount, dense: false, stepEvents: [], refusals: new Map(), recordEpochs });
  const producer = renderProducer(s, { recordEpochs });
  const outcome = side.outcome;
  const tone = outcome ? TONE[outcome.outcome] || 'muted' : 'muted';
  const reads = s.consumer.read || [];
  const readIds = (i) => at.get(`read:${i + 1}`);
  return h('section', { class: `compare-run compare-${which}`, key: which, 'data-side': which, role: 'group', 'aria-label': t(`compare.${which}`) },
    h('header', { class: 'compare-run-head' },
      h('h3', null, t(`compare.${which}`)),
      outcome
        ? h('span', { class: `tag outcome tone-${tone}`, 'data-outcome': outcome.outcome, title: t(`whatif.meaning.${outcome.outcome}`) },
            `${t('compare.outcome')} ${t(`whatif.outcome.${outcome.outcome}`)}`,
            has(outcome.step) ? ` ${t('whatif.at_step', { step: outcome.step })}` : '')
        : null,
      h('span', { class: 'muted compare-where' },
        side.position === view.position
          ? t('compare.at_step', { step: side.position, length: side.length })
          : t('compare.stopped_at', { step: side.position }),
        ' · ',
        at.get('time') ? marked(time, at.get('time')) : time),
    ),
    stopped ? marked(h('p', { class: 'compare-stopped', 'data-testid': 'stopped' }, s.stopped), stopped) : null,
    h('div', { class: 'cluster-host compare-cluster', 'data-zoom': view.zoom }, annotate(cluster, at, { windowStart: view.windowStart, windowCount: view.windowCount })),
    h('div', { class: 'compare-lists' },
      h('div', { class: 'compare-producer' }, h('h4', null, t('compare.producer')), annotate(producer, at)),
      h('div', { class: 'compare-consumer' },
        h('h4', null, t('compare.consumer')),
        (() => {
          const pos = h('p', { class: 'consumer-pos', 'data-testid': 'consumer-position' }, t('consumer.position', { position: s.consumer.position, count: reads.length }));
          const ids = at.get('consumer-position');
          return ids ? marked(pos, ids) : pos;
        })(),
        reads.length
          ? h('ol', { class: 'chips read compare-reads' }, reads.map((r, i) => {
              const chip = h('li', { class: 'chip', key: i, title: t('cell.offset', { offset: r.offset }) }, `${r.offset}: `, r.value);
              return readIds(i) ? marked(chip, readIds(i)) : chip;
            }))
          : null,
        // Reads only the other run made: numbered empty slots with the mark.
        [...at.keys()].filter((k) => k.startsWith('read:') && Number(k.slice(5)) > reads.length).map((k) => {
          const ids = at.get(k);
          return h('p', { class: 'muted small diff compare-absent-read', key: k, 'data-diff': ids.join(' ') }, t('compare.read_absent', { read: k.slice(5) }), mark(ids));
        }),
      ),
    ),
    h('div', { class: 'compare-violations' },
      (s.violations || []).map((v, i) => {
        const ids = at.get(`violation:${diffId({ kind: 'violation', only_in: which, violation: v.kind, offset: v.offset, protocol_violation: v.protocol_violation, allowed_by: v.allowed_by })}`);
        const item = h('p', { class: `compare-violation ${verdict(v).kind === 'protocol' ? 'is-bad' : 'is-warn'}`, key: i, 'data-kind': v.kind, 'data-verdict': verdict(v).kind }, violationHeadline(v), h('span', { class: 'muted' }, ` · ${t('banner.where', { step: v.step, time: formatTime(v.time_ms) })}`));
        return ids ? marked(item, ids) : item;
      }),
    ),
  );
}

const value = (x) => (has(x) ? String(x) : t('compare.none'));
const broker = (b) => (has(b) ? t('cluster.broker', { broker: b }) : t('compare.offline'));
const quoted = (v) => t('common.quote', { value: has(v) ? excerpt(v, 40) : v });

/** One difference in words (locale keys `compare.diff.*`): original → fork. */
export function differenceText(d) {
  const k = (key, vars) => t(`compare.diff.${key}`, vars);
  switch (d.kind) {
    case 'time': return k('time', { left: formatTime(d.left), right: formatTime(d.right) });
    case 'stopped': return has(d.left) && has(d.right) ? k('stopped_both') : k('stopped_one', { side: t(`compare.${has(d.left) ? 'left' : 'right'}`) });
    case 'leader': return k('leader', { left: broker(d.left), right: broker(d.right) });
    case 'partition_epoch': return k('partition_epoch', { left: d.left, right: d.right });
    case 'isr': return k('isr', { left: braces(d.left), right: braces(d.right) });
    case 'elr': return k('elr', { left: braces(d.left), right: braces(d.right) });
    case 'partition_high_watermark': return k('partition_high_watermark', { left: value(d.left), right: value(d.right) });
    case 'role': return k('role', { broker: d.broker, left: roleText(d.left), right: roleText(d.right) });
    case 'log_end_offset': return k('log_end_offset', { broker: d.broker, left: d.left, right: d.right });
    case 'high_watermark': return k('high_watermark', { broker: d.broker, left: d.left, right: d.right });
    case 'record_value': return k('record_value', { broker: d.broker, offset: d.offset, left: quoted(d.left), right: quoted(d.right) });
    case 'record_epoch': return k('record_epoch', { broker: d.broker, offset: d.offset, value: quoted(d.value), left: d.left, right: d.right });
    case 'record_missing': return k(`record_only_${d.only_in}`, { broker: d.broker, offset: d.offset, value: quoted(d.value) });
    case 'produce_result': return k('produce_result', { request: d.request, value: quoted(d.value), left: has(d.left) ? resultLabel(d.left) : t('compare.none'), right: has(d.right) ? resultLabel(d.right) : t('compare.none') });
    case 'consumer_read': {
      const read = (r) => (has(r) ? `${r.offset}: ${quoted(r.value)}` : t('compare.none'));
      return k('consumer_read', { read: d.read, left: read(d.left), right: read(d.right) });
    }
    case 'consumer_position': return k('consumer_position', { left: d.left, right: d.right });
    case 'violation': return k(`violation_only_${d.only_in}`, { what: violationHeadline({ kind: d.violation, value: d.value, offset: d.offset, protocol_violation: d.protocol_violation, allowed_by: d.allowed_by }), step: d.step });
    default: return d.kind;
  }
}

/** The header's sentence: what the fork changed, from what to what. */
export function changeText(change, left, right) {
  if (!change) return t('compare.no_change');
  if (change.setting === 'step') {
    const n = change.step;
    return t('compare.header_step', { step: n, from: describeStep(left.scenario?.steps?.[n - 1]), to: describeStep(right.scenario?.steps?.[n - 1]) });
  }
  if (change.setting === 'acks' && has(change.step)) return t('compare.header_acks_step', { step: change.step, from: change.from, to: change.to });
  if (change.setting === 'acks') return t('compare.header_acks_all', { from: change.from, to: change.to });
  if (change.setting === 'protocol') return t('compare.header_protocol', { from: t('version.name', { name: change.from }), to: t('version.name', { name: change.to }) });
  return t('compare.header', { setting: change.setting, from: change.from, to: change.to });
}

/**
 * The whole view.
 *   left, right: { state, scenario, outcome, position, length } — the original
 *     and the fork: each run's state at its position (`Simulation.state()`), its
 *     scenario, its whole run's outcome (`runOutcome`), the position it is shown
 *     at (the shared one, or where it stopped: `fork::aligned_position`) and its length
 *   differences: `left.differencesWith(right)` at those positions
 *   change: the `change` of `forkScenario` (text, setting, step, from, to)
 *   position: the shared timeline's position
 *   recordEpochs: { left, right } — whether each run's records carry an epoch (0.11+)
 *   windowStart: the first offset shown (default: a little before the first differing record)
 *   show: the run shown where the two are stacked (a phone): 'left' or 'right'
 */
export function compareView({ left, right, differences = [], change = null, position = 0, recordEpochs = null, windowStart = null, show = 'left' }) {
  const at = places(differences);
  const maxLeo = Math.max(0, ...[left, right].flatMap((s) => s.state.brokers.map((b) => b.log_end_offset)));
  // Both runs show the same offsets. A long log is shown from a little before
  // its first differing record (or its last records when none differs), in
  // the main page's compact cells; `windowStart` chooses another start.
  const recordOffsets = differences.filter((d) => d.kind.startsWith('record_')).map((d) => d.offset);
  const start = windowStart ?? (maxLeo < WINDOW ? 0 : Math.max(0, Math.min(recordOffsets.length ? Math.min(...recordOffsets) - 2 : maxLeo, maxLeo + 1 - WINDOW)));
  const windowCount = Math.max(6, Math.min(WINDOW, maxLeo + 1 - start));
  const zoom = windowCount > 9 ? 'compact' : 'normal';
  const view = { windowStart: start, windowCount, zoom, position, recordEpochs };
  return h('div', { class: 'compare', 'data-differences': differences.length },
    h('header', { class: 'compare-head' },
      h('p', { class: 'compare-change', 'data-testid': 'fork-change', 'data-change': change ? change.text : '' },
        t('compare.fork_header', { change: changeText(change, left, right) })),
      h('p', { class: 'muted small' }, t('compare.arrow_help')),
      // Where the runs are stacked (a phone): one at a time, the other a tap
      // away, so that a run's brokers are on one screen. `show`: 'left' or 'right'.
      h('div', { class: 'compare-switch', role: 'group', 'aria-label': t('compare.switch_label') },
        ['left', 'right'].map((which) => h('button', { type: 'button', key: which, class: `compare-show${show === which ? ' primary' : ''}`, 'data-compare-show': which, 'aria-pressed': String(show === which) },
          t(`compare.${which}`), differences.length ? h('span', { class: 'diff-mark', 'aria-hidden': 'true' }, '≠') : null))),
    ),
    h('div', { class: 'compare-runs', 'data-show': show },
      runColumn('left', left, at.left, view),
      runColumn('right', right, at.right, view)),
    h('section', { class: 'compare-diffs', role: 'group', 'aria-label': t('compare.differences_title') },
      h('h3', null, t('compare.differences_count', { count: differences.length })),
      differences.length
        ? h('ul', { class: 'compare-diff-list' }, differences.map((d) => h('li', { key: diffId(d), 'data-diff': diffId(d), 'data-kind': d.kind },
            h('span', { class: 'diff-mark', 'aria-hidden': 'true' }, '≠'), ' ', differenceText(d))))
        : h('p', { class: 'muted', 'data-testid': 'no-differences' }, t('compare.none_here')),
    ),
  );
}

// ---------------------------------------------------------------- the chooser

/**
 * The "What if…" chooser's form model at a position: the kinds of change that
 * make sense here, each with its current value and its options as typed
 * changes (turn one into link text with the core's `changeText`).
 *   scenario: the original; position: the step shown (0 = the start)
 *   versions: the version presets (`core().versions.versions`: each with its
 *     `name` and whether it has an idempotent producer, `idempotent_producer`)
 * The produce steps are those up to the position (all of them at the start),
 * latest first; a step is replaced at the position (the step just shown).
 */
export function forkChoices(scenario, position, versions = []) {
  const c = scenario.config || {};
  const presets = versions.map((v) => v.name);
  const version = versions.find((v) => v.name === c.protocol || (v.aliases || []).includes(c.protocol));
  const steps = scenario.steps || [];
  const choices = [];
  const others = (list, current) => list.filter((x) => x !== current);
  choices.push({ kind: 'protocol', setting: 'protocol', current: c.protocol, options: others(presets, c.protocol).map((protocol) => ({ value: protocol, change: { change: 'protocol', protocol } })) });
  const upTo = position > 0 ? Math.min(position, steps.length) : steps.length;
  const produces = [];
  for (let n = upTo; n >= 1; n--) {
    const s = steps[n - 1];
    if (s && typeof s === 'object' && s.produce) produces.push({ step: n, value: s.produce.value, current: s.produce.acks ?? 'all' });
  }
  if (steps.some((s) => s && typeof s === 'object' && s.produce)) {
    choices.push({ kind: 'acks_all', setting: 'acks', current: null, options: ['0', '1', 'all'].map((acks) => ({ value: acks, change: { change: 'acks_all', acks } })) });
  }
  for (const p of produces) {
    choices.push({ kind: 'acks', setting: 'acks', step: p.step, value: p.value, current: p.current, options: others(['0', '1', 'all'], p.current).map((acks) => ({ value: acks, change: { change: 'acks', step: p.step, acks } })) });
  }
  const brokers = c.brokers ?? 3;
  choices.push({ kind: 'min_insync_replicas', setting: 'min.insync.replicas', current: c.min_insync_replicas, options: others(Array.from({ length: brokers }, (_, i) => i + 1), c.min_insync_replicas).map((value) => ({ value, change: { change: 'min_insync_replicas', value } })) });
  // 0.10's client has no enable.idempotence (KIP-98 came in 0.11): not offered there.
  const flags = [['unclean_leader_election', 'unclean.leader.election.enable'], ['enable_idempotence', 'enable.idempotence']]
    .filter(([kind]) => kind !== 'enable_idempotence' || !version || version.idempotent_producer);
  for (const [kind, setting] of flags) {
    const current = Boolean(c[kind]);
    choices.push({ kind, setting, current, options: [{ value: !current, change: { change: kind, value: !current } }] });
  }
  // A number the user types: the options are its bounds (the core checks them again).
  choices.push({ kind: 'replica_lag_time_max_ms', setting: 'replica.lag.time.max.ms', current: c.replica_lag_time_max_ms, min: 2, max: 3600000, change: (value) => ({ change: 'replica_lag_time_max_ms', value }) });
  if (position >= 1 && position <= steps.length) {
    choices.push({ kind: 'step', setting: 'step', step: position, current: steps[position - 1], change: (step) => ({ change: 'step', step: position, with: step }) });
  }
  return choices;
}

/** A choice's label (locale keys `fork.choice.*`). */
export function choiceLabel(choice) {
  if (choice.kind === 'acks') return t('fork.choice.acks', { step: choice.step, value: t('common.quote', { value: excerpt(choice.value, 40) }) });
  if (choice.kind === 'step') return t('fork.choice.step', { step: choice.step, what: describeStep(choice.current) });
  return t(`fork.choice.${choice.kind}`);
}


// Pure drawing: the core's state (and the events of the step just shown) in,
// descriptions of DOM/SVG out (see dom.js). No protocol logic: every number,
// role and verdict drawn here is a field the core reported.

import { h, memoized } from './dom.js';
import { describeStep, formatTime, messageLabel, violationHeadline, violationDetail, verdict, explainEvent, startingNote, unavailableReason, resultHelp, resultLabel, roleText, truncationWhy, braces, VERSION_TEXT } from '../words/describe.js';
import { t, num, language } from '../words/i18n.js';
import { eventText, messageText } from '../words/event-text.js';
import { visible } from '../words/user-text.js';

export const EPOCH_COLOURS = 8;
const LIST_LIMIT = 100; // rows of the producer and consumer lists drawn at most

/**
 * Do records carry their leader epoch under this version? From the version
 * that brought KIP-101's OffsetsForLeaderEpoch on (0.11, message format v2),
 * whatever later rules replaced it with. `catalogue`: the core's `versions()`.
 */
export function recordsCarryEpochs(catalogue, protocol) {
  const versions = catalogue.versions;
  const since = versions.findIndex((x) => x.introduced.includes('offsets_for_leader_epoch'));
  const at = versions.findIndex((x) => x.name === protocol);
  return since < 0 || at < 0 || at >= since;
}

/**
 * Everything the page draws from one state.
 * view: { windowStart, windowCount, dense, stepEvents, stepEventCount, step, position, length, refusals }
 * (refusals: per broker, its latest `registration_refused` event up to this step)
 */
export function render(state, view) {
  return {
    banner: renderBanner(state, view),
    caption: renderCaption(state, view),
    cluster: renderCluster(state, view),
    producer: renderProducer(state, view),
    consumer: renderConsumer(state, view),
    network: renderNetwork(state),
    legend: renderLegend(state, view),
  };
}

// ---------------------------------------------------------------- legend

export function renderLegend(state, view = {}) {
  const epochs = [...new Set(state.brokers.flatMap((b) => b.log.map((r) => r.epoch)))].sort((a, b) => a - b).slice(0, 12);
  const swatchEpoch = view.recordEpochs === false ? 'epoch-none' : `epoch-${(epochs.length ? epochs[0] : 0) % EPOCH_COLOURS}`;
  return [
    view.recordEpochs === false
      ? h('span', { class: 'legend-item', key: 'no-epochs', 'data-testid': 'no-record-epochs' }, t('legend.no_record_epochs'))
      : epochs.map((e) => h('span', { class: 'legend-item', key: `e${e}` }, h('span', { class: `swatch epoch-${e % EPOCH_COLOURS} committed` }), t('legend.epoch', { epoch: e }))),
    // Committed and not yet: drawn as a cell of the run is, in its first
    // epoch's colour (blue for epoch 0), grey where records carry no epoch.
    h('span', { class: 'legend-item', key: 'c' }, h('span', { class: `swatch ${swatchEpoch} committed`, 'data-testid': 'legend-committed' }), t('legend.committed')),
    h('span', { class: 'legend-item', key: 'u' }, h('span', { class: `swatch ${swatchEpoch} uncommitted`, 'data-testid': 'legend-uncommitted' }), t('legend.uncommitted')),
    h('span', { class: 'legend-item', key: 'hw' }, h('span', { class: 'swatch-line' }), t('legend.hw')),
    h('span', { class: 'legend-item', key: 'leo' }, h('span', { class: 'swatch-line leo' }), t('legend.leo')),
    h('span', { class: 'legend-item', key: 'ck' }, h('span', { class: 'swatch-line ckpt' }), t('legend.ckpt')),
    view.recordEpochs === false
      ? null
      : h('span', { class: 'legend-item', key: 'ec', title: t('glossary.epoch_cache.short') }, h('span', { class: 'epoch-entry epoch-none', 'aria-hidden': 'true' }, 'eN@M'), t('legend.epoch_cache')),
    h('span', { class: 'legend-item', key: 'r' }, h('span', { class: 'remote-glyph' }, '▴'), t('legend.remote')),
  ];
}

// ---------------------------------------------------------------- caption

const STEP_NOTES_MAX = 4;

/** The step's notes: its most telling explanations (at most four), in the order they happened. */
export function stepNotes(events) {
  const notes = [];
  const seen = new Set();
  (events || []).forEach((e, i) => {
    const note = explainEvent(e);
    if (!note) return;
    // In a topic of several partitions, each note names its partition.
    const text = e.topic_partition != null ? t('map.note', { partition: e.topic_partition, text: note.text }) : note.text;
    if (!seen.has(text)) {
      seen.add(text);
      notes.push({ ...note, text, i });
    }
  });
  const kept = [...notes].sort((a, b) => b.rank - a.rank || a.i - b.i).slice(0, STEP_NOTES_MAX);
  return kept.sort((a, b) => a.i - b.i).map((n) => n.text);
}

/**
 * The time a step shows: the clock after it, and for a step that advanced
 * the clock where it started too ("25.0 s → 45.0 s"), so that what happened
 * during it (a session expiring, an election) is seen to fall within it.
 */
function stepTime(state, step) {
  const ms = step && typeof step === 'object' && Number.isInteger(step.advance_ms) ? step.advance_ms : 0;
  return ms > 0 && ms <= state.time_ms ? `${formatTime(state.time_ms - ms)} → ${formatTime(state.time_ms)}` : formatTime(state.time_ms);
}

export function renderCaption(state, view) {
  // An embed of the empty run has no controls to start one: it says where to go.
  if (view.emptyEmbed) return [h('p', { class: 'caption-line empty-embed', key: 'empty', 'data-testid': 'empty-embed' }, t('page.empty_embed'))];
  const where = view.position === 0 ? t('caption.start') : t('caption.step', { n: view.position });
  const what = view.step ? describeStep(view.step) : t('caption.nothing_yet');
  const shown = (view.stepEvents || []).length;
  const notes = stepNotes(view.stepEvents);
  if (view.stepEventCount > shown) notes.push(t('caption.many_events', { count: view.stepEventCount, shown }));
  return [
    h('p', { class: 'caption-line', key: 'line' },
      h('strong', null, where),
      h('span', { class: 'muted' }, ` ${t('caption.of', { n: view.length })} · ${stepTime(state, view.step)} · `),
      h('button', { type: 'button', class: 'link-button version-button', 'data-action': 'rules', 'data-testid': 'version', 'aria-haspopup': 'dialog', 'aria-label': VERSION_TEXT.buttonLabel(state.protocol), title: VERSION_TEXT.buttonLabel(state.protocol) }, VERSION_TEXT.name(state.protocol)),
      h('span', { class: 'muted' }, ' · '),
      h('span', { class: 'caption-what' }, what),
    ),
    notes.length
      ? h('ul', { class: 'step-notes', key: 'notes', 'aria-label': t('caption.notes_label') }, notes.map((text, i) => h('li', { key: i }, text)))
      : null,
    view.hint
      ? h('p', { class: 'hint', key: 'hint', 'data-testid': 'hint' }, h('strong', null, `${t('hint.label')} `), view.hint.text,
          view.hint.action ? [' ', h('button', { type: 'button', class: 'mini hint-action', 'data-hint-action': view.hint.action }, view.hint.label)] : null)
      : null,
  ];
}

// ---------------------------------------------------------------- violations

export function renderBanner(state, view) {
  const stopped = state.stopped
    ? h('div', { class: 'banner banner-stopped', role: 'alert', key: 'stopped', 'data-testid': 'stopped' },
        h('div', { class: 'violation-head' },
          h('span', { class: 'tag tag-warn' }, t('banner.stopped_tag')),
          h('strong', { class: 'violation-title' }, t('banner.stopped_title')),
        ),
        h('p', { class: 'violation-detail' }, stoppedText(state, view)),
        h('p', { class: 'violation-where muted' }, t('banner.stopped_where')),
      )
    : null;
  const vs = state.violations || [];
  if (!vs.length) return stopped ? [stopped] : [];
  // Protocol violations first, a record lost before a guarantee broken with
  // nothing lost yet (a diverged log on the way to the loss); then in the
  // order they happened.
  const broke = (v) => Number(verdict(v).kind === 'protocol');
  const lost = (v) => Number(v.kind === 'acked_write_lost' || v.kind === 'consumer_saw_vanished_record');
  const ordered = [...vs].sort((a, b) => broke(b) - broke(a) || lost(b) - lost(a) || a.step - b.step);
  const [first, ...rest] = ordered;
  const told = new Set(); // each setting's trade-off is said once, under its first loss
  return [stopped, h('div', { class: `banner ${broke(first) ? 'banner-violation' : 'banner-allowed'}`, role: 'alert', key: 'violations' },
    violationItem(first, view, undefined, told),
    rest.length
      ? h('details', { class: 'banner-more' },
          h('summary', null, t('banner.more_findings', { count: rest.length })),
          rest.map((v, i) => violationItem(v, view, i, told)))
      : null,
  )].filter(Boolean);
}

/** Why the run stopped: the core's words, or its budget_exceeded event in the page's language. */
function stoppedText(state, view) {
  const e = language() === 'en' ? null : (view.stepEvents || []).find((x) => x.type === 'budget_exceeded');
  return e ? eventText(e, t) : state.stopped;
}

// A guarantee Kafka makes, broken: red. A loss a setting allows: amber, with
// the setting and the trade-off it makes.
function violationItem(v, view, key, told) {
  const { kind } = verdict(v);
  const allowed = kind !== 'protocol';
  const tradeoff = allowed && !told.has(kind);
  told.add(kind);
  return h('div', { class: 'violation', key: key ?? 'first', 'data-kind': v.kind, 'data-verdict': kind },
    h('div', { class: 'violation-head' },
      h('span', { class: `tag ${allowed ? 'tag-warn' : 'tag-bad'}`, 'data-testid': 'verdict' }, allowed ? t(`banner.allowed_by_${kind}`) : t('banner.protocol_violation')),
      h('strong', { class: 'violation-title' }, violationHeadline(v)),
    ),
    h('p', { class: 'violation-detail' }, violationDetail(v)),
    tradeoff ? h('p', { class: 'violation-tradeoff' }, t(`banner.tradeoff_${kind}`)) : null,
    h('p', { class: 'violation-where' },
      h('span', { class: 'muted' }, `${v.kind} · ${t('banner.where', { step: v.step, time: formatTime(v.time_ms) })} `),
      view.position !== v.step
        ? h('button', { type: 'button', class: 'link-button', 'data-action': 'goto', 'data-step': v.step, 'aria-label': t('banner.goto_label', { step: v.step }) }, t('banner.goto', { step: v.step }))
        : h('span', { class: 'muted' }, t('banner.this_step')),
    ),
  );
}

// ---------------------------------------------------------------- cluster

export function renderCluster(state, view) {
  const p = state.partition;
  const start = view.windowStart;
  const count = view.windowCount;
  const maxLeo = Math.max(0, ...state.brokers.map((b) => b.log_end_offset));
  const stepEvents = view.stepEvents || [];
  // A topic of several partitions: the board is one of them, and so are the cells a violation marks.
  const shown = state.partitions ? (state.violations || []).filter((v) => (v.partition ?? 0) === (view.partition ?? 0)) : state.violations || [];
  const flagged = violationCells(shown);
  const gaps = violationGaps(shown);
  return h('div', { class: `cluster${view.dense ? ' dense' : ''}`, style: { '--count': count } },
    h('div', { class: 'controller-strip' },
      state.partitions ? h('strong', { class: 'partition-shown', 'data-testid': 'partition-shown' }, t('map.partition', { partition: view.partition ?? 0 })) : null,
      h('span', { class: 'controller-label' }, t('cluster.controller')),
      has(p.leader)
        ? h('span', null, `${t('cluster.leader')} `, h('strong', { 'data-testid': 'partition-leader' }, t('cluster.broker', { broker: p.leader })))
        : h('span', { class: 'tag tag-bad', 'data-testid': 'partition-leader' }, t('cluster.offline')),
      h('span', null, `${t('cluster.epoch')} `, h('strong', { 'data-testid': 'partition-epoch' }, String(p.leader_epoch))),
      h('span', null, 'ISR ', h('strong', { 'data-testid': 'partition-isr' }, braces(p.isr))),
      p.elr && p.elr.length
        ? h('span', { class: 'elr-summary', title: t('elr.partition') }, 'ELR ', h('strong', { 'data-testid': 'partition-elr' }, braces(p.elr)), h('span', { class: 'visually-hidden' }, `: ${t('elr.partition')}`))
        : null,
      !has(p.leader) && has(p.last_known_leader)
        ? h('span', { title: t('elr.last_known_leader_help') }, `${t('elr.last_known_leader')} `, h('strong', { 'data-testid': 'partition-last-known-leader' }, t('cluster.broker', { broker: p.last_known_leader })))
        : null,
      h('span', null, 'HW ', h('strong', { 'data-testid': 'partition-hw' }, has(p.high_watermark) ? String(p.high_watermark) : '–')),
      noReplicaLine(state, view.partition ?? 0),
    ),
    // The KRaft quorum's rows: their code loads with the first scenario that has controllers (draw/quorum.js).
    state.quorum && view.quorum ? view.quorum.renderQuorum(state, view) : null,
    renderInFlight(state, view.partition ?? 0),
    h('div', { class: 'ruler-row', 'aria-hidden': 'true' },
      h('div', { class: 'broker-info ruler-info' }, h('span', { class: 'muted' }, t('cluster.offset'))),
      h('div', { class: 'track ruler' }, ruler(start, count, maxLeo, view.dense)),
    ),
    state.brokers.filter((b) => b.replica !== false).map((b) => memoized(brokerMemo(b, state, start, count, stepEvents, flagged, gaps, view.refusals, view.recordEpochs !== false),
      () => brokerRow(b, state, start, count, stepEvents, flagged, gaps, view.refusals, view.recordEpochs !== false))),

    h('div', { class: 'inflight-layer', 'aria-hidden': 'true' }),
    h('div', { class: 'overlay', 'aria-hidden': 'true' }),
  );
}

const has = (v) => v !== null && v !== undefined;

/**
 * The messages in flight that carry the partition on the board (every one in
 * a topic of one partition): a message names its partition (`partition`,
 * none for partition 0) or its several (`partitions`).
 */
export function inFlightShown(state, shown = 0) {
  const msgs = state.in_flight || [];
  if (!state.partitions) return msgs;
  // A message of several partitions is drawn as its part for the one shown.
  return msgs.flatMap((m) => {
    if (!m.partitions) return (m.partition ?? 0) === shown ? [m] : [];
    const part = m.partitions.find((x) => x.partition === shown);
    return part ? [{ ...m, ...part, partitions: undefined }] : [];
  });
}

function renderInFlight(state, partition) {
  const msgs = inFlightShown(state, partition);
  if (!msgs.length) return null;
  const shown = msgs.slice(0, 12);
  return h('div', { class: 'in-flight' },
    h('span', { class: 'muted' }, t('cluster.in_flight', { count: msgs.length })),
    shown.map((m, i) => {
      const [from, to] = endpoints(m);
      return h('span', { class: `chip msg-${m.kind}`, key: i, title: inFlightTitle(m) },
        `${from} → ${to} `, messageLabel(m), h('span', { class: 'muted' }, ` · ${t('cluster.arrives', { time: formatTime(m.arrives_ms) })}`));
    }),
    msgs.length > shown.length ? h('span', { class: 'muted' }, t('cluster.and_more', { count: msgs.length - shown.length })) : null,
  );
}

/** A message in flight in words: the core's line in English, else the message in the page's language. */
export function inFlightTitle(m) {
  return language() === 'en' ? m.line : `${m.from} → ${m.to}: ${messageText(m, t)}`;
}

/** Sender and receiver of an in-flight message, as the core reports them. */
export function endpoints(m) {
  return [m.from, m.to];
}

function ruler(start, count, maxLeo, dense) {
  const shown = Math.min(count, maxLeo + 1 - start);
  const every = dense ? 20 : shown > 40 ? 10 : shown > 20 ? 5 : 1;
  const ticks = [];
  for (let o = start; o < start + count && o <= maxLeo; o++) {
    if (o % every === 0) ticks.push(h('span', { class: 'tick', key: o, style: { '--o': o } }, String(o)));
  }
  return h('div', { class: 'ruler-run', style: { translate: shift(start) } }, ticks);
}

/**
 * What moves a run of cells, ticks or markers, each placed by its own
 * offset, to the window's start: a window that follows the log changes one
 * translation, and lays out only what comes into it, not all it kept.
 */
const shift = (start) => `calc(${-start} * var(--cell-w))`;

function violationCells(violations) {
  const set = new Set();
  for (const v of violations) {
    if (!has(v.offset)) continue;
    for (const b of v.brokers || []) set.add(`${b}:${v.offset}`);
  }
  return set;
}

/** Per broker, the records that violations name at offsets where they were expected. */
function violationGaps(violations) {
  const map = new Map();
  for (const v of violations) {
    if (!has(v.offset) || v.kind !== 'acked_write_lost') continue;
    for (const b of v.brokers || []) {
      if (!map.has(b)) map.set(b, []);
      map.get(b).push({ offset: v.offset, value: v.value, kind: v.kind });
    }
  }
  return map;
}

/** Everything a broker's row is drawn from, as one text (a row whose text did not change is left as it is). */
function brokerMemo(b, state, start, count, stepEvents, flagged, gaps, refusals, recordEpochs) {
  return JSON.stringify([
    'broker', brokerMemoParts(b, state, refusals, recordEpochs), b, start, count,
    stepEvents.filter((e) => e.type === 'truncated' && e.broker === b.id),
    b.log.filter((r) => flagged.has(`${b.id}:${r.offset}`)).map((r) => r.offset),
    gaps.get(b.id) || null,
  ]);
}

/** What a broker's row depends on beyond the broker itself. */
function brokerMemoParts(b, state, refusals, recordEpochs) {
  const p = state.partition;
  return [
    language(), recordEpochs, p.leader, p.leader_epoch, state.kraft, state.alter_partition,
    b.latency_ms !== undefined && state.brokers.some((o) => o.latency_ms !== b.latency_ms),
    b.role === 'starting' ? [state.time_ms, refusals && refusals.get(b.id)] : null,
  ];
}

/**
 * The brokers that hold no replica of the partition shown, at the end of the
 * controller's line: each with what is wrong with it (down, fenced,
 * isolated). Their own partitions are on the map, one choice away.
 */
function noReplicaLine(state, shown) {
  const others = state.brokers.filter((b) => b.replica === false);
  if (!others.length) return null;
  const label = t('map.no_replica_on', { partition: shown, count: others.length });
  return h('span', { class: 'no-replica-line muted', key: 'no-replica', 'data-testid': 'no-replica' },
    // No space after a full-width colon (Chinese: 无副本的 broker：2、3).
    label, /[\u3000-\u303f\uff00-\uffef]$/.test(label) ? '' : ' ',
    // Compact: the ids; one that is down struck through in red, its state in words for a screen reader and a tooltip.
    others.map((b, i) => {
      const state = [!b.alive ? roleText(b.role) : null, b.fenced ? t('broker.fenced') : null, b.isolated ? t('broker.isolated') : null].filter(Boolean).join(', ');
      return [
        i ? t('map.id_separator') : null,
        h('span', { class: `no-replica-broker${b.alive ? '' : ' is-down'}`, key: b.id, 'data-broker': b.id, title: state ? t('cluster.broker', { broker: b.id }) + `: ${state}` : null },
          String(b.id),
          state ? h('span', { class: 'visually-hidden' }, ` (${state})`) : null),
      ];
    }),
  );
}

function brokerRow(b, state, start, count, stepEvents, flagged, gaps, refusals, recordEpochs) {
  const classes = ['broker-row', `role-${b.role}`];
  if (!b.alive) classes.push(b.role === 'starting' ? 'is-starting' : 'is-down');
  if (b.isolated) classes.push('is-isolated');
  if (b.stale_leader) classes.push('is-stale');
  const role = roleText(b.role);
  const label = t('broker.label', { broker: b.id, role: b.in_elr ? `${role}, ELR` : role, epoch: b.leader_epoch, leo: b.log_end_offset, hw: b.high_watermark });
  const notes = stepEvents.filter((e) => e.type === 'truncated' && e.broker === b.id);
  return h('section', { class: classes.join(' '), key: `b${b.id}`, 'data-broker': b.id, role: 'group', 'aria-label': label },
    // The broker's panel does not change as the window moves, nor with a record it did not take.
    memoized(JSON.stringify(['broker-info', brokerMemoParts(b, state, refusals, recordEpochs), b], (k, v) => (k === 'log' || k === 'log_window_start' ? undefined : v)),
      () => brokerInfo(b, state, refusals, recordEpochs)),
    h('div', { class: 'track', 'data-window-start': start },
      cells(b, start, count, flagged, gaps, recordEpochs),
      markers(b, start, count),
    ),
    notes.length
      ? h('div', { class: 'broker-notes' }, notes.map((e, i) => h('p', { class: 'truncation-note', key: i }, h('span', { class: 'scissors', 'aria-hidden': 'true' }, '✂ '), t('broker.truncated_note', { from: e.from, to: e.to, why: truncationWhy(e.truncation) }))))
      : null,
  );
}

/** A broker's panel beside its log: name, role, tags, LEO and HW, the leader's view, the actions. */
function brokerInfo(b, state, refusals, recordEpochs) {
  const p = state.partition;
  const role = roleText(b.role);
  const starting = b.role === 'starting' ? startingNote(b.id, refusals && refusals.get(b.id), state.time_ms) : null;
  const controllerLeader = has(p.leader) ? t('broker.controller_leader', { broker: p.leader, epoch: p.leader_epoch }) : t('broker.nobody');
  return h('div', { class: 'broker-info' },
    h('div', { class: 'broker-title' },
      h('span', { class: 'broker-name' }, t('broker.name', { broker: b.id })),
      h('span', { class: `role role-${b.role}`, 'data-testid': 'role' }, role),
      h('span', { class: 'epoch-pill', title: t('broker.epoch_help') }, `${t('cluster.epoch')} `, h('span', { 'data-stat': 'epoch' }, String(b.leader_epoch))),
    ),
    h('div', { class: 'badges' },
      b.in_isr ? h('span', { class: 'tag tag-ok', title: t('broker.in_isr_help') }, t('broker.in_isr')) : h('span', { class: 'tag tag-muted', title: t('broker.out_of_isr_help') }, t('broker.out_of_isr')),
      b.in_elr
        ? h('span', { class: 'tag tag-elr', 'data-testid': 'elr', title: t('elr.broker', { broker: b.id }) }, h('span', { 'aria-hidden': 'true' }, 'ELR'), h('span', { class: 'visually-hidden' }, t('elr.broker', { broker: b.id })))
        : null,
      b.fenced ? h('span', { class: 'tag tag-bad', title: t('broker.fenced_help') }, t('broker.fenced')) : null,
      b.isolated ? h('span', { class: 'tag tag-bad', title: t('broker.isolated_help') }, t('broker.isolated')) : null,
      b.controller_cut && !b.isolated ? h('span', { class: 'tag tag-bad', 'data-testid': 'controller-cut', title: t('broker.controller_cut_help') }, t('broker.controller_cut')) : null,
      b.stale_leader
        ? h('span', { class: 'tag tag-bad', 'data-testid': 'stale-leader', title: t('broker.stale_help', { epoch: b.leader_epoch, leader: controllerLeader }) }, t('broker.stale'))
        : null,
      b.fetcher_paused ? h('span', { class: 'tag tag-warn' }, t('broker.fetcher_paused')) : null,
      has(b.shutdown_at_ms)
        ? h('span', { class: 'tag tag-warn', 'data-testid': 'shutting-down', title: t(b.fetcher_stopped_for_shutdown ? 'broker.shutting_down_stopped_help' : 'broker.shutting_down_help', { time: b.shutdown_at_ms }) }, t('broker.shutting_down'))
        : null,
      b.latency_ms !== undefined && state.brokers.some((o) => o.latency_ms !== b.latency_ms) ? h('span', { class: 'tag tag-muted' }, t('broker.links_ms', { ms: b.latency_ms })) : null,
    ),
    h('div', { class: 'stats' },
      stat('LEO', 'leo', b.log_end_offset, t('glossary.leo.short')),
      stat('HW', 'hw', b.high_watermark, t('glossary.hw.short')),
      stat(t('broker.ckpt'), 'ckpt', b.checkpointed_high_watermark, t('glossary.ckpt.short')),
      recordEpochs ? epochCache(b) : null,
    ),
    b.stale_leader ? h('p', { class: 'stale-note' }, t('broker.stale_note', { epoch: b.leader_epoch, leader: controllerLeader })) : null,
    starting ? h('p', { class: 'starting-note', 'data-testid': 'starting-note' }, starting) : null,
    b.role === 'leader' ? leaderView(b, state.alter_partition) : null,
    brokerActions(b, state),
  );
}

function stat(label, key, value, title) {
  return h('span', { class: `stat stat-${key}`, title }, h('span', { class: 'stat-label' }, label), ' ', h('span', { class: 'stat-value', 'data-stat': key }, String(value)));
}

const EPOCH_CACHE_SHOWN = 4; // entries drawn at most: the latest ones (the label names them all)

/**
 * The broker's leader-epoch cache as the core reports it, in the order of
 * its leader-epoch-checkpoint file: epoch → the offset of the first record in
 * that epoch (Kafka's `LeaderEpochFileCache`, written by
 * `LeaderEpochCheckpointFile` to "leader-epoch-checkpoint", both new in
 * 0.11.0 with KIP-101). A broker that is down keeps it on disk. Drawn from
 * 0.11 only (the caller's `recordEpochs`, the core's rules table): 0.10 has
 * no such file.
 */
function epochCache(b) {
  const entries = b.leader_epoch_cache || [];
  const label = entries.length
    ? t('broker.epoch_cache_label', {
      broker: b.id,
      entries: entries.map((e, i) => t(i ? 'broker.epoch_cache_next' : 'broker.epoch_cache_first', { epoch: e.epoch, offset: e.start_offset })).join(''),
    })
    : t('broker.epoch_cache_empty', { broker: b.id });
  const shown = entries.slice(-EPOCH_CACHE_SHOWN);
  return h('span', { class: 'stat epoch-cache', 'data-testid': 'epoch-cache', 'data-entries': entries.length, title: `${label}\n${t('glossary.epoch_cache.short')}` },
    h('span', { 'aria-hidden': 'true' },
      h('span', { class: 'stat-label' }, t('broker.epoch_cache')), ' ',
      entries.length > shown.length ? h('span', { class: 'epoch-more' }, '…') : null,
      shown.length
        ? shown.map((e) => h('span', { class: `epoch-entry epoch-${e.epoch % EPOCH_COLOURS}`, key: e.epoch, 'data-epoch': e.epoch, 'data-start-offset': e.start_offset }, `e${e.epoch}@${e.start_offset}`))
        : h('span', { class: 'epoch-entry epoch-none' }, '–'),
    ),
    h('span', { class: 'visually-hidden' }, label),
  );
}

function leaderView(b, alterPartition) {
  const remote = b.remote || [];
  // Shown while an ISR expansion waits for the controller: KIP-497's maximal
  // ISR, or before 2.7 the leader's own ZooKeeper write (state.alter_partition).
  const maximal = Array.isArray(b.maximal_isr) && b.maximal_isr.length !== (b.isr || []).length;
  const [label, help] = alterPartition ? ['broker.maximal_isr', 'broker.maximal_isr_help'] : ['broker.isr_write_waiting', 'broker.isr_write_waiting_help'];
  return h('div', { class: 'leader-view' },
    h('span', { class: 'muted' }, `${t('broker.leader_view')} `),
    h('span', null, `ISR ${braces(b.isr)}`),
    maximal ? h('span', { class: 'maximal-isr', 'data-testid': 'maximal-isr', title: t(help) }, ` · ${t(label, { isr: braces(b.maximal_isr) })}`) : null,
    remote.map((r) => h('span', { class: 'remote', key: r.id, 'data-remote': r.id },
      ` · ${t('broker.remote_at', { broker: r.id })} `,
      has(r.log_end_offset) ? `LEO ${r.log_end_offset}` : h('span', { class: 'unknown', title: t('glossary.leo_unknown.short') }, 'LEO ?'),
      has(r.fetch_held_until_ms)
        ? h('span', { class: 'held', 'data-held': r.id, title: t('broker.fetch_held_help') }, t('broker.fetch_held', { until: formatTime(r.fetch_held_until_ms) }))
        : null,
    )),
  );
}

function brokerActions(b, state) {
  const id = b.id;
  // A starting broker's process runs (it can crash, lose power, be isolated)
  // but it serves nothing until the controller accepts its registration.
  const running = b.alive || b.role === 'starting';
  const replica = b.replica !== false;
  const follower = running && b.role !== 'leader' && replica;
  // `slot` keeps a button's element across redraws: Crash becomes Restart in
  // place, so the focus stays on it (a keyboard user presses it again to restart).
  const btn = (action, text, label, slot = action) => {
    const reason = unavailableReason(action, id, b.role);
    return reason
      ? h('button', { type: 'button', class: 'mini unavailable', key: slot, 'data-action': action, 'data-broker': id, 'aria-disabled': 'true', 'data-reason': reason, 'aria-label': t('action.not_possible', { label }), 'aria-description': reason, title: reason }, text)
      : h('button', { type: 'button', class: 'mini', key: slot, 'data-action': action, 'data-broker': id, 'aria-label': label }, text);
  };
  const a = (key) => t(`action.${key}`, { broker: id });
  return h('div', { class: 'broker-actions' },
    // The producer beside the leader where the Producer form is further down
    // the page (a phone, a narrow window): the form's value and acks, sent.
    b.role === 'leader' && b.alive
      ? h('button', { type: 'button', class: 'mini primary produce-here', key: 'produce', 'data-produce': '', 'aria-label': t('action.produce_here_label') }, t('producer.produce'))
      : null,
    follower ? btn('fetch', a('fetch'), a('fetch_label')) : null,
    running ? btn('crash', a('crash'), a('crash_label'), 'process') : btn('restart', a('restart'), a('restart_label'), 'process'),
    h('details', { class: 'more', key: 'more' },
      h('summary', { class: 'mini', 'aria-label': a('more_label') }, a('more')),
      h('div', { class: 'menu' },
        running
          ? h('div', { class: 'menu-row', key: 'lose' },
              h('label', null, `${a('lose')} `, h('input', { type: 'number', min: 1, max: 10000, value: 1, 'data-field': 'lose', 'data-broker': id, 'aria-label': a('lose_label'), class: 'num' }), ` ${a('records')}`),
              btn('powerloss', a('power_loss'), a('power_loss_label')))
          : null,
        h('div', { class: 'menu-row', key: 'isolate' },
          b.isolated || b.controller_cut ? btn('heal-broker', a('reconnect'), a('reconnect_label')) : btn('isolate', a('isolate'), a('isolate_label'))),
        // Its whole rack: a zone lost, or cut off (every broker of the rack at once).
        has(b.rack)
          ? h('div', { class: 'menu-row', key: 'rack' },
              h('button', { type: 'button', class: 'mini', key: 'crash-rack', 'data-action': 'crash-rack', 'data-broker': id, 'data-rack': b.rack, 'aria-label': t('action.crash_rack_label', { rack: b.rack }) }, t('action.crash_rack', { rack: b.rack })),
              h('button', { type: 'button', class: 'mini', key: 'isolate-rack', 'data-action': 'isolate-rack', 'data-broker': id, 'data-rack': b.rack, 'aria-label': t('action.isolate_rack_label', { rack: b.rack }) }, t('action.isolate_rack', { rack: b.rack })))
          : null,
        // KIP-841's two halves: losing the controller only, and a clean stop.
        !b.isolated && !b.controller_cut
          ? h('div', { class: 'menu-row', key: 'controller' }, btn('cut-controller', a('cut_controller'), a('cut_controller_label')))
          : null,
        b.alive
          ? h('div', { class: 'menu-row', key: 'shutdown' },
              btn('controlled-shutdown', a('controlled_shutdown'), a('controlled_shutdown_label')),
              // KRaft: the request alone, the broker up until its next heartbeat.
              !state.kraft || has(b.shutdown_at_ms) ? null : btn('begin-controlled-shutdown', a('begin_controlled_shutdown'), a('begin_controlled_shutdown_label')))
          : null,
        follower
          ? h('div', { class: 'menu-row', key: 'fetcher' },
              b.fetcher_paused ? btn('resume', a('resume'), a('resume_label')) : btn('pause', a('pause'), a('pause_label')))
          : null,
        h('div', { class: 'menu-row', key: 'delay' },
          h('label', null, `${a('links')} `, h('input', { type: 'number', min: 0, max: 3600000, value: 400, 'data-field': 'delay', 'data-broker': id, 'aria-label': a('links_label'), class: 'num' }), ' ms'),
          btn('delay', a('slow'), a('slow_label'))),
        replica ? h('div', { class: 'menu-row', key: 'elect' }, btn('elect', a('elect'), a('elect_label'))) : null,
      ),
    ),
  );
}

function cells(b, start, count, flagged, missing, recordEpochs) {
  const hw = b.high_watermark;
  const held = new Set(b.log.map((r) => r.offset));
  // A record a violation says this broker should have but does not: drawn as a crossed-out slot.
  const gaps = (missing.get(b.id) || []).filter((m) => !held.has(m.offset) && m.offset >= start && m.offset < start + count);
  const lang = language();
  return h('div', { class: 'cells' }, h('div', { class: 'cells-run', style: { translate: shift(start) } },
    gaps.map((m) => h('div', { class: 'cell missing', key: `missing${m.offset}`, style: { '--o': m.offset }, title: t('cell.missing', { value: m.value === null ? t('violation.a_record') : `“${visible(m.value)}”`, offset: m.offset, kind: m.kind }) },
      h('span', { class: 'cell-offset' }, String(m.offset)),
      h('bdi', { class: 'cell-value' }, m.value === null || m.value === undefined ? '?' : visible(m.value)),
    )),
    b.log.filter((r) => r.offset < start + count).map((r) => {
      const committed = r.offset < hw;
      const marked = flagged.has(`${b.id}:${r.offset}`);
      // A cell says its record alone, placed by its own offset: one the last
      // draw had is neither described nor patched again.
      return memoized(`cell ${lang} ${recordEpochs} ${committed} ${marked} ${r.offset} ${r.epoch} ${JSON.stringify(r.value)}`, () => cell(r, committed, marked, recordEpochs));
    }),
  ));
}

/** One record's cell, at its offset. */
function cell(r, committed, marked, recordEpochs) {
  const cls = ['cell', recordEpochs ? `epoch-${r.epoch % EPOCH_COLOURS}` : 'epoch-none', committed ? 'committed' : 'uncommitted'];
  if (marked) cls.push('flagged');
  const title = recordEpochs
    ? t(committed ? 'cell.title_committed' : 'cell.title_uncommitted', { offset: r.offset, epoch: r.epoch, value: visible(r.value) })
    : t(committed ? 'cell.title_committed_no_epoch' : 'cell.title_uncommitted_no_epoch', { offset: r.offset, value: visible(r.value) });
  return h('div', { class: cls.join(' '), key: r.offset, style: { '--o': r.offset }, title },
    h('span', { class: 'cell-offset' }, String(r.offset)),
    h('bdi', { class: 'cell-value' }, visible(r.value)),
    recordEpochs ? h('span', { class: 'cell-epoch' }, `e${r.epoch}`) : null,
  );
}

function markers(b, start, count) {
  const end = start + count;
  const out = [];
  const place = (offset) => (offset < start ? { edge: 'left', o: 0 } : offset > end ? { edge: 'right', o: count } : { edge: null, o: offset - start });
  const marker = (kind, offset, text, title) => {
    const at = place(offset);
    const label = at.edge === 'left' ? `◂ ${text}` : at.edge === 'right' ? `${text} ▸` : text;
    // Labels near an edge of the window turn inwards.
    const edge = at.edge === 'right' || (at.edge === null && at.o > count - 3) ? ' edge-right' : at.edge === 'left' || (at.edge === null && at.o < 1) ? ' edge-left' : '';
    return h('div', { class: `marker marker-${kind}${at.edge ? ' off-window' : ''}${edge}`, key: kind, style: { '--o': start + at.o }, title, 'data-marker': kind },
      h('span', { class: 'marker-label' }, label));
  };
  out.push(marker('hw', b.high_watermark, `HW ${b.high_watermark}`, t('glossary.hw.short')));
  out.push(marker('leo', b.log_end_offset, `LEO ${b.log_end_offset}`, t('glossary.leo.short')));
  if (b.checkpointed_high_watermark !== b.high_watermark) {
    // Its label sits left of its line (right of it at the window's left
    // edge); where that would cover the LEO label a few cells away (after a
    // power loss the checkpoint can be past the LEO), the dashed line goes
    // without it: its title and the legend say what it is.
    const ckpt = b.checkpointed_high_watermark;
    const leo = b.log_end_offset;
    const crowded = ckpt - start < 1 ? leo >= ckpt && leo - ckpt <= 2 : leo < ckpt && ckpt - leo <= 3;
    out.push(marker('ckpt', ckpt, crowded ? '' : `${t('broker.ckpt')} ${ckpt}`, `${t('glossary.ckpt.short')}: ${ckpt}`));
  }
  if (b.role === 'leader' && b.remote) {
    // One flag per offset, naming every follower the leader places there.
    const byOffset = new Map();
    for (const r of b.remote) {
      if (!has(r.log_end_offset)) continue;
      if (!byOffset.has(r.log_end_offset)) byOffset.set(r.log_end_offset, []);
      byOffset.get(r.log_end_offset).push(r.id);
    }
    for (const [offset, ids] of byOffset) {
      const at = place(offset);
      out.push(h('div', { class: `marker marker-remote${at.edge ? ' off-window' : ''}`, key: `r${offset}`, style: { '--o': start + at.o }, title: t('marker.remote', { brokers: ids.join(', '), count: ids.length, offset }), 'data-remote-marker': ids.join(',') },
        h('span', { class: 'marker-label' }, `▴ ${ids.join(',')}`)));
    }
  }
  return h('div', { class: 'markers', style: { translate: shift(start) } }, out);
}

// ---------------------------------------------------------------- producer

export const PRODUCER_ROW_PX = 28; // a row of a windowed producer list (style.css: .records.windowed)
const WINDOW_FROM_ROWS = 30; // a longer list draws only the rows in view, and spacers for the rest
const OVERSCAN_ROWS = 8; // rows drawn beyond the view, each way

/**
 * view.producerTop and view.producerHeight: the list box's scroll and height
 * (a long list draws the rows there).
 */
export function renderProducer(state, view = {}) {
  const all = state.producer || [];
  const shown = all.slice(-LIST_LIMIT);
  if (!all.length) return h('p', { class: 'empty' }, t('producer.empty'));
  const base = all.length - shown.length;
  const windowed = shown.length > WINDOW_FROM_ROWS;
  let from = 0;
  let to = shown.length;
  if (windowed) {
    const top = view.producerTop || 0;
    const height = view.producerHeight || 260;
    from = Math.max(0, Math.min(shown.length, Math.floor(top / PRODUCER_ROW_PX) - OVERSCAN_ROWS));
    to = Math.max(from, Math.min(shown.length, Math.ceil((top + height) / PRODUCER_ROW_PX) + OVERSCAN_ROWS));
  }
  const spacer = (key, rows) => h('div', { class: 'records-spacer', key, 'aria-hidden': 'true', style: { height: `${rows * PRODUCER_ROW_PX}px` } });
  const lang = language();
  return h('div', null,
    all.length > shown.length ? h('p', { class: 'muted small', key: 'earlier' }, t('producer.earlier', { count: all.length - shown.length })) : null,
    windowed ? spacer('above', from) : null,
    // Each row says its number (`value`): a window that moves by a row then
    // changes that row alone, not every row's ordinal (and layout).
    h('ol', { class: windowed ? 'records windowed' : 'records', key: 'list' },
      shown.slice(from, to).map((r, i) => memoized(JSON.stringify(['produced', lang, base + from + i, r, view.recordEpochs === false, view.cluster]), () => producerRow(r, base + from + i, view))),
    ),
    windowed ? spacer('below', shown.length - to) : null,
  );
}

function producerRow(r, index, view) {
  const result = r.result;
  const cls = result === 'acked' ? 'tag-ok' : result === 'pending' || result === 'retrying' || result === 'queued' ? 'tag-warn' : result === 'sent' ? 'tag-muted' : 'tag-bad';
  return h('li', { key: index, class: 'record-row', value: index + 1 },
    h('bdi', { class: 'rec-value' }, visible(r.value)),
    // In a topic of several partitions, the partition the record went to.
    view.cluster ? h('span', { class: 'muted small', 'data-partition': r.partition }, ` p${r.partition}`) : null,
    h('span', { class: 'muted small' }, ` acks=${r.acks}${r.to ? ` → ${r.to}` : ''}`),
    has(r.offset) ? h('span', { class: 'muted small' }, view.recordEpochs === false ? ` @${r.offset}` : ` @${r.offset} e${r.epoch}`) : null,
    r.attempts > 1 ? h('span', { class: 'muted small', title: r.last_error ? t('producer.last_error', { error: visible(r.last_error) }) : null }, ` · ${t('producer.attempts', { count: r.attempts })}`) : null,
    h('span', { class: `tag ${cls}`, title: resultHelp(result), 'data-result': result }, resultLabel(result)),
  );
}

// ---------------------------------------------------------------- consumer

export function renderConsumer(state, view) {
  const p = state.partition;
  const consumer = state.consumer;
  const leader = has(p.leader) ? state.brokers.find((b) => b.id === p.leader) : null;
  const parts = [];
  if (!leader) {
    parts.push(h('p', { class: 'muted' }, t('consumer.no_leader')));
  } else if (!leader.alive) {
    // The controller still names it (its session has not expired), but it
    // serves nothing: Consume fails (`consume_failed`).
    parts.push(h('p', { class: 'muted' }, t('consumer.leader_down', { broker: leader.id })));
  } else {
    const hw = leader.high_watermark;
    const readable = leader.log.filter((r) => r.offset >= consumer.position && r.offset < hw);
    const first = consumer.position;
    parts.push(h('p', null,
      hw > first
        ? t(hw - first === 1 ? 'consumer.readable_one' : 'consumer.readable', { broker: leader.id, first, last: hw - 1, hw })
        : t('consumer.nothing_new', { broker: leader.id, position: first, hw })));
    if (readable.length) {
      parts.push(h('div', { class: 'chips' }, readable.slice(0, 40).map((r) => h('span', { class: `chip ${view && view.recordEpochs === false ? 'epoch-none' : `epoch-${r.epoch % EPOCH_COLOURS}`}`, key: r.offset, title: t('cell.offset', { offset: r.offset }) }, `${r.offset}: `, h('bdi', null, visible(r.value)))),
        readable.length > 40 ? h('span', { class: 'muted' }, ` +${readable.length - 40}`) : null));
    } else if (hw > first && view && hw > view.windowStart + view.windowCount) {
      parts.push(h('p', { class: 'muted small' }, t('consumer.scroll')));
    }
  }
  const read = consumer.read || [];
  const shown = read.slice(-LIST_LIMIT);
  parts.push(h('p', { class: 'consumer-pos' }, t('consumer.position', { position: consumer.position, count: read.length })));
  if (shown.length) {
    parts.push(h('div', { class: 'chips read' }, shown.map((r, i) => h('span', { class: 'chip', key: i, title: t('cell.offset', { offset: r.offset }) }, `${r.offset}: `, h('bdi', null, visible(r.value))))));
  }
  return parts;
}

// ---------------------------------------------------------------- network

export function renderNetwork(state) {
  const n = state.brokers.length;
  const size = 200;
  const c = size / 2;
  const radius = n === 1 ? 0 : 70;
  const pos = new Map(state.brokers.map((b, i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / n;
    return [b.id, [c + radius * Math.cos(a), c + radius * Math.sin(a)]];
  }));
  const cuts = state.links.cut;
  const cutSet = new Set(cuts.map(([a, b]) => `${a}-${b}`));
  const lines = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = state.brokers[i].id;
      const b = state.brokers[j].id;
      const ab = cutSet.has(`${a}-${b}`);
      const ba = cutSet.has(`${b}-${a}`);
      const [x1, y1] = pos.get(a);
      const [x2, y2] = pos.get(b);
      const cls = ab && ba ? 'link cut both' : ab || ba ? 'link cut one' : 'link';
      lines.push(h('line', { key: `${a}-${b}`, class: cls, x1, y1, x2, y2 }));
      if (ab || ba) {
        // A cross on the cut, nearer the receiver of a one-way cut.
        const f = ab && ba ? 0.5 : ab ? 0.7 : 0.3;
        const mx = x1 + (x2 - x1) * f;
        const my = y1 + (y2 - y1) * f;
        lines.push(h('text', { key: `x${a}-${b}`, class: 'cut-mark', x: mx, y: my + 5, 'text-anchor': 'middle' }, '✕'));
      }
    }
  }
  const nodes = state.brokers.map((b) => {
    const [x, y] = pos.get(b.id);
    const cls = ['node', `role-${b.role}`];
    if (b.isolated) cls.push('isolated');
    return h('g', { key: b.id, class: cls.join(' ') },
      h('circle', { cx: x, cy: y, r: 18 }),
      h('text', { x, y: y + 5, 'text-anchor': 'middle' }, String(b.id)));
  });
  const described = cuts.length ? cuts.map(([a, b]) => `${a} → ${b}`).join(', ') : t('network.none');
  return [
    h('svg', { class: 'netmap', viewBox: `0 0 ${size} ${size}`, role: 'img', 'aria-label': t('network.label', { count: n, cuts: described }) },
      lines, nodes),
    h('div', { class: 'cut-list' },
      cuts.length ? h('p', { class: 'muted small' }, t('network.cut_heading')) : h('p', { class: 'muted small' }, t('network.all_up')),
      cuts.map(([a, b]) => h('span', { class: 'chip', key: `${a}-${b}` }, `${a} → ${b} `,
        h('button', { type: 'button', class: 'link-button', 'data-action': 'heal-link', 'data-a': a, 'data-b': b, 'aria-label': t('network.heal_label', { a, b }) }, t('network.heal')))),
    ),
  ];
}

// Pure drawing: the core's state (and the events of the step just shown) in,
// descriptions of DOM/SVG out (see dom.js). No protocol logic: every number,
// role and verdict drawn here is a field the core reported.

import { h } from './dom.js';
import { describeStep, formatMs, messageLabel, violationHeadline, explainEvent, startingNote, unavailableReason, RESULT_HELP, ROLE_TEXT, ELR_TEXT, VERSION_TEXT } from './describe.js';

export const EPOCH_COLOURS = 8;
const LIST_LIMIT = 100; // rows of the producer and consumer lists drawn at most

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
    producer: renderProducer(state),
    consumer: renderConsumer(state, view),
    network: renderNetwork(state),
    legend: renderLegend(state),
  };
}

// ---------------------------------------------------------------- legend

export function renderLegend(state) {
  const epochs = [...new Set(state.brokers.flatMap((b) => b.log.map((r) => r.epoch)))].sort((a, b) => a - b).slice(0, 12);
  return [
    epochs.map((e) => h('span', { class: 'legend-item', key: `e${e}` }, h('span', { class: `swatch epoch-${e % EPOCH_COLOURS} committed` }), `epoch ${e}`)),
    h('span', { class: 'legend-item', key: 'c' }, h('span', { class: 'swatch neutral committed' }), 'committed (below HW)'),
    h('span', { class: 'legend-item', key: 'u' }, h('span', { class: 'swatch neutral uncommitted' }), 'not committed'),
    h('span', { class: 'legend-item', key: 'hw' }, h('span', { class: 'swatch-line hw' }), 'HW'),
    h('span', { class: 'legend-item', key: 'leo' }, h('span', { class: 'swatch-line leo' }), 'LEO'),
    h('span', { class: 'legend-item', key: 'ck' }, h('span', { class: 'swatch-line ckpt' }), 'checkpointed HW'),
    h('span', { class: 'legend-item', key: 'r' }, h('span', { class: 'remote-glyph' }, '▴'), 'leader\'s view of a follower\'s LEO'),
  ];
}

// ---------------------------------------------------------------- caption

const STEP_NOTES_MAX = 4;

export function renderCaption(state, view) {
  const where = view.position === 0 ? 'Start' : `Step ${view.position}`;
  const what = view.step ? describeStep(view.step) : 'nothing has happened yet';
  const shown = (view.stepEvents || []).length;
  const notes = (view.stepEvents || []).map(explainEvent).filter(Boolean);
  const unique = [...new Set(notes)].slice(0, STEP_NOTES_MAX);
  if (view.stepEventCount > shown) {
    unique.push(`This step caused ${view.stepEventCount.toLocaleString('en-US')} events; these notes read the last ${shown.toLocaleString('en-US')} (the event log has them all).`);
  }
  return [
    h('p', { class: 'caption-line', key: 'line' },
      h('strong', null, where),
      h('span', { class: 'muted' }, ` of ${view.length} · ${formatMs(state.time_ms)} · `),
      h('button', { type: 'button', class: 'link-button version-button', 'data-action': 'rules', 'data-testid': 'version', 'aria-haspopup': 'dialog', 'aria-label': VERSION_TEXT.buttonLabel(state.protocol), title: VERSION_TEXT.buttonLabel(state.protocol) }, VERSION_TEXT.name(state.protocol)),
      h('span', { class: 'muted' }, ' · '),
      h('span', null, what),
    ),
    unique.length
      ? h('ul', { class: 'step-notes', key: 'notes', 'aria-label': 'What this step did' }, unique.map((text, i) => h('li', { key: i }, text)))
      : null,
  ];
}

// ---------------------------------------------------------------- violations

export function renderBanner(state, view) {
  const stopped = state.stopped
    ? h('div', { class: 'banner banner-stopped', role: 'alert', key: 'stopped', 'data-testid': 'stopped' },
        h('div', { class: 'violation-head' },
          h('span', { class: 'tag tag-warn' }, 'Run stopped'),
          h('strong', { class: 'violation-title' }, 'This run went past a work budget'),
        ),
        h('p', { class: 'violation-detail' }, state.stopped),
        h('p', { class: 'violation-where muted' }, 'Go back to an earlier step to change the run; everything up to here is kept.'),
      )
    : null;
  const vs = state.violations || [];
  if (!vs.length) return stopped ? [stopped] : [];
  // Protocol violations first; then in the order they happened.
  const ordered = [...vs].sort((a, b) => Number(b.protocol_violation) - Number(a.protocol_violation) || a.step - b.step);
  const [first, ...rest] = ordered;
  return [stopped, h('div', { class: `banner ${first.protocol_violation ? 'banner-violation' : 'banner-allowed'}`, role: 'alert', key: 'violations' },
    violationItem(first, view),
    rest.length
      ? h('details', { class: 'banner-more' },
          h('summary', null, `${rest.length} more ${rest.length === 1 ? 'finding' : 'findings'}`),
          rest.map((v, i) => violationItem(v, view, i)))
      : null,
  )].filter(Boolean);
}

function violationItem(v, view, key) {
  return h('div', { class: 'violation', key: key ?? 'first', 'data-kind': v.kind },
    h('div', { class: 'violation-head' },
      h('span', { class: `tag ${v.protocol_violation ? 'tag-bad' : 'tag-warn'}` }, v.protocol_violation ? 'Protocol violation' : 'Allowed by acks=1'),
      h('strong', { class: 'violation-title' }, violationHeadline(v)),
    ),
    h('p', { class: 'violation-detail' }, v.detail),
    h('p', { class: 'violation-where' },
      h('span', { class: 'muted' }, `${v.kind} · step ${v.step} · ${formatMs(v.time_ms)} `),
      view.position !== v.step
        ? h('button', { type: 'button', class: 'link-button', 'data-action': 'goto', 'data-step': v.step, 'aria-label': `Go to step ${v.step}, where it happened` }, `Go to step ${v.step}`)
        : h('span', { class: 'muted' }, '(this step)'),
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
  const flagged = violationCells(state.violations || []);
  const gaps = violationGaps(state.violations || []);
  return h('div', { class: `cluster${view.dense ? ' dense' : ''}`, style: `--count:${count}` },
    h('div', { class: 'controller-strip' },
      h('span', { class: 'controller-label' }, 'Controller'),
      p.leader !== null && p.leader !== undefined
        ? h('span', null, 'leader ', h('strong', { 'data-testid': 'partition-leader' }, `broker ${p.leader}`))
        : h('span', { class: 'tag tag-bad', 'data-testid': 'partition-leader' }, 'offline: no leader'),
      h('span', null, 'epoch ', h('strong', { 'data-testid': 'partition-epoch' }, String(p.leader_epoch))),
      h('span', null, 'ISR ', h('strong', { 'data-testid': 'partition-isr' }, `{${p.isr.join(', ')}}`)),
      p.elr && p.elr.length
        ? h('span', { class: 'elr-summary', title: ELR_TEXT.partition }, `${ELR_TEXT.mark} `, h('strong', { 'data-testid': 'partition-elr' }, `{${p.elr.join(', ')}}`), h('span', { class: 'visually-hidden' }, `: ${ELR_TEXT.partition}`))
        : null,
      (p.leader === null || p.leader === undefined) && p.last_known_leader !== null && p.last_known_leader !== undefined
        ? h('span', { title: ELR_TEXT.lastKnownLeader }, `${ELR_TEXT.lastKnownLeaderLabel} `, h('strong', { 'data-testid': 'partition-last-known-leader' }, `broker ${p.last_known_leader}`))
        : null,
      h('span', null, 'HW ', h('strong', null, p.high_watermark === null || p.high_watermark === undefined ? '–' : String(p.high_watermark))),
    ),
    renderInFlight(state),
    h('div', { class: 'ruler-row', 'aria-hidden': 'true' },
      h('div', { class: 'broker-info ruler-info' }, h('span', { class: 'muted' }, 'offset')),
      h('div', { class: 'track ruler' }, ruler(start, count, maxLeo, view.dense)),
    ),
    state.brokers.map((b) => brokerRow(b, state, start, count, stepEvents, flagged, gaps, view.refusals)),
    h('div', { class: 'inflight-layer', 'aria-hidden': 'true' }),
    h('div', { class: 'overlay', 'aria-hidden': 'true' }),
  );
}

function renderInFlight(state) {
  const msgs = state.in_flight || [];
  if (!msgs.length) return null;
  const shown = msgs.slice(0, 12);
  return h('div', { class: 'in-flight' },
    h('span', { class: 'muted' }, `In flight (${msgs.length}):`),
    shown.map((m, i) => {
      const [from, to] = endpoints(m);
      return h('span', { class: `chip msg-${m.kind}`, key: i, title: m.line },
        `${from} → ${to} `, messageLabel(m), h('span', { class: 'muted' }, ` · at ${m.arrives_ms} ms`));
    }),
    msgs.length > shown.length ? h('span', { class: 'muted' }, `and ${msgs.length - shown.length} more`) : null,
  );
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
    if (o % every === 0) ticks.push(h('span', { class: 'tick', key: o, style: `--o:${o - start}` }, String(o)));
  }
  return ticks;
}

function violationCells(violations) {
  const set = new Set();
  for (const v of violations) {
    if (v.offset === null || v.offset === undefined) continue;
    for (const b of v.brokers || []) set.add(`${b}:${v.offset}`);
  }
  return set;
}

/** Per broker, the records that violations name at offsets where they were expected. */
function violationGaps(violations) {
  const map = new Map();
  for (const v of violations) {
    if (v.offset === null || v.offset === undefined || v.kind !== 'acked_write_lost') continue;
    for (const b of v.brokers || []) {
      if (!map.has(b)) map.set(b, []);
      map.get(b).push({ offset: v.offset, value: v.value, kind: v.kind });
    }
  }
  return map;
}

function brokerRow(b, state, start, count, stepEvents, flagged, gaps, refusals) {
  const p = state.partition;
  const classes = ['broker-row', `role-${b.role}`];
  if (!b.alive) classes.push(b.role === 'starting' ? 'is-starting' : 'is-down');
  if (b.isolated) classes.push('is-isolated');
  if (b.stale_leader) classes.push('is-stale');
  const roleText = ROLE_TEXT[b.role] || b.role;
  const starting = b.role === 'starting' ? startingNote(b.id, refusals && refusals.get(b.id), state.time_ms) : null;
  const label = `Broker ${b.id}, ${roleText}${b.in_elr ? `, ${ELR_TEXT.mark}` : ''}, epoch ${b.leader_epoch}, log end offset ${b.log_end_offset}, high watermark ${b.high_watermark}`;
  const notes = stepEvents.filter((e) => e.type === 'truncated' && e.broker === b.id);
  return h('section', { class: classes.join(' '), key: `b${b.id}`, 'data-broker': b.id, 'aria-label': label },
    h('div', { class: 'broker-info' },
      h('div', { class: 'broker-title' },
        h('span', { class: 'broker-name' }, `Broker ${b.id}`),
        h('span', { class: `role role-${b.role}`, 'data-testid': 'role' }, roleText),
        h('span', { class: 'epoch-pill', title: 'leader epoch this broker is in' }, 'epoch ', h('span', { 'data-stat': 'epoch' }, String(b.leader_epoch))),
      ),
      h('div', { class: 'badges' },
        b.in_isr ? h('span', { class: 'tag tag-ok', title: 'in the controller\'s ISR' }, 'in ISR') : h('span', { class: 'tag tag-muted', title: 'not in the controller\'s ISR' }, 'out of ISR'),
        b.in_elr
          ? h('span', { class: 'tag tag-elr', 'data-testid': 'elr', title: ELR_TEXT.broker(b.id) }, h('span', { 'aria-hidden': 'true' }, ELR_TEXT.mark), h('span', { class: 'visually-hidden' }, ELR_TEXT.broker(b.id)))
          : null,
        b.fenced ? h('span', { class: 'tag tag-bad', title: 'the controller fenced this broker (no heartbeat)' }, 'fenced') : null,
        b.isolated ? h('span', { class: 'tag tag-bad', title: 'cut off from the other brokers and the controller' }, 'isolated') : null,
        b.stale_leader
          ? h('span', { class: 'tag tag-bad', 'data-testid': 'stale-leader', title: `believes it leads epoch ${b.leader_epoch}; the controller says ${p.leader ? `broker ${p.leader}, epoch ${p.leader_epoch}` : 'no leader'}` }, 'stale leader')
          : null,
        b.fetcher_paused ? h('span', { class: 'tag tag-warn' }, 'fetcher paused') : null,
        b.latency_ms !== undefined && state.brokers.some((o) => o.latency_ms !== b.latency_ms) ? h('span', { class: 'tag tag-muted' }, `links ${b.latency_ms} ms`) : null,
      ),
      h('div', { class: 'stats' },
        stat('LEO', 'leo', b.log_end_offset, 'log end offset: the next offset to write'),
        stat('HW', 'hw', b.high_watermark, 'high watermark: records below it are committed'),
        stat('ckpt', 'ckpt', b.checkpointed_high_watermark, 'high watermark last written to the checkpoint file (used after a restart)'),
      ),
      b.stale_leader
        ? h('p', { class: 'stale-note' }, `Believes it leads epoch ${b.leader_epoch}; the controller's leader is ${p.leader ? `broker ${p.leader} (epoch ${p.leader_epoch})` : 'nobody'}.`)
        : null,
      starting ? h('p', { class: 'starting-note', 'data-testid': 'starting-note' }, starting) : null,
      b.role === 'leader' ? leaderView(b) : null,
      brokerActions(b, state),
    ),
    h('div', { class: 'track', 'data-window-start': start },
      cells(b, start, count, flagged, gaps),
      markers(b, start, count),
    ),
    notes.length
      ? h('div', { class: 'broker-notes' }, notes.map((e, i) => h('p', { class: 'truncation-note', key: i }, h('span', { class: 'scissors', 'aria-hidden': 'true' }, '✂ '), `Truncated ${e.from} → ${e.to}: ${truncationReason(e)}`)))
      : null,
  );
}

/** The reason part of a truncation event's line (after "truncated its log a -> b: "). */
export function truncationReason(e) {
  const i = e.line.indexOf(': ', e.line.indexOf('truncated its log'));
  return i >= 0 ? e.line.slice(i + 2) : e.truncation.rule;
}

function stat(label, key, value, title) {
  return h('span', { class: `stat stat-${key}`, title }, h('span', { class: 'stat-label' }, label), ' ', h('span', { class: 'stat-value', 'data-stat': key }, String(value)));
}

function leaderView(b) {
  const remote = b.remote || [];
  return h('div', { class: 'leader-view' },
    h('span', { class: 'muted' }, 'Leader\'s view: '),
    h('span', null, `ISR {${(b.isr || []).join(', ')}}`),
    remote.map((r) => h('span', { class: 'remote', key: r.id, 'data-remote': r.id },
      ` · ${r.id} at `,
      r.log_end_offset === null || r.log_end_offset === undefined ? h('span', { class: 'unknown', title: 'the leader has not heard from this follower in this epoch' }, 'LEO ?') : `LEO ${r.log_end_offset}`,
      r.fetch_held_until_ms === null || r.fetch_held_until_ms === undefined ? null
        : h('span', { class: 'held', 'data-held': r.id, title: 'this follower\'s fetch found nothing new: the leader holds it until a record arrives or replica.fetch.wait.max.ms passes, then answers' }, `, fetch held until ${formatMs(r.fetch_held_until_ms)}`),
    )),
  );
}

function brokerActions(b, state) {
  const id = b.id;
  // A starting broker's process runs (it can crash, lose power, be isolated)
  // but it serves nothing until the controller accepts its registration.
  const running = b.alive || b.role === 'starting';
  const follower = running && b.role !== 'leader';
  const btn = (action, text, label, extra = {}) => {
    const reason = unavailableReason(action, id, b.role);
    return reason
      ? h('button', { type: 'button', class: 'mini unavailable', 'data-action': action, 'data-broker': id, 'aria-disabled': 'true', 'data-reason': reason, 'aria-label': `${label} (not possible now)`, 'aria-description': reason, title: reason }, text)
      : h('button', { type: 'button', class: 'mini', 'data-action': action, 'data-broker': id, 'aria-label': label, ...extra }, text);
  };
  return h('div', { class: 'broker-actions' },
    follower ? btn('fetch', 'Fetch', `Fetch now: broker ${id} fetches from its leader`) : null,
    running ? btn('crash', 'Crash', `Crash broker ${id} (process crash, the log on disk survives)`) : btn('restart', 'Restart', `Restart broker ${id}`),
    h('details', { class: 'more', key: 'more' },
      h('summary', { class: 'mini', 'aria-label': `More actions for broker ${id}` }, 'More'),
      h('div', { class: 'menu' },
        running
          ? h('div', { class: 'menu-row' },
              h('label', null, 'lose ', h('input', { type: 'number', min: 1, max: 10000, value: 1, 'data-field': 'lose', 'data-broker': id, 'aria-label': `Unflushed records broker ${id} loses with the power`, class: 'num' }), ' record(s)'),
              btn('powerloss', 'Power loss', `Power loss on broker ${id}: the unflushed end of its log is lost`))
          : null,
        h('div', { class: 'menu-row' },
          b.isolated ? btn('heal-broker', 'Reconnect', `Reconnect broker ${id} to the others and the controller`) : btn('isolate', 'Isolate', `Isolate broker ${id} from the other brokers and the controller`)),
        follower
          ? h('div', { class: 'menu-row' },
              b.fetcher_paused ? btn('resume', 'Resume fetcher', `Resume the fetcher of broker ${id}`) : btn('pause', 'Pause fetcher', `Pause the fetcher of broker ${id}`))
          : null,
        h('div', { class: 'menu-row' },
          h('label', null, 'links ', h('input', { type: 'number', min: 0, max: 3600000, value: 400, 'data-field': 'delay', 'data-broker': id, 'aria-label': `Latency of broker ${id}'s links in ms`, class: 'num' }), ' ms'),
          btn('delay', 'Slow down', `Set the latency of broker ${id}'s links`)),
        h('div', { class: 'menu-row' }, btn('elect', 'Elect as leader', `Ask the controller to elect broker ${id}`)),
      ),
    ),
  );
}

function cells(b, start, count, flagged, missing) {
  const hw = b.high_watermark;
  const held = new Set(b.log.map((r) => r.offset));
  // A record a violation says this broker should have but does not: drawn as a crossed-out slot.
  const gaps = (missing.get(b.id) || []).filter((m) => !held.has(m.offset) && m.offset >= start && m.offset < start + count);
  return h('div', { class: 'cells' },
    gaps.map((m) => h('div', { class: 'cell missing', key: `missing${m.offset}`, style: `--o:${m.offset - start}`, title: `${m.value === null ? 'a record' : `“${m.value}”`} should be at offset ${m.offset}: ${m.kind}` },
      h('span', { class: 'cell-offset' }, String(m.offset)),
      h('span', { class: 'cell-value' }, m.value ?? '?'),
    )),
    b.log.filter((r) => r.offset < start + count).map((r) => {
      const cls = ['cell', `epoch-${r.epoch % EPOCH_COLOURS}`, r.offset < hw ? 'committed' : 'uncommitted'];
      if (flagged.has(`${b.id}:${r.offset}`)) cls.push('flagged');
      return h('div', { class: cls.join(' '), key: r.offset, style: `--o:${r.offset - start}`, title: `offset ${r.offset} · epoch ${r.epoch} · “${r.value}”${r.offset < hw ? ' · committed (below HW)' : ' · not committed'}` },
        h('span', { class: 'cell-offset' }, String(r.offset)),
        h('span', { class: 'cell-value' }, r.value),
        h('span', { class: 'cell-epoch' }, `e${r.epoch}`),
      );
    }),
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
    return h('div', { class: `marker marker-${kind}${at.edge ? ' off-window' : ''}${edge}`, key: kind, style: `--o:${at.o}`, title, 'data-marker': kind },
      h('span', { class: 'marker-label' }, label));
  };
  out.push(marker('hw', b.high_watermark, `HW ${b.high_watermark}`, 'high watermark'));
  out.push(marker('leo', b.log_end_offset, `LEO ${b.log_end_offset}`, 'log end offset'));
  if (b.checkpointed_high_watermark !== b.high_watermark) {
    out.push(marker('ckpt', b.checkpointed_high_watermark, `ckpt ${b.checkpointed_high_watermark}`, 'checkpointed high watermark'));
  }
  if (b.role === 'leader' && b.remote) {
    // One flag per offset, naming every follower the leader places there.
    const byOffset = new Map();
    for (const r of b.remote) {
      if (r.log_end_offset === null || r.log_end_offset === undefined) continue;
      if (!byOffset.has(r.log_end_offset)) byOffset.set(r.log_end_offset, []);
      byOffset.get(r.log_end_offset).push(r.id);
    }
    for (const [offset, ids] of byOffset) {
      const at = place(offset);
      out.push(h('div', { class: `marker marker-remote${at.edge ? ' off-window' : ''}`, key: `r${offset}`, style: `--o:${at.o}`, title: `the leader believes follower ${ids.join(' and ')} ${ids.length > 1 ? 'are' : 'is'} at LEO ${offset}`, 'data-remote-marker': ids.join(',') },
        h('span', { class: 'marker-label' }, `▴ ${ids.join(',')}`)));
    }
  }
  return h('div', { class: 'markers' }, out);
}

// ---------------------------------------------------------------- producer

export function renderProducer(state) {
  const all = state.producer || [];
  const shown = all.slice(-LIST_LIMIT);
  if (!all.length) return h('p', { class: 'empty' }, 'Nothing produced yet.');
  return h('div', null,
    all.length > shown.length ? h('p', { class: 'muted small' }, `${all.length - shown.length} earlier record(s) not shown`) : null,
    h('ol', { class: 'records', start: all.length - shown.length + 1 },
      shown.map((r, i) => {
        const result = r.result;
        const cls = result === 'acked' ? 'tag-ok' : result === 'pending' || result === 'retrying' ? 'tag-warn' : result === 'sent' ? 'tag-muted' : 'tag-bad';
        return h('li', { key: all.length - shown.length + i, class: 'record-row' },
          h('span', { class: 'rec-value' }, r.value),
          h('span', { class: 'muted small' }, ` acks=${r.acks}${r.to ? ` → ${r.to}` : ''}`),
          r.offset !== null && r.offset !== undefined ? h('span', { class: 'muted small' }, ` @${r.offset} e${r.epoch}`) : null,
          r.attempts > 1 ? h('span', { class: 'muted small', title: r.last_error ? `last error: ${r.last_error}` : null }, ` · ${r.attempts} attempts`) : null,
          h('span', { class: `tag ${cls}`, title: RESULT_HELP[result] || result, 'data-result': result }, result),
        );
      }),
    ),
  );
}

// ---------------------------------------------------------------- consumer

export function renderConsumer(state, view) {
  const p = state.partition;
  const consumer = state.consumer;
  const leader = p.leader !== null && p.leader !== undefined ? state.brokers.find((b) => b.id === p.leader) : null;
  const parts = [];
  if (!leader) {
    parts.push(h('p', { class: 'muted' }, 'No leader: nothing can be read.'));
  } else {
    const hw = leader.high_watermark;
    const readable = leader.log.filter((r) => r.offset >= consumer.position && r.offset < hw);
    const first = consumer.position;
    parts.push(h('p', null,
      hw > first ? `Readable now from broker ${leader.id}: ${hw - first === 1 ? `offset ${first}` : `offsets ${first}–${hw - 1}`} (below HW ${hw})` : `Nothing new to read on broker ${leader.id} (position ${first}, HW ${hw})`));
    if (readable.length) {
      parts.push(h('div', { class: 'chips' }, readable.slice(0, 40).map((r) => h('span', { class: `chip epoch-${r.epoch % EPOCH_COLOURS}`, key: r.offset, title: `offset ${r.offset}` }, `${r.offset}: `, r.value)),
        readable.length > 40 ? h('span', { class: 'muted' }, ` +${readable.length - 40}`) : null));
    } else if (hw > first && view && hw > view.windowStart + view.windowCount) {
      parts.push(h('p', { class: 'muted small' }, 'Scroll the log view to see these records.'));
    }
  }
  const read = consumer.read || [];
  const shown = read.slice(-LIST_LIMIT);
  parts.push(h('p', { class: 'consumer-pos' }, `Position ${consumer.position} · read ${read.length} record(s)`));
  if (shown.length) {
    parts.push(h('div', { class: 'chips read' }, shown.map((r, i) => h('span', { class: 'chip', key: i, title: `offset ${r.offset}` }, `${r.offset}: `, r.value))));
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
        const t = ab && ba ? 0.5 : ab ? 0.7 : 0.3;
        const mx = x1 + (x2 - x1) * t;
        const my = y1 + (y2 - y1) * t;
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
  const described = cuts.length ? cuts.map(([a, b]) => `${a} → ${b}`).join(', ') : 'none';
  return [
    h('svg', { class: 'netmap', viewBox: `0 0 ${size} ${size}`, role: 'img', 'aria-label': `Network: ${n} brokers; cut links: ${described}` },
      lines, nodes),
    h('div', { class: 'cut-list' },
      cuts.length ? h('p', { class: 'muted small' }, 'Cut (from → to):') : h('p', { class: 'muted small' }, 'All links are up.'),
      cuts.map(([a, b]) => h('span', { class: 'chip', key: `${a}-${b}` }, `${a} → ${b} `,
        h('button', { type: 'button', class: 'link-button', 'data-action': 'heal-link', 'data-a': a, 'data-b': b, 'aria-label': `Heal the link between broker ${a} and broker ${b}` }, 'heal'))),
    ),
  ];
}

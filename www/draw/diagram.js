// The space-time diagram: a pure drawing of what the core's `spaceTime`
// reports (lanes, arrows, marks, step spans). A vertical line per lane
// (producer, brokers, consumer, controller), moments downwards in the order
// they happened (not to scale: a row per moment, a slot per message sent or
// mark made there, so that a fetch round that happens at once still reads as
// request then response), each step a band carrying data-step="<n>" for the
// page to seek on click, the current step highlighted.
//
// Colours and sizes are presentation attributes, so that the same tree
// serialised on its own (export.js) looks the same; diagram.css adds the
// page's hover, dark mode and scrolling. On a narrow screen the lanes keep a
// minimum width and the diagram scrolls horizontally.

import { h } from './dom.js';
import { t } from '../words/i18n.js';
import { formatTime } from '../words/describe.js';

/** Fonts present everywhere, with CJK fallbacks for the Chinese labels. */
export const DIAGRAM_FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", sans-serif';

const GUTTER = 64; // step and time labels
const GUTTER_NARROW = 50;
export const HEADER = 40; // lane names
const LANE_MIN = 92;
const LANE_MAX = 190;
const SLOT = 22; // one message sent or one mark
const ARRIVALS = 12; // the band where messages from earlier moments arrive
const PAD = 4;
const FOOT = 28;

const KIND_COLOUR = {
  Fetch: '#0b6bb0',
  FetchResponse: '#0b6bb0',
  OffsetsForLeaderEpoch: '#7d3c98',
  OffsetsForLeaderEpochResponse: '#7d3c98',
  LeaderAndIsr: '#a04f00',
  PartitionChangeRecord: '#a04f00',
  AlterPartition: '#a04f00',
  Produce: '#117a52',
  ProduceResponse: '#117a52',
  // The KRaft quorum's election; its metadata fetches are Fetch's colour.
  Vote: '#00796b',
  VoteResponse: '#00796b',
  BeginQuorumEpoch: '#00796b',
  BeginQuorumEpochResponse: '#00796b',
  EndQuorumEpoch: '#00796b',
  EndQuorumEpochResponse: '#00796b',
};
const LOST = '#c0392b';
const MUTED = '#6b7480';
const INK = '#1d2430';

const MARK_STYLE = {
  crashed: { colour: '#c0392b', shape: 'square' },
  restarted: { colour: '#117a52', shape: 'triangle' },
  truncated: { colour: '#d35400', shape: 'diamond' },
  leader_elected: { colour: '#a04f00', shape: 'star' },
  became_leader: { colour: '#a04f00', shape: 'circle' },
  high_watermark: { colour: '#0b6bb0', shape: 'bar' },
  appended: { colour: '#4a5563', shape: 'dot' },
  isr_shrunk: { colour: '#a04f00', shape: 'dot' },
  isr_expanded: { colour: '#a04f00', shape: 'dot' },
  fenced: { colour: '#c0392b', shape: 'dot' },
  unfenced: { colour: '#117a52', shape: 'dot' },
  partition_offline: { colour: '#c0392b', shape: 'square' },
  isolated: { colour: '#c0392b', shape: 'dot' },
  isolation_healed: { colour: '#117a52', shape: 'dot' },
  controller_cut: { colour: '#c0392b', shape: 'dot' },
  controller_link_healed: { colour: '#117a52', shape: 'dot' },
  controlled_shutdown: { colour: '#4a5563', shape: 'square' },
  link_cut: { colour: '#c0392b', shape: 'dot' },
  link_healed: { colour: '#117a52', shape: 'dot' },
  consumed: { colour: '#117a52', shape: 'dot' },
  produce_failed: { colour: '#c0392b', shape: 'dot' },
  produce_retried: { colour: '#b7950b', shape: 'dot' },
  violation: { colour: '#c0392b', shape: 'square' },
};

/** A controller of the KRaft quorum's lane ("c2"): its id, else null. */
const voterOf = (lane) => (typeof lane === 'string' && /^c\d$/.test(lane) ? Number(lane.slice(1)) : null);

/** A lane's name: "broker 2", "controller", "controller 2" (a voter of the quorum)… */
export function laneName(lane) {
  if (typeof lane === 'number') return t('diagram.lane.broker', { id: lane });
  const voter = voterOf(lane);
  return voter === null ? t(`diagram.lane.${lane}`) : t('diagram.lane.voter', { id: voter });
}

/** A node's lane (a broker, a controller of the quorum) is drawn solid; the clients' and the controller role's dashed. */
const isNode = (lane) => typeof lane === 'number' || voterOf(lane) !== null;

/** A mark's short label. */
export function markLabel(m) {
  switch (m.kind) {
    case 'crashed':
      return m.lose_unflushed > 0 ? t('diagram.mark.power_loss', { count: m.lose_unflushed }) : t('diagram.mark.crashed');
    case 'truncated':
      return t('diagram.mark.truncated', { from: m.from, to: m.to });
    case 'leader_elected':
      return t('diagram.mark.leader_elected', { leader: m.leader, epoch: m.leader_epoch });
    case 'became_leader':
      return t('diagram.mark.became_leader', { epoch: m.leader_epoch });
    case 'high_watermark':
      return t('diagram.mark.high_watermark', { from: m.from, to: m.to });
    case 'appended':
      return t('diagram.mark.appended', { offset: m.offset, epoch: m.epoch });
    case 'isr_shrunk':
    case 'isr_expanded':
      return t(`diagram.mark.${m.kind}`, { isr: `[${m.isr.join(', ')}]` });
    case 'link_cut':
    case 'link_healed':
      return t(`diagram.mark.${m.kind}`, { to: m.to });
    case 'consumed':
      return m.to > m.from ? t('diagram.mark.consumed', { from: m.from, to: m.to - 1 }) : t('diagram.mark.consumed_nothing');
    case 'produce_failed':
      return m.error ? t('diagram.mark.produce_failed', { error: m.error }) : t('diagram.mark.produce_expired');
    case 'produce_retried':
      return t('diagram.mark.produce_retried', { error: m.error ?? '' });
    case 'violation':
      return t(`violation.kind.${m.violation}`);
    default:
      return t(`diagram.mark.${m.kind}`);
  }
}

/** What became of an arrow, in words. */
function fateText(a) {
  if (a.fate === 'dropped') return t('diagram.fate.dropped', { reason: t(`diagram.drop_reason.${a.drop_reason}`) });
  if (a.ignored) return t('diagram.fate.ignored');
  return t(`diagram.fate.${a.fate}`);
}

function at(step, ms) {
  return `${step}:${ms}`;
}

function within(data, step) {
  return step >= data.from_step && step <= data.to_step;
}

/**
 * Where everything goes: lane x, a row per moment (step, time), a slot per
 * item sent or marked at it. Pure: the same data and width give the same
 * layout (export.js uses it too).
 */
export function layoutDiagram(data, { width = 960 } = {}) {
  const lanes = data.lanes;
  const narrow = width < 600;
  const gutter = narrow ? GUTTER_NARROW : GUTTER;
  const laneWidth = Math.max(LANE_MIN, Math.min(LANE_MAX, Math.floor((width - gutter) / Math.max(1, lanes.length))));
  const laneX = new Map(lanes.map((l, i) => [l, gutter + laneWidth * i + laneWidth / 2]));
  const moments = new Map();
  const moment = (a) => {
    const key = at(a.step, a.time_ms);
    let m = moments.get(key);
    if (!m) moments.set(key, (m = { step: a.step, time_ms: a.time_ms, slots: [], arrivals: 0 }));
    return m;
  };
  for (const s of data.steps) moment({ step: s.step, time_ms: s.start_ms });
  for (const a of data.arrows) {
    const instant = a.received && a.received.step === a.sent.step && a.received.time_ms === a.sent.time_ms;
    if (within(data, a.sent.step)) moment(a.sent).slots.push({ order: a.order, arrow: a });
    if (a.received && !instant && within(data, a.received.step)) moment(a.received).arrivals++;
  }
  for (const m of data.marks) moment(m.at).slots.push({ order: m.order, mark: m });
  const rows = [...moments.values()].sort((x, y) => x.step - y.step || x.time_ms - y.time_ms);
  let y = HEADER + (data.arrows_left_out || data.marks_left_out ? 16 : 0);
  const top = y;
  let lastTime = null;
  let lastStep = null;
  for (const r of rows) {
    r.slots.sort((p, q) => p.order - q.order);
    // The first row of a step carries its number; a row where the clock
    // moved carries the time (below the number on a step's first row).
    r.first = r.step !== lastStep;
    r.showTime = r.time_ms !== lastTime || r.first && lastTime === null;
    r.timeY = r.first ? y + 25 : y + 12;
    r.y = y;
    r.arrivalY = y + PAD + (r.arrivals ? ARRIVALS / 2 : 0);
    r.slotTop = y + PAD + (r.arrivals ? ARRIVALS : 0);
    r.height = Math.max(SLOT + PAD, PAD * 2 + (r.arrivals ? ARRIVALS : 0) + r.slots.length * SLOT, r.first && r.showTime ? 30 : 0);
    y += r.height;
    lastTime = r.time_ms;
    lastStep = r.step;
  }
  const bottom = y;
  const byKey = new Map(rows.map((r) => [at(r.step, r.time_ms), r]));
  const span = new Map();
  for (const r of rows) {
    const sp = span.get(r.step);
    if (sp) sp.end = r.y + r.height;
    else span.set(r.step, { y: r.y, end: r.y + r.height });
  }
  const steps = data.steps.map((s) => {
    const sp = span.get(s.step);
    return { ...s, y: sp ? sp.y : bottom, height: sp ? sp.end - sp.y : 0 };
  });
  return { lanes, laneX, laneWidth, gutter, rows, byKey, steps, top, bottom, width: gutter + laneWidth * lanes.length + 8, height: bottom + FOOT };
}

function arrowHead(x1, y1, x2, y2, colour) {
  const angle = Math.atan2(y2 - y1, x2 - x1);
  const size = 6;
  const p = (a) => `${(x2 - size * Math.cos(angle + a)).toFixed(1)},${(y2 - size * Math.sin(angle + a)).toFixed(1)}`;
  return h('polygon', { points: `${x2.toFixed(1)},${y2.toFixed(1)} ${p(0.45)} ${p(-0.45)}`, fill: colour });
}

function cross(x, y, colour) {
  const d = 4;
  return h('path', { d: `M${x - d},${y - d}L${x + d},${y + d}M${x - d},${y + d}L${x + d},${y - d}`, stroke: colour, 'stroke-width': 2 });
}

function glyph(shape, x, y, colour) {
  switch (shape) {
    case 'square':
      return h('rect', { x: x - 5, y: y - 5, width: 10, height: 10, fill: colour });
    case 'triangle':
      return h('polygon', { points: `${x},${y - 6} ${x + 6},${y + 5} ${x - 6},${y + 5}`, fill: colour });
    case 'diamond':
      return h('polygon', { points: `${x},${y - 6} ${x + 6},${y} ${x},${y + 6} ${x - 6},${y}`, fill: colour });
    case 'star':
      return h('polygon', { points: `${x},${y - 7} ${x + 2},${y - 2} ${x + 7},${y - 2} ${x + 3},${y + 2} ${x + 5},${y + 7} ${x},${y + 4} ${x - 5},${y + 7} ${x - 3},${y + 2} ${x - 7},${y - 2} ${x - 2},${y - 2}`, fill: colour });
    case 'bar':
      return h('rect', { x: x - 7, y: y - 1.5, width: 14, height: 3, fill: colour });
    case 'circle':
      return h('circle', { cx: x, cy: y, r: 5, fill: '#fff', stroke: colour, 'stroke-width': 2 });
    default:
      return h('circle', { cx: x, cy: y, r: 3.5, fill: colour });
  }
}

const HALO = { stroke: '#fff', 'stroke-width': 3, 'stroke-linejoin': 'round', 'paint-order': 'stroke' };

/**
 * The diagram as an SVG vnode tree. data: what `Simulation.spaceTime` returns.
 * options: { width: the space available in px, current: the step to highlight
 * (data.position by default), layout: layoutDiagram's for that width (made
 * when not given), view: { top, bottom } in the picture's px, to draw only
 * the arrows, marks and times there (the picture keeps its full size, and
 * every step's band, so that it scrolls and seeks as a whole; none: all) }.
 */
export function renderDiagram(data, { width = 960, current = data.position, layout = null, view = null } = {}) {
  const L = layout || layoutDiagram(data, { width });
  const x = (lane) => L.laneX.get(lane);
  const shown = view ? (y1, y2 = y1) => Math.max(y1, y2) >= view.top && Math.min(y1, y2) <= view.bottom : () => true;
  const slotY = (r, i) => r.slotTop + i * SLOT + SLOT / 2;

  const bands = L.steps.map((s, i) => h('g', { class: `dg-step${s.step === current ? ' current' : ''}`, 'data-step': s.step, key: `s${s.step}` },
    h('rect', {
      class: 'dg-band', x: 0, y: s.y, width: L.width, height: Math.max(s.height, 1),
      fill: s.step === current ? '#fff1b8' : i % 2 ? '#f4f6f9' : '#ffffff',
      stroke: s.step === current ? '#d4a000' : 'none', 'stroke-width': s.step === current ? 1.5 : 0,
    }),
    h('text', { class: 'dg-step-label', x: 6, y: s.y + 13, 'font-size': 11, 'font-weight': 700, fill: s.step === current ? '#7a5200' : INK }, t('diagram.step', { n: s.step })),
    h('title', null, t('diagram.step_title', { n: s.step, from: formatTime(s.start_ms), to: formatTime(s.end_ms), count: s.events })),
  ));

  // Times in the gutter, where the clock moved within a step.
  const times = L.rows.filter((r) => r.showTime && shown(r.timeY)).map((r) => h('text', { class: 'dg-time', x: 6, y: r.timeY, 'font-size': 9.5, fill: MUTED, 'data-step': r.step }, formatTime(r.time_ms)));
  const lastLane = L.lanes[L.lanes.length - 1];

  const laneLines = L.lanes.map((lane) => h('g', { class: 'dg-lane', key: `l${lane}`, 'data-lane': lane },
    h('line', { x1: x(lane), y1: HEADER - 6, x2: x(lane), y2: L.bottom + 8, stroke: isNode(lane) ? '#8a94a3' : '#b8c0cc', 'stroke-width': isNode(lane) ? 1.5 : 1, 'stroke-dasharray': isNode(lane) ? null : '4 3' }),
    h('text', { x: x(lane), y: 16, 'text-anchor': 'middle', 'font-size': 12.5, 'font-weight': 700, fill: INK }, laneName(lane)),
  ));

  // A broker is down from its crash to its restart (within the window).
  const down = [];
  const since = new Map();
  for (const m of [...data.marks].sort((p, q) => p.order - q.order)) {
    if (m.kind === 'crashed') since.set(m.lane, m);
    if (m.kind === 'restarted' && since.has(m.lane)) {
      down.push([m.lane, since.get(m.lane), m]);
      since.delete(m.lane);
    }
  }
  for (const [lane, m] of since) down.push([lane, m, null]);
  const markY = new Map();
  for (const r of L.rows) r.slots.forEach((s, i) => { if (s.mark) markY.set(s.mark, slotY(r, i)); });
  const downBars = down.filter(([, from, to]) => shown(markY.get(from), to ? markY.get(to) : L.bottom)).map(([lane, from, to]) => h('rect', {
    class: 'dg-down', x: x(lane) - 3, y: markY.get(from), width: 6, height: Math.max(2, (to ? markY.get(to) : L.bottom) - markY.get(from)),
    fill: LOST, 'fill-opacity': 0.22,
  }));

  const arrows = [];
  const marks = [];
  for (const r of L.rows) {
    r.slots.forEach((s, i) => {
      const y = slotY(r, i);
      if (s.mark) {
        const m = s.mark;
        if (!shown(y - 8, y + 8)) return;
        const style = MARK_STYLE[m.kind] || { colour: INK, shape: 'dot' };
        const mx = x(m.lane);
        const label = markLabel(m);
        marks.push(h('g', { key: `m${m.order}`, class: `dg-mark dg-mark-${m.kind}`, 'data-step': m.at.step, 'data-kind': m.kind },
          glyph(style.shape, mx, y, style.colour),
          // On the last lane the label goes to its left, inside the picture.
          h('text', { x: m.lane === lastLane ? mx - 9 : mx + 9, y: y + 3.5, 'text-anchor': m.lane === lastLane ? 'end' : 'start', 'font-size': 10, fill: style.colour === '#4a5563' ? MUTED : style.colour, 'font-weight': m.kind === 'crashed' || m.kind === 'leader_elected' ? 700 : 400, ...HALO }, label),
          h('title', null, `${laneName(m.lane)}: ${label} (${t('diagram.step', { n: m.at.step })}, ${formatTime(m.at.time_ms)})`),
        ));
        return;
      }
      const a = s.arrow;
      const colour = a.fate === 'dropped' || a.fate === 'failed' ? LOST : KIND_COLOUR[a.kind] || INK;
      const x1 = x(a.from);
      const x2 = x(a.to);
      let y2;
      const instant = a.received && a.received.step === a.sent.step && a.received.time_ms === a.sent.time_ms;
      if (!a.received) y2 = L.bottom;
      else if (instant) y2 = y + 8;
      else if (!within(data, a.received.step)) y2 = L.bottom;
      else y2 = L.byKey.get(at(a.received.step, a.received.time_ms)).arrivalY;
      // Sent and received at once: slanted a little within its slot.
      const y1 = instant ? y - 2 : y;
      const lost = a.fate === 'dropped' || a.fate === 'discarded' || a.fate === 'failed';
      // A lost message ends short of its receiver, where it was lost.
      const end = lost ? 0.8 : 1;
      const ex = x1 + (x2 - x1) * end;
      const ey = y1 + (y2 - y1) * end;
      const dir = x2 > x1 ? 1 : -1;
      if (!shown(y1 - 14, ey + 8)) return;
      arrows.push(h('g', { key: `a${a.order}:${a.kind}:${a.from}>${a.to}`, class: `dg-arrow dg-${a.fate}${a.ignored ? ' dg-ignored' : ''}`, 'data-step': a.sent.step, 'data-kind': a.kind, 'data-fate': a.fate },
        h('line', {
          x1, y1, x2: ex, y2: ey, stroke: colour, 'stroke-width': 1.6,
          'stroke-dasharray': a.fate === 'in_flight' || a.fate === 'discarded' ? '5 4' : a.fate === 'dropped' || a.fate === 'failed' ? '3 3' : null,
          'stroke-opacity': a.ignored ? 0.5 : null,
        }),
        lost ? cross(ex, ey, a.fate === 'discarded' ? MUTED : LOST) : a.received ? arrowHead(x1, y1, ex, ey, colour) : null,
        h('text', {
          class: 'dg-arrow-label', x: x1 + dir * 6, y: y1 - 3, 'text-anchor': dir > 0 ? 'start' : 'end',
          'font-size': 10, fill: colour, ...HALO,
        }, a.kind),
        h('title', null, t('diagram.arrow_title', {
          kind: a.kind,
          from: laneName(a.from),
          to: laneName(a.to),
          sent: `${t('diagram.step', { n: a.sent.step })}, ${formatTime(a.sent.time_ms)}`,
          fate: fateText(a),
        })),
      ));
    });
  }

  const notes = [];
  const leftOut = (data.arrows_left_out || 0) + (data.marks_left_out || 0);
  if (leftOut) {
    notes.push(h('text', { class: 'dg-left-out', x: 6, y: HEADER + 10, 'font-size': 11, fill: LOST }, t('diagram.left_out', { count: leftOut, max: data.max_arrows })));
  }
  if (!data.steps.length) {
    notes.push(h('text', { class: 'dg-empty', x: L.width / 2, y: HEADER + 20, 'text-anchor': 'middle', 'font-size': 12, fill: MUTED }, t('diagram.empty')));
  }

  return h('svg', {
    class: 'diagram', xmlns: 'http://www.w3.org/2000/svg', width: L.width, height: L.height,
    viewBox: `0 0 ${L.width} ${L.height}`, role: 'img', 'aria-label': t('diagram.title'),
    'font-family': DIAGRAM_FONT, 'data-arrows': data.arrows.length,
  },
  h('rect', { class: 'dg-bg', x: 0, y: 0, width: L.width, height: L.height, fill: '#ffffff' }),
  h('g', { class: 'dg-bands' }, bands),
  h('g', { class: 'dg-times' }, times),
  h('g', { class: 'dg-lanes' }, laneLines),
  h('g', { class: 'dg-downs' }, downBars),
  h('g', { class: 'dg-arrows' }, arrows),
  h('g', { class: 'dg-marks' }, marks),
  notes,
  h('text', { class: 'dg-foot', x: 6, y: L.height - 9, 'font-size': 10, fill: MUTED }, t('diagram.foot', { from: data.from_step, to: data.to_step, arrows: data.arrows.length })),
  );
}

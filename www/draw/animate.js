// Animates what one step did, from that step's events: fetch requests and
// responses travelling between broker rows (a dropped one stops half way),
// truncations cutting records off a log, appends and HW moves flashing. It
// only replays events the core returned; it never decides anything. With
// prefers-reduced-motion the caller skips it altogether.

import { messageLabel, truncationWhy, formatTime } from '../words/describe.js';
import { inFlightTitle } from './render.js';
import { t } from '../words/i18n.js';

const running = new Set();
let generation = 0; // a step's animation waiting for its first frame starts only if nothing cancelled it meanwhile

/** Stops every animation (and one still waiting to start) and clears the overlay. */
export function cancelAnimations(cluster) {
  generation += 1;
  for (const a of running) a.cancel();
  running.clear();
  const overlay = cluster && cluster.querySelector('.overlay');
  if (overlay) overlay.replaceChildren();
}

/** Resolves once the frame drawn now is painted (or after 100 ms, in a tab that paints no frames). */
export function afterPaint() {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });
}

/**
 * Plays the events of a step over the drawn cluster; resolves when done.
 * `perMessageMs` is the time one message takes to travel. `afterFirstPaint`:
 * the animation starts once the step's new board is painted, so the step's
 * answer to a click is that paint, and measuring the rows and building the
 * envelopes come after it. The returned promise's `plannedMs` is known at once.
 */
export function animateStep(cluster, events, { perMessageMs = 600, budgetMs = Infinity, afterFirstPaint = false } = {}) {
  cancelAnimations(cluster);
  const overlay = cluster.querySelector('.overlay');
  if (!overlay || !events.length) return Promise.resolve();
  const items = thin(plan(events));
  const slots = items.filter((x) => x.type !== 'flash').length;
  // Many messages (timed mode): let them overlap rather than queue up, and
  // fit the whole step in the time budget (while playing, one clock tick).
  let per = Math.min(perMessageMs, budgetMs * 0.6);
  let stagger = slots > 4 ? per / 3 : per;
  if (slots > 1 && (slots - 1) * stagger + per > budgetMs) stagger = Math.max(0, (budgetMs - per) / (slots - 1));
  perMessageMs = per;
  const schedule = [];
  let slot = -1;
  let plannedMs = 0;
  for (const item of items) {
    if (item.type !== 'flash') slot += 1;
    const delay = Math.max(0, slot) * stagger;
    const duration = item.type === 'truncated' ? perMessageMs * 1.6 : perMessageMs;
    plannedMs = Math.max(plannedMs, delay + duration);
    schedule.push({ item, delay, duration });
  }
  const play = () => {
    // Every row's place, read at once before anything is added to the overlay
    // (a read after each added envelope would lay the page out again each time).
    const places = trackPlaces(cluster);
    const geometry = (broker) => places.get(String(broker)) || null;
    const done = schedule.map(({ item, delay, duration }) => (item.type === 'message'
      ? message(overlay, geometry, item, delay, duration)
      : item.type === 'truncated' ? truncation(overlay, geometry, item.event, delay, duration) : flash(cluster, item.selector, delay, duration)));
    return Promise.all(done).then(() => {}, () => {});
  };
  let all;
  if (afterFirstPaint) {
    const mine = generation;
    all = afterPaint().then(() => (mine === generation && cluster.isConnected ? play() : undefined));
  } else {
    all = play();
  }
  all.plannedMs = plannedMs; // how long the step's animation is to take
  return all;
}

/** At most this many things move in one step: a timed step can send thousands of messages,
 *  and animating them all would bury the page. The last ones (where the step ends) and every
 *  truncation are kept. */
const MAX_ANIMATED = 40;

function thin(items) {
  if (items.length <= MAX_ANIMATED) return items;
  const from = items.length - MAX_ANIMATED;
  return items.filter((item, i) => i >= from || item.type === 'truncated');
}

/** What to show, in event order: messages (paired with their drop, if any), truncations, flashes. */
function plan(events) {
  const items = [];
  const drops = events.filter((e) => e.type === 'dropped');
  const usedDrops = new Set();
  for (const e of events) {
    if (e.type === 'sent') {
      const drop = drops.find((d) => !usedDrops.has(d) && d.from === e.from && d.to === e.to && d.kind === e.message.kind);
      if (drop) usedDrops.add(drop);
      items.push({ type: 'message', from: e.from, to: e.to, message: e.message, dropped: drop ? t(`drop.${drop.reason}`) : null });
    } else if (e.type === 'dropped' && !usedDrops.has(e)) {
      usedDrops.add(e);
      items.push({ type: 'message', from: e.from, to: e.to, message: { kind: e.kind }, dropped: t(`drop.${e.reason}`) });
    } else if (e.type === 'truncated' && e.to < e.from) {
      items.push({ type: 'truncated', event: e });
    } else if (e.type === 'appended' || e.type === 'follower_appended') {
      const broker = e.type === 'appended' ? e.broker : e.follower;
      items.push({ type: 'flash', selector: `.broker-row[data-broker="${broker}"] [data-marker="leo"]` });
    } else if (e.type === 'high_watermark_changed') {
      items.push({ type: 'flash', selector: `.broker-row[data-broker="${e.broker}"] [data-marker="hw"]` });
    }
  }
  return items;
}

function track(animation) {
  running.add(animation);
  return animation.finished.finally(() => running.delete(animation));
}

function message(overlay, geometry, item, delay, duration) {
  const a = geometry(item.from);
  const b = geometry(item.to);
  if (!a || !b) return Promise.resolve();
  const m = item.message;
  let x = a.left + 6;
  if (m.fetch_offset !== undefined) {
    const o = m.fetch_offset - a.start;
    if (o >= 0 && o * a.cell < a.width - 20) x = a.left + o * a.cell;
  }
  const y1 = a.top + a.cellTop + a.cellH / 2;
  const y2 = b.top + b.cellTop + b.cellH / 2;
  const env = document.createElement('div');
  env.className = `envelope msg-${m.kind}${item.dropped ? ' dropped' : ''}`;
  const text = document.createElement('span');
  text.textContent = item.dropped ? `${messageLabel(m)} ✕ ${item.dropped}` : messageLabel(m);
  env.append(text);
  overlay.append(env);
  const yEnd = item.dropped ? (y1 + y2) / 2 : y2;
  const frames = [
    { transform: `translate(${x}px, ${y1}px)`, opacity: 0 },
    { transform: `translate(${x}px, ${y1 + (yEnd - y1) * 0.1}px)`, opacity: 1, offset: 0.1 },
    { transform: `translate(${x}px, ${yEnd}px)`, opacity: 1, offset: 0.85 },
    { transform: `translate(${x}px, ${yEnd}px)`, opacity: 0 },
  ];
  return track(env.animate(frames, { duration, delay, easing: 'ease-in-out', fill: 'both' })).then(() => env.remove(), () => env.remove());
}

function truncation(overlay, geometry, e, delay, duration) {
  const g = geometry(e.broker);
  if (!g) return Promise.resolve();
  const from = Math.max(e.to, g.start);
  const to = Math.min(e.from, g.start + Math.floor(g.width / g.cell));
  const ghost = document.createElement('div');
  ghost.className = 'ghost';
  const left = g.left + Math.max(0, from - g.start) * g.cell;
  ghost.style.left = `${left}px`;
  ghost.style.top = `${g.top + g.cellTop}px`;
  ghost.style.width = `${Math.max(1, to - from) * g.cell}px`;
  ghost.style.height = `${g.cellH}px`;
  const label = document.createElement('div');
  label.className = 'ghost-label';
  label.textContent = `✂ ${e.from} → ${e.to}: ${truncationWhy(e.truncation)}`;
  ghost.append(label);
  overlay.append(ghost);
  const frames = [
    { opacity: 0, transform: 'scaleY(1)' },
    { opacity: 1, offset: 0.15 },
    { opacity: 1, offset: 0.7 },
    { opacity: 0, transform: 'scaleY(0.6)' },
  ];
  return track(ghost.animate(frames, { duration, delay, fill: 'both' })).then(() => ghost.remove(), () => ghost.remove());
}

function flash(cluster, selector, delay, duration) {
  const el = cluster.querySelector(selector);
  if (!el) return Promise.resolve();
  const frames = [{ filter: 'none' }, { filter: 'drop-shadow(0 0 6px var(--accent))' }, { filter: 'none' }];
  return track(el.animate(frames, { duration: duration * 0.8, delay: delay + duration * 0.7 })).catch(() => {});
}

/** Where each broker's track is within the cluster, by broker id (one layout read for all). */
function trackPlaces(cluster) {
  const places = new Map();
  const box = cluster.getBoundingClientRect();
  const style = getComputedStyle(cluster);
  const cell = parseFloat(style.getPropertyValue('--cell-w')) || 40;
  const pad = parseFloat(style.getPropertyValue('--pad')) || 0;
  places.cell = cell;
  for (const track of cluster.querySelectorAll('.broker-row[data-broker] > .track')) {
    const r = track.getBoundingClientRect();
    const ts = getComputedStyle(track);
    const cellTop = parseFloat(ts.getPropertyValue('--cell-top')) || 0;
    const cellH = parseFloat(ts.getPropertyValue('--cell-h')) || r.height;
    const broker = track.parentElement.dataset.broker;
    places.set(broker, { left: r.left - box.left + pad, top: r.top - box.top, width: r.width, height: r.height, cellTop, cellH, cell, start: Number(track.dataset.windowStart) || 0 });
  }
  return places;
}

/**
 * Timed mode: the messages the core reports in flight, drawn as envelopes
 * resting between sender and receiver (with their arrival time), until the
 * core says they arrived. `endpoints(m)` gives [from, to]. An envelope is
 * put where it covers no label of a track (LEO, HW, checkpoint, the
 * leader's flags), no record and no other envelope: moved right past what
 * it would cover, else a little up or down (placeFree).
 */
export function drawInFlight(cluster, messages, endpoints) {
  const layer = cluster && cluster.querySelector('.inflight-layer');
  if (!layer) return;
  layer.replaceChildren();
  if (!messages.length) return;
  const places = trackPlaces(cluster);
  const rowOf = (id) => {
    const g = places.get(String(id));
    return g ? { left: g.left, mid: g.top + g.height / 2, width: g.width, start: g.start } : null;
  };
  const cell = places.cell;
  const drawn = [];
  for (const m of messages.slice(0, 24)) {
    const [from, to] = endpoints(m);
    const a = rowOf(from);
    const b = rowOf(to);
    if (!a || !b) continue;
    let x = a.left + 6;
    if (m.fetch_offset !== undefined) {
      const o = m.fetch_offset - a.start;
      if (o >= 0 && o * cell < a.width - 40) x = a.left + o * cell;
    }
    const line = document.createElement('div');
    line.className = `inflight-line msg-${m.kind}`;
    line.style.top = `${Math.min(a.mid, b.mid)}px`;
    line.style.height = `${Math.abs(b.mid - a.mid)}px`;
    const env = document.createElement('div');
    env.className = `envelope resting msg-${m.kind}`;
    env.textContent = `${from}→${to} ${messageLabel(m)} · ${formatTime(m.arrives_ms)}`;
    env.title = `${inFlightTitle(m)}, ${t('cluster.arrives', { time: formatTime(m.arrives_ms) })}`;
    layer.append(line, env);
    drawn.push({ line, env, x, y: (a.mid + b.mid) / 2, right: Math.max(a.left + a.width, b.left + b.width) });
  }
  // One layout read for every envelope's size and every label's and record's box.
  const box = cluster.getBoundingClientRect();
  const taken = [...cluster.querySelectorAll('.broker-row .marker-label, .broker-row .cell')].map((el) => el.getBoundingClientRect())
    .filter((r) => r.width > 0 && r.height > 0)
    .map((r) => ({ left: r.left - box.left, right: r.right - box.left, top: r.top - box.top, bottom: r.bottom - box.top }));
  const sizes = drawn.map((d) => [d.env.offsetWidth, d.env.offsetHeight]);
  drawn.forEach((d, i) => {
    const [w, hgt] = sizes[i];
    const at = placeFree(d.x, d.y, w, hgt, d.right, taken);
    taken.push({ left: at.x - 2, right: at.x + w + 2, top: at.y - hgt / 2 - 2, bottom: at.y + hgt / 2 + 2 });
    d.line.style.left = `${at.x}px`;
    d.env.style.transform = `translate(${at.x}px, ${at.y}px)`;
  });
}

const LABEL_GAP_PX = 3; // between an envelope and a label it was moved past

/**
 * Where a box of w×h centred vertically on y, its left at x or right of it
 * (up to `right`), covers none of the `taken` boxes: the first free place at
 * y, then a step up, a step down, two steps… A box with no free place stays
 * where it was asked.
 */
export function placeFree(x, y, w, h, right, taken) {
  const step = h + 2;
  for (const dy of [0, -step, step, -2 * step, 2 * step]) {
    const top = y + dy - h / 2;
    const bottom = top + h;
    let left = x;
    for (let guard = 0; guard <= taken.length; guard++) {
      const hit = taken.find((r) => left < r.right && r.left < left + w && top < r.bottom && r.top < bottom);
      if (!hit) return { x: left, y: y + dy };
      left = hit.right + LABEL_GAP_PX;
      if (left + w > right) break;
    }
  }
  return { x, y };
}

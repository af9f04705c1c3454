// Tours: narrated lessons. A tour (www/tours/<id>.json) is one or more parts,
// each a scenario with stops; a stop shows the timeline at a position with a
// caption, and a "do" stop waits for the learner to take the step that leads
// there. The words are in the locale tables (`tours.<id>.*`); the facts each
// caption states are checked against the core by tests/tours.rs. The URL
// carries the tour and its stop (`?tour=<id>&step=<n>`, n from 1).

import { h, patch } from '../draw/dom.js';
import { t, loadBundle, has } from '../words/i18n.js';
import { excerpt } from '../words/user-text.js';
import { describeStep, formatMs } from '../words/describe.js';

let index = null; // Promise<string[]>
const cache = new Map(); // id -> Promise<tour>

/** The tours' ids in teaching order (and their words, `tours.*`, loaded with them). */
export function tourIds() {
  if (!index) {
    index = Promise.all([
      fetch(new URL('../tours/index.json', import.meta.url)).then(async (response) => {
        if (!response.ok) throw new Error(`tours/index.json: ${response.status}`);
        return (await response.json()).tours;
      }),
      loadBundle('tours'),
    ]).then(([ids]) => ids);
    index.catch(() => { index = null; });
  }
  return index;
}

/** One tour's data (throws a message naming the tour when it does not exist); fetched once. */
export async function loadTour(id) {
  const ids = await tourIds();
  if (!ids.includes(id)) throw new Error(t('tour.unknown', { id: excerpt(id, 40) }));
  if (!cache.has(id)) {
    const p = fetch(new URL(`../tours/${id}.json`, import.meta.url)).then(async (response) => {
      if (!response.ok) throw new Error(`tours/${id}.json: ${response.status}`);
      return response.json();
    });
    p.catch(() => cache.delete(id));
    cache.set(id, p);
  }
  return cache.get(id);
}

/**
 * A step as a comparable text, with the defaults the core fills in (a
 * produce's acks is all, a crash loses no unflushed record).
 */
export function stepKey(step) {
  if (step && step.produce) {
    const p = { value: step.produce.value, acks: String(step.produce.acks ?? 'all') };
    if (step.produce.to !== undefined && step.produce.to !== null) p.to = step.produce.to;
    return JSON.stringify({ produce: p });
  }
  if (step && step.crash) return JSON.stringify({ crash: { broker: step.crash.broker, lose_unflushed: step.crash.lose_unflushed ?? 0 } });
  return JSON.stringify(step);
}

/** Every stop of a tour in order, with its part: [{ part, stop }]. */
function flatStops(tour) {
  return tour.parts.flatMap((part, p) => part.stops.map((stop) => ({ part: p, stop })));
}

/**
 * A "do" stop's step as the learner takes it: the words of the step (from the
 * step itself, so they say what pressing the control does) and the label of
 * the control that takes it, the same as the board's own (Produce, Fetch,
 * Crash, +10 s lag…). `config` is the run's effective configuration.
 */
export function taskControl(step, config = {}) {
  const [kind] = Object.keys(step || {});
  const v = step ? step[kind] : null;
  const action = (key, broker) => t(`action.${key}`, { broker });
  let label;
  switch (kind) {
    case 'produce': label = t('producer.produce'); break;
    case 'consume': label = t('consumer.consume'); break;
    case 'fetch': case 'restart': case 'pause': case 'resume': case 'isolate': label = action(kind, v); break;
    case 'crash': label = v.lose_unflushed ? action('power_loss', v.broker) : action('crash', v.broker); break;
    case 'elect': label = t('toolbar.elect'); break;
    case 'advance_ms':
      label = v === config.replica_lag_time_max_ms ? t('toolbar.lag', { time: formatMs(v) })
        : v === config.broker_session_timeout_ms ? t('toolbar.session', { time: formatMs(v) })
          : t('tour.advance', { time: formatMs(v) });
      break;
    default: label = t('tour.do_it');
  }
  return { text: t('tour.your_step', { step: describeStep(step) }), label };
}

/**
 * The tour being taken. `api` is the page's side: { loadScenario(scenario, at),
 * seek(position, opts), playing(), position(), steps(), config(), stopChanged(tour), redrawn() };
 * `next` is the tour after this one in teaching order (or null).
 */
export class TourPlayer {
  constructor(tour, api, host, { next = null } = {}) {
    this.tour = tour;
    this.api = api;
    this.host = host;
    this.nextTour = next;
    this.stops = flatStops(tour);
    this.index = 0;
    this.part = -1;
    this.moving = false;
    this.showAll = false; // lesson mode shows only what the stop needs; "Show all controls" the rest
  }

  get id() {
    return this.tour.id;
  }

  get current() {
    return this.stops[this.index];
  }

  /** Goes to stop `i` (0-based): loads its part if needed and shows the position it starts from. */
  go(i, { animate = false } = {}) {
    const target = Math.max(0, Math.min(i, this.stops.length - 1));
    const { part, stop } = this.stops[target];
    const forward = target === this.index + 1 && part === this.part;
    this.index = target;
    const from = stop.do ? stop.at - 1 : stop.at;
    this.moving = true; // the positions on the way belong to this stop
    try {
      if (part !== this.part) {
        this.part = part;
        this.api.loadScenario(this.tour.parts[part].scenario, from);
      } else if (forward && animate && this.api.position() < from) {
        // The board is at the stop at once, its last step animated: the caption
        // never describes a board still on its way there.
        if (this.api.position() < from - 1) this.api.seek(from - 1);
        this.api.seek(from, { animate: true });
      } else {
        this.api.seek(from);
      }
    } finally {
      this.moving = false;
    }
    this.api.stopChanged(this);
    this.redraw();
  }

  next() {
    const { stop } = this.current;
    // At a "do" stop not yet done: take the step for the learner.
    if (stop.do && this.api.position() === stop.at - 1 && this.onTrack()) {
      this.api.seek(stop.at, { animate: true });
      this.redraw();
      return;
    }
    if (this.index < this.stops.length - 1) this.go(this.index + 1, { animate: true });
  }

  back() {
    const { stop } = this.current;
    if (stop.do && this.api.position() === stop.at && this.onTrack()) {
      this.api.seek(stop.at - 1);
      this.redraw();
      return;
    }
    if (this.index > 0) {
      const i = this.index - 1;
      const prev = this.stops[i];
      this.index = i;
      if (prev.part !== this.part) {
        this.part = prev.part;
        this.api.loadScenario(this.tour.parts[prev.part].scenario, prev.stop.at);
      } else {
        this.api.seek(prev.stop.at);
      }
      this.api.stopChanged(this);
      this.redraw();
    }
  }

  /** Back to the current stop's part as written, after the learner changed the run. */
  resume() {
    this.part = -1;
    this.go(this.index);
  }

  /** Is the page's run still this part's scenario (the learner may have done something else)? */
  onTrack() {
    const steps = this.api.steps();
    const written = this.tour.parts[this.part].scenario.steps;
    if (steps.length !== written.length) return false;
    return steps.every((s, i) => stepKey(s) === stepKey(written[i]));
  }

  /** The step the learner is asked to take now, or null. */
  expectedStep() {
    const { stop } = this.current;
    if (!stop.do || this.api.position() !== stop.at - 1) return null;
    return this.tour.parts[this.part].scenario.steps[stop.at - 1];
  }

  /** Is this the last stop, reached (its step taken)? Then the tour is done. */
  finished() {
    const { stop } = this.current;
    return this.index === this.stops.length - 1 && this.api.position() === stop.at && this.onTrack();
  }

  /** Where Play pauses: the current stop's position, or the next stop's. */
  playLimit() {
    const { stop } = this.current;
    const position = this.api.position();
    if (position < stop.at) return stop.do ? stop.at - 1 : stop.at;
    const next = this.stops[this.index + 1];
    if (!next || next.part !== this.part) return null;
    return next.stop.do ? next.stop.at - 1 : next.stop.at;
  }

  /** The position moved (Play, a step, the slider): the stop follows it. */
  positionChanged() {
    const position = this.api.position();
    const { part, stop } = this.current;
    // The current stop keeps the positions it covers (a "do" stop: before and
    // after its step), and those on the way to it while Play takes the run there.
    const from = stop.do ? stop.at - 1 : stop.at;
    if (this.moving || (from <= position && position <= stop.at) || (this.api.playing() && position < from)) {
      this.redraw();
      return;
    }
    // Else the furthest stop of this part at or before the position.
    let best = -1;
    this.stops.forEach((s, i) => {
      if (s.part === part && (s.stop.do ? s.stop.at - 1 : s.stop.at) <= position) best = i;
    });
    if (best >= 0 && best !== this.index) {
      this.index = best;
      this.api.stopChanged(this);
    }
    this.redraw();
  }

  redraw() {
    patch(this.host, this.render());
    this.host.hidden = false;
    if (this.api.redrawn) this.api.redrawn();
  }

  render() {
    const id = this.tour.id;
    const { stop } = this.current;
    const position = this.api.position();
    const waiting = stop.do && position === stop.at - 1;
    const onTrack = this.onTrack();
    const text = (key) => t(`tours.${id}.${key}`);
    const last = this.index === this.stops.length - 1;
    // A "do" stop: the step's own words and its control, here beside the caption (the board's stays where it is).
    const task = waiting && onTrack ? taskControl(this.expectedStep(), this.api.config()) : null;
    const own = task && has(`tours.${id}.tasks.${stop.key}`) ? text(`tasks.${stop.key}`) : null;
    const done = last && !waiting && onTrack;
    return [
      h('div', { class: 'tour-head', key: 'head' },
        h('span', { class: 'tour-tag' }, t('tour.tag')),
        h('strong', { class: 'tour-title' }, text('title')),
        h('span', { class: 'muted tour-count', 'data-testid': 'tour-count' }, t('tour.count', { n: this.index + 1, total: this.stops.length })),
        h('button', { type: 'button', class: 'link-button tour-all', 'data-tour': 'all', 'aria-pressed': String(this.showAll) },
          t(this.showAll ? 'tour.fewer_controls' : 'tour.all_controls')),
        h('button', { type: 'button', class: 'close', 'data-tour': 'close', 'aria-label': t('tour.close') }, '✕'),
      ),
      !onTrack
        ? h('p', { class: 'tour-off', key: 'off', role: 'status' }, t('tour.off_track'), ' ',
            h('button', { type: 'button', class: 'link-button', 'data-tour': 'resume' }, t('tour.resume')))
        : null,
      h('p', { class: 'tour-caption', key: 'caption', 'data-testid': 'tour-caption', 'data-stop': stop.key, 'aria-live': 'polite' },
        task ? [own ? `${own} ` : '', h('span', { class: 'tour-task', 'data-testid': 'tour-task' }, task.text)] : text(`stops.${stop.key}`)),
      h('div', { class: 'tour-buttons', key: 'buttons' },
        h('button', { type: 'button', 'data-tour': 'back', disabled: this.index === 0 && !(stop.do && position === stop.at) }, t('tour.back')),
        task
          ? h('button', { type: 'button', class: 'primary task-do', 'data-tour': 'do', 'data-testid': 'task-control' }, task.label)
          : last
            ? h('button', { type: 'button', class: 'primary', 'data-tour': 'close' }, t('tour.finish'))
            : h('button', { type: 'button', class: 'primary', 'data-tour': 'next' }, t('tour.next')),
        done && this.nextTour
          ? h('button', { type: 'button', 'data-tour': 'next-tour', 'data-next': this.nextTour, 'data-testid': 'next-tour' },
              t('tour.next_tour'), h('span', { class: 'next-title' }, t('tour.next_title', { title: t(`tours.${this.nextTour}.title`) })))
          : null,
      ),
    ];
  }
}

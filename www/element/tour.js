// Tours: narrated lessons. A tour is one or more parts, each a scenario with
// stops; a stop shows the timeline at a position with a caption, a "do" stop
// waits for the learner to take the step that leads there, and a "predict"
// stop asks the learner to choose a value before the board moves there. A
// built-in tour (www/tours/<id>.json) has its words in the locale tables
// (`tours.<id>.*`); a docs author's tour file (`"highwater_tour": 1`,
// docs/tours.md) has them inline, one entry per language tag. The facts each
// caption states are checked by the model: tests/tours.rs for the built-in
// tours, tour-check.js (the same check, in a worker) when a file loads. The
// URL carries the tour and its stop (`?tour=<id>&step=<n>`, n from 1).

import { h, patch } from '../draw/dom.js';
import { t, loadBundle, has, language } from '../words/i18n.js';
import { excerpt, visible } from '../words/user-text.js';
import { describeStep, formatMs } from '../words/describe.js';
import { describePath, formatValue } from '../words/predict-text.js';

import { tourFingerprint } from './tour-fingerprint.js';

let file = null; // Promise<tours/index.json>
let index = null; // Promise<string[]>
const cache = new Map(); // id -> Promise<tour>

/** tours/index.json, fetched once. */
function indexFile() {
  if (!file) {
    file = fetch(new URL('../tours/index.json', import.meta.url)).then(async (response) => {
      if (!response.ok) throw new Error(`tours/index.json: ${response.status}`);
      return response.json();
    });
    file.catch(() => { file = null; });
  }
  return file;
}

/** The tours' ids in teaching order (and their words, `tours.*`, loaded with them). */
export function tourIds() {
  if (!index) {
    index = Promise.all([indexFile().then((f) => f.tours), loadBundle('tours')]).then(([ids]) => ids);
    index.catch(() => { index = null; });
  }
  return index;
}

/** The tours whose runs have a controller quorum (the index's `quorum`): the page loads the core with it for them. */
export function quorumTours() {
  return indexFile().then((f) => (Array.isArray(f.quorum) ? f.quorum : []));
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
 * What the model says of built-in tour `id` (its questions' answers and
 * choices, and its findings), as the build computed it
 * (www/tour-answers/<id>.json, scripts/tour-answers.mjs): a few hundred
 * bytes instead of the workers' core. Rejects when there is no such file, or
 * it was made from another version of the tour (its fingerprint differs
 * from `data`'s): the page then checks the tour in a worker.
 */
export async function tourAnswers(id, data) {
  const response = await fetch(new URL(`../tour-answers/${id}.json`, import.meta.url));
  if (!response.ok) throw new Error(`tour-answers/${id}.json: ${response.status}`);
  const file = await response.json();
  if (!file || file.highwater_tour_answers !== 1 || file.tour !== id) throw new Error(`tour-answers/${id}.json: not this tour's answers`);
  if (file.fingerprint !== tourFingerprint(data)) throw new Error(`tour-answers/${id}.json: made from another version of the tour`);
  return file.checked;
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
    case 'isolate':
      label = typeof v === 'object' && v !== null
        ? (v.controller !== undefined ? t('quorum.action.isolate') : t('action.isolate_rack', { rack: v.rack }))
        : action(kind, v);
      break;
    case 'restart':
      label = typeof v === 'object' && v !== null && v.controller !== undefined ? t('quorum.action.restart') : action(kind, typeof v === 'object' && v !== null ? v.broker : v);
      break;
    case 'fetch': case 'pause': case 'resume': label = action(kind, typeof v === 'object' && v !== null ? v.broker : v); break;
    case 'crash':
      label = v.controller !== undefined ? t('quorum.action.crash')
        : v.rack !== undefined ? t('action.crash_rack', { rack: v.rack }) : v.lose_unflushed ? action('power_loss', v.broker) : action('crash', v.broker);
      break;
    case 'elect': label = t('toolbar.elect'); break;
    case 'elect_preferred': label = t('toolbar.elect_preferred'); break;
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
 * A tour's words. A built-in tour's are in the locale tables; a tour file's
 * are in the file, one entry per language tag: the page's language when the
 * file has it, else the same language in its other script (zh-Hans for a
 * zh-Hant reader and back), else English, else the first the file gives (its `lang` is then set on the
 * words, so that they are drawn in their own script).
 */
export function tourWords(tour) {
  if (!tour.highwater_tour) {
    const key = (k) => `tours.${tour.id}.${k}`;
    return {
      title: () => ({ text: t(key('title')) }),
      summary: () => ({ text: t(key('summary')) }),
      caption: (stop) => ({ text: t(key(`stops.${stop.key}`)) }),
      task: (stop) => (has(key(`tasks.${stop.key}`)) ? { text: t(key(`tasks.${stop.key}`)) } : null),
    };
  }
  return {
    title: () => pick(tour.title),
    summary: () => pick(tour.summary),
    caption: (stop) => pick(stop.caption),
    task: (stop) => (stop.task && Object.keys(stop.task).length ? pick(stop.task) : null),
  };
}

/**
 * The entry of `words` ({ tag: text }) for the page's language, or the first
 * given: an author's text, so through the page's one function for a user's
 * text (`visible`: a bidi override, a control or a zero-width character is
 * shown written out, never applied).
 */
export function pick(words, lang = language()) {
  if (!words || typeof words !== 'object') return { text: '' };
  if (Object.hasOwn(words, lang)) return { text: visible(words[lang]) };
  // Another script of the same language before English, English before the rest.
  for (const tag of [...(NEAREST[lang] || []), 'en']) {
    if (Object.hasOwn(words, tag)) return { text: visible(words[tag]), lang: tag };
  }
  const [first] = Object.keys(words);
  return first === undefined ? { text: '' } : { text: visible(words[first]), lang: first };
}

/** The tags a reader of a language reads next best: Chinese in its other script. */
const NEAREST = { 'zh-Hant': ['zh-Hans'], 'zh-Hans': ['zh-Hant'] };

/** Words as a node's children: the text, in a span of its own language when it is not the page's. */
function said(words) {
  return words.lang ? h('span', { lang: words.lang }, words.text) : words.text;
}

/**
 * The tour being taken. `api` is the page's side: { buildRun(scenario) (a
 * Simulation, or a promise of one: null when stopped), showRun(sim, at),
 * failed(err), seek(position, opts), timeline() (a number that changes with the run's steps), playing(), position(), steps(), config(), stopChanged(tour),
 * redrawn(), answered(detail) }; `next` is the tour after this one in teaching
 * order (or null). `checked` is what the model said of the tour, when it was
 * asked: { findings, predictions } (tour-check.js); until then a prediction
 * stop waits for its choices, and without it (the check could not run) it is
 * a plain stop.
 */
export class TourPlayer {
  constructor(tour, api, host, { next = null, origin = null } = {}) {
    this.tour = tour;
    this.api = api;
    this.host = host;
    this.nextTour = next;
    this.origin = origin; // where a tour file came from: { src } or { link }; null for a built-in tour
    this.words = tourWords(tour);
    this.stops = flatStops(tour);
    this.index = 0;
    this.part = -1;
    this.entering = null; // while another part's run is being computed (enterPart)
    this.ended = false;
    this.moving = false;
    this.showAll = false; // lesson mode shows only what the stop needs; "Show all controls" the rest
    this.findings = [];
    this.predictions = new Map(); // stop key -> { path, answer, choices }
    this.checking = this.stops.some(({ stop }) => stop.predict) ? 'pending' : 'none'; // 'pending', 'done', 'failed', 'none'
    this.answers = new Map(); // stop key -> the value the learner chose
  }

  get id() {
    return this.tour.id;
  }

  /**
   * The host a tour file came from when it is not the page's own origin
   * (`tour-src` on another server): its title is then always shown with it,
   * and never becomes the page's title on its own. Null otherwise.
   */
  get foreignOrigin() {
    const src = this.origin && this.origin.src;
    if (src === undefined || src === null) return null;
    try {
      const url = new URL(src, document.baseURI);
      return url.origin === location.origin ? null : url.host;
    } catch {
      return null;
    }
  }

  /** The title as the page's heading and the document's title show it: labelled with a foreign origin. */
  labelledTitle() {
    const title = this.title().text;
    const host = this.foreignOrigin;
    return host ? t('tour.foreign_title', { title, origin: visible(host) }) : title;
  }

  /**
   * The broker details the tour states facts of, beyond LEO and HW:
   * 'ckpt' (the checkpointed HW), 'epoch-cache', 'leader-view'. Lesson mode
   * shows only these on the board (the rest: "Show all controls").
   */
  details() {
    const found = new Set();
    for (const part of this.tour.parts || []) {
      for (const stop of part.stops || []) {
        const facts = stop.facts || {};
        if (facts.leader_view) found.add('leader-view');
        for (const b of Object.values(facts.brokers || {})) {
          if (!b || typeof b !== 'object') continue;
          if ('checkpointed_high_watermark' in b) found.add('ckpt');
          if ('epoch_cache' in b) found.add('epoch-cache');
        }
      }
    }
    return [...found];
  }

  /** A tour file (not one of the built-in tours). */
  get file() {
    return Boolean(this.tour.highwater_tour);
  }

  get current() {
    return this.stops[this.index];
  }

  title() {
    return this.words.title();
  }

  /** The model's word on the tour: its findings, and each prediction's answer and choices. */
  checked({ findings = [], predictions = [] } = {}) {
    this.findings = findings;
    this.predictions = new Map(predictions.map((p) => [p.stop, p]));
    this.checking = 'done';
    if (this.part < 0) return; // not shown yet: go() draws it
    // A prediction stop shown while its choices were on their way now asks (the board one step before).
    const { stop } = this.current;
    if (this.asks(stop) && this.api.position() === stop.at && this.onTrack() && !this.moving) this.api.seek(stop.at - 1);
    this.redraw();
  }

  /** The check could not run: the prediction stops are plain stops. */
  uncheckable() {
    this.checking = 'failed';
    if (this.part < 0) return;
    // A question shown one step early becomes a plain stop: the board goes to the position its caption describes.
    const { stop } = this.current;
    if (stop.predict && !stop.do && stop.at > 0 && this.api.position() === stop.at - 1 && this.onTrack()) this.api.seek(stop.at);
    this.redraw();
  }

  /** Does this stop (still) ask the learner to predict? */
  asks(stop) {
    return Boolean(stop.predict) && stop.at > 0 && !this.answers.has(stop.key) && this.checking !== 'failed' && this.checking !== 'none'
      && (this.checking === 'pending' || this.predictions.has(stop.key));
  }

  /** The position a stop opens at: a "do" stop and a question before their step, any other at its own. */
  from(stop) {
    return stop.do || this.asks(stop) ? stop.at - 1 : stop.at;
  }

  /** Goes to stop `i` (0-based): loads its part if needed and shows the position it starts from. */
  go(i, { animate = false } = {}) {
    const target = Math.max(0, Math.min(i, this.stops.length - 1));
    const { part, stop } = this.stops[target];
    const from = this.from(stop);
    if (part !== this.part) {
      this.enterPart(target, from);
      return;
    }
    const forward = target === this.index + 1;
    this.index = target;
    this.entering = null; // a part still being computed gives way
    this.moving = true; // the positions on the way belong to this stop
    try {
      if (forward && animate && this.api.position() < from) {
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

  /** Is a question open: asked, the board one step before its stop? */
  asking() {
    const { stop } = this.current;
    return this.asks(stop) && this.waiting();
  }

  /** Is the board one step before the current stop, on track: its step (or its answer) still to come? */
  waiting() {
    const { stop } = this.current;
    return stop.at > 0 && this.api.position() === stop.at - 1 && (stop.do || this.asks(stop)) && this.onTrack();
  }

  next() {
    const { stop } = this.current;
    // At a "do" stop not yet done, or a question not answered: take the step for the learner (the answer is shown).
    if (this.waiting()) {
      this.reveal(stop);
      this.redraw();
      return;
    }
    if (this.index < this.stops.length - 1) this.go(this.index + 1, { animate: true });
  }

  /** The learner's choice at a prediction stop: the board moves there (or, at a "do" stop, waits for the step). */
  choose(value) {
    const { stop } = this.current;
    const prediction = this.predictions.get(stop.key);
    if (!prediction || !this.asks(stop) || !this.waiting()) return;
    this.answers.set(stop.key, value);
    const correct = same(value, prediction.answer);
    if (this.api.answered) this.api.answered({ tour: this.id, stop: stop.key, path: prediction.path, chosen: value, answer: prediction.answer, correct });
    if (!stop.do) this.reveal(stop);
    this.redraw();
  }

  /** The board moves to the stop's own position, its step animated (the positions on the way belong to this stop). */
  reveal(stop) {
    this.moving = true;
    try {
      this.api.seek(stop.at, { animate: true });
    } finally {
      this.moving = false;
    }
  }

  back() {
    const { stop } = this.current;
    if ((stop.do || stop.predict) && stop.at > 0 && this.api.position() === stop.at && this.onTrack() && (stop.do || this.answers.has(stop.key))) {
      // Back to before the step: a question is asked again.
      this.answers.delete(stop.key);
      this.api.seek(stop.at - 1);
      this.redraw();
      return;
    }
    if (this.index > 0) {
      const i = this.index - 1;
      const prev = this.stops[i];
      if (prev.part !== this.part) {
        this.enterPart(i, prev.stop.at);
        return;
      }
      this.index = i;
      this.entering = null;
      this.api.seek(prev.stop.at);
      this.api.stopChanged(this);
      this.redraw();
    }
  }

  /**
   * Shows stop `target` of another part, the board at `at`: its run at once
   * when it is quick to compute, else once the page has computed it (in
   * slices, with its progress and Stop). Until then the tour stays at the
   * stop it was at, its board and caption together; stopped, it stays there.
   */
  enterPart(target, at) {
    const { part } = this.stops[target];
    const ticket = {};
    this.entering = ticket;
    const arrive = (sim) => {
      if (this.entering !== ticket || this.ended) {
        if (sim) sim.free();
        return;
      }
      this.entering = null;
      if (!sim) return; // stopped, or overtaken by another run
      this.index = target;
      this.part = part;
      this.moving = true; // the positions on the way belong to this stop
      try {
        this.api.showRun(sim, at);
      } finally {
        this.moving = false;
      }
      this.api.stopChanged(this);
      this.redraw();
    };
    const built = this.api.buildRun(this.tour.parts[part].scenario);
    if (built && typeof built.then === 'function') {
      built.then(arrive, (err) => {
        if (this.entering !== ticket || this.ended) return;
        this.entering = null;
        this.api.failed(err);
      });
    } else {
      arrive(built);
    }
  }

  /** The tour is closed: a part still being computed is not shown. */
  end() {
    this.ended = true;
    this.entering = null;
  }

  /** Back to the current stop's part as written, after the learner changed the run. */
  resume() {
    this.part = -1;
    this.go(this.index);
  }

  /** Is the page's run still this part's scenario (the learner may have done something else)? */
  onTrack() {
    // Asked several times a draw: on a run of thousands of steps the answer
    // is kept until the timeline changes (a step taken, another run).
    const version = this.api.timeline();
    if (this.track && this.track.part === this.part && this.track.version === version) return this.track.on;
    const steps = this.api.steps();
    const written = this.tour.parts[this.part].scenario.steps;
    const on = steps.length === written.length && steps.every((s, i) => stepKey(s) === stepKey(written[i]));
    this.track = { part: this.part, version, on };
    return on;
  }

  /** The step the learner is asked to take now, or null (a question comes first). */
  expectedStep() {
    const { stop } = this.current;
    if (!stop.do || this.asks(stop) || this.api.position() !== stop.at - 1) return null;
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
    if (position < stop.at) return this.from(stop);
    const next = this.stops[this.index + 1];
    if (!next || next.part !== this.part) return null;
    return this.from(next.stop);
  }

  /** The position moved (Play, a step, the slider): the stop follows it. */
  positionChanged() {
    const position = this.api.position();
    const { part, stop } = this.current;
    // The current stop keeps the positions it covers (a "do" stop or a
    // question: before and after its step), and those on the way to it while
    // Play takes the run there.
    const from = stop.do || stop.predict ? Math.max(0, stop.at - 1) : stop.at;
    if (this.moving || (from <= position && position <= stop.at) || (this.api.playing() && position < from)) {
      this.redraw();
      return;
    }
    // Else the furthest stop of this part at or before the position.
    let best = -1;
    this.stops.forEach((s, i) => {
      if (s.part === part && this.from(s.stop) <= position) best = i;
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

  /** The findings of the model at this stop, for the tour's author: a fact it does not bear out, a stop that cannot be. */
  stopFindings(stop) {
    return this.findings.filter((f) => f.stop === stop.key);
  }

  /** The question of a prediction stop and its choices: asked, or answered (the model's marked). */
  renderQuestion(stop, waiting) {
    const prediction = this.predictions.get(stop.key);
    const path = stop.predict;
    if (!prediction) {
      // The choices are on their way from the model.
      return h('div', { class: 'tour-predict', key: 'question', 'aria-live': 'polite' },
        h('p', { class: 'tour-question' }, t('tour.predict', { what: describePath(path) })),
        h('p', { class: 'muted tour-waiting' }, t('tour.predict_waiting')));
    }
    const chosen = this.answers.has(stop.key) ? this.answers.get(stop.key) : undefined;
    const open = waiting && chosen === undefined;
    const revealed = !open && this.api.position() === stop.at;
    const right = chosen !== undefined && same(chosen, prediction.answer);
    // Asked: the choices are buttons. Answered: the same values as a list, the model's marked (and the learner's).
    const choices = open
      ? h('div', { class: 'tour-choices', role: 'group', 'aria-labelledby': 'tour-question', 'data-testid': 'tour-choices' },
          prediction.choices.map((value) => h('button', {
            type: 'button', key: JSON.stringify(value), class: 'tour-choice', 'data-tour': 'choice', 'data-value': JSON.stringify(value),
          }, formatValue(path, value))))
      : h('ul', { class: 'tour-choices answered', 'data-testid': 'tour-choices', 'aria-label': t('tour.predict', { what: describePath(path) }) },
          prediction.choices.map((value) => {
            const isAnswer = same(value, prediction.answer);
            const mine = chosen !== undefined && same(value, chosen);
            return h('li', {
              key: JSON.stringify(value),
              class: `tour-choice${revealed && isAnswer ? ' correct' : ''}${revealed && mine && !isAnswer ? ' wrong' : ''}${mine ? ' chosen' : ''}`,
              'data-value': JSON.stringify(value),
              'data-correct': revealed ? String(isAnswer) : null,
              'data-chosen': mine ? 'true' : null,
            }, formatValue(path, value), revealed && isAnswer ? h('span', { class: 'choice-mark', 'aria-hidden': 'true' }, ' ✓') : null);
          }));
    return h('div', { class: `tour-predict${open ? '' : ' answered'}`, key: 'question' },
      h('p', { class: 'tour-question', id: 'tour-question' }, t('tour.predict', { what: describePath(path) })),
      choices,
      revealed && chosen !== undefined
        ? h('p', { class: `tour-verdict ${right ? 'ok' : 'no'}`, role: 'status', 'data-testid': 'tour-verdict' },
            right ? t('tour.predict_right', { answer: formatValue(path, prediction.answer) })
              : t('tour.predict_wrong', { answer: formatValue(path, prediction.answer), chosen: formatValue(path, chosen) }))
        : null,
    );
  }

  render() {
    const { stop } = this.current;
    const position = this.api.position();
    const onTrack = this.onTrack();
    const waiting = this.waiting();
    const last = this.index === this.stops.length - 1;
    const asking = stop.predict && this.checking !== 'failed' && this.checking !== 'none' && (this.checking === 'pending' || this.predictions.has(stop.key));
    const question = asking && onTrack && (waiting || position === stop.at) ? this.renderQuestion(stop, waiting) : null;
    const open = question && this.asks(stop) && waiting;
    // A "do" stop: the step's own words and its control, here beside the caption (the board's stays where it is).
    const step = onTrack ? this.expectedStep() : null;
    const task = step ? taskControl(step, this.api.config()) : null;
    // The tour's own words for the step (a tour file's `task`), else the step's words.
    const own = task ? this.words.task(stop) : null;
    const done = last && !waiting && onTrack;
    const findings = this.stopFindings(stop);
    return [
      h('div', { class: 'tour-head', key: 'head' },
        h('span', { class: 'tour-tag' }, t('tour.tag')),
        // The lesson's heading (the scenario's gives way in lesson mode): an h2 before the panels' h3s.
        h('h2', { class: 'tour-title', 'data-testid': 'tour-title' }, said(this.title())),
        this.foreignOrigin ? h('span', { class: 'tag tour-origin', 'data-testid': 'tour-origin' }, t('tour.from_origin', { origin: visible(this.foreignOrigin) })) : null,
        h('span', { class: 'muted tour-count', 'data-testid': 'tour-count' }, t('tour.count', { n: this.index + 1, total: this.stops.length })),
        h('button', { type: 'button', class: 'link-button tour-all', 'data-tour': 'all', 'aria-pressed': String(this.showAll) },
          t(this.showAll ? 'tour.fewer_controls' : 'tour.all_controls')),
        h('button', { type: 'button', class: 'close', 'data-tour': 'close', 'aria-label': t('tour.close') }, '✕'),
      ),
      !onTrack
        ? h('p', { class: 'tour-off', key: 'off', role: 'status' }, t('tour.off_track'), ' ',
            h('button', { type: 'button', class: 'link-button', 'data-tour': 'resume' }, t('tour.resume')))
        : null,
      question,
      // Asked and not yet answered, the caption (which says the answer) waits.
      open
        ? null
        // Off the tour's track the caption describes the tour's run, not the board: it says so.
        : h('p', { class: onTrack ? 'tour-caption' : 'tour-caption tour-expected', key: 'caption', 'data-testid': 'tour-caption', 'data-stop': stop.key, 'aria-live': 'polite' },
            onTrack ? null : h('span', { class: 'tour-expected-label', 'data-testid': 'tour-expected' }, t('tour.expected'), ' '),
            task ? h('span', { class: 'tour-task', 'data-testid': 'tour-task' }, own ? said(own) : task.text) : said(this.words.caption(stop))),
      findings.length
        ? h('ul', { class: 'tour-findings', key: 'findings', 'data-testid': 'tour-findings' }, findings.map((f, i) => h('li', { key: String(i) }, findingText(f))))
        : null,
      h('div', { class: 'tour-buttons', key: 'buttons' },
        h('button', { type: 'button', 'data-tour': 'back', disabled: this.index === 0 && !((stop.do || stop.predict) && stop.at > 0 && position === stop.at) }, t('tour.back')),
        task
          ? h('button', { type: 'button', class: 'primary task-do', 'data-tour': 'do', 'data-testid': 'task-control' }, task.label)
          : open
            ? h('button', { type: 'button', 'data-tour': 'next' }, t('tour.reveal'))
            : last && !waiting
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

/** A finding of the model, said for the tour's author. */
export function findingText(f) {
  if (f.fact) {
    return [t('tour.finding_fact_before'), h('code', null, f.fact), t('tour.finding_fact_after', { expected: JSON.stringify(f.expected), actual: JSON.stringify(f.actual) })];
  }
  return t('tour.finding', { message: f.message });
}

/** The same JSON value (a choice and an answer). */
function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

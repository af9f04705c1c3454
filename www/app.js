// The controller: wires the page's controls to the core, keeps the URL
// fragment in step with the run, and redraws. Every change goes through the
// core (sim.apply / sim.seek); the page only draws what comes back.

import { loadCore, core, isCrash, panicMessage } from './core.js';
import { h, patch } from './dom.js';
import { notify as showNotice, excerpt } from './notices.js';
import { render, endpoints } from './render.js';
import { renderEventLog, LOG_LINES_SHOWN } from './eventlog.js';
import { eventLine, eventText, phrase } from './event-text.js';
import { t, num, language, setLanguage, chooseLanguage, translateTree, missingKeys, LANGUAGES } from './i18n.js';
import { animateStep, cancelAnimations, drawInFlight } from './animate.js';
import { parseFragment, buildFragment, pageUrl, embedSnippet } from './share.js';
import { describeStep, formatMs, violationHeadline, hintFor, VERSION_TEXT } from './describe.js';
import { renderGallery, galleryText, galleryEntryNamed } from './gallery.js';
import { versionOptions, versionNotes, renderRules } from './versions.js';
import { WorkerRunner } from './worker-runner.js';
import { renderGrid, renderOutcomeLegend } from './whatif.js';
import { renderOperator } from './operator.js';
import { TourPlayer, loadTour, tourIds, stepKey } from './tour.js';

const $ = (id) => document.getElementById(id);
const EMBED = document.documentElement.classList.contains('embed');
const reducedMotion = matchMedia('(prefers-reduced-motion: reduce)');
const CELL_WIDTH = { normal: 46, compact: 30, dense: 6 };
const PLAY_TICK_MS = 200; // one clock step every tick while the clock runs
const STEP_EVENTS_SHOWN = 2000; // a step's events read for captions and animation (its trace lines are all kept)

const app = {
  sim: null,
  name: '',
  description: '',
  config: null,
  steps: [], // the timeline's steps, kept to rebuild the run after a crash of the core
  trace: { lines: [], stepEnds: [] },
  windowStart: 0,
  windowCount: 20,
  follow: true,
  zoom: EMBED ? 'compact' : 'normal',
  playing: false,
  playUntil: null, // a tour's next stop: Play pauses there
  clockRunning: false,
  clockToken: 0,
  playToken: 0,
  undo: null,
  lastHash: '',
  hashTimer: 0,
  stepEventsCache: new Map(),
  // What the core says of a position that only a new step or run changes:
  // the operator's view (it counts the run's events) and the typed events
  // behind the event log's lines in another language. Kept out of the frame.
  positionCache: new Map(),
  traceText: '', // the whole trace while the Trace dialog is open (Copy and Download use it)
  refusals: [], // every registration_refused event of the timeline: { step, broker, session_expires_ms }
  recovering: false,
};

// ------------------------------------------------------------------ notices

function notify(kind, text, options) {
  return showNotice($('notices'), kind, text, options);
}

// ------------------------------------------------------------------ core calls

/** Runs a call into the core; a crash of the core is recovered from, other errors are shown. */
function guarded(what, fn) {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    if (isCrash(err)) {
      recover(err);
      return { ok: false, crashed: true };
    }
    notify('error', t('notice.failed', { what, message: err && err.message ? err.message : String(err) }));
    return { ok: false, error: err };
  }
}

async function recover(err) {
  if (app.recovering) return;
  app.recovering = true;
  stop();
  const message = panicMessage() || (err && err.message) || String(err);
  notify('error', t('notice.core_crashed', { message }));
  try {
    await loadCore();
    const scenario = currentScenario();
    try {
      loadScenario(scenario, { at: Math.min(app.position ?? scenario.steps.length, scenario.steps.length) });
    } catch (again) {
      notify('error', t('notice.rebuild_failed', { message: again.message }));
      loadScenario({ ...scenario, steps: [] });
    }
  } catch (fatal) {
    notify('error', t('notice.restart_failed', { message: fatal.message }));
  } finally {
    app.recovering = false;
  }
}

function currentScenario() {
  const s = { version: 1, config: { ...app.config }, steps: app.steps.slice() };
  if (app.name) s.name = app.name;
  if (app.description) s.description = app.description;
  return s;
}

function defaultScenario() {
  return { version: 1, config: { ...core().defaultConfig }, steps: [] };
}

/** Replaces the run (throws the core's error, leaving the current run as it was). */
function adopt(sim, { at } = {}) {
  // Right after construction the position is the end: every event is there.
  // The trace crosses the boundary as one text, not an object per event.
  const text = sim.traceText();
  const lines = text ? text.slice(0, -1).split('\n') : [];
  const stepEnds = Array.from(sim.stepEnds());
  const refusals = sim.registrationRefusals();
  const scenario = sim.scenario();
  const length = sim.length();
  const position = at === null || at === undefined ? length : Math.max(0, Math.min(at, length));
  if (position !== length) sim.seek(position);
  if (app.sim) app.sim.free();
  app.sim = sim;
  app.name = scenario.name || '';
  app.description = scenario.description || '';
  app.config = scenario.config;
  app.steps = scenario.steps;
  app.trace = { lines, stepEnds };
  app.refusals = refusals;
  app.position = position;
  app.stepEventsCache.clear();
  app.positionCache.clear();
  app.follow = true;
  refreshStaticControls();
}

/** Adopts a new Simulation (or frees it if it cannot be adopted), then draws. */
function load(make, opts) {
  const sim = make(core().Simulation);
  try {
    adopt(sim, opts);
  } catch (err) {
    sim.free();
    throw err;
  }
  draw();
}

function loadScenario(scenario, opts) {
  load((Simulation) => Simulation.fromScenario(scenario), opts);
}

function loadLink(link, opts) {
  load((Simulation) => Simulation.fromLink(link), opts);
}

/** Per broker, its latest registration_refused event up to `position`. */
function refusalsAt(position) {
  const latest = new Map();
  for (const e of app.refusals) if (e.step <= position) latest.set(e.broker, e);
  return latest;
}

/** A step's events for captions and animation: its last STEP_EVENTS_SHOWN
 *  (a step of a long timed run can cause hundreds of thousands). */
function stepEvents(position) {
  if (position < 1) return [];
  if (!app.stepEventsCache.has(position)) {
    if (app.stepEventsCache.size > 64) app.stepEventsCache.clear();
    app.stepEventsCache.set(position, app.sim.stepEvents(position, STEP_EVENTS_SHOWN));
  }
  return app.stepEventsCache.get(position);
}

/** `make()` once per position and key, until the timeline changes. */
function atPosition(key, make) {
  const k = `${app.position}|${key}`;
  if (!app.positionCache.has(k)) {
    if (app.positionCache.size > 64) app.positionCache.clear();
    app.positionCache.set(k, make());
  }
  return app.positionCache.get(k);
}

/** How many events step `position` caused (its trace lines). */
function stepEventCount(position) {
  const ends = app.trace.stepEnds;
  return position < 1 ? 0 : ends[position - 1] - (position > 1 ? ends[position - 2] : 0);
}

// ------------------------------------------------------------------ actions

/** Applies one step at the current position. Returns true if the core took it. */
function apply(step, { animate = true } = {}) {
  const sim = app.sim;
  const position = sim.position();
  const future = sim.length() - position;
  // The run's own next step: moving forward is the same, and keeps what follows.
  if (future && stepKey(step) === stepKey(app.steps[position])) return seek(position + 1, { animate });
  const before = future ? currentScenario() : null;
  const r = guarded(t('notice.could_not_step', { step: describeStep(step) }), () => sim.apply(step, STEP_EVENTS_SHOWN));
  if (!r.ok) return false;
  const events = r.value;
  const trace = app.trace;
  trace.lines.length = position ? trace.stepEnds[position - 1] : 0;
  trace.stepEnds.length = position;
  const text = sim.stepText(position + 1);
  if (text) for (const line of text.slice(0, -1).split('\n')) trace.lines.push(line);
  trace.stepEnds.push(trace.lines.length);
  app.refusals = sim.registrationRefusals();
  app.steps.length = position;
  app.steps.push(step);
  app.position = position + 1;
  app.stepEventsCache.clear();
  app.positionCache.clear();
  app.stepEventsCache.set(app.position, events);
  if (future) {
    app.undo = { scenario: before, position };
    notify('info', t('notice.replaced', { count: future }), { action: { label: t('notice.undo'), run: restoreUndo } });
  }
  for (const e of events) if (e.type === 'step_rejected') notify('warn', t('notice.not_possible', { reason: phrase(e.reason, t) }), { timeoutMs: 5000 });
  const stopped = events.find((e) => e.type === 'budget_exceeded');
  if (stopped) {
    stop();
    stopClock();
    notify('warn', t('notice.stopped', { step: app.position, message: language() === 'en' ? stopped.line.replace(/^.*?#\S+\s+/, '') : eventText(stopped, t) }));
  }
  draw({ events: animate ? events : null });
  return true;
}

function restoreUndo() {
  const u = app.undo;
  if (!u) return;
  app.undo = null;
  stop();
  try {
    loadScenario(u.scenario, { at: u.position });
  } catch (err) {
    notify('error', t('notice.undo_failed', { message: err.message }));
  }
}

function seek(position, { animate = false } = {}) {
  const sim = app.sim;
  const target = Math.max(0, Math.min(position, sim.length()));
  if (target === sim.position()) return true;
  const r = guarded(t('notice.could_not_seek'), () => sim.seek(target));
  if (!r.ok) return false;
  app.position = target;
  draw({ events: animate ? stepEvents(target) : null });
  return true;
}

function advanceIncrementMs() {
  return Math.max(1, Math.round(PLAY_TICK_MS * speed()));
}

/** Forward one recorded step. At the end nothing is added: the run changes only by an action. */
function stepForward() {
  const sim = app.sim;
  if (sim.position() >= sim.length()) return false;
  return seek(sim.position() + 1, { animate: true });
}

function stepBack() {
  return seek(app.sim.position() - 1);
}

function speed() {
  return Number($('speed').value) || 1;
}

function perMessageMs() {
  return Math.max(120, Math.min(900, 650 / speed()));
}

/**
 * Do records carry their leader epoch under this version? From the version
 * that brought KIP-101's OffsetsForLeaderEpoch on (0.11, message format v2),
 * whatever later rules replaced it with.
 */
function recordsCarryEpochs(protocol) {
  const versions = core().versions.versions;
  const since = versions.findIndex((x) => x.introduced.includes('offsets_for_leader_epoch'));
  const at = versions.findIndex((x) => x.name === protocol);
  return since < 0 || at < 0 || at >= since;
}

/** Did a guarantee break at this very step? */
function violationAt(position) {
  return Boolean(position && app.state && (app.state.violations || []).some((v) => v.step === position));
}

// ------------------------------------------------------------------ play

/**
 * Plays the recorded steps from here (from the start when at the end), one
 * at a time with its animation. It stops at the end of the run, at the step
 * where a guarantee breaks, and at a tour's next stop; it never adds a step.
 */
function play(until = undefined) {
  if (app.playing || !app.sim.length()) return;
  stopClock();
  if (app.sim.position() >= app.sim.length() && !tour) seek(0);
  app.playUntil = until !== undefined ? until : tour ? tour.playLimit() : null;
  if (app.playUntil !== null && app.sim.position() >= app.playUntil) return;
  app.playing = true;
  const token = ++app.playToken;
  updatePlayButton();
  (async () => {
    while (app.playing && token === app.playToken) {
      const before = app.sim.position();
      if (before >= app.sim.length() || (app.playUntil !== null && before >= app.playUntil)) break;
      if (!stepForward()) break;
      if (violationAt(app.sim.position())) {
        notify('warn', t('notice.paused_violation', { step: app.sim.position() }), { timeoutMs: 6000 });
        break;
      }
      await (app.animation || Promise.resolve());
      if (app.sim.position() < app.sim.length()) await sleep(Math.max(150, 500 / speed()));
    }
    if (token === app.playToken) stop();
  })();
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function stop() {
  const was = app.playing;
  app.playing = false;
  app.playToken++;
  updatePlayButton();
  if (was) scheduleHash();
}

function togglePlay() {
  if (app.playing) stop();
  else play();
}

// ------------------------------------------------------------------ the clock

/**
 * "Run the clock": its own control, which adds a clock step every tick
 * (timed mode lets the followers fetch on their own meanwhile) until it is
 * stopped, the run stops at a budget, or a guarantee breaks.
 */
function toggleClock() {
  if (app.clockRunning) stopClock();
  else startClock();
}

function startClock() {
  stop();
  app.clockRunning = true;
  const token = ++app.clockToken;
  updateClockButton();
  (async () => {
    while (app.clockRunning && token === app.clockToken) {
      const violations = app.violationCount || 0;
      app.tickingClock = true;
      const ok = apply({ advance_ms: advanceIncrementMs() });
      app.tickingClock = false;
      if (!ok || (app.state && app.state.stopped)) break;
      if ((app.violationCount || 0) > violations) {
        notify('warn', t('notice.paused_violation', { step: app.sim.position() }), { timeoutMs: 6000 });
        break;
      }
      await Promise.all([app.animation, sleep(PLAY_TICK_MS)]);
    }
    if (token === app.clockToken) stopClock();
  })();
}

function stopClock() {
  const was = app.clockRunning;
  app.clockRunning = false;
  app.clockToken++;
  updateClockButton();
  if (was) scheduleHash();
}

function updateClockButton() {
  const b = $('btn-clock');
  if (!b) return;
  b.setAttribute('aria-pressed', String(Boolean(app.clockRunning)));
  b.textContent = app.clockRunning ? t('toolbar.clock_stop') : t('toolbar.clock_run');
}

function updatePlayButton() {
  const b = $('btn-play');
  b.classList.toggle('playing', app.playing);
  const label = app.playing ? t('player.pause') : t('player.play');
  b.setAttribute('aria-label', label);
  b.setAttribute('aria-pressed', String(app.playing));
  b.title = label;
}

// ------------------------------------------------------------------ drawing

function measureWindow() {
  const host = $('cluster');
  const track = host.querySelector('.ruler');
  let width = track ? track.clientWidth : 0;
  if (!width) {
    const w = host.clientWidth || 600;
    width = w > 720 ? w - 250 : w - 16;
  }
  const cell = CELL_WIDTH[app.zoom] || CELL_WIDTH.normal;
  return Math.max(3, Math.min(400, Math.floor((width - 30) / cell)));
}

/** Redraws from the core's state; a failure of the core while drawing is recovered from. */
function draw(opts = {}) {
  try {
    drawNow(opts);
  } catch (err) {
    if (isCrash(err)) recover(err);
    else notify('error', t('notice.could_not_draw', { message: err && err.message ? err.message : String(err) }));
  }
}

function drawNow({ events = null } = {}) {
  const sim = app.sim;
  if (!sim) return;
  const position = sim.position();
  app.position = position;
  app.windowCount = measureWindow();
  let state = sim.state(app.windowStart, app.windowCount);
  const maxLeo = Math.max(0, ...state.brokers.map((b) => b.log_end_offset));
  let start = app.follow ? Math.max(0, maxLeo + 1 - app.windowCount) : Math.min(app.windowStart, Math.max(0, maxLeo));
  if (start !== app.windowStart) {
    app.windowStart = start;
    state = sim.state(start, app.windowCount);
  }
  app.state = state;
  app.violationCount = state.violations.length;
  const view = {
    windowStart: app.windowStart,
    windowCount: app.windowCount,
    dense: app.zoom === 'dense',
    stepEvents: stepEvents(position),
    stepEventCount: stepEventCount(position),
    // Records carry their leader epoch from 0.11 (message format v2, KIP-101):
    // before, cells are drawn without one.
    recordEpochs: recordsCarryEpochs(state.protocol),
    step: position ? app.steps[position - 1] : null,
    position,
    length: sim.length(),
    refusals: refusalsAt(position),
    // A hint at the end of a run, where an action is what comes next (a tour gives its own).
    hint: !tour && position === sim.length() && !state.stopped ? hintFor(state, app.config) : null,
  };
  const out = render(state, view);
  const cluster = $('cluster');
  cluster.dataset.zoom = app.zoom;
  cancelAnimations(cluster.firstElementChild);
  patch($('banner'), out.banner);
  patch($('caption'), out.caption);
  patch(cluster, out.cluster);
  patch($('legend'), out.legend);
  if (!EMBED) {
    patch($('producer'), out.producer);
    patch($('consumer'), out.consumer);
    patch($('network'), out.network);
    patch($('operator'), renderOperator(atPosition('operator', () => sim.operator())));
  }
  // The window may need another size once the track exists at its real width.
  const count = measureWindow();
  if (count !== app.windowCount && !app.redrawing) {
    app.redrawing = true;
    try {
      drawNow({ events });
    } finally {
      app.redrawing = false;
    }
    return;
  }
  drawHead();
  drawPlayer(view);
  drawLogWindow(maxLeo);
  drawEventLog();
  scheduleHash();
  drawInFlight(cluster.firstElementChild, state.in_flight, endpoints);
  if (events && events.length && !reducedMotion.matches) {
    // While playing, a clock tick's messages fit in about one tick; a recorded step gets its full time.
    const budgetMs = app.clockRunning && app.tickingClock ? PLAY_TICK_MS * 1.5 : Infinity;
    app.animation = animateStep(cluster.firstElementChild, events, { perMessageMs: perMessageMs(), budgetMs });
  } else {
    app.animation = null;
  }
  if (tour) tour.positionChanged();
  if (!app.firstDrawn) {
    app.firstDrawn = true;
    performance.mark('highwater:first-draw');
    $('app').setAttribute('aria-busy', 'false');
    document.body.dataset.ready = 'true';
  }
}

function drawHead() {
  // A gallery scenario's name and description in the page's language; a
  // scenario of the user's own as written.
  const entry = galleryEntryNamed(gallery, app.name);
  const name = tour ? t(`tours.${tour.id}.title`) : entry ? galleryText(entry, 'name') : app.name;
  const description = tour ? '' : entry ? galleryText(entry, 'description') : app.description;
  $('scenario-name').textContent = name || t('page.your_run');
  $('embed-name').textContent = name ? `· ${name}` : '';
  $('scenario-description').textContent = description || (app.steps.length ? '' : t('page.empty_description'));
  document.title = name ? `${name} · Highwater` : t('page.title');
  // The empty page offers the first tour.
  const offer = !tour && !app.steps.length && !EMBED;
  $('onboard').hidden = !offer;
  if (offer && firstTour) {
    patch($('onboard'), [
      h('button', { type: 'button', class: 'primary', key: 'b', 'data-start-tour': firstTour }, t('onboard.start', { title: t(`tours.${firstTour}.title`) })),
      h('span', { class: 'muted', key: 's' }, ` ${t('onboard.or')}`),
    ]);
  }
}

let firstTour = null;

function drawPlayer(view) {
  const slider = $('timeline');
  slider.max = String(view.length);
  slider.value = String(view.position);
  slider.setAttribute('aria-valuetext', t('player.valuetext', { n: view.position, length: view.length }));
  $('position').textContent = `${num(view.position)} / ${num(view.length)}`;
  $('btn-back').disabled = view.position === 0;
  $('btn-forward').disabled = view.position >= view.length;
  $('btn-start').disabled = view.position === 0;
}

function drawLogWindow(maxLeo) {
  const box = $('log-window');
  const needed = maxLeo + 1 > app.windowCount;
  box.hidden = !needed;
  if (!needed) return;
  const s = $('win-start');
  const max = Math.max(0, maxLeo + 1 - app.windowCount);
  s.max = String(max);
  s.value = String(app.windowStart);
  $('win-label').textContent = t('logwindow.label', { first: app.windowStart, last: app.windowStart + app.windowCount - 1, max: maxLeo });
  $('win-end').disabled = app.follow;
}

function drawEventLog() {
  const log = $('event-log');
  const tr = app.trace;
  const count = app.position ? tr.stepEnds[app.position - 1] : 0;
  const currentFrom = app.position > 1 ? tr.stepEnds[app.position - 2] : 0;
  const text = lineTexts(Math.max(0, count - LOG_LINES_SHOWN), count);
  patch(log, renderEventLog({ lines: tr.lines, count, stepOf: stepOfLine, currentFrom, text }));
  // Follow the current step: the log ends with it.
  log.scrollTop = log.scrollHeight;
}

/**
 * What trace lines from..to say in the page's language: the core's English
 * lines as they are, or the same typed events rendered from the locale.
 */
function lineTexts(from, to) {
  if (language() === 'en' || to <= from) return (i) => app.trace.lines[i];
  const r = guarded(t('notice.could_not_trace'), () => atPosition(`events ${from}-${to}`, () => app.sim.eventsIn(from, to)));
  if (!r.ok) return (i) => app.trace.lines[i];
  const events = r.value;
  return (i) => {
    const e = events[i - from];
    return e ? eventLine(e, t) : app.trace.lines[i];
  };
}

function stepOfLine(i) {
  // stepEnds is sorted: the first step whose end is past line i.
  const ends = app.trace.stepEnds;
  let lo = 0;
  let hi = ends.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid] > i) hi = mid;
    else lo = mid + 1;
  }
  return lo + 1;
}

/** Controls that depend on the configuration (broker lists, time buttons). */
function refreshStaticControls() {
  const ids = Array.from({ length: app.config.brokers }, (_, i) => i + 1);
  const options = (first) => [first, ...ids.map((id) => h('option', { value: id, key: id }, t('cluster.broker', { broker: id })))];
  const keep = (select, fn) => {
    const v = select.value;
    patch(select, fn());
    select.value = [...select.options].some((o) => o.value === v) ? v : select.options[0]?.value ?? '';
  };
  keep($('elect-target'), () => options(h('option', { value: '', key: 'c' }, t('toolbar.controllers_choice'))));
  keep($('produce-to'), () => options(h('option', { value: '', key: 'l' }, t('producer.to_leader'))));
  keep($('link-a'), () => options(null));
  keep($('link-b'), () => options(null));
  if ($('link-a').value === $('link-b').value && ids.length > 1) $('link-b').value = String(ids.find((i) => String(i) !== $('link-a').value));
  const session = formatMs(app.config.broker_session_timeout_ms);
  const lag = formatMs(app.config.replica_lag_time_max_ms);
  $('btn-session').textContent = t('toolbar.session', { time: session });
  $('btn-session').setAttribute('aria-label', t('toolbar.session_label', { time: session }));
  $('btn-lag').textContent = t('toolbar.lag', { time: lag });
  $('btn-lag').setAttribute('aria-label', t('toolbar.lag_label', { time: lag }));
  updateProducePlaceholder();
}

function updateProducePlaceholder() {
  const n = app.steps.filter((s) => s && s.produce).length + 1;
  $('produce-value').placeholder = `m${n}`;
}

// ------------------------------------------------------------------ URL

function fragmentNow() {
  return buildFragment(app.sim.toLink(), app.sim.position());
}

/** Keeps the fragment current: at once, or at most every 400 ms while playing. */
function scheduleHash() {
  if (!app.playing && !app.clockRunning) {
    clearTimeout(app.hashTimer);
    app.hashTimer = 0;
    writeHash();
    return;
  }
  if (app.hashTimer) return;
  app.hashTimer = setTimeout(() => {
    app.hashTimer = 0;
    writeHash();
  }, 400);
}

function writeHash() {
  if (!app.sim) return;
  const r = guarded(t('notice.could_not_link'), () => fragmentNow());
  if (!r.ok) return;
  app.lastHash = r.value;
  if (location.hash !== r.value) history.replaceState(null, '', r.value);
  $('open-full').href = pageUrl(location, r.value);
}

function loadFromHash() {
  const { link, at, badAt } = parseFragment(location.hash);
  if (link) {
    try {
      loadLink(link, { at });
      if (badAt !== null) notify('warn', t('notice.bad_at', { at: badAt }));
      if (at !== null && at > app.sim.length()) notify('warn', t('notice.at_too_far', { at, count: app.sim.length() }));
      return;
    } catch (err) {
      if (isCrash(err)) {
        recover(err);
        return;
      }
      notify('error', t('notice.bad_link', { message: err.message }));
    }
  }
  loadScenario(defaultScenario());
}

// ------------------------------------------------------------------ wiring

function intField(input, fallback) {
  const n = Number(input && input.value);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : fallback;
}

function onClusterClick(event) {
  const button = event.target.closest('button[data-action]');
  if (!button) return;
  if (button.getAttribute('aria-disabled') === 'true') {
    notify('warn', t('notice.not_possible', { reason: button.dataset.reason }), { timeoutMs: 5000 });
    return;
  }
  const id = Number(button.dataset.broker);
  const field = (name) => $('cluster').querySelector(`input[data-field="${name}"][data-broker="${id}"]`);
  const steps = {
    fetch: () => ({ fetch: id }),
    crash: () => ({ crash: { broker: id } }),
    restart: () => ({ restart: id }),
    powerloss: () => ({ crash: { broker: id, lose_unflushed: Math.max(1, intField(field('lose'), 1)) } }),
    isolate: () => ({ isolate: id }),
    'heal-broker': () => ({ heal: id }),
    pause: () => ({ pause: id }),
    resume: () => ({ resume: id }),
    delay: () => ({ delay: { broker: id, ms: intField(field('delay'), 400) } }),
    elect: () => ({ elect: id }),
  };
  const make = steps[button.dataset.action];
  if (!make) return;
  const menu = button.closest('details');
  if (menu) menu.open = false;
  apply(make());
}

function wire() {
  $('btn-play').addEventListener('click', togglePlay);
  $('btn-forward').addEventListener('click', () => { stop(); stepForward(); });
  $('btn-back').addEventListener('click', () => { stop(); stepBack(); });
  $('btn-start').addEventListener('click', () => { stop(); seek(0); });
  $('timeline').addEventListener('input', (e) => { stop(); seek(Number(e.target.value)); });
  $('speed').addEventListener('change', () => {});
  $('btn-reset').addEventListener('click', () => {
    stop();
    app.undo = { scenario: currentScenario(), position: app.sim.position() };
    const steps = app.steps.length;
    loadScenario({ version: 1, config: { ...app.config }, steps: [] });
    if (steps) notify('info', t('notice.reset', { count: steps }), { action: { label: t('notice.undo'), run: restoreUndo } });
  });

  $('cluster').addEventListener('click', onClusterClick);
  $('caption').addEventListener('click', (e) => {
    if (e.target.closest('button[data-action="rules"]')) openRules();
  });
  $('banner').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-action="goto"]');
    if (b) { stop(); seek(Number(b.dataset.step), { animate: true }); }
  });
  $('network').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-action="heal-link"]');
    if (b) apply({ heal: [Number(b.dataset.a), Number(b.dataset.b)] });
  });
  $('link-form').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-link]');
    if (!b) return;
    const a = Number($('link-a').value);
    const c = Number($('link-b').value);
    const steps = { cut: { cut: [a, c] }, partition: { partition: [a, c] }, heal: { heal: [a, c] }, 'heal-all': { heal: 'all' } };
    apply(steps[b.dataset.link]);
  });
  document.querySelectorAll('button[data-advance]').forEach((b) => b.addEventListener('click', () => {
    const kind = b.dataset.advance;
    const ms = kind === 'session' ? app.config.broker_session_timeout_ms : kind === 'lag' ? app.config.replica_lag_time_max_ms : Number(kind);
    apply({ advance_ms: ms });
  }));
  $('btn-elect').addEventListener('click', () => {
    const v = $('elect-target').value;
    apply({ elect: v === '' ? null : Number(v) });
  });
  $('produce-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('produce-value');
    const value = input.value !== '' ? input.value : input.placeholder;
    const step = { produce: { value, acks: $('produce-acks').value } };
    const to = $('produce-to').value;
    if (to !== '') step.produce.to = Number(to);
    if (apply(step)) {
      input.value = '';
      updateProducePlaceholder();
    }
  });
  $('btn-consume').addEventListener('click', () => apply({ consume: null }));
  $('zoom').value = app.zoom;
  $('zoom').addEventListener('change', (e) => { app.zoom = e.target.value; draw(); });

  // Log window (which offsets are drawn).
  $('win-start').addEventListener('input', (e) => { app.follow = false; app.windowStart = Number(e.target.value); draw(); });
  $('win-prev').addEventListener('click', () => { app.follow = false; app.windowStart = Math.max(0, app.windowStart - Math.max(1, Math.floor(app.windowCount / 2))); draw(); });
  $('win-next').addEventListener('click', () => { app.follow = false; app.windowStart += Math.max(1, Math.floor(app.windowCount / 2)); draw(); });
  $('win-end').addEventListener('click', () => { app.follow = true; draw(); });

  // Event log: click a line to go to its step.
  const log = $('event-log');
  log.addEventListener('click', (e) => {
    const line = e.target.closest('.log-line');
    if (line && line.dataset.step) { stop(); seek(Number(line.dataset.step), { animate: true }); }
  });

  // Dialogs.
  document.querySelectorAll('dialog [data-close]').forEach((b) => b.addEventListener('click', () => b.closest('dialog').close()));
  $('btn-settings').addEventListener('click', openSettings);
  $('settings-form').addEventListener('submit', applySettings);
  $('settings-form').elements.protocol.addEventListener('change', onSettingsVersion);
  $('rules-version').addEventListener('change', () => drawRules($('rules-version').value));
  $('btn-gallery').addEventListener('click', openGallery);
  $('btn-tours').addEventListener('click', openTours);
  $('tour-list').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-start-tour]');
    if (!b) return;
    $('dlg-tours').close();
    startTour(b.dataset.startTour);
  });
  $('tour').addEventListener('click', onTourClick);
  $('onboard').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-start-tour]');
    if (b) startTour(b.dataset.startTour);
  });
  $('btn-clock').addEventListener('click', toggleClock);
  $('lang').addEventListener('change', (e) => changeLanguage(e.target.value));
  $('btn-glossary').addEventListener('click', () => $('dlg-glossary').showModal());
  $('gallery').addEventListener('click', onGalleryClick);
  $('btn-copy-link').addEventListener('click', copyLink);
  $('btn-embed').addEventListener('click', openEmbed);
  $('btn-embed-copy').addEventListener('click', () => copyText($('embed-code').value, t('notice.embed_copied')));
  $('btn-trace').addEventListener('click', openTrace);
  $('btn-trace-copy').addEventListener('click', () => copyText(app.traceText, t('notice.trace_copied')));
  $('btn-trace-download').addEventListener('click', downloadTrace);
  wireExplore();
  wireWhatif();

  document.addEventListener('keydown', onKey);
  window.addEventListener('hashchange', () => {
    if (location.hash === app.lastHash) return;
    stop();
    loadFromHash();
  });
  new ResizeObserver(() => {
    if (!app.sim) return;
    const count = measureWindow();
    if (count !== app.windowCount) draw();
  }).observe($('cluster'));
}

function onKey(e) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
  if (document.querySelector('dialog[open]')) return;
  const target = e.target;
  const tag = target && target.tagName;
  const typing = tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || (target && target.isContentEditable);
  if (e.key === '?' && !typing) {
    e.preventDefault();
    $('help').togglePopover();
    return;
  }
  if (typing) return;
  if (e.key === ' ' || e.code === 'Space') {
    if (tag === 'BUTTON' || tag === 'SUMMARY' || tag === 'A') return; // Space activates the focused control
    e.preventDefault();
    togglePlay();
  } else if (e.key === 'ArrowRight') {
    e.preventDefault();
    stop();
    stepForward();
  } else if (e.key === 'ArrowLeft') {
    e.preventDefault();
    stop();
    stepBack();
  } else if (e.key === 'Home') {
    e.preventDefault();
    stop();
    seek(0);
  } else if (e.key === 'End') {
    e.preventDefault();
    stop();
    seek(app.sim.length());
  }
}

// ------------------------------------------------------------------ settings

const SETTINGS_NUMBERS = ['brokers', 'min_insync_replicas', 'replica_lag_time_max_ms', 'broker_session_timeout_ms', 'hw_checkpoint_interval_ms', 'request_timeout_ms', 'replica_fetch_wait_max_ms', 'replica_fetch_backoff_ms', 'link_latency_ms', 'seed', 'retries', 'delivery_timeout_ms', 'retry_backoff_ms'];
const SETTINGS_CHECKS = ['unclean_leader_election', 'auto_fetch', 'enable_idempotence'];
const SETTINGS_CHOICES = ['auto_offset_reset'];

function openSettings() {
  const form = $('settings-form');
  for (const name of SETTINGS_NUMBERS) form.elements[name].value = String(app.config[name]);
  for (const name of SETTINGS_CHECKS) form.elements[name].checked = Boolean(app.config[name]);
  for (const name of SETTINGS_CHOICES) form.elements[name].value = app.config[name];
  patch(form.elements.protocol, versionOptions(core().versions));
  form.elements.protocol.value = app.config.protocol;
  // The whole config the form stands for, including settings it has no field for.
  settingsBase = { ...app.config };
  patch($('settings-version-notes'), versionNotes(core().versions, app.config.protocol));
  $('settings-error').hidden = true;
  $('dlg-settings').showModal();
}

let settingsBase = null;

/**
 * Another version chosen in the settings: the core moves every setting left at
 * the old version's default to the new version's (withProtocol), those without
 * a field in the form too; the form shows the result before it is applied.
 * Fields that do not hold a valid number are left as typed.
 */
function onSettingsVersion() {
  const form = $('settings-form');
  const base = settingsBase || app.config;
  const to = form.elements.protocol.value;
  const config = { ...base };
  const typed = new Set();
  for (const name of SETTINGS_NUMBERS) {
    const raw = form.elements[name].value.trim();
    const n = Number(raw);
    if (raw !== '' && Number.isInteger(n) && n >= 0) {
      config[name] = n;
      typed.add(name);
    }
  }
  for (const name of SETTINGS_CHECKS) config[name] = form.elements[name].checked;
  for (const name of SETTINGS_CHOICES) config[name] = form.elements[name].value;
  const r = guarded(t('notice.could_not_switch_version'), () => core().withProtocol(config, to));
  if (!r.ok) {
    form.elements.protocol.value = base.protocol;
    return;
  }
  settingsBase = r.value;
  for (const name of SETTINGS_NUMBERS) if (typed.has(name)) form.elements[name].value = String(r.value[name]);
  for (const name of SETTINGS_CHECKS) form.elements[name].checked = Boolean(r.value[name]);
  for (const name of SETTINGS_CHOICES) form.elements[name].value = r.value[name];
  patch($('settings-version-notes'), versionNotes(core().versions, r.value.protocol));
}

function applySettings(e) {
  e.preventDefault();
  const form = $('settings-form');
  const config = { ...(settingsBase || app.config), protocol: form.elements.protocol.value };
  for (const name of SETTINGS_NUMBERS) {
    const raw = form.elements[name].value.trim();
    const n = Number(raw);
    if (raw === '' || !Number.isInteger(n) || n < 0) return settingsError(t('settings.not_whole', { field: form.elements[name].closest('label').firstChild.textContent.trim(), value: excerpt(raw) }));
    config[name] = n;
  }
  for (const name of SETTINGS_CHECKS) config[name] = form.elements[name].checked;
  for (const name of SETTINGS_CHOICES) config[name] = form.elements[name].value;
  stop();
  const before = currentScenario();
  const position = app.sim.position();
  const scenario = { ...before, config };
  try {
    loadScenario(scenario, { at: position });
  } catch (err) {
    if (isCrash(err)) { $('dlg-settings').close(); recover(err); return undefined; }
    return settingsError(t('settings.rejected', { message: err.message }));
  }
  $('dlg-settings').close();
  app.undo = { scenario: before, position };
  notify('info', before.steps.length ? t('notice.settings_rebuilt', { count: before.steps.length }) : t('notice.settings_applied'), { action: { label: t('notice.undo'), run: restoreUndo } });
  return undefined;
}

function settingsError(text) {
  const p = $('settings-error');
  p.textContent = text;
  p.hidden = false;
}

// ------------------------------------------------------------------ rules in force

function openRules() {
  const select = $('rules-version');
  patch(select, core().versions.versions.map((v) => h('option', { value: v.name, key: v.name }, VERSION_TEXT.option(v.name, v.name === app.config.protocol))));
  select.value = app.config.protocol;
  drawRules(app.config.protocol);
  $('dlg-rules').showModal();
}

function drawRules(name) {
  patch($('rules-body'), renderRules(core().versions, name, app.config));
  $('rules-body').scrollTop = 0;
}

// ------------------------------------------------------------------ gallery

let gallery = null;

async function loadGallery() {
  if (gallery) return gallery;
  const response = await fetch(new URL('./gallery.json', import.meta.url));
  if (!response.ok) throw new Error(`gallery.json: ${response.status} (run make build)`);
  gallery = await response.json();
  return gallery;
}

async function openGallery() {
  $('dlg-gallery').showModal();
  try {
    patch($('gallery'), renderGallery(await loadGallery(), app.name));
  } catch (err) {
    patch($('gallery'), h('p', { class: 'error' }, t('gallery_ui.load_failed', { message: err.message })));
  }
}

function onGalleryClick(e) {
  const b = e.target.closest('button[data-entry]');
  if (!b || !gallery) return;
  const entry = gallery.entries[Number(b.dataset.entry)];
  if (!entry) return;
  const variant = b.dataset.protocol ? entry.variants.find((v) => v.protocol === b.dataset.protocol) : null;
  const scenario = variant ? variant.scenario : entry.scenario;
  stop();
  const before = currentScenario();
  const position = app.sim.position();
  const name = galleryText(entry, 'name');
  try {
    // A story opens at its start: Play tells it from there.
    loadScenario(scenario, { at: 0 });
  } catch (err) {
    if (isCrash(err)) { recover(err); return; }
    notify('error', t('gallery_ui.could_not_load', { name, message: err.message }));
    return;
  }
  $('dlg-gallery').close();
  $('btn-play').focus();
  app.undo = { scenario: before, position };
  notify('info', t(variant ? 'gallery_ui.loaded_under' : 'gallery_ui.loaded', { name, version: variant ? VERSION_TEXT.name(variant.protocol) : '', count: app.sim.length() }), { action: { label: t('notice.undo'), run: restoreUndo } });
}

// ------------------------------------------------------------------ share

async function copyText(text, done) {
  try {
    await navigator.clipboard.writeText(text);
    notify('info', done, { timeoutMs: 3000 });
  } catch {
    notify('warn', t('notice.no_clipboard'));
  }
}

function copyLink() {
  writeHash();
  copyText(location.href, t('notice.link_copied'));
}

function openEmbed() {
  writeHash();
  const src = pageUrl(location, app.lastHash, { embed: true });
  $('embed-code').value = embedSnippet(src, `Highwater: ${app.name || t('page.embed_title')}`);
  $('embed-preview').href = src;
  $('dlg-embed').showModal();
}

const TRACE_SHOWN_LINES = 10_000; // the dialog shows the first and last half of a longer trace

function openTrace() {
  const r = guarded(t('notice.could_not_trace'), () => app.sim.traceText());
  if (!r.ok) return;
  app.traceText = r.value;
  $('trace-text').textContent = traceExcerpt(r.value);
  $('dlg-trace').showModal();
}

/** The whole trace, or for a long one its first and last lines with how many are left out
 *  (Copy and Download take the whole trace). */
function traceExcerpt(text) {
  const lines = text.split('\n');
  if (lines.length <= TRACE_SHOWN_LINES) return text;
  const half = TRACE_SHOWN_LINES / 2;
  const left = lines.length - 1 - TRACE_SHOWN_LINES;
  return `${lines.slice(0, half).join('\n')}\n… ${t('trace.left_out', { count: left })} …\n${lines.slice(-half - 1).join('\n')}`;
}

function downloadTrace() {
  const blob = new Blob([app.traceText], { type: 'text/plain' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `${(app.name || 'highwater-run').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'trace'}.trace`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// ------------------------------------------------------------------ explore

let runner = null;

function wireExplore() {
  runner = new WorkerRunner(new URL('./explore-worker.js', import.meta.url));
  $('btn-explore').addEventListener('click', () => {
    const c = app.config;
    $('explore-settings').textContent = t(c.auto_fetch ? 'explore.settings_timed' : 'explore.settings', { count: c.brokers, version: VERSION_TEXT.name(c.protocol), min: c.min_insync_replicas, unclean: c.unclean_leader_election ? t('common.on') : t('common.off') });
    if (!runner.running) {
      $('explore-result').hidden = true;
      $('explore-progress').hidden = true;
    }
    $('dlg-explore').showModal();
  });
  $('explore-form').addEventListener('submit', (e) => {
    e.preventDefault();
    startExplore();
  });
  $('btn-explore-cancel').addEventListener('click', () => {
    if (runner.cancel()) exploreFinished(t('explore.cancelled_after', { count: Number($('explore-bar').dataset.states || 0) }));
  });
  $('dlg-explore').addEventListener('close', () => {
    if (runner.cancel()) exploreFinished(t('explore.cancelled'));
  });
}

function startExplore() {
  const form = $('explore-form');
  const depth = Number(form.elements.depth.value);
  const maxStates = Number(form.elements.max_states.value);
  if (!Number.isInteger(depth) || depth < 1 || depth > 64) return exploreFinished(t('explore.bad_depth'), true);
  const cap = core().limits.max_explorer_states;
  if (!Number.isInteger(maxStates) || maxStates < 1000 || maxStates > cap) return exploreFinished(t('explore.bad_max_states', { cap }), true);
  const options = {
    // The search chooses every fetch itself: it runs in manual mode.
    config: { ...app.config, auto_fetch: false },
    acks: form.elements.acks.value,
    power_loss: form.elements.power_loss.checked,
    network_faults: form.elements.network_faults.checked,
    strategy: form.elements.strategy.value,
    depth,
    max_states: maxStates,
    seed: app.config.seed,
  };
  const bar = $('explore-bar');
  bar.value = 0;
  bar.dataset.states = '0';
  $('explore-progress').hidden = false;
  $('explore-result').hidden = true;
  $('explore-status').textContent = t('explore.starting');
  $('btn-explore-start').disabled = true;
  $('btn-explore-cancel').disabled = false;
  runner.start(options, {
    progress: ({ states, depth: d }) => {
      bar.value = Math.min(1, states / maxStates);
      bar.dataset.states = String(states);
      $('explore-status').textContent = t('explore.progress', { depth: d, count: states });
    },
    done: (result) => {
      if (result.found && result.scenario) {
        const before = currentScenario();
        const position = app.sim.position();
        try {
          loadScenario(result.scenario);
        } catch (err) {
          exploreFinished(t('explore.found_unloadable', { message: err.message }), true);
          return;
        }
        app.undo = { scenario: before, position };
        exploreFinished(t('explore.found', { count: result.states, what: violationHeadline(result.violation) }));
        $('dlg-explore').close();
        notify('warn', t('explore.found_notice', { what: violationHeadline(result.violation), count: app.sim.length() }), { action: { label: t('notice.undo'), run: restoreUndo } });
      } else {
        exploreFinished(t(result.complete ? 'explore.nothing_complete' : 'explore.nothing_capped', { depth: result.depth, count: result.states }));
      }
    },
    error: (message) => exploreFinished(t('explore.failed', { message }), true),
  });
  return undefined;
}

function exploreFinished(text, isError = false) {
  const p = $('explore-result');
  p.textContent = text;
  p.classList.toggle('error', isError);
  p.hidden = false;
  $('btn-explore-start').disabled = false;
  $('btn-explore-cancel').disabled = true;
}

// ------------------------------------------------------------------ tours

let tour = null;

const tourApi = {
  loadScenario: (scenario, at) => loadScenario(scenario, { at }),
  seek: (position, opts) => seek(position, opts),
  playTo: (position) => play(position),
  position: () => app.sim.position(),
  playing: () => app.playing,
  steps: () => app.steps,
  stopChanged: () => writeTourUrl(),
};

/** Opens tour `id` at stop `step` (from 1); a tour that does not exist is a message, and the page stays as it was. */
async function startTour(id, step = 1) {
  stop();
  stopClock();
  let data;
  try {
    data = await loadTour(id);
  } catch (err) {
    notify('error', t('tour.could_not_open', { message: err.message }));
    return false;
  }
  const before = app.sim ? currentScenario() : null;
  const position = app.sim ? app.sim.position() : 0;
  try {
    tour = new TourPlayer(data, tourApi, $('tour'));
    document.documentElement.classList.add('touring');
    tour.go(Math.max(0, (Number.isInteger(step) ? step : 1) - 1));
  } catch (err) {
    closeTour();
    if (isCrash(err)) { recover(err); return false; }
    notify('error', t('tour.could_not_open', { message: err.message }));
    return false;
  }
  if (before && before.steps.length) app.undo = { scenario: before, position };
  $('btn-play').focus();
  return true;
}

function closeTour() {
  tour = null;
  document.documentElement.classList.remove('touring');
  $('tour').hidden = true;
  patch($('tour'), []);
  writeTourUrl();
}

/** The URL carries the tour and its stop, so a reload or a shared link shows the same caption. */
function writeTourUrl() {
  const url = new URL(location.href);
  if (tour) {
    url.searchParams.set('tour', tour.id);
    url.searchParams.set('step', String(tour.index + 1));
  } else {
    url.searchParams.delete('tour');
    url.searchParams.delete('step');
  }
  if (url.href !== location.href) history.replaceState(null, '', url);
  if (EMBED) $('open-full').href = pageUrl(location, location.hash);
}

function onTourClick(e) {
  const b = e.target.closest('button[data-tour]');
  if (!b || !tour) return;
  stop();
  const action = b.dataset.tour;
  if (action === 'next') tour.next();
  else if (action === 'back') tour.back();
  else if (action === 'resume') tour.resume();
  else if (action === 'close') closeTour();
}

async function openTours() {
  $('dlg-tours').showModal();
  try {
    const ids = await tourIds();
    patch($('tour-list'), h('ul', { class: 'gallery-list' }, ids.map((id, i) => h('li', { class: 'gallery-card', key: id, 'data-id': id },
      h('h3', null, `${i + 1}. ${t(`tours.${id}.title`)}`),
      h('p', { class: 'gallery-summary' }, t(`tours.${id}.summary`)),
      h('div', { class: 'gallery-actions' },
        h('button', { type: 'button', class: 'primary', 'data-start-tour': id }, t('tour.start')))))));
  } catch (err) {
    patch($('tour-list'), h('p', { class: 'error' }, t('tour.list_failed', { message: err.message })));
  }
}

// ------------------------------------------------------------------ what if

let whatifRunner = null;
let whatifFor = null; // the scenario the grid shows

function wireWhatif() {
  whatifRunner = new WorkerRunner(new URL('./whatif-worker.js', import.meta.url));
  $('btn-whatif').addEventListener('click', openWhatif);
  $('btn-whatif-cancel').addEventListener('click', () => {
    if (whatifRunner.cancel()) $('whatif-status').textContent = t('whatif.stopped');
  });
  $('dlg-whatif').addEventListener('close', () => whatifRunner.cancel());
  $('whatif-grid').addEventListener('click', onGridClick);
}

/** Opens the grid of the current scenario, computing it in a worker cell by cell. */
function openWhatif() {
  const scenario = currentScenario();
  whatifFor = scenario;
  delete $('dlg-whatif').dataset.ready;
  const brokers = scenario.config.brokers;
  const cells = [];
  patch($('whatif-grid'), renderGrid(cells, brokers));
  patch($('whatif-legend'), renderOutcomeLegend());
  $('whatif-error').hidden = true;
  $('whatif-progress').hidden = false;
  $('whatif-bar').value = 0;
  $('whatif-status').textContent = t('whatif.starting');
  $('btn-whatif-cancel').disabled = false;
  $('dlg-whatif').showModal();
  whatifRunner.start({ scenario }, {
    progress: ({ done, total }) => {
      $('whatif-bar').value = done / total;
      $('whatif-status').textContent = t('whatif.progress', { done, total });
    },
    done: (result) => {
      $('btn-whatif-cancel').disabled = true;
      $('whatif-status').textContent = result.complete ? t('whatif.done', { total: result.cells.length }) : t('whatif.stopped');
      patch($('whatif-grid'), renderGrid(result.cells, brokers));
      $('dlg-whatif').dataset.ready = 'true';
    },
    error: (message) => {
      $('btn-whatif-cancel').disabled = true;
      $('whatif-progress').hidden = true;
      const p = $('whatif-error');
      p.textContent = t('whatif.failed', { message });
      p.hidden = false;
    },
  });
}

/** A cell clicked: its run loaded (at the step of its outcome), the current one kept for Undo. */
function onGridClick(e) {
  const b = e.target.closest('button[data-protocol]');
  if (!b || !whatifFor) return;
  const d = b.dataset;
  const r = guarded(t('whatif.could_not_open'), () => core().whatifScenario(whatifFor, d.protocol, d.acks, Number(d.minIsr), d.unclean === 'true'));
  if (!r.ok) return;
  stop();
  stopClock();
  if (tour) closeTour();
  const before = currentScenario();
  const position = app.sim.position();
  try {
    loadScenario(r.value, { at: d.step ? Number(d.step) : null });
  } catch (err) {
    if (isCrash(err)) { recover(err); return; }
    notify('error', t('whatif.could_not_open_message', { message: err.message }));
    return;
  }
  $('dlg-whatif').close();
  app.undo = { scenario: before, position };
  notify('info', t('whatif.opened', { version: VERSION_TEXT.name(d.protocol), acks: d.acks, min: d.minIsr, unclean: t(d.unclean === 'true' ? 'whatif.unclean_on' : 'whatif.unclean_off') }), { action: { label: t('notice.undo'), run: restoreUndo } });
}

// ------------------------------------------------------------------ start

/** The page's words in the language of `?lang=`, else the browser's. */
async function startLanguage() {
  const requested = new URLSearchParams(location.search).get('lang');
  try {
    await setLanguage(chooseLanguage(requested, navigator.languages || [navigator.language]));
  } catch (err) {
    await setLanguage('en').catch(() => {});
  }
  translateTree(document);
  updatePlayButton();
  updateClockButton();
  const select = $('lang');
  if (select) {
    patch(select, LANGUAGES.map((l) => h('option', { value: l.code, key: l.code, lang: l.code }, l.name)));
    select.value = language();
  }
}

/** Another language chosen: the URL keeps it, and every word is drawn again. */
async function changeLanguage(code) {
  try {
    await setLanguage(code);
  } catch (err) {
    notify('error', t('notice.language_failed', { message: err.message }));
    $('lang').value = language();
    return;
  }
  const url = new URL(location.href);
  url.searchParams.set('lang', language());
  history.replaceState(null, '', url);
  translateTree(document);
  refreshStaticControls();
  updatePlayButton();
  updateClockButton();
  if (tour) tour.redraw();
  draw();
  if (EMBED) $('open-full').href = pageUrl(location, location.hash);
}

async function main() {
  // For the browser tests: keys the page asked for that no locale table has.
  globalThis.highwaterMissingKeys = missingKeys;
  await startLanguage();
  // The gallery (names in every language) and the first tour, for the page's head.
  loadGallery().then(() => app.sim && drawHead(), () => {});
  tourIds().then((ids) => { firstTour = ids[0] || null; if (app.sim) drawHead(); }, () => {});
  try {
    await loadCore();
  } catch (err) {
    $('scenario-name').textContent = t('page.core_failed');
    $('scenario-description').textContent = t('page.core_failed_detail', { message: err.message });
    $('app').setAttribute('aria-busy', 'false');
    document.body.dataset.ready = 'error';
    return;
  }
  if (EMBED) app.zoom = 'compact';
  wire();
  try {
    loadFromHash();
  } catch (err) {
    notify('error', t('notice.could_not_start', { message: err.message }));
    loadScenario(defaultScenario());
  }
  const params = new URLSearchParams(location.search);
  if (params.has('tour')) {
    const raw = params.get('step');
    const step = raw !== null && /^\d{1,4}$/.test(raw) ? Number(raw) : 1;
    if (raw !== null && String(step) !== raw) notify('warn', t('tour.bad_step', { step: excerpt(raw, 20) }));
    await startTour(params.get('tour'), step);
  }
  if (EMBED) $('open-full').href = pageUrl(location, location.hash);
}

main();

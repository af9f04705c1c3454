// One playground: the run it shows (a Simulation of the core), the position,
// and the drawing of the core's state into its shadow root. Every change goes
// through the core (sim.apply / sim.seek); the page only draws what comes
// back. The player, the controls, each dialog and the address bar are wired
// by their own modules around this one.

import { loadCore, ensureCore, core, isCrash, panicMessage, needsQuorumCore } from '../core.js';
import { h, patch, setText } from '../draw/dom.js';
import { notify as showNotice } from './notices.js';
import { render, renderProducer, endpoints, inFlightShown, recordsCarryEpochs } from '../draw/render.js';
import { renderEventLog, LOG_LINES_SHOWN } from '../draw/eventlog.js';
import { eventLine, eventText, phrase } from '../words/event-text.js';
import { t, language, useLanguage, setLanguage, translateTree, hasBundle, loadBundle } from '../words/i18n.js';
import { animateStep, cancelAnimations, drawInFlight } from '../draw/animate.js';
import { describeStep, hintFor } from '../words/describe.js';
import { galleryText, galleryEntryNamed, galleryWords } from './gallery.js';
import { stepKey } from './tour.js';
import { Player, PLAY_TICK_MS } from './player.js';
import { refreshStaticControls, updateProducePlaceholder } from './controls.js';
import { visible } from '../words/user-text.js';
import { bringIntoView } from './scroll.js';
import { styleSheet, adopt } from './sheets.js';

// Read when drawn, never at import: the module is imported where there is no window too (a docs tool's server build).
const reducedMotion = typeof matchMedia === 'function' ? matchMedia('(prefers-reduced-motion: reduce)') : { matches: false };
/** A step's animation at 1x takes at most this long, a truncation's slower fade included: under 2 s. */
const STEP_MS = 1400;
const CELL_WIDTH = { normal: 46, compact: 30, dense: 6 };
// A link's run is computed a slice of events and units of work at a time
// (BUILD_SLICE to start with, then sized so that one call takes about
// BUILD_CALL_MS: a unit costs from under a microsecond to tens of them, and
// four times that on a slow phone), and the main thread is given back every
// BUILD_SLICE_MS (loadLink).
const BUILD_SLICE = 2000;
const BUILD_SLICE_RANGE = [20, 50_000];
const BUILD_CALL_MS = 6;
const BUILD_SLICE_MS = 25;
/** The next slice: scaled to take about BUILD_CALL_MS by what the last one took. */
function nextSlice(slice, tookMs) {
  const scaled = tookMs > 0 ? Math.round(slice * BUILD_CALL_MS / tookMs) : slice * 2;
  return Math.max(BUILD_SLICE_RANGE[0], Math.min(BUILD_SLICE_RANGE[1], slice * 2, scaled));
}

/** Frees a `SimulationBuild` (a core that trapped cannot: it is replaced, and the build with it). */
function freeBuild(build) {
  try {
    build.free();
  } catch {
    // The instance it lived in is gone.
  }
}

const BUILD_NOTICE_MS = 24 * 3600 * 1000; // the progress notice goes when the run is done
const QUORUM_NOTICE_DELAY_MS = 300; // a run with controllers waiting for the quorum's core longer than this says so
const SERIES_POINTS = 200; // samples of the operator's chart over the run (100 px wide: two per px)
const ROOM_SLACK_PX = 48; // keepRoom: at most about two lines of notes kept empty under a caption
const STEP_EVENTS_SHOWN = 2000; // a step's events read for captions and animation (its trace lines are all kept)

export class Playground {
  /**
   * root: the shadow root holding the markup; host: the element (it gets the
   * position events); size: 'full', 'compact' or 'bare'; lang: a language code.
   */
  constructor(root, host, { size = 'full', lang = 'en', viewportWidth = innerWidth } = {}) {
    this.root = root;
    // The window's width when the markup was written, for the first draw's guess of the track (guessTrackWidth).
    this.viewportWidth = viewportWidth;
    this.host = host;
    this.size = size;
    this.lang = lang;
    this.sim = null;
    this.rooms = new Map(); // keepRoom: an element's tallest height in this run
    this.generation = 0; // the core instance the run lives in
    this.name = '';
    this.description = '';
    this.config = null;
    this.steps = []; // the timeline's steps, kept to rebuild the run after a crash of the core
    this.trace = { lines: [], stepEnds: [] };
    this.position = 0;
    this.windowStart = 0;
    this.windowCount = 20;
    this.follow = true;
    this.zoom = size === 'full' ? 'normal' : 'compact';
    this.undo = null;
    this.stepEventsCache = new Map();
    // What the core says of a position that only a new step or run changes:
    // the operator's view (it counts the run's events) and the typed events
    // behind the event log's lines in another language. Kept out of the frame.
    this.positionCache = new Map();
    this.refusals = []; // every registration_refused event of the timeline: { step, broker, session_expires_ms }
    this.recovering = false;
    this.state = null;
    this.violationCount = 0;
    this.animation = null;
    this.tour = null; // the tour being taken (tour-panel.js)
    this.firstTour = null; // offered on an empty page
    this.gallery = null; // the gallery's entries once loaded (names in every language)
    this.headWordsAsked = null; // the language the head last asked the gallery's words for (headWords)
    this.address = null; // the page's address bar, when this playground is the page (links.js)
    this.building = null; // a token while a link's run is being computed (loadLink)
    this.awaitingQuorum = null; // a token while a run with controllers waits for the quorum's core (withQuorumCore)
    this.forkView = null; // What if…: the fork and the comparison (fork-view.js)
    this.viewsLoading = null; // the full core asked for by a view (viewsReady)
    this.viewsFailed = null; // why the full core could not be loaded for a view: said in the view, not asked again
    this.openGroups = new Set(); // the groups shown (groups.js): a closed panel is not drawn
    this.diagram = null; // the space-time diagram's panel (diagram-panel.js)
    this.timelineVersion = 0; // changes whenever the timeline does (a new run, a step applied)
    this.lastReported = '';
    this.closed = false; // the element was removed: its run is freed and nothing is drawn any more
    this.player = new Player(this);
    // A topic of several partitions: the one on the board (the `partition`
    // attribute, or chosen on the cluster map), and the map's code once loaded.
    this.partition = 0;
    this.wantedPartition = 0;
    this.describeOption = ''; // the operator's view: kafka-topics.sh --describe with this option ('' for none)
    this.clusterMap = null;
    this.quorumRows = null; // draw/quorum.js, once a scenario with controllers loaded it
  }

  /**
   * The cluster map's grid is shown: as the reader last chose, else on the
   * full page outside a tour; closed (a chip per partition) in an embed or a
   * tour, where the board and the caption need the height.
   */
  get mapOpen() {
    return this.mapOpenChosen ?? (!this.compact && !this.tour);
  }

  set mapOpen(open) {
    this.mapOpenChosen = open;
  }

  /**
   * The quorum drawn a row per controller: as the reader last chose, else on
   * the full page outside a tour; one row (the leader's log) in an embed or
   * a tour, as the map.
   */
  get quorumOpen() {
    return this.quorumOpenChosen ?? (!this.compact && !this.tour);
  }

  set quorumOpen(open) {
    this.quorumOpenChosen = open;
  }

  /** The topic's partitions (1 when the scenario does not say). */
  get partitions() {
    return (this.config && this.config.partitions) || 1;
  }

  /**
   * Shows partition `p` on the board (a number in 0..partitions-1; anything
   * else is said in a notice and changes nothing). Kept for the next run too.
   */
  setPartition(p, { quiet = false } = {}) {
    if (!Number.isInteger(p) || p < 0 || p >= this.partitions) {
      if (!quiet) this.notify('warn', t('map.no_such_partition', { partition: String(p).slice(0, 20), last: this.partitions - 1 }));
      return false;
    }
    this.wantedPartition = p;
    if (p === this.partition) return true;
    this.partition = p;
    const select = this.$('produce-partition');
    if (select && this.partitions > 1) select.value = String(p);
    this.host.dispatchEvent(new CustomEvent('highwater-partition', { detail: { partition: p }, bubbles: true, composed: true }));
    this.draw();
    return true;
  }

  /**
   * The element was removed: stops what runs and frees the run. Whatever was
   * still on its way (a tour, the gallery, a step of autoplay) finds the
   * playground closed and does nothing, so nothing reaches the host page.
   */
  close() {
    this.closed = true;
    this.player.stop();
    this.player.stopClock();
    if (this.address) this.address.cancel();
    if (this.forkView) this.forkView.closeRun();
    try {
      if (this.sim) this.sim.free();
    } catch {
      // a run of a core instance that is gone
    }
    this.sim = null;
  }

  /** An element of this playground by id. */
  $(id) {
    return this.root.getElementById(id);
  }

  get compact() {
    return this.size !== 'full';
  }

  /** Is the part of group `name` open (groups.js)? A closed one is not drawn until it opens. */
  shows(name) {
    return this.openGroups.has(name);
  }

  /** Makes this playground's language the one t() speaks (several on a page may differ). */
  enter() {
    useLanguage(this.lang);
  }

  /** Shows the markup (hidden until the first draw, or a message that there will be none). */
  reveal() {
    if (this.revealHeld) return;
    const root = this.$('root');
    if (!root.classList.contains('undrawn')) return;
    root.classList.remove('undrawn');
    // The first board a reader sees (the benchmarks' first drawn state).
    if (this.drawnOnce) performance.mark('highwater:first-draw');
  }

  /**
   * Keeps the first draw hidden until `releaseReveal` (at most `ms`): a tour's
   * panel, above the board, then comes with the board instead of pushing it
   * down after it is drawn.
   */
  holdReveal(ms) {
    this.revealHeld = true;
    this.revealTimer = setTimeout(() => this.releaseReveal(), ms);
  }

  releaseReveal() {
    clearTimeout(this.revealTimer);
    if (!this.revealHeld) return;
    // A topic's board waits for its map's code (drawNow): until then the
    // board drawn is the run's before (under a tour's panel, the empty run),
    // and the map would come in above the board once shown. So for the quorum's rows.
    if (this.clusterMapLoading && !this.clusterMap && !this.closed) {
      this.clusterMapLoading.finally(() => this.releaseReveal());
      return;
    }
    if (this.quorumRowsLoading && !this.quorumRows && !this.closed) {
      this.quorumRowsLoading.finally(() => this.releaseReveal());
      return;
    }
    this.revealHeld = false;
    if (this.drawnOnce && !this.closed) {
      this.reveal();
      this.markReady();
    }
  }

  notify(kind, text, options) {
    if (this.closed) return null;
    return showNotice(this.$('notices'), kind, text, options);
  }

  // ---------------------------------------------------------------- language

  /**
   * The words of a dialog or panel that are a bundle of their own, fetched
   * when it first opens (words/i18n.js, loadBundle): true once they are in;
   * if they cannot be had, a notice says so (`what`: the dialog's name), and
   * false. Its caller asks only when they are not in (hasBundle), so that a
   * dialog whose words are there opens at once.
   */
  async wordsFor(bundle, what) {
    try {
      await loadBundle(bundle);
    } catch (err) {
      if (!this.closed) {
        this.enter();
        this.notify('error', t('notice.failed', { what, message: err.message }));
      }
      return false;
    }
    if (this.closed) return false;
    this.enter();
    return true;
  }

  /** Loads a language and draws every word in it again. */
  async setLanguage(code) {
    const chosen = await setLanguage(code);
    // A head naming a gallery scenario: its name in the new language at once (element/gallery.js).
    if (this.scenarioTitle().entry) {
      await galleryWords(chosen).catch(() => {});
      useLanguage(chosen); // another playground may have made its own the one in use meanwhile
    }
    this.lang = chosen;
    this.$('root').lang = chosen;
    translateTree(this.root);
    if (this.sim) {
      refreshStaticControls(this);
      this.player.updateButtons();
      if (this.tour) this.tour.redraw();
      this.draw();
    }
    return chosen;
  }

  // ---------------------------------------------------------------- core calls

  /** Runs a call into the core; a crash of the core is recovered from, other errors are shown. */
  guarded(what, fn) {
    try {
      return { ok: true, value: fn() };
    } catch (err) {
      if (isCrash(err)) {
        this.recover(err);
        return { ok: false, crashed: true };
      }
      this.notify('error', t('notice.failed', { what, message: err && err.message ? phrase(err.message, t) : String(err) }));
      return { ok: false, error: err };
    }
  }

  /** After a panic: a fresh core instance, and the run rebuilt from its steps. */
  async recover(err) {
    if (this.recovering || this.closed) return;
    this.recovering = true;
    this.player.stop();
    const message = panicMessage() || (err && err.message) || String(err);
    this.notify('error', t('notice.core_crashed', { message }));
    try {
      // Another playground on the page may have loaded the fresh instance already.
      if (core().generation === this.generation) await loadCore();
      if (!this.closed) this.rebuild();
    } catch (fatal) {
      this.notify('error', t('notice.restart_failed', { message: fatal.message }));
    } finally {
      this.recovering = false;
    }
  }

  /** The run made again in the current core instance, at the same position. */
  rebuild() {
    const scenario = this.currentScenario();
    this.sim = null; // it lived in the dead instance
    // A link still being computed goes on (computeRun moves it to this core): this is the board shown meanwhile.
    const meanwhile = Boolean(this.building);
    try {
      this.loadScenario(scenario, { at: Math.min(this.position ?? scenario.steps.length, scenario.steps.length), meanwhile });
    } catch (again) {
      this.notify('error', t('notice.rebuild_failed', { message: again.message }));
      this.loadScenario({ ...scenario, steps: [] });
    }
  }

  currentScenario() {
    const s = { version: 1, config: { ...this.config }, steps: this.steps.slice() };
    if (this.name) s.name = this.name;
    if (this.description) s.description = this.description;
    return s;
  }

  defaultScenario() {
    return { version: 1, config: { ...this.facts().defaultConfig }, steps: [] };
  }

  /** What the core says of itself (its versions, limits, default config): the first frame's record of it until the core is there. */
  facts() {
    return this.sim && this.sim.snapshot ? this.sim.facts : core();
  }

  /** Is the run drawn from the first frame (first-frame.js), the core not there yet? */
  get onFrame() {
    return Boolean(this.sim && this.sim.snapshot);
  }

  /**
   * While the board is the first frame's, a click on a control or a form's
   * submit waits; once the run is in the core, `release()` gives each to it.
   * Moving along the timeline (keys, the event log) works on the frame.
   */
  holdUntilLive() {
    const held = [];
    const hold = (e) => {
      if (!this.onFrame) return;
      const target = e.type === 'submit' ? e.target : e.target.closest && e.target.closest('button');
      if (!target) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      if (!held.includes(target)) held.push(target);
    };
    for (const type of ['click', 'submit']) this.root.addEventListener(type, hold, true);
    return () => {
      for (const type of ['click', 'submit']) this.root.removeEventListener(type, hold, true);
      for (const target of held) {
        if (!target.isConnected || this.closed) continue;
        if (target instanceof HTMLFormElement) target.requestSubmit();
        else target.click();
      }
    };
  }

  /** Replaces the run (throws the core's error, leaving the current run as it was). */
  adopt(sim, { at } = {}) {
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
    if (this.sim) this.sim.free();
    this.sim = sim;
    this.generation = sim.snapshot ? 0 : core().generation;
    this.name = scenario.name || '';
    this.description = scenario.description || '';
    this.config = scenario.config;
    this.steps = scenario.steps;
    this.partition = this.wantedPartition < this.partitions ? this.wantedPartition : 0;
    this.trace = { lines, stepEnds };
    this.refusals = refusals;
    this.position = position;
    this.stepEventsCache.clear();
    this.positionCache.clear();
    this.timelineVersion += 1;
    this.follow = true;
    refreshStaticControls(this);
  }

  /** Adopts a new Simulation (or frees it if it cannot be adopted), then draws. */
  load(make, opts) {
    if (this.closed) return;
    // Another run asked for: a link still being computed gives way to it.
    if (!opts?.meanwhile) {
      this.building = null;
      this.awaitingQuorum = null;
    }
    let sim;
    try {
      sim = make(core().Simulation);
    } catch (err) {
      if (!needsQuorumCore(err)) throw err;
      // A run with controllers: made once the core with the quorum is here (the board keeps its run meanwhile).
      this.withQuorumCore(() => this.load(make, opts));
      return;
    }
    try {
      this.adopt(sim, opts);
    } catch (err) {
      sim.free();
      throw err;
    }
    this.draw();
  }

  loadScenario(scenario, opts) {
    this.load((Simulation) => Simulation.fromScenario(scenario), opts);
  }

  /**
   * Loads the core with the controller quorum (www/pkg-quorum), then runs
   * `retry` in it, unless another run was asked for meanwhile. What `retry`
   * throws is shown as a notice; the run shown stays.
   */
  withQuorumCore(retry) {
    const token = {};
    this.awaitingQuorum = token;
    // Said once it takes longer than a glance: the board stays as it was meanwhile.
    let note = null;
    const saying = setTimeout(() => {
      if (!this.closed && this.awaitingQuorum === token) note = this.notify('info', t('notice.loading_quorum_core'));
    }, QUORUM_NOTICE_DELAY_MS);
    const done = () => {
      clearTimeout(saying);
      if (note) note.remove();
    };
    ensureCore({ quorum: true }).then(() => {
      done();
      if (this.closed || this.awaitingQuorum !== token) return;
      this.awaitingQuorum = null;
      try {
        retry();
      } catch (err) {
        this.notify('error', t('notice.could_not_start', { message: err && err.message ? phrase(err.message, t) : String(err) }));
      }
    }, (err) => {
      done();
      if (this.closed || this.awaitingQuorum !== token) return;
      this.awaitingQuorum = null;
      this.notify('error', t('notice.quorum_core_failed', { message: err && err.message ? err.message : String(err) }));
    });
  }

  /**
   * Loads a link's run. The core computes it a slice at a time
   * (`SimulationBuild`, `computeRun`), and a run that takes longer than a
   * slice of the main thread goes on in later tasks: the page answers
   * meanwhile, a notice says how far it is (with Stop), and the run shown
   * stays until the new one is done (the empty run when there was none; the
   * address bar keeps the link). Resolves true once loaded, false when
   * stopped, removed or overtaken by another link; throws as `fromLink`
   * does for a link it refuses.
   */
  async loadLink(link, opts) {
    const sim = await this.computeRun((Simulation) => Simulation.buildLink(link));
    if (!sim) return false;
    try {
      this.adopt(sim, opts);
    } catch (err) {
      sim.free();
      throw err;
    }
    // The first draw of a long run is a task of its own too.
    await new Promise((resolve) => { setTimeout(resolve, 0); });
    if (this.closed) return false;
    this.draw();
    return true;
  }

  /**
   * A run computed in this task when it takes under a slice of the main
   * thread (the finished Simulation), else a promise of it, the rest
   * computed as `computeRun` does (null when stopped, removed or overtaken).
   * A tour's later part: short ones appear at once, long ones with the
   * progress and Stop. Throws what the build throws for what it refuses.
   */
  buildRun(makeBuild) {
    this.building = null; // another run asked for: one still being computed gives way to it
    let build;
    try {
      build = makeBuild(core().Simulation);
    } catch (err) {
      // A run with controllers: computed once the core with the quorum is here.
      if (needsQuorumCore(err)) return this.computeRun(makeBuild);
      throw err;
    }
    let handedOn = false; // then computeRun frees it
    try {
      const start = performance.now();
      let slice = BUILD_SLICE;
      for (;;) {
        const callStart = performance.now();
        if (build.run(slice)) return build.finish();
        const now = performance.now();
        slice = nextSlice(slice, now - callStart);
        if (now - start >= BUILD_SLICE_MS) {
          handedOn = true;
          return this.computeRun(makeBuild, { build, slice });
        }
      }
    } finally {
      if (!handedOn) build.free();
    }
  }

  /**
   * Computes a run a slice at a time, as `loadLink` does, without adopting
   * it: `makeBuild(Simulation)` gives the `SimulationBuild` (`buildLink`,
   * `buildScenario`), and `started` is one `buildRun` began with it. Resolves
   * the finished Simulation (the caller adopts or frees it), or null when
   * stopped, removed or overtaken by another run; throws what the build
   * throws for what it refuses. Another core loaded meanwhile (the full core,
   * for a view a reader opened; a core restarted after a failure) computes
   * the run again from the start in it, where the board then lives.
   */
  async computeRun(makeBuild, started = null) {
    if (this.closed) {
      if (started) started.build.free();
      return null;
    }
    const token = {};
    this.building = token;
    const goOn = async () => {
      await new Promise((resolve) => { setTimeout(resolve, 0); });
      return !this.closed && this.building === token;
    };
    let build = started ? started.build : null;
    let generation = core().generation;
    if (!build) {
      // In a task of its own: reading a long link is work too.
      if (!(await goOn())) return null;
      try {
        build = makeBuild(core().Simulation);
      } catch (err) {
        if (!needsQuorumCore(err)) {
          this.building = null;
          throw err;
        }
        // A run with controllers: the core with the quorum is loaded, and the run read again in it.
        try {
          await ensureCore({ quorum: true });
        } catch (failed) {
          if (this.building === token) this.building = null;
          throw new Error(t('notice.quorum_core_failed', { message: failed && failed.message ? failed.message : String(failed) }));
        }
        if (!(await goOn())) return null;
        try {
          build = makeBuild(core().Simulation);
        } catch (again) {
          this.building = null;
          throw again;
        }
      }
      generation = core().generation;
    }
    let note = null;
    let finished = false;
    try {
      // Reading it was this task's work: the run is computed from the next.
      if (!(await goOn())) return null;
      let sliceStart = performance.now();
      let slice = started ? started.slice : BUILD_SLICE;
      for (;;) {
        const callStart = performance.now();
        if (build.run(slice)) break;
        const now = performance.now();
        slice = nextSlice(slice, now - callStart);
        if (now - sliceStart < BUILD_SLICE_MS) continue;
        if (!(await goOn())) return null;
        if (core().generation !== generation && makeBuild) {
          // Another core came: the run is computed in it, from the start.
          const old = build;
          build = null;
          freeBuild(old);
          build = makeBuild(core().Simulation);
          generation = core().generation;
          slice = BUILD_SLICE;
          // Reading it again was this task's work.
          if (!(await goOn())) return null;
        }
        if (!this.sim) {
          // A board to show meanwhile (its first draw is a task of its own).
          this.loadScenario(this.defaultScenario(), { meanwhile: true });
          if (!(await goOn())) return null;
        }
        note ??= this.notify('info', '', {
          timeoutMs: BUILD_NOTICE_MS,
          action: { label: t('notice.stop_computing'), run: () => { if (this.building === token) this.building = null; } },
        });
        note.querySelector('.notice-text').textContent = t('notice.computing', { done: build.stepsDone(), total: build.stepsTotal() });
        sliceStart = performance.now();
      }
      this.building = null;
      const sim = build.finish();
      finished = true;
      return sim;
    } finally {
      const stopped = !finished && (this.building === token || this.building === null);
      if (this.building === token) this.building = null;
      if (build) freeBuild(build);
      if (note) note.remove();
      // Stopped (or refused) with the board shown meanwhile: it is now the run, ready and in the address.
      if (stopped && !this.closed && this.sim && !this.firstDrawn) this.draw();
    }
  }

  /**
   * Free play on the page: after an action, the broker the hint speaks of
   * ("press Fetch on broker 2") comes into view, the page scrolling up by
   * what is missing but never past the hint itself.
   */
  keepHintInView() {
    const hint = this.view && this.view.hint;
    if (!this.address || this.tour || !hint || !Number.isInteger(hint.broker)) return;
    const row = this.root.querySelector(`.layout .broker-row[data-broker="${hint.broker}"]`);
    const said = this.root.querySelector('[data-testid="hint"]');
    if (!row || !said || !said.offsetParent) return;
    bringIntoView(row.getBoundingClientRect().bottom, said.getBoundingClientRect().top);
  }

  /** Keeps the run as it is now for the Undo of a notice. */
  keepForUndo() {
    if (this.sim) this.undo = { scenario: this.currentScenario(), position: this.sim.position() };
  }

  restoreUndo() {
    const u = this.undo;
    if (!u) return;
    this.undo = null;
    this.player.stop();
    try {
      this.loadScenario(u.scenario, { at: u.position });
    } catch (err) {
      this.notify('error', t('notice.undo_failed', { message: err.message }));
    }
  }

  /** The Undo button of a notice. */
  undoAction() {
    return { action: { label: t('notice.undo'), run: () => this.restoreUndo() } };
  }

  /** Per broker, its latest registration_refused event up to `position`. */
  refusalsAt(position) {
    const latest = new Map();
    for (const e of this.refusals) if (e.step <= position) latest.set(e.broker, e);
    return latest;
  }

  /** A step's events for captions and animation: its last STEP_EVENTS_SHOWN
   *  (a step of a long timed run can cause hundreds of thousands). */
  stepEvents(position) {
    if (position < 1) return [];
    if (!this.stepEventsCache.has(position)) {
      if (this.stepEventsCache.size > 64) this.stepEventsCache.clear();
      this.stepEventsCache.set(position, this.sim.stepEvents(position, STEP_EVENTS_SHOWN));
    }
    return this.stepEventsCache.get(position);
  }

  /** `make()` once per position and key, until the timeline changes. */
  atPosition(key, make) {
    const k = `${this.position}|${key}`;
    if (!this.positionCache.has(k)) {
      if (this.positionCache.size > 64) this.positionCache.clear();
      this.positionCache.set(k, make());
    }
    return this.positionCache.get(k);
  }

  /**
   * The metrics over the whole run (`operatorSeries`), computed once per
   * timeline: it replays the run. Null when the core cannot (a notice says so).
   */
  operatorSeries() {
    // A precomputed first frame stands in until the core is live: no chart yet.
    if (!this.sim.operatorSeries) return null;
    if (this.series && this.series.version === this.timelineVersion && this.series.sim === this.sim) return this.series.value;
    const r = this.guarded(t('notice.could_not_chart'), () => this.sim.operatorSeries(SERIES_POINTS));
    this.series = { version: this.timelineVersion, sim: this.sim, value: r.ok ? r.value : null };
    return this.series.value;
  }

  /** How many events step `position` caused (its trace lines). */
  stepEventCount(position) {
    const ends = this.trace.stepEnds;
    return position < 1 ? 0 : ends[position - 1] - (position > 1 ? ends[position - 2] : 0);
  }

  // ---------------------------------------------------------------- actions

  /** Applies one step at the current position. Returns true if the core took it. */
  apply(step, { animate = true } = {}) {
    this.building = null; // a step taken on the run shown: a link still being computed gives way
    this.awaitingQuorum = null; // and so does a run waiting for the quorum's core
    const sim = this.sim;
    const position = sim.position();
    const future = sim.length() - position;
    // The run's own next step: moving forward is the same, and keeps what follows.
    if (future && stepKey(step) === stepKey(this.steps[position])) return this.seek(position + 1, { animate });
    const before = future ? this.currentScenario() : null;
    const r = this.guarded(t('notice.could_not_step', { step: describeStep(step) }), () => sim.apply(step, STEP_EVENTS_SHOWN));
    if (!r.ok) return false;
    const events = r.value;
    const trace = this.trace;
    trace.lines.length = position ? trace.stepEnds[position - 1] : 0;
    trace.stepEnds.length = position;
    const text = sim.stepText(position + 1);
    if (text) for (const line of text.slice(0, -1).split('\n')) trace.lines.push(line);
    trace.stepEnds.push(trace.lines.length);
    this.refusals = sim.registrationRefusals();
    this.steps.length = position;
    this.steps.push(step);
    this.position = position + 1;
    this.stepEventsCache.clear();
    this.positionCache.clear();
    this.timelineVersion += 1;
    this.stepEventsCache.set(this.position, events);
    if (future) {
      this.undo = { scenario: before, position };
      this.notify('info', t('notice.replaced', { count: future }), this.undoAction());
    }
    for (const e of events) if (e.type === 'step_rejected') this.notify('warn', t('notice.not_possible', { reason: phrase(e.reason, t) }), { timeoutMs: 5000 });
    const stopped = events.find((e) => e.type === 'budget_exceeded');
    if (stopped) {
      this.player.stop();
      this.player.stopClock();
      this.notify('warn', t('notice.stopped', { step: this.position, message: language() === 'en' ? stopped.line.replace(/^.*?#\S+\s+/, '') : eventText(stopped, t) }));
    }
    updateProducePlaceholder(this);
    this.draw({ events: animate ? events : null });
    this.keepHintInView();
    return true;
  }

  seek(position, { animate = false } = {}) {
    const sim = this.sim;
    const target = Math.max(0, Math.min(position, sim.length()));
    if (target === sim.position()) return true;
    const r = this.guarded(t('notice.could_not_seek'), () => sim.seek(target));
    if (!r.ok) return false;
    this.position = target;
    this.draw({ events: animate ? this.stepEvents(target) : null });
    return true;
  }

  /** Forward one recorded step. At the end nothing is added: the run changes only by an action. */
  stepForward() {
    const sim = this.sim;
    if (sim.position() >= sim.length()) return false;
    return this.seek(sim.position() + 1, { animate: true });
  }

  stepBack() {
    return this.seek(this.sim.position() - 1);
  }

  /**
   * Do records carry their leader epoch under this version? From the version
   * that brought KIP-101's OffsetsForLeaderEpoch on (0.11, message format v2),
   * whatever later rules replaced it with.
   */
  recordsCarryEpochs(protocol) {
    return recordsCarryEpochs(this.facts().versions, protocol);
  }

  // ---------------------------------------------------------------- drawing

  /**
   * How many offsets fit the records' track. Its width comes from the last
   * ResizeObserver report (controls.js), so that a step reads no layout; only
   * a draw before the first report measures it there and then.
   */
  /**
   * How many offsets the track shows. Before the first draw there is no
   * track to read: the window's width stands in for it (no layout forced
   * before the board is written), and the track is read once it is drawn.
   */
  measureWindow({ guess = false } = {}) {
    const width = this.trackWidth || (guess ? this.guessTrackWidth() : this.readTrackWidth());
    const cell = CELL_WIDTH[this.zoom] || CELL_WIDTH.normal;
    return Math.max(3, Math.min(400, Math.floor((width - 30) / cell)));
  }

  /** The track's width as laid out (a layout read: ResizeObserver's callback and the first draw call it). */
  readTrackWidth() {
    const host = this.$('cluster');
    const track = host.querySelector('.ruler');
    const width = track ? track.clientWidth : 0;
    if (width) return width;
    const w = host.clientWidth || 600;
    return w > 720 ? w - 250 : w - 16;
  }

  /**
   * The track's width from the viewport's, as readTrackWidth's rule would
   * take it, without a layout: the width read before the markup was written
   * (reading `innerWidth` now would lay out the new markup there and then).
   */
  guessTrackWidth() {
    const vw = this.viewportWidth;
    const w = Math.min(vw, 1560) - (vw > 720 ? 40 : 20);
    return w > 720 ? w - 250 : w - 16;
  }

  /** Redraws from the core's state; a failure of the core while drawing is recovered from. */
  draw(opts = {}) {
    if (!this.sim || this.closed) return;
    this.enter();
    if (!this.onFrame && this.generation !== core().generation) {
      // The core was restarted (after a panic in another playground): this run lived in the old instance.
      this.rebuild();
      return;
    }
    try {
      this.drawNow(opts);
    } catch (err) {
      if (isCrash(err)) this.recover(err);
      else this.notify('error', t('notice.could_not_draw', { message: err && err.message ? err.message : String(err) }));
    }
  }

  drawNow({ events = null } = {}) {
    const sim = this.sim;
    const $ = (id) => this.$(id);
    const position = sim.position();
    this.position = position;
    this.windowCount = this.measureWindow({ guess: !this.drawnOnce && !this.redrawing });
    // The window first (one small call), then the state in it (one call).
    const maxLeo = sim.logEnd(this.partition);
    this.windowStart = this.follow ? Math.max(0, maxLeo + 1 - this.windowCount) : Math.min(this.windowStart, Math.max(0, maxLeo));
    const state = sim.state(this.windowStart, this.windowCount, this.partition);
    // A topic's board is drawn with its map above it, never without: the
    // map's code loads first (else the board would move down when it came).
    if (state.partitions && !this.clusterMap && !this.clusterMapFailed) {
      this.loadClusterMap();
      return;
    }
    // So is a board with a controller quorum: its rows' code first.
    if (state.quorum && !this.quorumRows && !this.quorumRowsFailed) {
      this.loadQuorumRows();
      return;
    }
    this.state = state;
    this.violationCount = state.violations.length;
    const tour = this.tour;
    const view = {
      windowStart: this.windowStart,
      windowCount: this.windowCount,
      partition: this.partition,
      cluster: this.partitions > 1,
      dense: this.zoom === 'dense',
      stepEvents: this.stepEvents(position),
      stepEventCount: this.stepEventCount(position),
      // Records carry their leader epoch from 0.11 (message format v2, KIP-101):
      // before, cells are drawn without one.
      recordEpochs: this.recordsCarryEpochs(state.protocol),
      quorum: this.quorumRows,
      quorumOpen: this.quorumOpen,
      compact: this.compact,
      step: position ? this.steps[position - 1] : null,
      position,
      length: sim.length(),
      refusals: this.refusalsAt(position),
      // A hint at the end of a run, where an action is what comes next (a tour gives its own).
      hint: !tour && position === sim.length() && !state.stopped ? hintFor(state, this.config) : null,
      emptyEmbed: this.compact && !tour && sim.length() === 0,
      // The producer list's scroll and height (a long list draws the rows there).
      producerTop: this.producerTop || 0,
      producerHeight: this.producerHeight || 260,
    };
    this.view = view;
    const out = render(state, view);
    const cluster = $('cluster');
    if (cluster.dataset.zoom !== this.zoom) cluster.dataset.zoom = this.zoom;
    cancelAnimations(cluster.firstElementChild);
    this.drawClusterMap(state);
    patch($('banner'), out.banner);
    patch($('caption'), out.caption);
    // A broker's control that the step took away (Power loss on a broker now
    // down): the focus goes to that broker's Crash or Restart, not the page.
    const focused = this.root.activeElement;
    const focusedBroker = focused && cluster.contains(focused) ? focused.dataset.broker : undefined;
    patch(cluster, out.cluster);
    if (focusedBroker !== undefined && !focused.isConnected) {
      const row = cluster.querySelector(`.broker-row[data-broker="${focusedBroker}"]`);
      const next = row && (row.querySelector('.broker-actions > button[data-action="crash"], .broker-actions > button[data-action="restart"]') || row.querySelector('button'));
      if (next) next.focus({ preventScroll: true });
    }
    patch($('legend'), out.legend);
    if (!this.compact) {
      patch($('producer'), out.producer);
      patch($('consumer'), out.consumer);
      if (this.shows('network')) patch($('network'), out.network);
      if (this.shows('operator')) this.drawOperator();
    }
    // Until ResizeObserver has reported the track (the first draw), the window
    // may need another size once the track exists at its real width.
    const ruler = cluster.querySelector('.ruler');
    if (ruler && this.sizes && ruler !== this.observedRuler) {
      this.observedRuler = ruler;
      this.sizes.observe(ruler);
    }
    if (!this.trackWidth) {
      // The one layout read of a first draw: the track as drawn (ResizeObserver reports it from then on).
      if (ruler) this.trackWidth = this.readTrackWidth();
      const count = this.measureWindow();
      if (count !== this.windowCount && !this.redrawing) {
        this.redrawing = true;
        try {
          this.drawNow({ events });
        } finally {
          this.redrawing = false;
        }
        return;
      }
    }
    // Every write first (the board, the panels, the diagram), then what needs
    // the layout (the log's scroll, the diagram's, the messages' places):
    // one layout per draw, not one per part.
    this.drawHead();
    this.player.drawPlayer(view);
    this.drawLogWindow(maxLeo);
    if (this.shows('events')) this.drawEventLog();
    if (this.forkView && !this.onFrame) this.forkView.draw();
    if (this.diagram && this.shows('diagram') && !this.onFrame) this.diagram.draw();
    if (tour) tour.positionChanged();
    if (this.writer) this.writer.positionChanged();
    if (!this.compact) {
      if (this.shows('events')) this.$('event-log').scrollTop = 1e9; // follow the current step: the log ends with it
      // The producer list's scroll, now that the layout is done: a new run may have moved it.
      const list = $('producer');
      if (list.scrollTop !== view.producerTop) {
        this.producerTop = list.scrollTop;
        this.producerHeight = list.clientHeight;
        requestAnimationFrame(() => this.drawProducer());
      }
    }
    if (this.diagram && this.diagram.scroll && this.shows('diagram') && !this.onFrame) this.diagram.scroll();
    this.keepRoom('caption');
    if (!this.compact) this.keepRoom('consumer');
    // The address after the frame (not while a link is computed: the address
    // keeps it, and a reload opens it again).
    if (this.address && !this.onFrame && !this.building) this.address.scheduleHash();
    drawInFlight(cluster.firstElementChild, inFlightShown(state, this.partition), endpoints);
    if (events && events.length && !reducedMotion.matches) {
      // While the clock runs, a tick's messages fit in about one tick; a recorded step gets its full time.
      // A recorded step at most STEP_MS at 1x (a timed step's many fetches overlap to fit).
      const budgetMs = this.player.clockRunning && this.player.tickingClock ? PLAY_TICK_MS * 1.5 : STEP_MS / this.player.speed();
      this.animation = animateStep(cluster.firstElementChild, events, { perMessageMs: this.player.perMessageMs(), budgetMs, afterFirstPaint: true });
    } else {
      this.animation = null;
    }
    this.report(view);
    // Which control of each toolbar is its Tab stop, once this draw is laid
    // out (a group opened, lesson mode hid a control).
    this.refreshToolbarsSoon();
    if (!this.drawnOnce) {
      this.drawnOnce = true;
      this.reveal();
    }
    this.markReady();
  }

  /**
   * The element keeps the tallest height this run has given it (its
   * min-height), up to ROOM_SLACK_PX more than its content needs now: the
   * caption, so that a step with fewer notes does not pull the board up
   * under the reader's pointer and the next step push it down again; the
   * consumer's list of readable records, so that the panels under it stay.
   * Each such move made the page repaint whole (every tile of the page's
   * layer rastered again; docs/performance.md). Past the slack (a step of
   * many notes, then one of none) the board moves, rather than keep a gap.
   * Another run, width, language or zoom starts again. Read after the
   * draw's layout.
   */
  keepRoom(id) {
    const el = this.$(id);
    const key = `${this.trackWidth}|${this.lang}|${this.zoom}|${this.compact}`;
    let room = this.rooms.get(id);
    if (!room || room.sim !== this.sim || room.key !== key) {
      el.style.minHeight = '';
      room = { sim: this.sim, key, tallest: 0, min: 0 };
      this.rooms.set(id, room);
    }
    // What the content needs, fractional as laid out (a board moved by a part of a pixel is painted again whole too).
    const top = el.getBoundingClientRect().top;
    let needs = 0;
    for (const child of el.children) needs = Math.max(needs, child.getBoundingClientRect().bottom - top);
    room.tallest = Math.max(room.tallest, needs);
    const min = Math.min(room.tallest, needs + ROOM_SLACK_PX);
    if (min !== room.min) {
      room.min = min;
      el.style.minHeight = `${min}px`;
    }
  }

  /**
   * Drawn from the first frame: `data-ready="frame"`; from the core (the
   * controls work): "true", and the event `highwater-ready`. Not while the
   * first draw is held hidden (`holdReveal`: a tour's panel on its way):
   * the board drawn then is not the one shown, and a host page keeps the
   * element's room until `data-ready` (docs/embedding.md).
   */
  markReady() {
    if (this.revealHeld) return;
    if (this.onFrame) {
      this.host.dataset.ready = 'frame';
    } else if (!this.firstDrawn && !this.building) {
      this.firstDrawn = true;
      this.$('app').setAttribute('aria-busy', 'false');
      this.host.dataset.ready = 'true';
      this.host.dispatchEvent(new CustomEvent('highwater-ready', { bubbles: true, composed: true }));
    }
  }

  /**
   * Which control of each toolbar is its Tab stop, read in the next frame,
   * where the layout is due anyway: read now, it would lay out what was just
   * written there and then.
   */
  refreshToolbarsSoon() {
    if (!this.refreshToolbars || this.toolbarsPending) return;
    this.toolbarsPending = true;
    requestAnimationFrame(() => { this.toolbarsPending = false; if (!this.closed) this.refreshToolbars(); });
  }

  /** The producer list alone, once it scrolled: the rows now in view. */
  /**
   * The cluster map above the board, for a topic of several partitions: its
   * code is loaded the first time one is shown (a topic of one partition
   * loads none of it), then drawn from the state at once on every draw.
   */
  drawClusterMap(state) {
    const host = this.$('cluster-map');
    if (!state.partitions) {
      if (!host.hidden) {
        host.hidden = true;
        patch(host, []);
      }
      return;
    }
    host.hidden = false;
    if (this.clusterMap) {
      patch(host, this.clusterMap.renderClusterMap(state, { selected: this.partition, open: this.mapOpen }));
      return;
    }
    this.loadClusterMap();
  }

  /**
   * Whether the views a reader opens by choice (the fork, the space-time
   * diagram, the operator's view) can be computed now: they are in the full
   * core only (core.js). When they cannot, the full core is asked for (once)
   * and the run made again in it; this playground is then drawn again. A
   * load that failed is not tried again at every step: the view says why.
   */
  viewsReady() {
    if (this.onFrame || core().views) return true;
    if (!this.viewsLoading && !this.viewsFailed) {
      this.viewsLoading = this.useViews().catch((err) => {
        if (this.closed) return;
        this.viewsFailed = t('notice.failed', { what: t('page.core_failed'), message: err && err.message ? err.message : String(err) });
        this.notify('error', this.viewsFailed);
        this.draw();
      }).finally(() => { this.viewsLoading = null; });
    }
    return false;
  }

  /** What a view shows while it cannot be computed: "Loading…", or why the full core did not come. */
  viewsWaiting() {
    return this.viewsFailed || t('page.loading');
  }

  /**
   * The full core, loaded if it is not the one here, and the run made again
   * in it (and drawn); resolves false when this playground was removed
   * meanwhile. A fork's two runs must live in one instance of the core.
   */
  async useViews() {
    if (!core().views) await ensureCore({ views: true });
    if (this.closed) return false;
    // Made again in the full core, and drawn (a view that waited for it draws now).
    if (!this.onFrame && this.sim && this.generation !== core().generation) {
      this.enter();
      this.rebuild();
    }
    return true;
  }

  /** The operator's view; its drawing code loads the first time the panel is shown. */
  drawOperator() {
    if (!this.viewsReady()) {
      // The full core on its way (or not coming): said in the panel until the view comes.
      patch(this.$('operator'), h('p', {}, this.viewsWaiting()));
      return;
    }
    if (this.operatorView) {
      const view = this.atPosition('operator', () => this.sim.operator());
      patch(this.$('operator'), this.operatorView.renderOperator(view, this.operatorSeries(), this.position, this.describeOption));
      return;
    }
    if (this.operatorLoading) return;
    this.operatorLoading = import('../draw/operator.js').then((module) => {
      this.operatorView = module;
      if (!this.closed) this.draw();
    }, (err) => {
      this.operatorLoading = null;
      this.notify('error', t('notice.failed', { what: t('operator.title'), message: err.message }));
    });
  }

  /** The map's code and style sheet, loaded once; then the page is drawn (without the map if they could not be). */
  loadClusterMap() {
    this.loadBoardPart('clusterMap', 'map.title', () => Promise.all([import('../draw/cluster-map.js'), styleSheet(new URL('../draw/cluster-map.css', import.meta.url))]));
  }

  /** The quorum rows' code and style sheet, loaded once, as the map's are (a scenario without controllers loads neither). */
  loadQuorumRows() {
    this.loadBoardPart('quorumRows', 'quorum.label', () => Promise.all([import('../draw/quorum.js'), styleSheet(new URL('../draw/quorum.css', import.meta.url))]));
  }

  /**
   * A part of the board whose code loads on first use: `this[name]` once
   * loaded, `this[name + 'Loading']` meanwhile, `this[name + 'Failed']` if
   * it could not be (said, named by the key `what`); the page is drawn again
   * either way.
   */
  loadBoardPart(name, what, load) {
    if (this[`${name}Loading`]) return;
    this[`${name}Loading`] = load().then(([module, sheet]) => {
      adopt(this.root, sheet);
      this[name] = module;
      if (!this.closed) this.draw();
    }, (err) => {
      this[`${name}Loading`] = null;
      this[`${name}Failed`] = true;
      this.notify('error', t('notice.failed', { what: t(what), message: err.message }));
      if (!this.closed) this.draw();
    });
  }

  drawProducer() {
    if (!this.state || !this.view || this.closed || this.compact) return;
    this.enter();
    patch(this.$('producer'), renderProducer(this.state, { ...this.view, producerTop: this.producerTop, producerHeight: this.producerHeight }));
  }

  /** Tells the host page where the run is: a `highwater-position` event when the step or the run changes. */
  report(view) {
    const key = `${view.position}/${view.length}/${this.name}`;
    if (key === this.lastReported) return;
    this.lastReported = key;
    this.host.dispatchEvent(new CustomEvent('highwater-position', {
      bubbles: true,
      composed: true,
      detail: { position: view.position, length: view.length, scenario: this.name, stopped: Boolean(this.state && this.state.stopped), violations: this.violationCount },
    }));
  }

  /**
   * The scenario's name and description in the page's language (a user's own
   * as written, its unseen characters written out), and the gallery entry
   * they are from (null for a tour or a run of the user's own).
   */
  scenarioTitle() {
    const tour = this.tour;
    const entry = tour ? null : galleryEntryNamed(this.gallery, this.name, { description: this.description, config: this.config });
    const name = tour ? visible(tour.labelledTitle()) : entry ? galleryText(entry, 'name') : visible(this.name);
    const description = tour ? '' : entry ? galleryText(entry, 'description') : visible(this.description);
    return { name, description, entry };
  }

  /**
   * A head naming a gallery entry that the first draw did not wait for the
   * gallery's words for (a link to a gallery scenario): drawn again once they
   * are in. Asked for once a language; not to be had, the head keeps
   * gallery.json's English.
   */
  headWords() {
    const code = this.lang;
    if (code === 'en' || hasBundle('gallery', code) || this.headWordsAsked === code) return;
    this.headWordsAsked = code;
    galleryWords(code).then(() => {
      if (this.closed || !this.sim || this.lang !== code) return;
      this.enter();
      this.drawHead();
    }, () => {});
  }

  drawHead() {
    if (this.closed) return;
    const $ = (id) => this.$(id);
    const { name, description, entry } = this.scenarioTitle();
    if (entry) this.headWords();
    setText($('scenario-name'), name || t('page.your_run'));
    setText($('embed-name'), name ? `· ${name}` : '');
    setText($('scenario-description'), description || (this.steps.length ? '' : t('page.empty_description')));
    if (this.address) this.address.drawTitle(name);
    // The empty page offers the first tour.
    const offer = !this.tour && !this.steps.length && !this.compact;
    $('onboard').hidden = !offer;
    if (offer && this.firstTour) {
      patch($('onboard'), [
        h('button', { type: 'button', class: 'primary', key: 'b', 'data-start-tour': this.firstTour }, t('onboard.start', { title: t(`tours.${this.firstTour}.title`) })),
        h('span', { class: 'muted', key: 's' }, ` ${t('onboard.or')}`),
      ]);
    }
  }

  drawLogWindow(maxLeo) {
    const $ = (id) => this.$(id);
    const box = $('log-window');
    const needed = maxLeo + 1 > this.windowCount;
    box.hidden = !needed;
    if (!needed) return;
    const s = $('win-start');
    const max = Math.max(0, maxLeo + 1 - this.windowCount);
    s.max = String(max);
    s.value = String(this.windowStart);
    setText($('win-label'), t('logwindow.label', { first: this.windowStart, last: this.windowStart + this.windowCount - 1, max: maxLeo }));
    $('win-end').disabled = this.follow;
  }

  drawEventLog() {
    if (this.compact) return; // the compact sizes show no event log
    const log = this.$('event-log');
    const tr = this.trace;
    const count = this.position ? tr.stepEnds[this.position - 1] : 0;
    const currentFrom = this.position > 1 ? tr.stepEnds[this.position - 2] : 0;
    const text = this.lineTexts(Math.max(0, count - LOG_LINES_SHOWN), count);
    patch(log, renderEventLog({ lines: tr.lines, count, stepOf: (i) => this.stepOfLine(i), currentFrom, text }));
  }

  /**
   * What trace lines from..to say in the page's language: the core's English
   * lines as they are, or the same typed events rendered from the locale.
   */
  lineTexts(from, to) {
    const lines = this.trace.lines;
    if (language() === 'en' || to <= from) return (i) => lines[i];
    const r = this.guarded(t('notice.could_not_trace'), () => this.atPosition(`events ${from}-${to}`, () => this.sim.eventsIn(from, to)));
    if (!r.ok) return (i) => lines[i];
    const events = r.value;
    return (i) => {
      const e = events[i - from];
      return e ? eventLine(e, t) : lines[i];
    };
  }

  stepOfLine(i) {
    // stepEnds is sorted: the first step whose end is past line i.
    const ends = this.trace.stepEnds;
    let lo = 0;
    let hi = ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid] > i) hi = mid;
      else lo = mid + 1;
    }
    return lo + 1;
  }
}

// The player: Play/Pause over the recorded steps, "Run the clock", the
// timeline's buttons and slider, and the keyboard. Play never adds a step;
// the clock is its own control, which does.

import { t, num } from '../words/i18n.js';
import { verdict } from '../words/describe.js';
import { setText } from '../draw/dom.js';

export const PLAY_TICK_MS = 200; // one clock step every tick while the clock runs

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class Player {
  constructor(pg) {
    this.pg = pg;
    this.playing = false;
    this.playUntil = null; // a tour's next stop: Play pauses there
    this.playToken = 0;
    this.clockRunning = false;
    this.clockToken = 0;
    this.tickingClock = false;
    this.pausedNotice = null; // { note, position, version }: the notice of the step Play or the clock paused at
  }

  speed() {
    return Number(this.pg.$('speed').value) || 1;
  }

  perMessageMs() {
    return Math.max(120, Math.min(900, 650 / this.speed()));
  }

  advanceIncrementMs() {
    return Math.max(1, Math.round(PLAY_TICK_MS * this.speed()));
  }

  /**
   * Plays the recorded steps from here (from the start when at the end), one
   * at a time with its animation. It stops at the end of the run, at the step
   * where a guarantee breaks, and at a tour's next stop; it never adds a step.
   */
  play(until = undefined) {
    const pg = this.pg;
    if (this.playing || pg.closed || !pg.sim || !pg.sim.length()) return;
    this.stopClock();
    if (pg.sim.position() >= pg.sim.length() && !pg.tour) pg.seek(0);
    this.playUntil = until !== undefined ? until : pg.tour ? pg.tour.playLimit() : null;
    if (this.playUntil !== null && pg.sim.position() >= this.playUntil) return;
    this.playing = true;
    const token = ++this.playToken;
    this.updateButtons();
    (async () => {
      while (this.playing && token === this.playToken) {
        const before = pg.sim.position();
        if (before >= pg.sim.length() || (this.playUntil !== null && before >= this.playUntil)) break;
        if (!pg.stepForward()) break;
        const position = pg.sim.position();
        if (this.pauseAt(position, (pg.state.violations || []).filter((v) => v.step === position))) break;
        await (pg.animation || Promise.resolve());
        // Stopped meanwhile (or the element removed, its run freed): nothing more to do.
        if (!this.playing || token !== this.playToken || pg.closed) return;
        if (pg.sim.position() < pg.sim.length()) await sleep(Math.max(150, 500 / this.speed()));
      }
      if (token === this.playToken && !pg.closed) this.stop();
    })();
  }

  stop() {
    const was = this.playing;
    this.playing = false;
    this.playToken++;
    this.updateButtons();
    if (was && this.pg.address) this.pg.address.scheduleHash();
  }

  togglePlay() {
    if (this.playing) this.stop();
    else this.play();
  }

  /**
   * "Run the clock": adds a clock step every tick (timed mode lets the
   * followers fetch on their own meanwhile) until it is stopped, the run
   * stops at a budget, or a guarantee breaks.
   */
  toggleClock() {
    if (this.clockRunning) this.stopClock();
    else this.startClock();
  }

  startClock() {
    const pg = this.pg;
    this.stop();
    this.clockRunning = true;
    const token = ++this.clockToken;
    this.updateButtons();
    (async () => {
      while (this.clockRunning && token === this.clockToken && !pg.closed) {
        const violations = pg.violationCount || 0;
        this.tickingClock = true;
        const ok = pg.apply({ advance_ms: this.advanceIncrementMs() });
        this.tickingClock = false;
        if (!ok || (pg.state && pg.state.stopped)) break;
        if ((pg.violationCount || 0) > violations && this.pauseAt(pg.sim.position(), pg.state.violations.slice(violations))) break;
        await Promise.all([pg.animation, sleep(PLAY_TICK_MS)]);
      }
      if (token === this.clockToken && !pg.closed) this.stopClock();
    })();
  }

  /**
   * Play and the clock pause where something is lost, and say what: "broke
   * a guarantee" only where Kafka promised otherwise (a protocol
   * violation); a loss a setting allows (acks=1, unclean election) names
   * that setting. Pausing there too keeps the moment in view, with its
   * amber banner. True when it paused. At a tour's stop it pauses without
   * a notice: the tour's caption speaks there. The notice goes once the run shows
   * another step, or another run (`dropPausedNotice`).
   */
  pauseAt(position, violations) {
    if (!violations.length) return false;
    const pg = this.pg;
    // A tour's own stop: its caption says what happened there.
    if (pg.tour && this.playUntil === position) return true;
    const verdicts = violations.map(verdict);
    const allowed = verdicts.every((v) => v.kind !== 'protocol') ? verdicts[0] : null;
    const text = allowed
      ? t('notice.paused_allowed', { step: position, setting: allowed.setting })
      : t('notice.paused_violation', { step: position });
    this.dropPausedNotice(null);
    const note = pg.notify('warn', text, { timeoutMs: 6000 });
    if (note) {
      note.dataset.paused = allowed ? allowed.kind : 'protocol';
      this.pausedNotice = { note, position, version: pg.timelineVersion };
    }
    return true;
  }

  /** Removes the pause notice unless the view is still at its step of the same run (null: always). */
  dropPausedNotice(view) {
    const p = this.pausedNotice;
    if (!p) return;
    if (view && view.position === p.position && this.pg.timelineVersion === p.version) return;
    p.note.remove();
    this.pausedNotice = null;
  }

  stopClock() {
    const was = this.clockRunning;
    this.clockRunning = false;
    this.clockToken++;
    this.updateButtons();
    if (was && this.pg.address) this.pg.address.scheduleHash();
  }

  /** The Play and clock buttons' state and words. */
  updateButtons() {
    const b = this.pg.$('btn-play');
    if (b) {
      b.classList.toggle('playing', this.playing);
      const label = this.playing ? t('player.pause') : t('player.play');
      b.setAttribute('aria-label', label);
      b.setAttribute('aria-pressed', String(this.playing));
      b.title = label;
    }
    const c = this.pg.$('btn-clock');
    if (c) {
      c.setAttribute('aria-pressed', String(Boolean(this.clockRunning)));
      c.textContent = this.clockRunning ? t('toolbar.clock_stop') : t('toolbar.clock_run');
    }
  }

  drawPlayer(view) {
    this.dropPausedNotice(view);
    const $ = (id) => this.pg.$(id);
    const slider = $('timeline');
    slider.max = String(view.length);
    slider.disabled = view.length === 0; // nothing to move along yet
    slider.value = String(view.position);
    slider.setAttribute('aria-valuetext', t('player.valuetext', { n: view.position, length: view.length }));
    setText($('position'), `${num(view.position)} / ${num(view.length)}`);
    $('btn-back').disabled = view.position === 0;
    $('btn-forward').disabled = view.position >= view.length;
    $('btn-start').disabled = view.position === 0;
    // An empty run has nothing to play: Play is neither the primary action nor pressable then.
    $('btn-play').disabled = view.length === 0 && !this.playing;
    $('btn-play').classList.toggle('idle', view.length === 0);
    // Nor anything to reset: the run is already empty, with these settings.
    $('btn-reset').disabled = view.length === 0;
    // Until the run has a step, the timeline and its buttons keep their place
    // but are not drawn: a first visit sees Play, the speed and 0 / 0.
    slider.closest('.player').classList.toggle('empty', view.length === 0);
  }

  wire() {
    const pg = this.pg;
    const $ = (id) => pg.$(id);
    $('btn-play').addEventListener('click', () => this.togglePlay());
    $('btn-forward').addEventListener('click', () => { this.stop(); pg.stepForward(); });
    $('btn-back').addEventListener('click', () => { this.stop(); pg.stepBack(); });
    $('btn-start').addEventListener('click', () => { this.stop(); pg.seek(0); });
    $('timeline').addEventListener('input', (e) => { this.stop(); pg.seek(Number(e.target.value)); });
    $('btn-clock').addEventListener('click', () => this.toggleClock());
  }

  /**
   * Keyboard shortcuts: Space plays, arrows step, Home/End jump, ? helps.
   * `e.composedPath()[0]` is the real target inside the shadow root.
   */
  onKey(e) {
    const pg = this.pg;
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || !pg.sim) return;
    if (pg.root.querySelector('dialog[open]')) return;
    const target = e.composedPath()[0];
    const tag = target && target.tagName;
    const typing = tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || (target && target.isContentEditable);
    if (e.key === '?' && !typing && !pg.compact) {
      e.preventDefault();
      pg.$('help').togglePopover();
      return;
    }
    if (typing) return;
    if (e.key === ' ' || e.code === 'Space') {
      if (tag === 'BUTTON' || tag === 'SUMMARY' || tag === 'A') return; // Space activates the focused control
      e.preventDefault();
      this.togglePlay();
    } else if (e.key === 'ArrowRight') {
      e.preventDefault();
      this.stop();
      pg.stepForward();
    } else if (e.key === 'ArrowLeft') {
      e.preventDefault();
      this.stop();
      pg.stepBack();
    } else if (e.key === 'Home') {
      e.preventDefault();
      this.stop();
      pg.seek(0);
    } else if (e.key === 'End') {
      e.preventDefault();
      this.stop();
      pg.seek(pg.sim.length());
    }
  }
}

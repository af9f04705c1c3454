// What if…: fork the run with one change (the core's forkScenario: a version
// preset, the acks of one write or all, min ISR, unclean election, lag time,
// idempotence, one step replaced) and show the original and the fork side by
// side on the one timeline, every difference the core finds marked
// (compare.js). The fork is in the link: `&fork=<change>` (docs/fork.md).

import { core, isCrash } from '../core.js';
import { h, patch } from '../draw/dom.js';
import { t } from '../words/i18n.js';
import { describeStep } from '../words/describe.js';
import { phrase } from '../words/event-text.js';
import { excerpt } from '../words/user-text.js';
import { compareView, forkChoices, choiceLabel } from '../draw/compare.js';
import { bringIntoView } from '../element/scroll.js';

/** Steps a replaced step can become: each broker's fetch, crash and restart, the clock, an election, a read. */
function replacementSteps(config) {
  const ids = Array.from({ length: config.brokers }, (_, i) => i + 1);
  return [
    ...ids.map((b) => ({ fetch: b })),
    ...ids.map((b) => ({ crash: { broker: b } })),
    ...ids.map((b) => ({ restart: b })),
    { advance_ms: 1000 },
    { advance_ms: config.broker_session_timeout_ms },
    { advance_ms: config.replica_lag_time_max_ms },
    { elect: null },
    { consume: null },
  ];
}

export class ForkView {
  constructor(pg) {
    this.pg = pg;
    this.sim = null; // the fork's run
    this.base = null; // the original's run it was made from (another run closes the comparison)
    this.change = null; // forkScenario's change: { text, setting, step, from, to, … }
    this.scenarios = null;
    this.outcomes = null;
    this.choices = [];
    this.show = 'left'; // the run shown where the two are stacked (a phone)
  }

  get active() {
    return this.sim !== null;
  }

  /** The change's link text while comparing. */
  get text() {
    return this.sim ? this.change.text : null;
  }

  /**
   * Forks the current run with a change (its link text); false with a message
   * when the core refuses it. The comparison opens at the current step.
   */
  open(text) {
    const pg = this.pg;
    const original = pg.currentScenario();
    let forked;
    let sim;
    try {
      forked = core().forkScenario(original, text);
      sim = core().Simulation.fromScenario(forked.scenario);
    } catch (err) {
      if (isCrash(err)) { pg.recover(err); return false; }
      pg.notify('error', t('fork.failed', { message: excerpt(phrase(err.message, t), 200) }));
      return false;
    }
    const outcome = (scenario) => {
      try {
        return core().runOutcome(scenario);
      } catch {
        return null;
      }
    };
    this.closeRun();
    this.show = 'left';
    this.sim = sim;
    this.base = pg.sim;
    this.change = forked.change;
    this.scenarios = { left: original, right: forked.scenario };
    this.outcomes = { left: outcome(original), right: outcome(forked.scenario) };
    pg.player.stopClock();
    pg.$('root').classList.add('comparing');
    pg.$('compare-bar').hidden = false;
    pg.draw();
    return true;
  }

  closeRun() {
    try {
      if (this.sim) this.sim.free();
    } catch {
      // a run of a core instance that is gone (after a panic)
    }
    this.sim = null;
    this.base = null;
  }

  /** Back to the run: the comparison closes, the original stays where it is. */
  close() {
    const pg = this.pg;
    if (!this.active) return;
    this.closeRun();
    pg.$('root').classList.remove('comparing');
    pg.$('compare-bar').hidden = true;
    patch(pg.$('compare'), []);
    if (pg.address) pg.address.scheduleHash();
  }

  /** Both runs at the shared position (a fork that stopped early, where it stopped), side by side. */
  draw() {
    const pg = this.pg;
    if (!this.active) return;
    if (pg.sim !== this.base) {
      // Another run was loaded: the comparison was of the one before.
      this.close();
      return;
    }
    const position = pg.sim.position();
    const at = Math.min(position, this.sim.length());
    if (this.sim.position() !== at) this.sim.seek(at);
    const differences = pg.sim.differencesWith(this.sim);
    const left = { state: pg.sim.state(), scenario: this.scenarios.left, outcome: this.outcomes.left, position, length: pg.sim.length() };
    const right = { state: this.sim.state(), scenario: this.scenarios.right, outcome: this.outcomes.right, position: at, length: this.sim.length() };
    patch(pg.$('compare'), compareView({
      left,
      right,
      differences,
      change: this.change,
      position,
      recordEpochs: { left: pg.recordsCarryEpochs(left.state.protocol), right: pg.recordsCarryEpochs(right.state.protocol) },
      show: this.show,
    }));
  }

  // ---------------------------------------------------------------- the chooser

  openChooser() {
    const pg = this.pg;
    const $ = (id) => pg.$(id);
    this.choices = forkChoices(pg.currentScenario(), pg.sim.position(), core().versions.versions);
    patch($('fork-kind'), this.choices.map((c, i) => h('option', { value: i, key: `${c.kind}:${c.step ?? ''}` }, choiceLabel(c))));
    $('fork-kind').value = '0';
    this.drawValues();
    $('fork-error').hidden = true;
    $('dlg-fork').showModal();
  }

  /** The values the chosen kind of change can take. */
  drawValues() {
    const pg = this.pg;
    const $ = (id) => pg.$(id);
    const choice = this.choices[Number($('fork-kind').value)];
    const select = $('fork-value');
    const number = $('fork-number');
    if (!choice) return;
    const current = $('fork-current');
    if (choice.kind === 'replica_lag_time_max_ms') {
      select.hidden = true;
      number.hidden = false;
      number.min = String(choice.min);
      number.max = String(choice.max);
      number.value = String(choice.current * 2);
    } else {
      select.hidden = false;
      number.hidden = true;
      const options = choice.kind === 'step'
        ? replacementSteps(pg.config).filter((s) => JSON.stringify(s) !== JSON.stringify(choice.current)).map((s, i) => ({ label: describeStep(s), value: i, step: s }))
        : choice.options.map((o, i) => ({ label: this.valueLabel(choice, o.value), value: i }));
      this.stepOptions = choice.kind === 'step' ? options.map((o) => o.step) : null;
      patch(select, options.map((o) => h('option', { value: o.value, key: `${choice.kind}:${o.value}` }, o.label)));
      select.value = '0';
    }
    current.textContent = choice.kind === 'step'
      ? t('fork.now', { value: describeStep(choice.current) })
      : choice.current === null || choice.current === undefined ? '' : t('fork.now', { value: this.valueLabel(choice, choice.current) });
  }

  valueLabel(choice, value) {
    if (typeof value === 'boolean') return t(value ? 'common.on' : 'common.off');
    if (choice.kind === 'protocol') return t('version.name', { name: value });
    return String(value);
  }

  /** The chosen change as the core's typed change. */
  chosenChange() {
    const $ = (id) => this.pg.$(id);
    const choice = this.choices[Number($('fork-kind').value)];
    if (!choice) return null;
    if (choice.kind === 'replica_lag_time_max_ms') {
      const n = Number($('fork-number').value);
      if (!Number.isInteger(n)) throw new Error(t('settings.not_whole', { field: 'replica.lag.time.max.ms', value: excerpt($('fork-number').value) }));
      return choice.change(n);
    }
    const i = Number($('fork-value').value);
    if (choice.kind === 'step') return choice.change(this.stepOptions[i]);
    return choice.options[i].change;
  }

  submit(e) {
    e.preventDefault();
    const pg = this.pg;
    const $ = (id) => pg.$(id);
    let text;
    try {
      text = core().changeText(this.chosenChange());
    } catch (err) {
      if (isCrash(err)) { $('dlg-fork').close(); pg.recover(err); return; }
      const p = $('fork-error');
      p.textContent = t('fork.failed', { message: excerpt(phrase(err.message, t), 200) });
      p.hidden = false;
      return;
    }
    $('dlg-fork').close();
    pg.player.stop();
    if (this.open(text)) this.keepInView();
  }

  /**
   * Opened from the chooser on the page: the two runs' brokers come into
   * view, the page scrolling up by what is missing but never past the
   * comparison's bar (Back to the run).
   */
  keepInView() {
    const pg = this.pg;
    if (!pg.address) return;
    const rows = [...pg.root.querySelectorAll('#compare .broker-row')].filter((r) => r.offsetParent);
    if (!rows.length) return;
    bringIntoView(Math.max(...rows.map((r) => r.getBoundingClientRect().bottom)), pg.$('compare-bar').getBoundingClientRect().top);
  }

  wire() {
    const pg = this.pg;
    const $ = (id) => pg.$(id);
    $('btn-fork').addEventListener('click', () => this.openChooser());
    // A phone's switch between the stacked runs.
    $('compare').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-compare-show]');
      if (!b || !this.active) return;
      this.show = b.dataset.compareShow === 'right' ? 'right' : 'left';
      this.draw();
      pg.$('compare').querySelector(`button[data-compare-show="${this.show}"]`)?.focus({ preventScroll: true });
    });
    $('fork-kind').addEventListener('change', () => this.drawValues());
    $('fork-form').addEventListener('submit', (e) => this.submit(e));
    $('btn-fork-grid').addEventListener('click', () => { $('dlg-fork').close(); $('btn-whatif').click(); });
    $('btn-fork-close').addEventListener('click', () => this.close());
  }
}

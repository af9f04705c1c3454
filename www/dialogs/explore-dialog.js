// The "Find a way to lose data" dialog: the explorer runs in Web Workers
// (explore-worker.js; the machine's cores, at most 4) with progress and
// cancel; a run it finds is loaded.

import { core } from '../core.js';
import { t } from '../words/i18n.js';
import { VERSION_TEXT, violationHeadline } from '../words/describe.js';
import { phrase } from '../words/event-text.js';
import { WorkerRunner } from '../workers/worker-runner.js';
import { defaultWorkers } from '../workers/explorer.js';

export function wireExplore(pg) {
  const $ = (id) => pg.$(id);
  const runner = new WorkerRunner(new URL('../workers/explore-worker.js', import.meta.url));

  function finished(text, isError = false) {
    const p = $('explore-result');
    p.textContent = text;
    p.classList.toggle('error', isError);
    p.hidden = false;
    $('btn-explore-start').disabled = false;
    $('btn-explore-cancel').disabled = true;
  }

  function start() {
    const form = $('explore-form');
    const depth = Number(form.elements.depth.value);
    const maxStates = Number(form.elements.max_states.value);
    if (!Number.isInteger(depth) || depth < 1 || depth > 64) return finished(t('explore.bad_depth'), true);
    const cap = core().limits.max_explorer_states;
    if (!Number.isInteger(maxStates) || maxStates < 1000 || maxStates > cap) return finished(t('explore.bad_max_states', { cap }), true);
    const unclean = form.elements.unclean.checked;
    const options = {
      // The search chooses every fetch itself: it runs in manual mode. An
      // unclean election loses data by design, so the search keeps it off
      // unless asked (as `highwater explore` does without --unclean), even
      // under 0.10, whose default has it on.
      config: { ...pg.config, auto_fetch: false, unclean_leader_election: unclean },
      acks: form.elements.acks.value,
      power_loss: form.elements.power_loss.checked,
      network_faults: form.elements.network_faults.checked,
      shutdowns: form.elements.shutdowns.checked,
      // Offered only where the brokers have racks.
      rack_faults: Boolean(pg.config.racks) && form.elements.rack_faults.checked,
      strategy: form.elements.strategy.value,
      // What the dialog asks for: a record gone, not the first broken guarantee on the way to it.
      goal: 'lost_write',
      depth,
      max_states: maxStates,
      seed: pg.config.seed,
      // Random walks are one worker's; the answer is the same for any number.
      workers: form.elements.strategy.value === 'random' ? 1 : defaultWorkers(),
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
        pg.enter();
        bar.value = Math.min(1, states / maxStates);
        bar.dataset.states = String(states);
        $('explore-status').textContent = t('explore.progress', { depth: d, count: states });
      },
      done: (result) => {
        pg.enter();
        if (result.found && result.scenario) {
          const before = pg.currentScenario();
          const position = pg.sim.position();
          try {
            pg.loadScenario(result.scenario);
          } catch (err) {
            finished(t('explore.found_unloadable', { message: phrase(err.message, t) }), true);
            return;
          }
          pg.undo = { scenario: before, position };
          finished(t('explore.found', { count: result.states, what: violationHeadline(result.violation) }));
          $('dlg-explore').close();
          // What is lost is the banner's to say: the notice does not say it again.
          pg.notify('warn', t('explore.found_notice', { count: pg.sim.length() }), pg.undoAction());
        } else {
          const found = t(result.complete ? 'explore.nothing_complete' : 'explore.nothing_capped', { depth: result.depth, count: result.states });
          finished(`${found} ${suggestions(form, unclean)}`);
        }
      },
      error: (message) => { pg.enter(); finished(t('explore.failed', { message }), true); },
    }, { helpers: options.workers - 1 });
    return undefined;
  }

  /** What to try after a search that found nothing: the options not yet used. */
  function suggestions(form, unclean) {
    const tries = [t('explore.try_deeper')];
    if (!form.elements.power_loss.checked) tries.push(t('explore.try_power_loss'));
    if (!form.elements.network_faults.checked) tries.push(t('explore.try_network_faults'));
    if (!form.elements.shutdowns.checked) tries.push(t('explore.try_shutdowns'));
    if (pg.config.racks && !form.elements.rack_faults.checked) tries.push(t('explore.try_rack_faults'));
    if (!unclean) tries.push(t('explore.try_unclean'));
    tries.push(t('explore.try_version'));
    return t('explore.try', { list: tries.join(t('explore.try_gap')) });
  }

  $('btn-explore').addEventListener('click', () => {
    const c = pg.config;
    // Checked only when the run itself turned unclean election on against
    // its version's default: that is the user asking for it.
    const version = core().versions.versions.find((v) => v.name === c.protocol);
    const asked = c.unclean_leader_election && version && !version.defaults.unclean_leader_election;
    $('explore-form').elements.unclean.checked = Boolean(asked);
    $('explore-rack-faults').hidden = !c.racks;
    $('explore-settings').textContent = t(c.auto_fetch ? 'explore.settings_timed' : 'explore.settings', { count: c.brokers, version: VERSION_TEXT.name(c.protocol), min: c.min_insync_replicas });
    if (!runner.running) {
      $('explore-result').hidden = true;
      $('explore-progress').hidden = true;
    }
    $('dlg-explore').showModal();
  });
  $('explore-form').addEventListener('submit', (e) => {
    e.preventDefault();
    start();
  });
  $('btn-explore-cancel').addEventListener('click', () => {
    if (runner.cancel()) finished(t('explore.cancelled_after', { count: Number($('explore-bar').dataset.states || 0) }));
  });
  $('dlg-explore').addEventListener('close', () => {
    if (runner.cancel()) finished(t('explore.cancelled'));
  });
}

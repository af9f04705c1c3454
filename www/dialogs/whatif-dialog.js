// The "What if…" grid: the current steps under every version preset × acks ×
// min ISR × unclean election, computed in a Web Worker cell by cell; a click
// opens that cell's run at the step of its outcome.

import { core, isCrash } from '../core.js';
import { patch } from '../draw/dom.js';
import { t } from '../words/i18n.js';
import { VERSION_TEXT } from '../words/describe.js';
import { phrase } from '../words/event-text.js';
import { WorkerRunner } from '../workers/worker-runner.js';
import { renderGrid, renderOutcomeLegend } from '../draw/whatif.js';

export function wireWhatif(pg) {
  const $ = (id) => pg.$(id);
  const runner = new WorkerRunner(new URL('../workers/whatif-worker.js', import.meta.url));
  let shown = null; // the scenario the grid shows

  function open() {
    const scenario = pg.currentScenario();
    shown = scenario;
    delete $('dlg-whatif').dataset.ready;
    const brokers = scenario.config.brokers;
    patch($('whatif-grid'), renderGrid([], brokers));
    patch($('whatif-legend'), renderOutcomeLegend());
    $('whatif-error').hidden = true;
    $('whatif-progress').hidden = false;
    $('whatif-bar').value = 0;
    $('whatif-status').textContent = t('whatif.starting');
    $('btn-whatif-cancel').disabled = false;
    $('dlg-whatif').showModal();
    runner.start({ scenario }, {
      progress: ({ done, total }) => {
        pg.enter();
        $('whatif-bar').value = done / total;
        $('whatif-status').textContent = t('whatif.progress', { done, total });
      },
      done: (result) => {
        pg.enter();
        $('btn-whatif-cancel').disabled = true;
        $('whatif-status').textContent = result.complete ? t('whatif.done', { total: result.cells.length }) : t('whatif.stopped');
        patch($('whatif-grid'), renderGrid(result.cells, brokers));
        $('dlg-whatif').dataset.ready = 'true';
      },
      error: (message) => {
        pg.enter();
        $('btn-whatif-cancel').disabled = true;
        $('whatif-progress').hidden = true;
        const p = $('whatif-error');
        p.textContent = t('whatif.failed', { message: phrase(message, t) });
        p.hidden = false;
      },
    });
  }

  /** A cell clicked: its run loaded (at the step of its outcome), the current one kept for Undo. */
  function onCell(e) {
    const b = e.target.closest('button[data-protocol]');
    if (!b || !shown) return;
    const d = b.dataset;
    const r = pg.guarded(t('whatif.could_not_open'), () => core().whatifScenario(shown, d.protocol, d.acks, Number(d.minIsr), d.unclean === 'true'));
    if (!r.ok) return;
    pg.player.stop();
    pg.player.stopClock();
    if (pg.tour) pg.tours.close();
    const before = pg.currentScenario();
    const position = pg.sim.position();
    try {
      pg.loadScenario(r.value, { at: d.step ? Number(d.step) : null });
    } catch (err) {
      if (isCrash(err)) { pg.recover(err); return; }
      pg.notify('error', t('whatif.could_not_open_message', { message: phrase(err.message, t) }));
      return;
    }
    $('dlg-whatif').close();
    pg.undo = { scenario: before, position };
    pg.notify('info', t('whatif.opened', { version: VERSION_TEXT.name(d.protocol), acks: d.acks, min: d.minIsr, unclean: t(d.unclean === 'true' ? 'whatif.unclean_on' : 'whatif.unclean_off') }), pg.undoAction());
  }

  $('btn-whatif').addEventListener('click', open);
  $('btn-whatif-cancel').addEventListener('click', () => {
    if (runner.cancel()) $('whatif-status').textContent = t('whatif.stopped');
  });
  $('dlg-whatif').addEventListener('close', () => runner.cancel());
  $('whatif-grid').addEventListener('click', onCell);
}

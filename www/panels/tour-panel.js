// The tour panel and the Tours dialog: opening a tour (tour.js plays it), its
// Back/Next buttons, closing it, and the list of tours.

import { isCrash } from '../core.js';
import { h, patch } from '../draw/dom.js';
import { t } from '../words/i18n.js';
import { phrase } from '../words/event-text.js';
import { TourPlayer, loadTour, tourIds } from '../element/tour.js';

export class Tours {
  constructor(pg) {
    this.pg = pg;
    // The playground's side of a tour.
    this.api = {
      loadScenario: (scenario, at) => pg.loadScenario(scenario, { at }),
      seek: (position, opts) => pg.seek(position, opts),
      playTo: (position) => pg.player.play(position),
      position: () => pg.sim.position(),
      playing: () => pg.player.playing,
      steps: () => pg.steps,
      stopChanged: () => this.changed(),
    };
  }

  /** Opens tour `id` at stop `step` (from 1); a tour that does not exist is a message, and the run stays as it was. */
  async start(id, step = 1) {
    const pg = this.pg;
    pg.player.stop();
    pg.player.stopClock();
    let data;
    try {
      data = await loadTour(id);
    } catch (err) {
      pg.enter();
      pg.notify('error', t('tour.could_not_open', { message: phrase(err.message, t) }));
      return false;
    }
    if (pg.closed) return false; // removed while the tour loaded
    pg.enter();
    const before = pg.sim ? pg.currentScenario() : null;
    const position = pg.sim ? pg.sim.position() : 0;
    try {
      pg.tour = new TourPlayer(data, this.api, pg.$('tour'));
      pg.$('root').classList.add('touring');
      const stop = Number.isInteger(step) ? step : 1;
      const count = pg.tour.stops.length;
      // Past the last stop: the last, and said so.
      if (stop > count) pg.notify('warn', t('tour.step_too_far', { step: stop, count }));
      pg.tour.go(Math.max(0, Math.min(stop, count) - 1));
    } catch (err) {
      this.close();
      if (isCrash(err)) { pg.recover(err); return false; }
      pg.notify('error', t('tour.could_not_open', { message: phrase(err.message, t) }));
      return false;
    }
    if (before && before.steps.length) pg.undo = { scenario: before, position };
    if (pg.address) pg.$('btn-play').focus(); // on the page; an element in a docs page leaves the reader's focus alone
    return true;
  }

  close() {
    const pg = this.pg;
    pg.tour = null;
    pg.$('root').classList.remove('touring');
    pg.$('tour').hidden = true;
    patch(pg.$('tour'), []);
    this.changed();
  }

  /** The tour's stop changed (or the tour closed): the page's address follows. */
  changed() {
    if (this.pg.address) this.pg.address.writeTour();
  }

  onClick(e) {
    const pg = this.pg;
    const b = e.target.closest('button[data-tour]');
    if (!b || !pg.tour) return;
    pg.player.stop();
    const action = b.dataset.tour;
    if (action === 'next') pg.tour.next();
    else if (action === 'back') pg.tour.back();
    else if (action === 'resume') pg.tour.resume();
    else if (action === 'close') this.close();
  }

  async openList() {
    const pg = this.pg;
    pg.$('dlg-tours').showModal();
    try {
      const ids = await tourIds();
      if (pg.closed) return;
      pg.enter();
      patch(pg.$('tour-list'), h('ul', { class: 'gallery-list' }, ids.map((id, i) => h('li', { class: 'gallery-card', key: id, 'data-id': id },
        h('h3', null, `${i + 1}. ${t(`tours.${id}.title`)}`),
        h('p', { class: 'gallery-summary' }, t(`tours.${id}.summary`)),
        h('div', { class: 'gallery-actions' },
          h('button', { type: 'button', class: 'primary', 'data-start-tour': id }, t('tour.start')))))));
    } catch (err) {
      if (pg.closed) return;
      patch(pg.$('tour-list'), h('p', { class: 'error' }, t('tour.list_failed', { message: err.message })));
    }
  }

  wire() {
    const pg = this.pg;
    const $ = (id) => pg.$(id);
    $('btn-tours').addEventListener('click', () => this.openList());
    $('tour-list').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-start-tour]');
      if (!b) return;
      $('dlg-tours').close();
      this.start(b.dataset.startTour);
    });
    $('tour').addEventListener('click', (e) => this.onClick(e));
    $('onboard').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-start-tour]');
      if (b) this.start(b.dataset.startTour);
    });
  }
}

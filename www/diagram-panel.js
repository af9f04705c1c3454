// The space-time diagram's panel: the core's diagram of a window of steps
// around the current one (Simulation.spaceTime), drawn by diagram.js, the
// current step highlighted and kept in view, a click on a step, an arrow or a
// mark seeks there. The data is read once per window and timeline.

import { patch } from './dom.js';
import { t } from './i18n.js';
import { renderDiagram } from './diagram.js';

export const WINDOW_STEPS = 40; // steps drawn at most: the window follows the current step

export class DiagramPanel {
  constructor(pg) {
    this.pg = pg;
    this.cache = null;
    this.shownAt = null;
  }

  /** The steps drawn: the whole run when it is short, else WINDOW_STEPS around the position. */
  window() {
    const length = this.pg.sim.length();
    if (length <= WINDOW_STEPS) return [1, Math.max(1, length)];
    const from = Math.max(1, Math.min(this.pg.position - WINDOW_STEPS / 2, length - WINDOW_STEPS + 1));
    return [from, from + WINDOW_STEPS - 1];
  }

  data() {
    const pg = this.pg;
    const [from, to] = this.window();
    const key = `${pg.timelineVersion}|${from}|${to}`;
    if (!this.cache || this.cache.key !== key) {
      const r = pg.guarded(t('diagram.title'), () => pg.sim.spaceTime(from, to));
      if (!r.ok) return null;
      this.cache = { key, data: r.value };
    }
    return this.cache.data;
  }

  /** The diagram at the current position (with the data the core gave for this window). */
  draw() {
    const pg = this.pg;
    if (pg.compact) return;
    const box = pg.$('diagram');
    const data = this.data();
    if (!data) return;
    patch(box, renderDiagram(data, { width: Math.max(320, box.clientWidth - 2), current: pg.position }));
    if (this.shownAt !== pg.position) {
      this.shownAt = pg.position;
      const band = box.querySelector('.dg-step.current');
      if (band) {
        const b = band.getBoundingClientRect();
        const r = box.getBoundingClientRect();
        if (b.top < r.top || b.bottom > r.bottom) box.scrollTop += b.top - r.top - 40;
      }
    }
  }

  /** The data of the window drawn, for the exports. */
  current() {
    return this.data();
  }

  wire() {
    const pg = this.pg;
    pg.$('diagram').addEventListener('click', (e) => {
      const el = e.target.closest('[data-step]');
      if (!el) return;
      pg.player.stop();
      pg.seek(Number(el.getAttribute('data-step')), { animate: true });
    });
  }
}

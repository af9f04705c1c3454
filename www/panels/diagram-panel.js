// The space-time diagram's panel: the core's diagram of a window of steps
// around the current one (Simulation.spaceTime), drawn by diagram.js, the
// current step highlighted and kept in view, a click on a step, an arrow or a
// mark seeks there. The data is read once per window and timeline.

import { h, patch } from '../draw/dom.js';
import { t } from '../words/i18n.js';
import { renderDiagram, HEADER } from '../draw/diagram.js';

export const WINDOW_STEPS = 40; // steps drawn at most: the window follows the current step

/**
 * The lane names as a strip that stays at the top of the scrolling box: the
 * diagram's own background and lanes, cropped to its header.
 */
function lanesHead(svg) {
  const keep = svg.children.filter((c) => c.attrs && (c.attrs.class === 'dg-bg' || c.attrs.class === 'dg-lanes'));
  const { width } = svg.attrs;
  return h('div', { class: 'diagram-head', key: 'head', 'aria-hidden': 'true' },
    h('svg', { class: 'diagram', xmlns: svg.attrs.xmlns, width, height: HEADER, viewBox: `0 0 ${width} ${HEADER}`, 'font-family': svg.attrs['font-family'] }, keep));
}

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

  /** The core's diagram of the window drawn (read once per window and timeline); the exports use it too. */
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
    const svg = renderDiagram(data, { width: Math.max(320, box.clientWidth - 2), current: pg.position });
    patch(box, [lanesHead(svg), svg]);
    if (this.shownAt !== pg.position) {
      this.shownAt = pg.position;
      const band = box.querySelector('svg:not(.diagram-head svg) .dg-step.current');
      if (band) {
        const b = band.getBoundingClientRect();
        const r = box.getBoundingClientRect();
        if (b.top < r.top + HEADER || b.bottom > r.bottom) box.scrollTop += b.top - r.top - HEADER - 40;
      }
    }
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

// The space-time diagram's panel: the core's diagram of a window of steps
// around the current one (Simulation.spaceTime), drawn by diagram.js, the
// current step highlighted and kept in view, a click on a step, an arrow or a
// mark seeks there. The data is read once per window and timeline; what is
// drawn is what the box shows and a box's height around it.

import { h, patch } from '../draw/dom.js';
import { t } from '../words/i18n.js';
import { core } from '../core.js';
import { renderDiagram, layoutDiagram, HEADER } from '../draw/diagram.js';

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

/**
 * The picture under the strip, its lane names left out and pulled up under
 * the strip by the strip's height, so that each lane is named once: the
 * strip, which stays in view, is its header.
 */
function withoutLaneNames(svg) {
  const children = svg.children.map((c) => (c.attrs && c.attrs.class === 'dg-lanes'
    ? { ...c, children: c.children.map((lane) => ({ ...lane, children: lane.children.filter((x) => x.tag !== 'text') })) }
    : c));
  return { ...svg, attrs: { ...svg.attrs, style: { 'margin-top': `${-HEADER}px` } }, children };
}

// The picture's top in the scrolling box: under the strip's border (the strip
// is HEADER px and a 1 px border; the picture is pulled up by HEADER).
const HEAD_PX = 1;

export class DiagramPanel {
  constructor(pg) {
    this.pg = pg;
    this.cache = null;
    this.shownAt = null;
    // The box's size and scroll, as ResizeObserver and scroll events report
    // them: a step reads no layout to draw the diagram.
    this.box = { width: 0, height: 520, max: 520, top: 0 };
    this.scrollTo = null; // where the box scrolls once this draw is written (scroll())
    this.drawnKey = '';
    this.drawnTop = 0;
    this.frame = 0;
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
    // A topic of several partitions: the one on the board.
    const partition = pg.partitions > 1 ? pg.partition : undefined;
    const key = `${pg.timelineVersion}|${from}|${to}|${partition}`;
    if (!this.cache || this.cache.key !== key) {
      // The diagram is in the full core: asked for, and drawn once it is here.
      if (!pg.viewsReady()) return null;
      const r = pg.guarded(t('diagram.title'), () => pg.sim.spaceTime(from, to, undefined, partition));
      if (!r.ok) return null;
      this.cache = { key, data: r.value, layouts: new Map() };
    }
    return this.cache.data;
  }

  /** Where everything goes at this width (once per window, timeline and width). */
  layout(width) {
    const layouts = this.cache.layouts;
    if (!layouts.has(width)) {
      layouts.clear();
      layouts.set(width, layoutDiagram(this.cache.data, { width }));
    }
    return layouts.get(width);
  }

  /**
   * The diagram at the current position (with the data the core gave for
   * this window): only the arrows, marks and times within a box's height of
   * what the box shows are drawn (every band is, and the picture keeps its
   * size, so the box scrolls as before); scrolling draws the rest.
   */
  draw() {
    const pg = this.pg;
    if (pg.compact) return;
    const box = pg.$('diagram');
    const data = this.data();
    if (!data) {
      // The full core on its way (data() asked for it), or not coming: said in the box until the diagram comes.
      if (!pg.onFrame && !core().views && !box.childElementCount) box.textContent = pg.viewsWaiting();
      return;
    }
    if (!this.box.width) this.box.width = box.clientWidth; // before ResizeObserver's first report
    const width = Math.max(320, this.box.width - 2);
    const L = this.layout(width);
    let top = this.box.top;
    if (this.shownAt !== pg.position) {
      // The current step kept in view, from where the layout puts it.
      this.shownAt = pg.position;
      const band = L.steps.find((s) => s.step === pg.position);
      if (band) {
        // The box's height once this draw is in: its content's, up to its max-height.
        const height = Math.min(this.box.max, HEAD_PX + L.height + 2);
        const at = 1 + HEAD_PX + band.y - top; // the band's top below the box's
        if (at < HEADER || at + Math.max(band.height, 1) > height) {
          top = Math.max(0, Math.min(HEAD_PX + band.y + 1 - HEADER - 40, HEAD_PX + L.height + 2 - height));
          this.scrollTo = top;
        }
      }
    }
    // Within half a box of what was drawn, the same rows are drawn (the overscan covers them).
    const reach = this.reach();
    if (this.scrollTo === null && this.drawnKey && Math.abs(top - this.drawnTop) < reach / 2) top = this.drawnTop;
    const view = { top: top - HEAD_PX - reach, bottom: top - HEAD_PX + 2 * reach };
    const key = `${this.cache.key}|${width}|${pg.position}|${Math.round(view.top)}|${pg.lang}`;
    if (key === this.drawnKey) return;
    this.drawnKey = key;
    this.drawnTop = top;
    const svg = renderDiagram(data, { width, current: pg.position, layout: L, view });
    patch(box, [lanesHead(svg), withoutLaneNames(svg)]);
    const note = pg.$('diagram-partition');
    note.hidden = !(pg.partitions > 1);
    note.textContent = pg.partitions > 1 ? t('diagram.partition', { partition: pg.partition }) : '';
  }

  /** How far beyond the box's view rows are drawn, each way: a box's height. */
  reach() {
    return Math.max(this.box.height, Math.min(this.box.max, 1000));
  }

  /** After the page's writes: the box scrolled to the current step, if the draw moved it. */
  scroll() {
    const box = this.pg.$('diagram');
    if (this.scrollTo === null) {
      // The layout is done: a box the new picture scrolled (a shorter one) draws what it now shows.
      if (box.scrollTop !== this.box.top) {
        this.box.top = box.scrollTop;
        this.draw();
      }
      return;
    }
    box.scrollTop = this.scrollTo;
    this.box.top = this.scrollTo;
    this.scrollTo = null;
  }

  wire() {
    const pg = this.pg;
    const box = pg.$('diagram');
    box.addEventListener('click', (e) => {
      const el = e.target.closest('[data-step]');
      if (!el) return;
      pg.player.stop();
      pg.seek(Number(el.getAttribute('data-step')), { animate: true });
    });
    // Scrolled more than half a box from what was drawn: the rows now in view are drawn.
    box.addEventListener('scroll', () => {
      this.box.top = box.scrollTop;
      if (this.frame || Math.abs(this.box.top - this.drawnTop) < this.reach() / 2) return;
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        if (!pg.sim || pg.closed) return;
        pg.enter();
        this.drawnTop = this.box.top;
        this.draw();
      });
    }, { passive: true });
    new ResizeObserver(([entry]) => {
      const size = entry.borderBoxSize && entry.borderBoxSize[0];
      const width = box.clientWidth;
      const height = size ? size.blockSize : box.offsetHeight;
      this.box.max = parseFloat(getComputedStyle(box).maxHeight) || Infinity;
      if (width === this.box.width && height === this.box.height) return;
      this.box.width = width;
      this.box.height = height || 520;
      if (pg.sim && !pg.closed) {
        pg.enter();
        this.draw();
      }
    }).observe(box);
  }
}

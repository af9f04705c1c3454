// The tour panel and the Tours dialog: opening a tour (tour.js plays it), its
// Back/Next buttons and the control of a "do" stop, lesson mode (only what the
// stop needs is shown; "Show all controls" brings the rest back), closing it,
// the next tour, and the list of tours with those already done.

import { isCrash } from '../core.js';
import { h, patch } from '../draw/dom.js';
import { t, language, num } from '../words/i18n.js';
import { excerpt } from '../words/user-text.js';
import { phrase } from '../words/event-text.js';
import { TourPlayer, loadTour, tourIds, tourAnswers } from '../element/tour.js';
import { bringIntoView } from '../element/scroll.js';
import { checkTourText, checkBuiltInTour, tourFromLink } from '../element/tour-check.js';

export class Tours {
  constructor(pg) {
    this.pg = pg;
    // The playground's side of a tour.
    this.api = {
      // A part's run: at once when quick to compute, else in slices with the page's progress and Stop.
      buildRun: (scenario) => pg.buildRun((Simulation) => Simulation.buildScenario(scenario)),
      showRun: (sim, at) => {
        if (pg.closed) {
          sim.free();
          return;
        }
        pg.enter();
        try {
          pg.adopt(sim, { at });
        } catch (err) {
          sim.free();
          throw err;
        }
        pg.draw();
      },
      failed: (err) => {
        if (pg.closed) return;
        pg.enter();
        if (isCrash(err)) pg.recover(err);
        else pg.notify('error', t('tour.could_not_open', { message: phrase(err.message, t) }));
      },
      seek: (position, opts) => pg.seek(position, opts),
      position: () => pg.sim.position(),
      playing: () => pg.player.playing,
      steps: () => pg.steps,
      timeline: () => pg.timelineVersion,
      config: () => pg.config || {},
      stopChanged: () => this.changed(),
      redrawn: () => this.redrawn(),
      answered: (detail) => pg.host.dispatchEvent(new CustomEvent('highwater-answer', { bubbles: true, composed: true, detail })),
    };
  }

  /** The tours finished in this browser, in the page's language: ids. */
  done() {
    try {
      const list = JSON.parse(localStorage.getItem(doneKey()) || '[]');
      return Array.isArray(list) ? list.filter((id) => typeof id === 'string') : [];
    } catch {
      return []; // storage refused (a sandboxed frame, a privacy setting): nothing is remembered
    }
  }

  markDone(id) {
    const list = this.done();
    if (list.includes(id)) return;
    try {
      localStorage.setItem(doneKey(), JSON.stringify([...list, id]));
    } catch {
      // not remembered; the tour still ends
    }
  }

  /** Lesson mode: while a tour runs, only what its stop needs, unless the learner asked for every control. */
  showLesson() {
    const root = this.pg.$('root');
    const tour = this.pg.tour;
    root.classList.toggle('touring', Boolean(tour));
    root.classList.toggle('lesson', Boolean(tour && !tour.showAll));
    if (tour) root.dataset.details = tour.details().join(' ');
    else delete root.dataset.details;
  }

  /**
   * Opens a tour at stop `step` (from 1): a built-in tour's id, or a tour
   * file `{ text }`, `{ src }` (a URL: same origin or CORS) or `{ link }`
   * (the `v1.…` of a `#t=` link). A tour that cannot be opened is a message,
   * and the run stays as it was.
   */
  async start(source, step = 1, { fromAddress = false } = {}) {
    const pg = this.pg;
    pg.player.stop();
    pg.player.stopClock();
    let opened;
    try {
      opened = await openTour(source);
    } catch (err) {
      if (pg.closed) return false;
      pg.enter();
      pg.notify('error', t('tour.could_not_open', { message: phrase(err.message, t) }));
      return false;
    }
    if (pg.closed) return false; // removed while the tour loaded
    pg.enter();
    const { data, checked, origin } = opened;
    const before = pg.sim ? pg.currentScenario() : null;
    const position = pg.sim ? pg.sim.position() : 0;
    // The learner's own run, from before the first of the tours taken in a row
    // (Next tour keeps it): closing the tour offers it back with Undo.
    if (!pg.tour) this.userRun = before && before.steps.length ? { scenario: before, position } : null;
    const ids = await tourIds().catch(() => []);
    if (pg.closed) return false;
    pg.enter();
    // The learner's run keeps its entry in the history: the tour's address is a
    // new one, so Back brings the run back (a link opened in the address bar has its own entry).
    const pushAddress = Boolean(pg.address && !fromAddress && !pg.tour && before && before.steps.length);
    // The run of the part the tour opens at is computed as a link's is: in
    // slices, the page answering meanwhile, with its progress and Stop
    // (a tour of a long run blocked the main thread for seconds).
    const parts = Array.isArray(data.parts) ? data.parts : [];
    const stops = parts.flatMap((part, p) => (Array.isArray(part.stops) ? part.stops : []).map((stop) => ({ p, stop })));
    let prebuilt = -1; // the part whose run is now the page's
    const opening = stops.length ? stops[Math.max(0, Math.min(Number.isInteger(step) ? step : 1, stops.length) - 1)] : null;
    const first = opening ? opening.p : -1;
    // Where the stop shows the board from (TourPlayer.from): one step before a "do" or a question.
    const from = opening && (opening.stop.do || opening.stop.predict) && opening.stop.at > 0 ? opening.stop.at - 1 : opening ? opening.stop.at : 0;
    if (first >= 0 && parts[first].scenario) {
      let sim;
      try {
        sim = await pg.computeRun((Simulation) => Simulation.buildScenario(parts[first].scenario));
      } catch (err) {
        if (pg.closed) return false;
        if (isCrash(err)) { pg.recover(err); return false; }
        pg.notify('error', t('tour.could_not_open', { message: phrase(err.message, t) }));
        return false;
      }
      if (pg.closed || !sim) {
        if (sim) sim.free();
        return false; // stopped, or another run asked for meanwhile: what is shown stays
      }
      pg.enter();
      if (pushAddress) {
        pg.address.flush(); // the learner's last step is in the entry kept
        history.pushState(null, '', location.href);
      }
      // Reading the finished run is a task of its own; the tour and the board are drawn in the next.
      try {
        pg.adopt(sim, { at: from });
      } catch (err) {
        sim.free();
        if (isCrash(err)) { pg.recover(err); return false; }
        pg.notify('error', t('tour.could_not_open', { message: phrase(err.message, t) }));
        return false;
      }
      prebuilt = first;
      await new Promise((resolve) => { setTimeout(resolve, 0); });
      if (pg.closed) return false;
      pg.enter();
    }
    if (pushAddress && prebuilt < 0) {
      pg.address.flush();
      history.pushState(null, '', location.href);
    }
    // The next tour in teaching order, after a built-in one.
    const next = origin ? null : ids[ids.indexOf(data.id) + 1] || null;
    let tour;
    try {
      tour = new TourPlayer(data, this.api, pg.$('tour'), { next: !origin && ids.includes(data.id) ? next : null, origin });
      if (pg.tour) pg.tour.end();
      pg.tour = tour;
      this.showLesson();
      const stop = Number.isInteger(step) ? step : 1;
      const count = tour.stops.length;
      // Past the last stop: the last, and said so.
      if (stop > count) pg.notify('warn', t('tour.step_too_far', { step: stop, count }));
      if (checked) this.checked(tour, checked);
      if (prebuilt >= 0) tour.part = prebuilt;
      tour.go(Math.max(0, Math.min(stop, count) - 1));
      if (prebuilt >= 0) pg.draw();
    } catch (err) {
      this.close();
      if (isCrash(err)) { pg.recover(err); return false; }
      pg.notify('error', t('tour.could_not_open', { message: phrase(err.message, t) }));
      return false;
    }
    // A built-in tour with questions: their choices come from the model, as
    // the build computed them (a small file), else from a worker that checks the tour.
    if (!checked && tour.checking === 'pending') {
      const answers = typeof source === 'string' ? tourAnswers(source, data) : Promise.reject(new Error('not a built-in tour'));
      answers.catch(() => checkBuiltInTour(data)).then((result) => {
        if (pg.closed || pg.tour !== tour) return;
        pg.enter();
        this.checked(tour, result);
      }, () => {
        if (pg.closed || pg.tour !== tour) return;
        pg.enter();
        tour.uncheckable();
      });
    }
    if (before && before.steps.length) pg.undo = { scenario: before, position };
    if (pg.address) focusPrimary(pg); // on the page; an element in a docs page leaves the reader's focus alone
    return true;
  }

  /** What the model said of the tour: its findings (shown to the author; `data-tour-errors`) and its predictions. */
  checked(tour, result) {
    const pg = this.pg;
    tour.checked(result);
    // Its choices arrived while the question was shown: the focus goes to the first, as if they had been there.
    if (pg.address && pg.tour === tour && tour.asking() && pg.$('tour').contains(pg.root.activeElement)) focusPrimary(pg);
    pg.host.dataset.tourErrors = String(result.findings.length + (result.more_findings || 0));
    // A finding of the file as a whole (a part that does not run…) has no stop to show it at.
    const whole = result.findings.filter((f) => !f.stop);
    if (whole.length) pg.notify('warn', t('tour.file_findings', { n: whole.length, message: whole[0].message }));
  }

  /**
   * Ends the tour. `offerUndo`: the learner closed it, and the run they had
   * before the tour comes back with the notice's Undo (the tour's run stays
   * on the board, and in the address, until then).
   */
  close({ offerUndo = false } = {}) {
    const pg = this.pg;
    const userRun = this.userRun;
    this.userRun = null;

    if (offerUndo && userRun && pg.tour) {
      pg.undo = userRun;
      pg.notify('info', t('tour.closed_undo'), pg.undoAction());
    }
    if (pg.tour) pg.tour.end();
    pg.tour = null;
    delete pg.host.dataset.tourErrors;
    pg.$('root').classList.remove('asking');
    this.showLesson();
    pg.$('tour').hidden = true;
    patch(pg.$('tour'), []);
    this.changed();
    if (pg.writer) pg.writer.tourClosed(); // a preview ends: back to the draft
  }

  /** The tour's stop changed (or the tour closed): the page's address follows. */
  changed() {
    const pg = this.pg;
    // A stop of a topic on a cluster shows its partition (0 when it names none).
    const at = pg.tour && pg.tour.stops[pg.tour.index];
    if (at && pg.partitions > 1) pg.setPartition(at.stop.partition ?? 0, { quiet: true });
    if (pg.address) pg.address.writeTour();
  }

  /** After the tour panel redrew: a finished tour is remembered, and a produce task's values are the form's. */
  redrawn() {
    const pg = this.pg;
    const tour = pg.tour;
    // While a question is open, the board waits for the answer: Play and Step forward (which would tell it) give way.
    pg.$('root').classList.toggle('asking', Boolean(tour && tour.asking()));
    if (!tour) return;
    if (tour.finished() && !tour.origin) this.markDone(tour.id);
    const step = tour.expectedStep();
    if (step && step.produce && tour.onTrack()) {
      pg.$('produce-value').value = step.produce.value;
      pg.$('produce-acks').value = String(step.produce.acks ?? 'all');
      pg.$('produce-to').value = step.produce.to === undefined || step.produce.to === null ? '' : String(step.produce.to);
    }
  }

  onClick(e) {
    const pg = this.pg;
    const b = e.target.closest('button[data-tour]');
    if (!b || !pg.tour) return;
    pg.player.stop();
    const action = b.dataset.tour;
    const tour = pg.tour;
    if (action === 'next') tour.next();
    else if (action === 'back') tour.back();
    else if (action === 'resume') tour.resume();
    else if (action === 'choice') {
      let value;
      try {
        value = JSON.parse(b.dataset.value);
      } catch {
        return;
      }
      tour.choose(value);
    }
    else if (action === 'do') {
      // The same step the board's control takes (the run's own next step: the tour goes on).
      const step = tour.expectedStep();
      if (step) pg.apply(step);
    } else if (action === 'all') {
      tour.showAll = !tour.showAll;
      this.showLesson();
      tour.redraw();
      pg.$('tour').querySelector('[data-tour="all"]')?.focus();
      return;
    } else if (action === 'close') this.close({ offerUndo: true });
    else if (action === 'next-tour') {
      this.start(b.dataset.next);
      return;
    }
    // The panel (its caption and the control it asks for) stays in view, on a phone too,
    // and the focus on its next move (the button pressed may have given way to another).
    if (pg.tour) {
      keepInView(pg.$('tour'));
      keepBoardInView(pg);
      // A question just asked takes the focus to its first choice (Next had become "Show me": Enter twice told the answer).
      // At the end, the next tour.
      if (!pg.$('tour').contains(pg.root.activeElement) || (action !== 'choice' && pg.tour.asking()) || pg.tour.finished()) focusPrimary(pg);
    } else if (action === 'close' && pg.address) {
      // Finished or closed: the focus goes to the tours, not to the page's body.
      pg.$('btn-tours').focus({ preventScroll: true });
    }
  }

  async openList() {
    const pg = this.pg;
    pg.$('dlg-tours').showModal();
    try {
      const ids = await tourIds();
      if (pg.closed) return;
      pg.enter();
      const done = this.done();
      patch(pg.$('tour-list'), h('ul', { class: 'gallery-list' }, ids.map((id, i) => h('li', { class: 'gallery-card', key: id, 'data-id': id, 'data-done': String(done.includes(id)) },
        h('h3', null, `${i + 1}. ${t(`tours.${id}.title`)}`, done.includes(id) ? h('span', { class: 'tag tag-ok tour-done' }, t('tour.done')) : null),
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
    // A tour file of one's own, from the disk: read as text, checked and played as one from tour-src.
    $('tour-file').addEventListener('change', async (e) => {
      const input = e.target;
      const file = input.files && input.files[0];
      input.value = '';
      if (!file) return;
      $('dlg-tours').close();
      if (file.size > MAX_TOUR_BYTES) {
        pg.notify('error', t('tour.could_not_open', { message: t('tour.src_too_big', { src: excerpt(file.name, 60), max: num(MAX_TOUR_BYTES) }) }));
        return;
      }
      let text;
      try {
        text = await file.text();
      } catch (err) {
        pg.notify('error', t('tour.could_not_open', { message: err.message }));
        return;
      }
      this.start({ text });
    });
    $('onboard').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-start-tour]');
      if (b) this.start(b.dataset.startTour);
    });
  }
}

/** The key of the finished tours in the browser's storage: one list per language. */
function doneKey() {
  return `highwater.tours-done.${language()}`;
}

/** Focus on the tour's own next move: a question's first choice, the task's control, Next, or at the end the next tour (else Finish). */
function focusPrimary(pg) {
  const panel = pg.$('tour');
  (panel.querySelector('button.tour-choice') || panel.querySelector('.tour-buttons [data-tour="next-tour"]') || panel.querySelector('.tour-buttons .primary'))?.focus({ preventScroll: true });
}

/**
 * The board under the tour's panel: when its last broker ends below the
 * viewport, the page scrolls up by what is missing, but never past the
 * panel's own top (its caption and control stay in view; the page's header
 * gives way first).
 */
function keepBoardInView(pg) {
  const rows = pg.root.querySelectorAll('.layout .broker-row');
  if (!rows.length) return;
  bringIntoView(rows[rows.length - 1].getBoundingClientRect().bottom, pg.$('tour').getBoundingClientRect().top);
}

/** Scrolls `el` into view only when part of it is outside the viewport. */
function keepInView(el) {
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight) el.scrollIntoView({ block: 'nearest' });
}

/** The most of a tour file fetched from `tour-src`: the reader's own limit (src/view/tour.rs, MAX_TOUR_BYTES). */
const MAX_TOUR_BYTES = 1 << 20;

/**
 * A tour to open: { data, checked, origin }. A built-in tour is fetched
 * (its check comes later, when it asks questions); a tour file is read and
 * checked by the model first (tour-check.js), so that a file it cannot read
 * is a message and the run stays.
 */
async function openTour(source) {
  if (typeof source === 'string') return { data: await loadTour(source), checked: null, origin: null };
  if (source.link !== undefined) {
    const checked = await tourFromLink(source.link);
    return { data: checked.tour, checked, origin: { link: source.link } };
  }
  const text = source.src !== undefined ? await fetchTour(source.src) : source.text;
  const checked = await checkTourText(text);
  return { data: checked.tour, checked, origin: source.src !== undefined ? { src: source.src } : { inline: true } };
}

/** A tour file's text from its URL, at most MAX_TOUR_BYTES of it. */
async function fetchTour(src) {
  let url;
  try {
    url = new URL(src, document.baseURI);
  } catch {
    throw new Error(t('tour.bad_src', { src: excerpt(src, 60) }));
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(t('tour.bad_src', { src: excerpt(src, 60) }));
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(t('tour.src_status', { src: excerpt(src, 60), status: response.status }));
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_TOUR_BYTES) {
      reader.cancel();
      throw new Error(t('tour.src_too_big', { src: excerpt(src, 60), max: num(MAX_TOUR_BYTES) }));
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(await new Blob(chunks).arrayBuffer());
}

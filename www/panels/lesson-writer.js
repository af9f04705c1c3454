// Write a lesson: the page records a tour file (docs/tours.md) as its author
// plays a run. The author marks stops on the timeline, types a caption (and,
// for a stop where the learner takes the step, a task) in one or more
// languages, picks values on the board (an HW, a LEO, the ISR, a write's
// result) as facts the caption states or as the question of a prediction,
// previews the tour as a learner, and exports the file, an element snippet
// with the file inline, and a `#t=` link. The model checks the draft
// (tour-check.js) as a tour file is checked anywhere. The draft is kept in
// the browser (localStorage), so a reload loses nothing.

import { h, patch } from '../draw/dom.js';
import { t, language, LANGUAGES, num } from '../words/i18n.js';
import { describePath, formatValue } from '../words/predict-text.js';
import { download } from '../draw/export.js';
import { findingText } from '../element/tour.js';
import { moduleUrl } from '../element/links.js';
import { checkTourText, tourToLink } from '../element/tour-check.js';
import { phrase } from '../words/event-text.js';

const DRAFT_KEY = 'highwater.lesson-draft';

/** The values a stop may state or ask for, at the board's position: [{ path, value }] (the facts' vocabulary, src/view/tour.rs). */
export function boardValues(state) {
  const out = [];
  const p = state.partition;
  out.push({ path: 'leader', value: p.leader ?? null }, { path: 'leader_epoch', value: p.leader_epoch }, { path: 'isr', value: p.isr }, { path: 'high_watermark', value: p.high_watermark });
  for (const b of state.brokers) {
    out.push({ path: `brokers.${b.id}.log_end_offset`, value: b.log_end_offset }, { path: `brokers.${b.id}.high_watermark`, value: b.high_watermark });
  }
  const values = new Map();
  for (const r of state.producer || []) values.set(r.value, values.has(r.value) ? undefined : r.result);
  for (const [value, result] of values) if (result !== undefined) out.push({ path: `produce.${value}`, value: result });
  return out;
}

/** Facts as paths (`brokers.1.high_watermark`) to the nested object a tour file writes. */
export function nestFacts(flat) {
  const facts = {};
  for (const [path, value] of Object.entries(flat)) {
    const [head, ...rest] = path.split('.');
    if (head === 'brokers' && rest.length === 2) {
      facts.brokers ??= {};
      (facts.brokers[rest[0]] ??= {})[rest[1]] = value;
    } else if ((head === 'produce' || head === 'leader_view') && rest.length) {
      (facts[head] ??= {})[rest.join('.')] = value;
    } else {
      facts[path] = value;
    }
  }
  return facts;
}

function emptyDraft(lang) {
  return { id: 'my-lesson', lang, title: {}, scenario: null, stops: [] };
}

/** The tour file of a draft: its run, its stops in order, the words as written. */
export function tourFile(draft, scenario) {
  const words = (w) => Object.fromEntries(Object.entries(w || {}).filter(([, text]) => text && text.trim()));
  return {
    highwater_tour: 1,
    id: draft.id,
    title: words(draft.title),
    parts: [{
      scenario,
      stops: draft.stops.map((s) => ({
        key: s.key,
        at: s.at,
        ...(s.do ? { do: true } : {}),
        ...(Object.keys(s.facts).length ? { facts: nestFacts(s.facts) } : {}),
        ...(s.predict ? { predict: s.predict } : {}),
        caption: words(s.caption),
        ...(s.do ? { task: words(s.task) } : {}),
      })),
    }],
  };
}

/** The file as the text of a `<script type="application/json">`: no `<` that could end the script. */
export function inlineJson(file) {
  return JSON.stringify(file, null, 2).replace(/</g, '\\u003c');
}

export class LessonWriter {
  constructor(pg) {
    this.pg = pg;
    this.host = pg.$('writer');
    this.open = false;
    this.draft = this.load() || emptyDraft(language());
    this.selected = this.draft.stops.length ? 0 : -1;
    this.findings = null; // the model's last word on the draft: null (not checked), or [...]
    this.status = '';
  }

  load() {
    try {
      const d = JSON.parse(localStorage.getItem(DRAFT_KEY) || 'null');
      return d && Array.isArray(d.stops) && typeof d.title === 'object' ? d : null;
    } catch {
      return null;
    }
  }

  save() {
    try {
      localStorage.setItem(DRAFT_KEY, JSON.stringify(this.draft));
    } catch {
      // storage refused or full: the draft lives as long as the page
    }
  }

  start() {
    const pg = this.pg;
    this.open = true;
    if (pg.tour) pg.tours.close();
    // A draft from an earlier visit brings its run back.
    if (this.draft.scenario && this.draft.stops.length && JSON.stringify(this.draft.scenario.steps) !== JSON.stringify(pg.steps)) {
      pg.loadScenario(this.draft.scenario, { at: this.draft.stops[Math.max(0, this.selected)].at });
    }
    this.draw();
    this.host.querySelector('input, textarea, button')?.focus();
  }

  close() {
    this.open = false;
    this.host.hidden = true;
    patch(this.host, []);
  }

  get stop() {
    return this.draft.stops[this.selected] || null;
  }

  /** Something changed: kept, drawn, and the model's word is out of date. */
  changed() {
    this.draft.scenario = this.pg.currentScenario();
    this.findings = null;
    this.save();
    this.draw();
  }

  addStop() {
    const at = this.pg.sim.position();
    const i = this.draft.stops.findIndex((s) => s.at === at);
    if (i >= 0) {
      this.selected = i;
    } else {
      const used = new Set(this.draft.stops.map((s) => s.key));
      let key = at === 0 ? 'intro' : `step-${at}`;
      for (let n = 2; used.has(key); n++) key = `step-${at}-${n}`;
      this.draft.stops.push({ key, at, do: false, caption: {}, task: {}, facts: {}, predict: null });
      this.draft.stops.sort((a, b) => a.at - b.at);
      this.selected = this.draft.stops.findIndex((s) => s.at === at);
    }
    this.changed();
    this.host.querySelector('textarea[data-field="caption"]')?.focus();
  }

  select(i) {
    this.selected = i;
    const stop = this.stop;
    if (stop && stop.at <= this.pg.sim.length()) this.pg.seek(stop.at);
    this.draw();
  }

  /** The file of the draft now, with the page's run. */
  file() {
    return tourFile(this.draft, this.pg.currentScenario());
  }

  async check() {
    this.status = t('writer.checking');
    this.draw();
    try {
      const result = await checkTourText(JSON.stringify(this.file()));
      this.findings = result.findings;
      const n = result.findings.length + (result.more_findings || 0);
      this.status = n ? t('writer.findings', { n }) : t('writer.all_hold', { n: this.draft.stops.length });
    } catch (err) {
      this.findings = [];
      this.status = this.authorWords(err.message);
    }
    if (this.open) this.draw();
  }

  /**
   * What the file's reader refused, in the writer's words (the form's
   * fields, the stops by number), not the file format's; anything else as
   * the reader says it.
   */
  authorWords(message) {
    const stopNumber = (p, s) => {
      const i = this.draft.stops.findIndex((_, k) => k === Number(s));
      return i + 1 || Number(s) + 1;
    };
    let m;
    if (/^title: missing/.test(message) || /^title\.[\w-]+: empty$/.test(message)) return t('writer.needs_title');
    if (/^parts: a tour has at least one part/.test(message)) return t('writer.needs_stop');
    if ((m = /^parts\[(\d+)\]\.stops\[(\d+)\]\.caption(?:\.[\w-]+: empty|: missing)/.exec(message))) return t('writer.needs_caption', { n: stopNumber(m[1], m[2]) });
    if ((m = /^parts\[(\d+)\]\.stops\[(\d+)\]\.task(?:\.[\w-]+: empty|: missing)/.exec(message))) return t('writer.needs_task', { n: stopNumber(m[1], m[2]) });
    if ((m = /characters is longer than the limit of ([\d,]+)$/.exec(message))) return t('writer.too_long', { limit: m[1] });
    return t('writer.unreadable', { message: phrase(message, t) });
  }

  async preview() {
    const text = JSON.stringify(this.file());
    this.close();
    this.previewing = true;
    const opened = await this.pg.tours.start({ text });
    if (!opened) this.start();
  }

  /** The tour closed: back to the draft, if it was a preview. */
  tourClosed() {
    if (this.previewing) {
      this.previewing = false;
      this.start();
    }
  }

  async exportAs(kind) {
    const file = this.file();
    const name = `${this.draft.id}.json`;
    try {
      if (kind === 'file') {
        download(name, new Blob([`${JSON.stringify(file, null, 2)}\n`], { type: 'application/json' }));
        this.status = t('writer.downloaded', { name });
      } else if (kind === 'snippet') {
        const lang = this.draft.lang && this.draft.lang !== 'en' ? ` lang="${this.draft.lang}"` : '';
        await navigator.clipboard.writeText(`<script type="module" src="${moduleUrl(this.pg)}"></script>\n<highwater-playground${lang}><script type="application/json">\n${inlineJson(file)}\n</script></highwater-playground>\n`);
        this.status = t('writer.copied_snippet');
      } else if (kind === 'link') {
        const link = await tourToLink(JSON.stringify(file));
        const url = new URL(location.href);
        url.search = '';
        url.hash = '';
        await navigator.clipboard.writeText(`${url.href}?step=1#t=${link}`);
        this.status = t('writer.copied_link', { length: num(link.length) });
      }
    } catch (err) {
      this.status = t('writer.export_failed', { message: phrase(err.message, t) });
    }
    this.draw();
  }

  /** The value at `path` on the board now, as the state view has it. */
  valueNow(path) {
    const v = boardValues(this.pg.state).find((x) => x.path === path);
    return v ? v.value : undefined;
  }

  onInput(e) {
    const el = e.target;
    const field = el.dataset.field;
    if (!field) return;
    const lang = this.draft.lang;
    const stop = this.stop;
    if (field === 'title') this.draft.title[lang] = el.value;
    else if (field === 'id') this.draft.id = el.value.trim();
    else if (field === 'lang') this.draft.lang = el.value;
    else if (!stop) return;
    else if (field === 'key') stop.key = el.value.trim();
    else if (field === 'caption') stop.caption[lang] = el.value;
    else if (field === 'task') stop.task[lang] = el.value;
    else if (field === 'do') stop.do = el.checked;
    this.draft.scenario = this.pg.currentScenario();
    this.findings = null;
    this.save();
    // Typing keeps its field; a choice redraws what depends on it.
    if (el.tagName === 'SELECT' || el.type === 'checkbox') this.draw();
  }

  onClick(e) {
    const b = e.target.closest('button[data-writer]');
    if (!b) return;
    const action = b.dataset.writer;
    const stop = this.stop;
    if (action === 'close') this.close();
    else if (action === 'add') this.addStop();
    else if (action === 'select') this.select(Number(b.dataset.index));
    else if (action === 'remove' && stop) {
      this.draft.stops.splice(this.selected, 1);
      this.selected = Math.min(this.selected, this.draft.stops.length - 1);
      this.changed();
    } else if (action === 'fact' || action === 'predict') {
      const path = this.host.querySelector('select[data-field="value"]').value;
      this.state(path, action);
    } else if (action === 'unfact' && stop) {
      delete stop.facts[b.dataset.path];
      this.changed();
    } else if (action === 'unpredict' && stop) {
      stop.predict = null;
      this.changed();
    } else if (action === 'check') this.check();
    else if (action === 'preview') this.preview();
    else if (action === 'export') this.exportAs(b.dataset.kind);
    else if (action === 'new') {
      this.draft = emptyDraft(this.draft.lang);
      this.selected = -1;
      this.changed();
    }
  }

  /** The board moved: what the selected stop may state depends on it. */
  positionChanged() {
    if (this.open && this.pg.sim && this.pg.sim.position() !== this.drawnAt) this.draw();
  }

  /** A value on the board as a fact of the selected stop, or as its question. */
  state(path, how) {
    const stop = this.stop;
    if (!stop || this.pg.sim.position() !== stop.at) return;
    const value = this.valueNow(path);
    if (value === undefined) return;
    if (how === 'fact') stop.facts[path] = value;
    else stop.predict = path;
    this.changed();
  }

  /** A click on a figure of the board (a broker's LEO or HW) while writing: a fact of the selected stop. */
  onBoardClick(e) {
    if (!this.open || !this.stop) return false;
    const stat = e.target.closest('[data-stat]');
    const row = stat && stat.closest('.broker-row[data-broker]');
    const field = stat && { leo: 'log_end_offset', hw: 'high_watermark' }[stat.dataset.stat];
    if (!row || !field) return false;
    this.state(`brokers.${row.dataset.broker}.${field}`, 'fact');
    return true;
  }

  draw() {
    if (!this.open) return;
    const pg = this.pg;
    const draft = this.draft;
    const lang = draft.lang;
    const position = pg.sim.position();
    this.drawnAt = position;
    const stop = this.stop;
    const here = stop && stop.at === position;
    const findings = this.findings || [];
    const values = here ? boardValues(pg.state) : [];
    const langs = LANGUAGES.map((l) => l.code);
    this.host.hidden = false;
    patch(this.host, [
      h('div', { class: 'writer-head', key: 'head' },
        h('h3', { id: 'writer-title' }, t('writer.title')),
        h('label', null, t('writer.language'), ' ', h('select', { 'data-field': 'lang' },
          langs.map((code) => h('option', { value: code, key: code, selected: code === lang }, LANGUAGES.find((l) => l.code === code).name)))),
        h('button', { type: 'button', class: 'close', 'data-writer': 'close', 'aria-label': t('writer.close') }, '✕'),
      ),
      h('div', { class: 'writer-meta', key: `meta-${lang}` },
        h('label', null, t('writer.lesson_title'), ' ', h('input', { 'data-field': 'title', value: draft.title[lang] || '', maxlength: 2000, placeholder: t('writer.title_placeholder') })),
        h('label', null, t('writer.id'), ' ', h('input', { 'data-field': 'id', value: draft.id, maxlength: 64, pattern: '[a-z0-9]+(-[a-z0-9]+)*', spellcheck: 'false' })),
      ),
      h('ol', { class: 'writer-stops', key: 'stops', 'aria-label': t('writer.stops') },
        draft.stops.map((s, i) => h('li', { key: s.key + i },
          h('button', { type: 'button', class: `link-button${i === this.selected ? ' current' : ''}`, 'data-writer': 'select', 'data-index': String(i), 'aria-current': i === this.selected ? 'true' : null },
            t('writer.stop_at', { at: s.at, key: s.key }), s.predict ? ' ?' : '', s.do ? ' ✋' : '')))),
      h('p', { class: 'writer-add', key: 'add' },
        h('button', { type: 'button', 'data-writer': 'add', class: draft.stops.length ? null : 'primary' },
          draft.stops.some((s) => s.at === position) ? t('writer.edit_stop', { at: position }) : t('writer.add_stop', { at: position }))),
      stop ? h('fieldset', { class: 'writer-stop', key: `stop-${this.selected}-${lang}-${stop.at}` },
        h('legend', null, t('writer.stop_at', { at: stop.at, key: stop.key })),
        here ? null : h('p', { class: 'muted' }, t('writer.not_here', { at: stop.at })),
        h('label', null, t('writer.key'), ' ', h('input', { 'data-field': 'key', value: stop.key, maxlength: 64, spellcheck: 'false' })),
        stop.at > 0 ? h('label', { class: 'writer-do' }, h('input', { type: 'checkbox', 'data-field': 'do', checked: stop.do }), ' ', t('writer.do', { step: stop.at })) : null,
        stop.do ? h('label', { class: 'writer-text' }, t('writer.task'), h('textarea', { 'data-field': 'task', rows: 2, maxlength: 2000 }, stop.task[lang] || '')) : null,
        h('label', { class: 'writer-text' }, t('writer.caption'), h('textarea', { 'data-field': 'caption', rows: 3, maxlength: 2000 }, stop.caption[lang] || '')),
        h('div', { class: 'writer-facts' },
          h('span', null, t('writer.facts')),
          Object.keys(stop.facts).length
            ? Object.entries(stop.facts).map(([path, value]) => h('span', { class: 'writer-chip', key: path, 'data-testid': 'writer-fact' }, `${describePath(path)} = ${formatValue(path, value)}`,
                h('button', { type: 'button', class: 'link-button', 'data-writer': 'unfact', 'data-path': path, 'aria-label': t('writer.remove_fact', { what: describePath(path) }) }, '✕')))
            : h('span', { class: 'muted' }, t('writer.no_facts')),
          stop.predict ? h('span', { class: 'writer-chip predict', 'data-testid': 'writer-predict' }, t('writer.predicts', { what: describePath(stop.predict) }),
            h('button', { type: 'button', class: 'link-button', 'data-writer': 'unpredict', 'aria-label': t('writer.remove_predict') }, '✕')) : null,
        ),
        here ? h('div', { class: 'writer-value' },
          h('label', null, t('writer.value'), ' ', h('select', { 'data-field': 'value' }, values.map((v) => h('option', { value: v.path, key: v.path }, `${describePath(v.path)} = ${formatValue(v.path, v.value)}`)))),
          h('button', { type: 'button', 'data-writer': 'fact' }, t('writer.add_fact')),
          stop.at > 0 ? h('button', { type: 'button', 'data-writer': 'predict' }, t('writer.add_predict')) : null,
          h('span', { class: 'muted' }, t('writer.click_board'))) : null,
        findings.filter((f) => f.stop === stop.key).length
          ? h('ul', { class: 'tour-findings' }, findings.filter((f) => f.stop === stop.key).map((f, i) => h('li', { key: String(i) }, findingText(f))))
          : null,
        h('button', { type: 'button', 'data-writer': 'remove' }, t('writer.remove_stop')),
      ) : h('p', { class: 'muted', key: 'empty' }, t('writer.intro')),
      h('div', { class: 'writer-actions', key: 'actions' },
        h('button', { type: 'button', 'data-writer': 'check', disabled: !draft.stops.length }, t('writer.check')),
        h('button', { type: 'button', class: 'primary', 'data-writer': 'preview', disabled: !draft.stops.length }, t('writer.preview')),
        h('button', { type: 'button', 'data-writer': 'export', 'data-kind': 'file', disabled: !draft.stops.length }, t('writer.export_file')),
        h('button', { type: 'button', 'data-writer': 'export', 'data-kind': 'snippet', disabled: !draft.stops.length }, t('writer.export_snippet')),
        h('button', { type: 'button', 'data-writer': 'export', 'data-kind': 'link', disabled: !draft.stops.length }, t('writer.export_link')),
        h('button', { type: 'button', class: 'link-button', 'data-writer': 'new' }, t('writer.new')),
      ),
      h('p', { class: 'writer-status', key: 'status', role: 'status', 'data-testid': 'writer-status' },
        this.status, findings.filter((f) => !f.stop).map((f) => [' ', f.message])),
    ]);
  }
}

/** Wires the writer into a playground: its button, its panel's inputs and clicks, the board's figures while writing. */
export function wireWriter(pg) {
  const writer = new LessonWriter(pg);
  pg.writer = writer;
  pg.$('btn-write').addEventListener('click', () => writer.start());
  writer.host.addEventListener('input', (e) => writer.onInput(e));
  writer.host.addEventListener('change', (e) => writer.onInput(e));
  writer.host.addEventListener('click', (e) => writer.onClick(e));
  pg.$('cluster').addEventListener('click', (e) => {
    if (writer.onBoardClick(e)) e.stopPropagation();
  });
  return writer;
}

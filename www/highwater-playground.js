// <highwater-playground>: the playground as one custom element, the one
// module a page imports. The full page (index.html), its ?embed view and an
// element in someone's documentation are this same element in three sizes:
//
//   <script type="module" src="…/highwater-playground.js"></script>
//   <highwater-playground scenario="kip101-loss-after-restart" step="8" lang="zh-Hans"></highwater-playground>
//
// Attributes: scenario (a gallery id, or a link's text `v1.…`), step (the
// position to show), tour (a tour id; step is then the tour's stop), fork (a
// change, docs/fork.md: the run and its fork side by side), lang
// (en, zh-Hans, zh-Hant), height (a CSS length), controls (full, compact,
// none), autoplay. It renders in a shadow root (the host page's CSS cannot
// reach in, its own cannot leak out), loads when it is scrolled near the
// viewport, shares one core (wasm) instance with every other playground on
// the page, and reports its position in a `highwater-position` event
// (detail: { position, length, scenario, stopped, violations }). It has a
// `data-ready` attribute once drawn. `sync-url` makes it the page: the address
// bar carries its run, tour and language.

import { ensureCore } from './core.js';
import { setLanguage, useLanguage, chooseLanguage, translateTree, missingKeys, LANGUAGES, isLanguage, has, fill } from './words/i18n.js';
import { h, patch } from './draw/dom.js';
import { markupFragment } from './element/template.js';
import { Playground } from './element/playground.js';
import { wireControls } from './element/controls.js';
import { wireSettings, wireRules } from './dialogs/settings-dialog.js';
import { wireGallery } from './dialogs/gallery-dialog.js';
import { wireShare } from './dialogs/share-dialog.js';
import { wireExplore } from './dialogs/explore-dialog.js';
import { wireWhatif } from './dialogs/whatif-dialog.js';
import { Tours } from './panels/tour-panel.js';
import { ForkView } from './panels/fork-view.js';
import { DiagramPanel } from './panels/diagram-panel.js';
import { wireExport } from './panels/export-menu.js';
import { PageAddress } from './element/links.js';
import { loadGallery, galleryEntry } from './element/gallery.js';
import { tourIds } from './element/tour.js';
import { excerpt } from './words/user-text.js';
import { phrase } from './words/event-text.js';
import { t } from './words/i18n.js';


/** The style sheets, fetched once and shared by every playground's shadow root
 *  (written out as URLs, so the packager, which follows `new URL(…)`, packs each). */
const STYLE_FILES = [
  new URL('./element/style.css', import.meta.url),
  new URL('./draw/compare.css', import.meta.url),
  new URL('./draw/diagram.css', import.meta.url),
];
let sheets = null;

function styleSheets() {
  if (!sheets) {
    sheets = Promise.all(STYLE_FILES.map(async (url) => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${url.pathname}: ${response.status}`);
      const sheet = new CSSStyleSheet();
      await sheet.replace(await response.text());
      return sheet;
    }));
    sheets.catch(() => { sheets = null; });
  }
  return sheets;
}

/** What the host needs before the styles arrive: a box to be seen (and lazily loaded) in, and
 *  nothing inherited from the host page (its font, letter spacing, alignment…). */
const HOST = new CSSStyleSheet();
HOST.replaceSync(`:host { all: initial; display: block; position: relative; }
:host([hidden]) { display: none; }
.hw-waiting { all: initial; min-height: 240px; display: grid; place-items: center; font: 14px system-ui, sans-serif; color: #5a6472; border: 1px dashed #b9c1cc; border-radius: 10px; }`);

let template = null;

/** The markup, built once (without an HTML parser: see template.js) and cloned for each playground. */
function markup() {
  if (!template) template = markupFragment();
  return template.cloneNode(true);
}

const SIZES = { full: 'full', compact: 'compact', none: 'bare' };

/** A whole number from an attribute (past the run's end is still a number: it is said so, and the end shown), or null. */
function stepNumber(raw) {
  return raw !== null && /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : null;
}

/**
 * The one message shown when even the locale tables could not be loaded (the
 * core and the locales failed together, as offline): English, built in. Every
 * other word comes from the tables; this is what reaches a reader with none.
 */
const BUILT_IN = {
  'page.core_failed': 'The simulation core could not be loaded',
  'page.core_failed_detail': '{message}. Build it with “make build” and reload.',
};
const words = (key, params) => (has(key) ? t(key, params) : fill(BUILT_IN[key], params));

export class HighwaterPlayground extends HTMLElement {
  static observedAttributes = ['scenario', 'step', 'tour', 'fork', 'lang', 'height', 'controls', 'autoplay'];

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    this.shadowRoot.adoptedStyleSheets = [HOST];
    this.pg = null;
    this.starting = null;
    this.observer = null;
    this.unwire = []; // listeners outside the shadow root, removed when it is laid out again
  }

  /** The playground inside (null until it has loaded). */
  get playground() {
    return this.pg;
  }

  /** Locale keys this page's playgrounds asked for that no table has (the locale checks of the tests). */
  missingKeys() {
    return missingKeys();
  }

  /** The position shown, and the run's length. */
  get position() {
    return this.pg && this.pg.sim ? this.pg.sim.position() : null;
  }

  get length() {
    return this.pg && this.pg.sim ? this.pg.sim.length() : null;
  }

  connectedCallback() {
    this.applyHeight();
    if (this.pg || this.starting) return;
    if (!this.shadowRoot.childElementCount) {
      const wait = document.createElement('div');
      wait.className = 'hw-waiting';
      wait.dir = 'ltr';
      wait.textContent = '…';
      this.shadowRoot.append(wait);
    }
    if (this.hasAttribute('sync-url') || typeof IntersectionObserver === 'undefined') {
      this.start();
      return;
    }
    // Loaded when it comes near the viewport: a long docs page pays only for what is read.
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        this.observer.disconnect();
        this.observer = null;
        this.start();
      }
    }, { rootMargin: '300px' });
    this.observer.observe(this);
  }

  disconnectedCallback() {
    if (this.observer) {
      this.observer.disconnect();
      this.observer = null;
    }
    if (this.pg) {
      this.pg.player.stop();
      this.pg.player.stopClock();
    }
    // Moved elsewhere in the page, it is connected again before this runs;
    // removed (a docs site's client-side navigation), its runs are freed.
    queueMicrotask(() => {
      if (!this.isConnected) this.teardown();
    });
  }

  /** Frees the runs this element holds in the core and empties it; connected again, it starts afresh from its attributes. */
  teardown() {
    const pg = this.pg;
    this.pg = null;
    for (const off of this.unwire.splice(0)) off();
    if (pg) pg.close();
    delete this.dataset.ready;
    this.shadowRoot.replaceChildren();
  }

  attributeChangedCallback(name, old, value) {
    if (name === 'height') this.applyHeight();
    if (!this.pg || old === value) return;
    const pg = this.pg;
    pg.enter();
    if (name === 'lang') {
      pg.setLanguage(chooseLanguage(value, navigator.languages || [navigator.language])).catch((err) => pg.notify('error', t('notice.language_failed', { message: err.message })));
    } else if (name === 'scenario' || name === 'tour') {
      this.loadFromAttributes().catch((err) => this.failed(err));
    } else if (!pg.sim) {
      // Its first run is still loading: nothing to move yet (autoplay is read once it has loaded).
    } else if (name === 'fork') {
      if (value) pg.forkView.open(value);
      else pg.forkView.close();
    } else if (name === 'step') {
      const at = stepNumber(value);
      if (at === null) return;
      if (pg.tour) pg.tour.go(Math.max(0, at - 1));
      else {
        pg.player.stop();
        pg.seek(at);
      }
    } else if (name === 'controls') {
      // The size changes what is laid out: the simplest honest way is to lay out again.
      this.restart();
    } else if (name === 'autoplay' && value !== null) {
      pg.player.play();
    }
  }

  /** The `height` attribute as the element's height; removed (or not a length), the height it had before it was given one. */
  applyHeight() {
    const height = this.getAttribute('height');
    if (height && CSS.supports('height', height)) {
      this.style.height = height;
      this.style.overflow = 'auto';
      this.sizedByAttribute = true;
    } else if (this.sizedByAttribute) {
      this.style.removeProperty('height');
      this.style.removeProperty('overflow');
      this.sizedByAttribute = false;
    }
  }

  size() {
    return SIZES[this.getAttribute('controls')] || (this.hasAttribute('sync-url') ? 'full' : 'compact');
  }

  restart() {
    if (!this.pg) return;
    const scenario = this.pg.currentScenario();
    const at = this.pg.sim.position();
    this.pg.player.stop();
    this.pg.player.stopClock();
    this.teardown();
    this.start({ scenario, at });
  }

  start(keep = null) {
    if (!this.starting) this.starting = this.build(keep).catch((err) => this.failed(err)).finally(() => { this.starting = null; });
    return this.starting;
  }

  /** A failure of its own loading: said inside the element, never thrown into the host page (nothing, once removed). */
  failed(err) {
    const pg = this.pg;
    if (!this.isConnected || (pg && pg.closed)) return;
    const message = err && err.message ? err.message : String(err);
    if (pg) {
      pg.enter();
      pg.notify('error', t('notice.could_not_start', { message }));
    }
  }

  async build(keep) {
    const page = this.hasAttribute('sync-url');
    const size = this.size();
    const requested = page ? new URLSearchParams(location.search).get('lang') : this.getAttribute('lang') || document.documentElement.lang;
    const preferred = navigator.languages || [navigator.language];
    const [styles, coreError, lang] = await Promise.all([
      styleSheets().catch(() => []),
      ensureCore().then(() => null, (err) => err),
      setLanguage(chooseLanguage(requested, preferred)).catch(() => setLanguage('en').catch(() => 'en')),
    ]);
    // Another playground may have made its language current meanwhile.
    useLanguage(lang);
    // Removed while it loaded: nothing to lay out.
    if (!this.isConnected) return;
    const root = this.shadowRoot;
    root.adoptedStyleSheets = [HOST, ...styles];
    root.replaceChildren(markup());
    const box = root.getElementById('root');
    box.lang = lang;
    box.classList.toggle('page', page);
    box.classList.toggle('compact', size !== 'full');
    box.classList.toggle('bare', size === 'bare');
    translateTree(root);
    if (page) document.documentElement.lang = lang;
    if (coreError) {
      root.getElementById('scenario-name').textContent = words('page.core_failed');
      root.getElementById('scenario-description').textContent = words('page.core_failed_detail', { message: coreError.message });
      root.getElementById('app').setAttribute('aria-busy', 'false');
      this.dataset.ready = 'error';
      if (page) document.body.dataset.ready = 'error';
      return;
    }

    const pg = new Playground(root, this, { size, lang });
    this.pg = pg;
    if (page) pg.address = new PageAddress(pg);
    this.wire(pg, page);
    pg.player.updateButtons();

    // The gallery (names in every language) and the first tour, for the head.
    loadGallery().then((g) => { pg.gallery = g; if (pg.sim) { pg.enter(); pg.drawHead(); } }, () => {});
    tourIds().then((ids) => { pg.firstTour = ids[0] || null; if (pg.sim) { pg.enter(); pg.drawHead(); } }, () => {});

    this.addEventListener('highwater-ready', () => {
      if (page) {
        performance.mark('highwater:first-draw');
        document.body.dataset.ready = 'true';
      }
    }, { once: true });

    if (keep) {
      pg.loadScenario(keep.scenario, { at: keep.at });
    } else if (page) {
      await this.loadPage();
    } else {
      await this.loadFromAttributes();
    }
    if (pg.closed) return; // removed while it loaded
    if (this.hasAttribute('autoplay') && pg.sim && pg.sim.position() < pg.sim.length()) pg.player.play();
  }

  /** The page: the run from the address bar's fragment, then `?tour=&step=`. */
  async loadPage() {
    const pg = this.pg;
    try {
      pg.address.loadFromHash();
    } catch (err) {
      pg.notify('error', t('notice.could_not_start', { message: err.message }));
      pg.loadScenario(pg.defaultScenario());
    }
    const params = new URLSearchParams(location.search);
    if (params.has('tour')) {
      const raw = params.get('step');
      const step = raw !== null && /^\d{1,15}$/.test(raw) ? Number(raw) : 1;
      if (raw !== null && String(step) !== raw) pg.notify('warn', t('tour.bad_step', { step: excerpt(raw, 20) }));
      await pg.tours.start(params.get('tour'), step);
    }
  }

  /** An element: its `scenario` (a gallery id or a link's text), `step` and `tour`. */
  async loadFromAttributes() {
    const pg = this.pg;
    const scenario = (this.getAttribute('scenario') || '').trim();
    const tour = this.getAttribute('tour');
    const rawStep = this.getAttribute('step');
    const step = stepNumber(rawStep);
    if (rawStep !== null && step === null && !tour) pg.notify('warn', t('notice.bad_at', { at: excerpt(rawStep, 20) }));
    pg.player.stop();
    if (tour) {
      if (!pg.sim) pg.loadScenario(pg.defaultScenario());
      if (rawStep !== null && step === null) pg.notify('warn', t('tour.bad_step', { step: excerpt(rawStep, 20) }));
      if (await pg.tours.start(tour, step ?? 1)) return;
      if (pg.closed) return;
    } else if (pg.tour) {
      pg.tours.close();
    }
    try {
      if (!scenario) {
        pg.loadScenario(pg.defaultScenario());
      } else if (/^v\d+\./.test(scenario)) {
        pg.loadLink(scenario, { at: step ?? 0 });
      } else {
        const entry = galleryEntry(await loadGallery(), scenario);
        if (pg.closed) return; // removed while the gallery loaded
        pg.enter();
        if (!entry) throw new Error(t('embed.unknown_scenario', { id: excerpt(scenario, 40) }));
        pg.gallery = await loadGallery();
        pg.loadScenario(entry.scenario, { at: step ?? 0 });
      }
      if (step !== null && step > pg.sim.length()) pg.notify('warn', t('notice.at_too_far', { at: step, count: pg.sim.length() }));
      // A comparison: the run and its fork side by side (a change the core refuses is a message).
      const fork = this.getAttribute('fork');
      if (fork) pg.forkView.open(fork);
    } catch (err) {
      if (pg.closed) return;
      pg.enter();
      // A new scenario attribute that cannot be opened leaves the run shown before; the first one gives a fresh playground.
      pg.notify('error', t(pg.sim ? 'notice.bad_link_kept' : 'notice.bad_link', { message: phrase(err.message, t) }));
      if (!pg.sim) pg.loadScenario(pg.defaultScenario());
    }
  }

  wire(pg, page) {
    const root = this.shadowRoot;
    const $ = (id) => pg.$(id);
    // Several playgrounds on a page may speak different languages: each
    // event inside this one makes its language the current one first.
    for (const type of ['click', 'input', 'change', 'submit', 'keydown', 'pointerdown', 'focusin']) {
      root.addEventListener(type, () => pg.enter(), { capture: true });
    }
    pg.player.wire();
    wireControls(pg);
    wireSettings(pg);
    wireRules(pg);
    wireGallery(pg);
    wireShare(pg);
    wireExplore(pg);
    wireWhatif(pg);
    pg.tours = new Tours(pg);
    pg.tours.wire();
    pg.forkView = new ForkView(pg);
    pg.forkView.wire();
    pg.diagram = new DiagramPanel(pg);
    pg.diagram.wire();
    wireExport(pg);
    root.querySelectorAll('dialog [data-close]').forEach((b) => b.addEventListener('click', () => b.closest('dialog').close()));
    $('btn-glossary').addEventListener('click', () => $('dlg-glossary').showModal());

    // Languages: the page has a switcher; an element follows its lang attribute.
    const select = $('lang');
    patch(select, LANGUAGES.map((l) => h('option', { value: l.code, key: l.code, lang: l.code }, l.name)));
    select.value = pg.lang;
    select.addEventListener('change', async (e) => {
      const code = e.target.value;
      if (!isLanguage(code)) return;
      try {
        await pg.setLanguage(code);
      } catch (err) {
        pg.notify('error', t('notice.language_failed', { message: err.message }));
        select.value = pg.lang;
        return;
      }
      if (pg.address) pg.address.writeLanguage(pg.lang);
    });

    if (page) {
      this.unwire.push(pg.address.wire());
      const onKey = (e) => { pg.enter(); pg.player.onKey(e); };
      document.addEventListener('keydown', onKey);
      this.unwire.push(() => document.removeEventListener('keydown', onKey));
    } else {
      root.addEventListener('keydown', (e) => pg.player.onKey(e));
    }
  }
}

if (!customElements.get('highwater-playground')) customElements.define('highwater-playground', HighwaterPlayground);

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
// (en, zh-Hans, zh-Hant), height (a CSS length: the most it takes), controls (full, compact,
// none), autoplay, theme (light, dark, auto: the host page's toggle, else the
// OS). It renders in a shadow root (the host page's CSS cannot
// reach in, its own cannot leak out), loads when it is scrolled near the
// viewport, shares one core (wasm) instance with every other playground on
// the page, and reports its position in a `highwater-position` event
// (detail: { position, length, scenario, stopped, violations }). It has a
// `data-ready` attribute once drawn. `sync-url` makes it the page: the address
// bar carries its run, tour and language.

import { ensureCore, coreLoaded, warmCore, core as loadedCore } from './core.js';
import { setLanguage, loadLanguage, loadBundle, hasBundle, useLanguage, chooseLanguage, translateTree, missingKeys, LANGUAGES, isLanguage, has, fill } from './words/i18n.js';
import { h, patch } from './draw/dom.js';
import { markupFragment } from './element/template.js';
import { styleSheet, adopt } from './element/sheets.js';
import { Playground } from './element/playground.js';
import { parseFragment } from './element/share.js';
import { wireControls, closeMenusOnEscape } from './element/controls.js';
import { wireGroups, opensViews } from './element/groups.js';
import { wireToolbars } from './element/toolbar.js';
import { wireSettings, wireRules } from './dialogs/settings-dialog.js';
import { wireGallery } from './dialogs/gallery-dialog.js';
import { Tours } from './panels/tour-panel.js';
import { wireExport } from './panels/export-menu.js';
import { PageAddress, wireOpenLink } from './element/links.js';
import { loadGallery, galleryEntry, galleryWords } from './element/gallery.js';
import { tourIds, quorumTours } from './element/tour.js';
import { loadFrame, Snapshot } from './element/first-frame.js';
import { excerpt } from './words/user-text.js';
import { phrase } from './words/event-text.js';
import { t } from './words/i18n.js';


/** The element's style sheet, shared by every playground's shadow root (the fork view's and the diagram's come with them: lazy.js). */
const styleSheets = () => styleSheet(new URL('./element/style.css', import.meta.url)).then((sheet) => [sheet]);

// The parts a first draw does without (the explorer, the outcome grid, the
// fork view, the diagram, sharing and the exporters): each module is imported
// when it is first used, once for the page, and wired into each playground
// that uses it. The bundle (scripts/bundle.mjs) makes each a file of its own.
const modules = new Map();
function part(name, load) {
  if (!modules.has(name)) {
    const p = load();
    p.catch(() => modules.delete(name));
    modules.set(name, p);
  }
  return modules.get(name);
}
const PARTS = {
  explore: () => part('explore', () => import('./dialogs/explore-dialog.js')),
  whatif: () => part('whatif', () => import('./dialogs/whatif-dialog.js')),
  // The lesson writer's words (the locale bundle `writer`) come with its code.
  writer: () => part('writer', () => Promise.all([import('./panels/lesson-writer.js'), loadBundle('writer')]).then(([module]) => module)),
  share: () => part('share', () => import('./dialogs/share-dialog.js')),
  fork: () => part('fork', () => Promise.all([import('./panels/fork-view.js'), styleSheet(new URL('./draw/compare.css', import.meta.url))])),
  diagram: () => part('diagram', () => Promise.all([import('./panels/diagram-panel.js'), styleSheet(new URL('./draw/diagram.css', import.meta.url))])),
};

/** A playground's own instance of a part, made once (`make` wires it). */
function partOf(pg, name, make) {
  pg.parts ??= new Map();
  if (!pg.parts.has(name)) {
    const p = PARTS[name]().then((loaded) => (pg.closed ? null : make(loaded)));
    p.catch(() => pg.parts.delete(name));
    pg.parts.set(name, p);
  }
  return pg.parts.get(name);
}

/**
 * The first click on one of `ids` loads the part and wires it, then is given
 * to it (clicked again); a part that cannot be loaded is a message.
 */
function wireOnFirstUse(pg, ids, ensure) {
  const buttons = ids.map((id) => pg.$(id));
  const first = async (e) => {
    const button = e.currentTarget;
    e.preventDefault();
    e.stopImmediatePropagation();
    try {
      await ensure();
    } catch (err) {
      pg.enter();
      pg.notify('error', t('notice.failed', { what: button.textContent.trim(), message: err && err.message ? err.message : String(err) }));
      return;
    }
    for (const b of buttons) b.removeEventListener('click', first, true);
    if (!pg.closed) button.click();
  };
  for (const b of buttons) b.addEventListener('click', first, true);
}

/**
 * Loads the fork view into a playground (its style sheet too), and the full
 * core, where the fork's functions are (core.js), with the run made again in it.
 */
const forkView = (pg) => Promise.all([partOf(pg, 'fork', ([{ ForkView }, sheet]) => {
  adopt(pg.root, sheet);
  pg.forkView = new ForkView(pg);
  pg.forkView.wire();
  return pg.forkView;
}), pg.useViews()]).then(([view, live]) => (live ? view : null));

/** Loads the space-time diagram's panel into a playground and draws it. */
const diagram = (pg) => partOf(pg, 'diagram', ([{ DiagramPanel }, sheet]) => {
  adopt(pg.root, sheet);
  pg.diagram = new DiagramPanel(pg);
  pg.diagram.wire();
  if (pg.sim && !pg.onFrame) pg.draw(); // the diagram drawn, then scrolled to the current step, with the rest
  return pg.diagram;
});

/**
 * The Glossary: its terms and texts are the locale bundle `glossary`, fetched
 * at its first opening (the board's tooltips, `glossary.*.short`, are in
 * ui.json); it opens once they are in. Not to be had: a notice says so, and
 * nothing else changes.
 */
async function openGlossary(pg) {
  if (!hasBundle('glossary') && !(await pg.wordsFor('glossary', t('glossary_ui.title')))) return;
  const dialog = pg.$('dlg-glossary');
  translateTree(dialog);
  if (!dialog.open) dialog.showModal();
}

/** A slot that shows the element's own content, as `className` places it. */
function lightSlot(className) {
  const slot = document.createElement('slot');
  slot.className = className;
  return slot;
}

/** What the host needs before the styles arrive: a box to be seen (and lazily loaded) in, and
 *  nothing inherited from the host page (its font, letter spacing, alignment…). */
const HOST_RULES = `:host { all: initial; display: block; position: relative; }
:host([hidden]) { display: none; }
.hw-waiting { all: initial; min-height: 240px; display: grid; place-items: center; font: 14px system-ui, sans-serif; color: #5a6472; border: 1px dashed #b9c1cc; border-radius: 10px; }
.hw-failed { all: initial; display: block; box-sizing: border-box; padding: 8px 12px; font: 14px/1.4 system-ui, sans-serif; color: #5a6472; border: 1px dashed #b9c1cc; border-radius: 10px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
:host([data-scheme="dark"]) .hw-failed { color: #aeb6c2; border-color: #4b5563; }
::slotted(img) { display: block; max-width: 100%; height: auto; }
.hw-under { display: block; position: absolute; inset: 0; overflow: hidden; }
.hw:not(.undrawn) ~ .hw-under { display: none; }`;
let hostStyles = null;
/** The host's sheet, made at the first element (not at import: the module is imported where there is no DOM too). */
function hostSheet() {
  if (!hostStyles) {
    hostStyles = new CSSStyleSheet();
    hostStyles.replaceSync(HOST_RULES);
  }
  return hostStyles;
}

let template = null;

/** The markup, built once (without an HTML parser: see template.js) and cloned for each playground. */
function markup() {
  if (!template) template = markupFragment();
  return template.cloneNode(true);
}

const SIZES = { full: 'full', compact: 'compact', none: 'bare' };

/** The longest a first draw waits for its tour's panel (a tour file fetched from afar): then it is shown without it. */
const TOUR_REVEAL_WAIT_MS = 1000;

/**
 * The full page is the element: its parts are the page's landmarks and its
 * name the page's heading. An element in a docs page has none (its labelled
 * parts are groups): the host page owns them.
 */
function pageLandmarks(root) {
  const role = (id, name, extra = {}) => {
    const el = root.getElementById(id);
    el.setAttribute('role', name);
    for (const [k, v] of Object.entries(extra)) el.setAttribute(k, v);
  };
  role('topbar', 'banner');
  role('brand-name', 'heading', { 'aria-level': '1' });
  role('top-actions', 'navigation', { 'aria-label': 'Page actions', 'data-i18n-attr': 'aria-label:nav.label' });
  role('app', 'main');
  role('footer', 'contentinfo');
}

// Light or dark. `theme="light"` or `"dark"` says which; `auto` (or none)
// follows the host page: a `dark` (or `light`) class or `data-theme` on its
// <html>, as documentation sites' toggles set (VitePress's `html.dark`), else
// the colour of the page's own background where it paints one, else the OS.
const DARK = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
const themed = new Set(); // the connected elements
let watcher = null;

/** Dark or light, by the colour a page paints: its body's background, else its root's (null: none painted). */
function paintedScheme() {
  for (const el of [document.body, document.documentElement]) {
    if (!el) continue;
    const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(getComputedStyle(el).backgroundColor);
    if (!m || (m[4] !== undefined && Number(m[4]) < 0.5)) continue;
    const [r, g, b] = m.slice(1, 4).map(Number);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128 ? 'dark' : 'light';
  }
  return null;
}

function hostScheme() {
  const html = document.documentElement;
  const declared = html.getAttribute('data-theme');
  if (html.classList.contains('dark') || declared === 'dark') return 'dark';
  if (html.classList.contains('light') || declared === 'light') return 'light';
  return paintedScheme() || (DARK && DARK.matches ? 'dark' : 'light');
}

function rescheme() {
  for (const el of themed) el.applyScheme();
}

/** Follows the host page's toggle and the OS while any element is connected. */
function watchScheme(el, on) {
  if (on) themed.add(el);
  else themed.delete(el);
  if (themed.size && !watcher) {
    // Any attribute of <html> or <body>: a toggle may name its scheme in one of
    // its own (MkDocs Material's data-md-color-scheme on <body>) that only
    // repaints the background.
    const observer = new MutationObserver(rescheme);
    observer.observe(document.documentElement, { attributes: true });
    if (document.body) observer.observe(document.body, { attributes: true });
    if (DARK) DARK.addEventListener('change', rescheme);
    watcher = () => { observer.disconnect(); if (DARK) DARK.removeEventListener('change', rescheme); };
  } else if (!themed.size && watcher) {
    watcher();
    watcher = null;
  }
}

/** An error as one short line of text. */
function errorText(err) {
  return excerpt(err && err.message ? err.message : String(err), 160);
}

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
  'notice.failed': '{what}: {message}',
  'notice.could_not_start': 'Could not start: {message}',
};
const words = (key, params) => (has(key) ? t(key, params) : fill(BUILT_IN[key], params));

// Imported where there is no DOM (a docs tool renders its pages on a server,
// an SSR build, a test in Node), the module loads and defines nothing: its
// class then extends a stand-in, and no browser global is touched at import.
const ElementBase = typeof HTMLElement === 'function' ? HTMLElement : class {};

export class HighwaterPlayground extends ElementBase {
  static observedAttributes = ['scenario', 'step', 'partition', 'tour', 'tour-src', 'fork', 'lang', 'height', 'controls', 'autoplay', 'theme'];
  /** The bundle of this module, beside it (as a page loads it; the same from the sources): the snippets load it. */
  static moduleUrl = new URL('./bundle/highwater-playground.js', import.meta.url).href;

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    this.shadowRoot.adoptedStyleSheets = [hostSheet()];
    this.pg = null;
    this.starting = null;
    this.observer = null;
    this.unwire = []; // listeners outside the shadow root, removed when it is laid out again
  }

  /** Has the host page put content of its own in it (a poster, a fallback link; not an inline tour)? */
  hasLight() {
    return [...this.children].some((c) => c.localName !== 'script');
  }

  /** Does it hold a poster (docs/embedding.md: an img with elementtiming="highwater-poster")? */
  hasPoster() {
    return this.querySelector('img[elementtiming="highwater-poster"]') !== null;
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
    watchScheme(this, true);
    this.applyScheme();
    if (this.pg || this.starting) return;
    // What its first draw needs is asked for at once, even while it waits to
    // be scrolled near. The core (the largest file) too, unless a first frame
    // can be drawn without it: then it is asked for once that frame is drawn
    // (build), so that the two do not share the network; but with a poster
    // the reader sees a board already, and the controls come sooner with the
    // core on its way at once.
    if (coreLoaded() || !this.frameSource() || this.hasPoster()) this.wantsFullCore().then((full) => ensureCore({ quorum: full })).catch(() => {});
    styleSheets().catch(() => {});
    loadLanguage(this.language()).catch(() => {});
    const scenario = (this.getAttribute('scenario') || '').trim();
    if (this.hasAttribute('sync-url') || (scenario && !/^v\d+\./.test(scenario))) loadGallery().catch(() => {});
    // A gallery scenario's name and description in its head, in a language other than English.
    if (scenario && !/^v\d+\./.test(scenario)) galleryWords(this.language()).catch(() => {});
    if (this.size() === 'full' || this.hasAttribute('tour')) tourIds().catch(() => {});
    this.firstFrame().catch(() => {});
    if (!this.shadowRoot.childElementCount) {
      if (this.hasLight()) {
        // Its own content (a poster, a link to the run) stays in view until the board is drawn.
        this.shadowRoot.append(lightSlot('hw-light'));
      } else {
        const wait = document.createElement('div');
        wait.className = 'hw-waiting';
        wait.dir = 'ltr';
        wait.textContent = '…';
        this.shadowRoot.append(wait);
      }
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

  /** Its colours: `data-scheme="dark"` or `"light"` on the element, which its style sheets follow. */
  applyScheme() {
    const theme = this.getAttribute('theme');
    const scheme = theme === 'light' || theme === 'dark' ? theme : hostScheme();
    if (this.dataset.scheme !== scheme) this.dataset.scheme = scheme;
  }

  disconnectedCallback() {
    watchScheme(this, false);
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
    if (name === 'theme') this.applyScheme();
    if (!this.pg || old === value) return;
    const pg = this.pg;
    // On the first frame the run is not in the core yet: it is loaded from the attributes as they are then.
    if (pg.onFrame && name !== 'lang') return;
    pg.enter();
    if (name === 'lang') {
      pg.setLanguage(chooseLanguage(value, navigator.languages || [navigator.language])).catch((err) => pg.notify('error', t('notice.language_failed', { message: err.message })));
    } else if (name === 'scenario' || name === 'tour' || name === 'tour-src') {
      this.loadFromAttributes().catch((err) => this.failed(err));
    } else if (!pg.sim) {
      // Its first run is still loading: nothing to move yet (autoplay is read once it has loaded).
    } else if (name === 'fork') {
      if (value) pg.openFork(value);
      else if (pg.forkView) pg.forkView.close();
    } else if (name === 'step') {
      const at = stepNumber(value);
      if (at === null) return;
      if (pg.tour) pg.tour.go(Math.max(0, at - 1));
      else {
        pg.player.stop();
        pg.seek(at);
      }
    } else if (name === 'partition') {
      this.applyPartition(value);
    } else if (name === 'controls') {
      // The size changes what is laid out: the simplest honest way is to lay out again.
      this.restart();
    } else if (name === 'autoplay' && value !== null) {
      pg.player.play();
    }
  }

  /**
   * The `height` attribute as the most the element takes: a shorter board
   * leaves no blank band below it, a taller one scrolls inside. Removed (or
   * not a length), the height it had before it was given one.
   */
  applyHeight() {
    const height = this.getAttribute('height');
    if (height && CSS.supports('height', height)) {
      this.style.maxHeight = height;
      this.style.overflow = 'auto';
      this.sizedByAttribute = true;
    } else if (this.sizedByAttribute) {
      this.style.removeProperty('max-height');
      this.style.removeProperty('overflow');
      this.sizedByAttribute = false;
    }
  }

  /** The language it speaks: the page's `?lang=`, or its `lang` attribute, or the host page's, else the browser's. */
  language() {
    const requested = this.hasAttribute('sync-url') ? new URLSearchParams(location.search).get('lang') : this.getAttribute('lang') || document.documentElement.lang;
    return chooseLanguage(requested, navigator.languages || [navigator.language]);
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

  /** The core could not be loaded (nor a first frame drawn): said where the scenario's name would be. */
  coreFailed(err) {
    const root = this.shadowRoot;
    root.getElementById('scenario-name').textContent = words('page.core_failed');
    root.getElementById('scenario-description').textContent = words('page.core_failed_detail', { message: err.message });
    root.getElementById('app').setAttribute('aria-busy', 'false');
    root.getElementById('root').classList.remove('undrawn');
    this.dataset.ready = 'error';
    if (this.hasAttribute('sync-url')) document.body.dataset.ready = 'error';
  }

  /** A failure of its own loading: said inside the element, never thrown into the host page (nothing, once removed). */
  failed(err) {
    const pg = this.pg;
    if (!this.isConnected || (pg && pg.closed)) return;
    const message = err && err.message ? err.message : String(err);
    if (pg) {
      pg.enter();
      pg.releaseReveal();
      pg.reveal();
      pg.notify('error', t('notice.could_not_start', { message }));
    } else {
      // Nothing laid out yet: not a waiting box for ever, but a line that says why.
      this.showFailure(words('notice.could_not_start', { message: errorText(err) }));
      if (this.hasAttribute('sync-url')) document.body.dataset.ready = 'error';
    }
  }

  /**
   * In place of a playground it cannot lay out: one short line saying why, as
   * text (nothing of the error is read as markup), and below it the element's
   * own content, the host page's fallback (a link to the run, say), shown as it
   * was before the module ran. `data-ready="error"`.
   */
  showFailure(text) {
    const root = this.shadowRoot;
    const line = document.createElement('p');
    line.className = 'hw-failed';
    line.setAttribute('role', 'status');
    line.dir = 'auto';
    line.textContent = text;
    line.title = text;
    root.adoptedStyleSheets = [hostSheet()];
    root.replaceChildren(line, document.createElement('slot'));
    this.dataset.ready = 'error';
  }

  /**
   * The first frame that fits what it opens on (first-frame.js): a gallery
   * scenario's, or the empty run's; none for a link, a tour or a fork.
   */
  firstFrame() {
    const source = this.frameSource();
    if (!source) return Promise.resolve(null);
    const { id, at } = source;
    const autoplay = this.hasAttribute('autoplay');
    return loadFrame(id).then((frame) => (frame && (at === null || at <= frame.length) ? { frame, at: at ?? (autoplay ? 0 : frame.focus ?? 0) } : null));
  }

  /** The first frame's gallery id and step for what it opens on; null for a link, a tour or a fork. */
  frameSource() {
    if (this.hasAttribute('sync-url')) {
      const params = new URLSearchParams(location.search);
      return !location.hash && !params.has('tour') && !params.has('tour-src') ? { id: 'default', at: null } : null;
    }
    if (this.tourSource() || this.hasAttribute('fork')) return null;
    const scenario = (this.getAttribute('scenario') || '').trim();
    if (/^v\d+\./.test(scenario)) return null; // a link: no frame of its own
    return { id: scenario || 'default', at: stepNumber(this.getAttribute('step')) };
  }

  async build(keep) {
    const page = this.hasAttribute('sync-url');
    const size = this.size();
    let coreReady = false;
    // A first frame of a run with controllers asks for the core with the quorum at once (www/pkg-quorum).
    const startCore = (quorum = false) => {
      const p = this.wantsFullCore().then((full) => ensureCore({ quorum: quorum || full })).then(() => null, (err) => err);
      p.then(() => { coreReady = true; });
      return p;
    };
    // With a first frame to draw, the core is asked for once it is drawn (below).
    const frameFirst = !keep && !coreLoaded() && this.frameSource() !== null;
    let core = frameFirst ? null : startCore();
    // A gallery scenario's head: its name and description in the page's language (the gallery's words: element/gallery.js).
    const named = (gallery) => {
      const source = this.frameSource();
      return gallery && source && galleryEntry(gallery, source.id) ? galleryWords(this.language()).then(() => gallery, () => gallery) : gallery;
    };
    const withHead = (f) => f && Promise.all([
      loadGallery().then(named).catch(() => null), size === 'full' ? tourIds().catch(() => []) : [],
    ]).then(([gallery, tours]) => ({ ...f, gallery, tours }));
    let stylesError = null;
    const [styles, lang, first] = await Promise.all([
      styleSheets().catch((err) => { stylesError = err; return []; }),
      setLanguage(this.language()).catch(() => setLanguage('en').catch(() => 'en')),
      // The first frame, with what its head shows (the gallery's names, the first tour), unless the core is there first.
      keep ? null
        : frameFirst ? this.firstFrame().then(withHead).catch(() => null)
          : Promise.race([core.then(() => null), this.firstFrame().then(withHead)]).catch(() => null),
    ]);
    // The core may have come first by another way (asked for as the element connected): no frame then.
    const frame = coreReady || coreLoaded() ? null : first;
    const coreError = frame ? null : await (core ??= startCore());
    // Another playground may have made its language current meanwhile.
    useLanguage(lang);
    // Removed while it loaded: nothing to lay out.
    if (!this.isConnected) return;
    // A compact playground (an element in another page, or the ?embed page in an iframe) that has
    // neither its core (nor a first frame) nor its style sheet: one line that says so, not an empty or
    // unstyled box (the full size says it in its head).
    if (size !== 'full' && (coreError || stylesError)) {
      this.showFailure(coreError
        ? words('notice.failed', { what: words('page.core_failed'), message: errorText(coreError) })
        : words('notice.could_not_start', { message: errorText(stylesError) }));
      if (page) document.body.dataset.ready = 'error';
      return;
    }
    // Read before the markup is written, so that it lays out only the little there is now.
    const viewportWidth = innerWidth;
    const root = this.shadowRoot;
    root.adoptedStyleSheets = [hostSheet(), ...styles];
    // The markup is laid out hidden until its first draw: the element's own content (a poster) over it till then.
    root.replaceChildren(markup(), ...(this.hasLight() ? [lightSlot('hw-under')] : []));
    const box = root.getElementById('root');
    box.lang = lang;
    box.classList.toggle('page', page);
    box.classList.toggle('compact', size !== 'full');
    box.classList.toggle('bare', size === 'bare');
    if (page) pageLandmarks(root);
    else for (const part of root.querySelectorAll('section[aria-label], section[aria-labelledby], form[aria-label]')) part.setAttribute('role', 'group');
    translateTree(root);
    if (page) document.documentElement.lang = lang;
    if (coreError) {
      this.coreFailed(coreError);
      return;
    }

    const pg = new Playground(root, this, { size, lang, viewportWidth });
    this.pg = pg;
    if (page) pg.address = new PageAddress(pg);
    this.wire(pg, page);
    pg.player.updateButtons();

    // The gallery (names in every language) and the first tour, for the head.
    loadGallery().then((g) => { pg.gallery = g; if (pg.sim) { pg.enter(); pg.drawHead(); } }, () => {});
    // (The compact sizes offer no tour: they fetch no tours' words.)
    if (size === 'full') tourIds().then((ids) => { pg.firstTour = ids[0] || null; if (pg.sim) { pg.enter(); pg.drawHead(); } }, () => {});

    this.addEventListener('highwater-ready', () => {
      warmCore(); // the first actions' code, compiled while the reader reads
      if (page) {
        performance.mark('highwater:live');
        document.body.dataset.ready = 'true';
      }
    }, { once: true });

    let release = null;
    if (frame) {
      // Drawn from the first frame, then again from the core once it is there: the same board.
      pg.gallery = frame.gallery;
      pg.firstTour = (frame.tours && frame.tours[0]) || null;
      release = pg.holdUntilLive();
      const snapshot = new Snapshot(frame.frame);
      pg.adopt(snapshot, { at: frame.at });
      pg.draw();
      frame.moved = () => (snapshot.position() === frame.at ? null : snapshot.position());
      // The core, once this frame is painted (a task queued from the frame
      // callback runs after the paint); in a hidden tab, which paints no
      // frames, after half a second.
      core ??= new Promise((painted) => {
        requestAnimationFrame(() => setTimeout(painted, 0));
        setTimeout(painted, 500);
      }).then(() => startCore(Boolean(frame.frame.scenario && frame.frame.scenario.config && frame.frame.scenario.config.controllers)));
      const err = await core;
      if (pg.closed) return;
      pg.enter();
      if (err) {
        // The first frame stays (a still board of the run asked for), with the reason the controls never came.
        release();
        pg.notify('error', page ? words('page.core_failed_detail', { message: err.message })
          : words('notice.failed', { what: words('page.core_failed'), message: errorText(err) }));
        root.getElementById('app').setAttribute('aria-busy', 'false');
        this.dataset.ready = 'error';
        if (page) document.body.dataset.ready = 'error';
        return;
      }
    }
    // The full size shows the diagram: its panel comes once the board is drawn (or once it is opened).
    if (size === 'full' && pg.shows('diagram')) pg.loadDiagram().catch((err) => pg.notify('error', t('notice.failed', { what: t('diagram.title'), message: err.message })));

    // A tour's panel is drawn above the board: both are shown at once (no layout shift).
    if (!keep && (page ? this.pageTourSource() : this.tourSource())) pg.holdReveal(TOUR_REVEAL_WAIT_MS);
    try {
      if (keep) {
        pg.loadScenario(keep.scenario, { at: keep.at });
      } else if (page) {
        await this.loadPage();
      } else {
        await this.loadFromAttributes();
      }
    } finally {
      pg.releaseReveal();
    }
    if (pg.closed) return; // removed while it loaded
    if (frame) {
      // Where the reader moved on the frame (the keys work on it), the live board goes too; then the held clicks.
      const moved = frame.moved();
      if (moved !== null && pg.sim && moved !== pg.sim.position()) pg.seek(moved);
      release();
    }
    if (this.hasAttribute('autoplay') && pg.sim && pg.sim.position() < pg.sim.length()) pg.player.play();
  }

  /** The page: the run from the address bar's fragment, then `?tour=&step=`. */
  async loadPage() {
    const pg = this.pg;
    // Read before the run's own address replaces the fragment.
    const tourLink = parseFragment(location.hash).tour;
    try {
      await pg.address.loadFromHash();
    } catch (err) {
      pg.notify('error', t('notice.could_not_start', { message: err.message }));
      pg.loadScenario(pg.defaultScenario());
    }
    const params = new URLSearchParams(location.search);
    const source = this.pageTourSource(tourLink);
    if (source) {
      const raw = params.get('step');
      const step = raw !== null && /^\d{1,15}$/.test(raw) ? Number(raw) : 1;
      if (raw !== null && String(step) !== raw) pg.notify('warn', t('tour.bad_step', { step: excerpt(raw, 20) }));
      await pg.tours.start(source, step);
    }
  }

  /**
   * Whether the run it opens on needs the full core (the controller quorum,
   * the views), as far as is known before it loads: the full size with the
   * diagram or the operator's view left open, a built-in tour that the tours'
   * index marks (a link, a tour file or a setting that asks for controllers
   * loads that core when the other refuses it: `Playground.withQuorumCore`).
   */
  wantsFullCore() {
    // The full size with the diagram or the operator's view left open draws it at once: the full core, not ./pkg and then it.
    if (this.size() === 'full' && opensViews()) return Promise.resolve(true);
    const source = this.hasAttribute('sync-url') ? this.pageTourSource() : this.tourSource();
    if (typeof source !== 'string') return Promise.resolve(false);
    return quorumTours().then((ids) => ids.includes(source), () => false);
  }

  /** The page's tour: a link that carries a tour file (`#t=`), a tour file's URL (`?tour-src=`), or a built-in tour's id. */
  pageTourSource(tourLink = parseFragment(location.hash).tour) {
    const params = new URLSearchParams(location.search);
    return tourLink !== null ? { link: tourLink } : params.has('tour-src') ? { src: params.get('tour-src') } : params.get('tour');
  }

  /** The tour the attributes ask for: a tour file's URL (`tour-src`), a tour file inside the element, or a built-in tour's id (`tour`). */
  tourSource() {
    const src = this.getAttribute('tour-src');
    if (src) return { src };
    const inline = [...this.children].find((c) => c.localName === 'script' && c.type === 'application/json');
    if (inline) return { text: inline.textContent };
    return this.getAttribute('tour') || null;
  }

  /**
   * The `partition` attribute: the partition the board shows in a topic of
   * several (0 when absent). Not a partition of the run: a notice, and the
   * board stays where it is.
   */
  applyPartition(raw) {
    const pg = this.pg;
    const p = raw === null ? 0 : stepNumber(raw);
    if (p === null) {
      pg.notify('warn', t('map.bad_partition', { partition: excerpt(raw, 20) }));
      return;
    }
    if (pg.sim) pg.setPartition(p);
    else pg.wantedPartition = p;
  }

  /** An element: its `scenario` (a gallery id or a link's text), `step`, `partition` and `tour`. */
  async loadFromAttributes() {
    const pg = this.pg;
    const rawPartition = this.getAttribute('partition');
    const partition = rawPartition === null ? 0 : stepNumber(rawPartition);
    if (partition === null) pg.notify('warn', t('map.bad_partition', { partition: excerpt(rawPartition, 20) }));
    else pg.wantedPartition = partition;
    const scenario = (this.getAttribute('scenario') || '').trim();
    const tour = this.tourSource();
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
        if (!(await pg.loadLink(scenario, { at: step ?? 0 }))) return; // stopped, removed, or overtaken
      } else {
        const entry = galleryEntry(await loadGallery(), scenario);
        if (pg.closed) return; // removed while the gallery loaded
        pg.enter();
        if (!entry) throw new Error(t('embed.unknown_scenario', { id: excerpt(scenario, 40) }));
        pg.gallery = await loadGallery();
        await galleryWords(pg.lang).catch(() => {}); // its name in the head, in the page's language
        // A run with controllers is made in the core with the quorum (./pkg
        // refuses it), loaded first: the core here may be ./pkg, loaded for
        // another element or before this one's first frame.
        if (entry.scenario.config && entry.scenario.config.controllers && !loadedCore().quorum) await ensureCore({ quorum: true });
        if (pg.closed) return;
        pg.enter();
        // Without a step: the scenario's telling moment (played from the start with autoplay).
        pg.loadScenario(entry.scenario, { at: step ?? (this.hasAttribute('autoplay') ? 0 : entry.focus ?? 0) });
      }
      if (step !== null && pg.sim && step > pg.sim.length()) pg.notify('warn', t('notice.at_too_far', { at: step, count: pg.sim.length() }));
      if (partition !== null && partition >= pg.partitions) pg.notify('warn', t('map.no_such_partition', { partition, last: pg.partitions - 1 }));
      // A comparison: the run and its fork side by side (a change the core refuses is a message).
      const fork = this.getAttribute('fork');
      if (fork) await pg.openFork(fork);
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
    pg.refreshToolbars = wireToolbars(root);
    wireGroups(pg);
    wireGallery(pg);
    pg.tours = new Tours(pg);
    pg.tours.wire();
    wireExport(pg);
    wireOnFirstUse(pg, ['btn-explore'], () => partOf(pg, 'explore', ({ wireExplore }) => wireExplore(pg)));
    wireOnFirstUse(pg, ['btn-whatif'], () => partOf(pg, 'whatif', ({ wireWhatif }) => wireWhatif(pg)));
    wireOnFirstUse(pg, ['btn-write'], () => partOf(pg, 'writer', ({ wireWriter }) => wireWriter(pg)));
    wireOnFirstUse(pg, ['btn-copy-link', 'btn-embed', 'btn-trace'], () => partOf(pg, 'share', ({ wireShare }) => wireShare(pg)));
    wireOnFirstUse(pg, ['btn-fork'], () => forkView(pg));
    // A comparison from an attribute or a link, and the diagram for an export: loaded when asked for.
    pg.openFork = (text) => forkView(pg).then((view) => view && view.open(text), (err) => pg.notify('error', t('notice.could_not_start', { message: err.message })));
    pg.loadDiagram = () => diagram(pg);
    root.querySelectorAll('dialog [data-close]').forEach((b) => b.addEventListener('click', () => b.closest('dialog').close()));
    $('btn-glossary').addEventListener('click', () => openGlossary(pg));

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
      const onKey = (e) => { pg.enter(); closeMenusOnEscape(pg, e); pg.player.onKey(e); };
      document.addEventListener('keydown', onKey);
      this.unwire.push(() => document.removeEventListener('keydown', onKey));
    } else {
      root.addEventListener('keydown', (e) => pg.player.onKey(e));
      // "Open in Highwater ↗": the run in the full page beside this module, not the host page.
      this.unwire.push(wireOpenLink(pg));
    }
  }
}

if (typeof window !== 'undefined' && typeof customElements !== 'undefined' && !customElements.get('highwater-playground')) {
  customElements.define('highwater-playground', HighwaterPlayground);
}

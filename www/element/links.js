// Links: the address of a run. When the playground is the page (index.html),
// the address bar carries the run (`#s=<link>&at=<position>`), the tour and its
// stop (`?tour=&step=`) and the language (`?lang=`), kept current as the run
// changes, and a link opened replays exactly. A playground embedded in another
// page leaves that page's address alone; its links point at the full page
// beside the module.

import { isCrash, core } from '../core.js';
import { t, num } from '../words/i18n.js';
import { scenarioFile, fileName, download } from '../draw/export.js';
import { parseFragment, buildFragment, pageUrl } from './share.js';
import { phrase } from '../words/event-text.js';
import { afterPaint } from '../draw/animate.js';

/**
 * Would the core's reader open this link text? It refuses one longer than
 * `limits.max_link_chars` (src/model/config.rs, MAX_LINK_CHARS): 300 produces
 * of 1,000-character values make a link about 300,000 characters long.
 */
export function linkOpens(link) {
  return link.length <= core().limits.max_link_chars;
}

/** Says that the run is too long for a link, and offers the scenario as a file instead. */
export function notifyTooLong(pg, link, key) {
  return pg.notify('error', t(key, { length: num(link.length), max: num(core().limits.max_link_chars) }), {
    action: {
      label: t('notice.download_scenario'),
      run: () => download(fileName(pg.name, 'json'), new Blob([scenarioFile(pg.sim)], { type: 'application/json' })),
    },
  });
}

/** The page's address bar, for the playground that is the page. */
export class PageAddress {
  constructor(pg) {
    this.pg = pg;
    this.lastHash = '';
    this.timer = 0;
    this.pending = null; // the write to come after the next paint (scheduleHash)
    this.tooLong = false; // the run is too long for a link: the address bar does not carry it (said once)
  }

  /** The fragment for the run (or for a tour file from a `#t=` link: that link), or null when its link is longer than the reader opens. */
  fragment() {
    const origin = this.pg.tour && this.pg.tour.origin;
    if (origin && origin.link !== undefined) return `#t=${encodeURIComponent(origin.link)}`;
    const fork = this.pg.forkView ? this.pg.forkView.text : null;
    const link = this.pg.sim.toLink();
    if (!linkOpens(link)) return { tooLong: link };
    return buildFragment(link, this.pg.sim.position(), fork);
  }

  /**
   * Keeps the fragment current: after the frame that shows a step, or at most
   * every 400 ms while playing. Not in the click's own task: the run's link
   * and `history.replaceState` took 7 to 11 ms of a Produce at 4x CPU, on
   * the way to its paint (docs/performance.md).
   */
  scheduleHash() {
    const player = this.pg.player;
    if (!player.playing && !player.clockRunning) {
      clearTimeout(this.timer);
      this.timer = 0;
      if (this.pending) return;
      const write = () => {
        if (this.pending !== write) return;
        this.pending = null;
        this.writeHash();
      };
      this.pending = write;
      afterPaint().then(write);
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = 0;
      this.writeHash();
    }, 400);
  }

  /** A write still to come is dropped (the playground closed, or another address came). */
  cancel() {
    clearTimeout(this.timer);
    this.timer = 0;
    this.pending = null;
  }

  /** A write still to come is done now (before the address is read or pushed). */
  flush() {
    if (this.pending) this.writeHash();
  }

  /** Writes the fragment now (a write still to come is done by this one). */
  writeHash() {
    const pg = this.pg;
    this.pending = null;
    if (!pg.sim || pg.closed) return;
    const r = pg.guarded(t('notice.could_not_link'), () => this.fragment());
    if (!r.ok) return;
    if (typeof r.value !== 'string') {
      // Never an address a reload cannot open: the run leaves the address bar, and the page says so once.
      this.lastHash = '';
      if (location.hash) history.replaceState(null, '', `${location.pathname}${location.search}`);
      pg.$('open-full').href = pageUrl(location, '');
      if (!this.tooLong) notifyTooLong(pg, r.value.tooLong, 'notice.address_too_long');
      this.tooLong = true;
      return;
    }
    this.tooLong = false;
    this.lastHash = r.value;
    if (location.hash !== r.value) history.replaceState(null, '', r.value);
    pg.$('open-full').href = pageUrl(location, r.value);
  }

  /**
   * Opens the run of the fragment (or the default run, with a message for a
   * bad link). A fragment that carries a tour file (`#t=`) opens no run: its
   * link is returned, `{ tour }`, for the caller to open the tour at its stop.
   */
  async loadFromHash(hash = location.hash) {
    const pg = this.pg;
    const { link, at, badAt, fork, tour } = parseFragment(hash);
    if (tour !== null) {
      if (!pg.sim) pg.loadScenario(pg.defaultScenario());
      return { tour };
    }
    if (link) {
      try {
        // Stopped, or overtaken by another link: what is shown stays.
        if (!(await pg.loadLink(link, { at }))) return;
        if (badAt !== null) pg.notify('warn', t('notice.bad_at', { at: badAt }));
        if (at !== null && at > pg.sim.length()) pg.notify('warn', t('notice.at_too_far', { at, count: pg.sim.length() }));
        // A comparison's link: the fork opens beside the run (a change the core refuses is a message).
        if (fork) pg.openFork(fork);
        return;
      } catch (err) {
        if (isCrash(err)) {
          pg.recover(err);
          return;
        }
        // A bad link typed into a tab that shows a run: the run stays, and the address is its own again.
        if (pg.sim && pg.firstDrawn) {
          pg.notify('error', t('notice.bad_link_kept', { message: phrase(err.message, t) }));
          this.writeHash();
          return;
        }
        pg.notify('error', t('notice.bad_link', { message: phrase(err.message, t) }));
      }
    }
    pg.loadScenario(pg.defaultScenario());
  }

  /** The URL carries the tour and its stop, so a reload or a shared link shows the same caption. */
  writeTour() {
    const tour = this.pg.tour;
    const url = new URL(location.href);
    url.searchParams.delete('tour');
    url.searchParams.delete('tour-src');
    url.searchParams.delete('step');
    if (tour) {
      // A `#t=` link's tour is the address's fragment: Back to another address is a change (wire).
      if (tour.origin && tour.origin.link !== undefined) this.lastHash = `#t=${encodeURIComponent(tour.origin.link)}`;
      // A built-in tour by its id, a tour file by its URL; a `#t=` link's tour is in the fragment.
      if (!tour.origin) url.searchParams.set('tour', tour.id);
      else if (tour.origin.src !== undefined) url.searchParams.set('tour-src', tour.origin.src);
      url.searchParams.set('step', String(tour.index + 1));
    }
    if (url.href !== location.href) history.replaceState(null, '', url);
    if (this.pg.compact) this.pg.$('open-full').href = pageUrl(location, location.hash);
  }

  writeLanguage(code) {
    const url = new URL(location.href);
    url.searchParams.set('lang', code);
    history.replaceState(null, '', url);
    document.documentElement.lang = code;
    if (this.pg.compact) this.pg.$('open-full').href = pageUrl(location, location.hash);
  }

  drawTitle(name) {
    document.title = name ? `${name} · Highwater` : t('page.title');
  }

  /** A link opened in the same tab (the fragment changed by hand or by Back). */
  wire() {
    // The fragment navigated to, from the event: a draw between the navigation
    // and this event (a part that just arrived) may have written the run shown
    // before back into the address bar.
    const onHash = (e) => {
      const hash = new URL(e.newURL).hash;
      if (hash === this.lastHash) return;
      this.lastHash = hash;
      // The run shown before is not written over the address navigated to.
      this.cancel();
      const pg = this.pg;
      pg.player.stop();
      // Another run's address (Back from a tour's link, or one typed): the tour ends, the board follows the address.
      if (pg.tour && parseFragment(hash).tour === null) pg.tours.close();
      this.loadFromHash(hash).then(async (opened) => {
        if (!opened || opened.tour === undefined || pg.closed) return;
        // A tour link that cannot be opened leaves the run shown, and its address.
        if (!(await pg.tours.start({ link: opened.tour }, 1, { fromAddress: true })) && !pg.closed && !pg.tour) this.writeHash();
      }, () => {});
    };
    // Back to an entry whose query differs too (a tour's `?step=` written
    // over the `#t=` one) is a popstate and no hashchange, in Chromium.
    const onPop = () => onHash({ newURL: location.href });
    window.addEventListener('hashchange', onHash);
    window.addEventListener('popstate', onPop);
    return () => {
      window.removeEventListener('hashchange', onHash);
      window.removeEventListener('popstate', onPop);
    };
  }
}

/**
 * The full page's address for this run: the page's own (keeping its language
 * and tour), or for a playground embedded elsewhere the index.html beside this
 * module, with the playground's language and tour. Null when the run's link
 * is longer than the reader opens (linkOpens).
 */
export function runUrl(pg, { embed = false } = {}) {
  const fork = pg.forkView ? pg.forkView.text : null;
  const link = pg.guarded(t('notice.could_not_link'), () => pg.sim.toLink());
  if (link.ok && !linkOpens(link.value)) return null;
  const hash = link.ok ? buildFragment(link.value, pg.sim.position(), fork) : '';
  if (pg.address) return pageUrl(location, hash, { embed });
  const url = fullPage();
  const parts = embed ? ['embed'] : [];
  if (pg.lang !== 'en') parts.push(`lang=${encodeURIComponent(pg.lang)}`);
  const origin = pg.tour ? pg.tour.origin : null;
  if (pg.tour && !origin) parts.push(`tour=${encodeURIComponent(pg.tour.id)}`, `step=${pg.tour.index + 1}`);
  // A tour file: by its URL (made absolute), or by the `#t=` link it came in; one written inline has neither, and the run is linked.
  if (origin && origin.src !== undefined) parts.push(`tour-src=${encodeURIComponent(new URL(origin.src, document.baseURI).href)}`, `step=${pg.tour.index + 1}`);
  if (origin && origin.link !== undefined) return `${url.origin}${url.pathname}?${[...parts, `step=${pg.tour.index + 1}`].join('&')}#t=${encodeURIComponent(origin.link)}`;
  return `${url.origin}${url.pathname}${parts.length ? `?${parts.join('&')}` : ''}${hash}`;
}

/** The full page (index.html) beside this module, wherever it is served: in www/, and at the npm package's root (its bundle/ is one folder down, as element/ is). */
function fullPage() {
  return new URL('../index.html', import.meta.url);
}

/**
 * "Open in Highwater ↗" of a playground embedded in another page (a compact
 * element): the run in the full page beside this module (runUrl), not the
 * host page. Kept current as the run moves (after the step's frame; at most
 * every 400 ms while it plays) and made again as it is pointed at, focused
 * or clicked (a language, a fork or a tour changed since). Until the run is
 * in the core (a first frame), and for a run too long for a link, the full
 * page alone, in the playground's language. The page itself (PageAddress)
 * keeps its own. Returns what unwires it.
 */
export function wireOpenLink(pg) {
  const open = pg.$('open-full');
  let timer = 0;
  const href = () => {
    if (pg.sim && !pg.onFrame && !pg.building) {
      const url = runUrl(pg);
      if (url !== null) return url;
    }
    const url = fullPage();
    if (pg.lang !== 'en') url.search = `?lang=${encodeURIComponent(pg.lang)}`;
    return url.href;
  };
  let pending = null; // the update to come after the next paint
  const update = () => {
    clearTimeout(timer);
    timer = 0;
    pending = null;
    if (!pg.closed) open.href = href();
  };
  // After the frame that shows the step, not in its task: the run's link
  // took about 14 ms of an element's first live draw at 4x CPU
  // (docs/performance.md). Pointed at, touched or focused, it is made at once.
  const schedule = () => {
    if (pg.player.playing || pg.player.clockRunning) {
      if (!timer) timer = setTimeout(update, 400);
      return;
    }
    if (pending) return;
    const mine = () => {
      if (pending === mine) update();
    };
    pending = mine;
    afterPaint().then(mine);
  };
  for (const type of ['pointerenter', 'pointerdown', 'focus', 'click']) open.addEventListener(type, update);
  pg.host.addEventListener('highwater-position', schedule);
  pg.host.addEventListener('highwater-ready', schedule);
  update();
  return () => {
    clearTimeout(timer);
    pending = null;
    pg.host.removeEventListener('highwater-position', schedule);
    pg.host.removeEventListener('highwater-ready', schedule);
  };
}

/** The element's module as this page loaded it (the bundle beside the page), for the snippets: the element's class knows it. */
export function moduleUrl(pg) {
  return pg.host.constructor.moduleUrl;
}

// Share links and embeds: the URL fragment carries the scenario (the core's
// link text) and the position, `#s=<link>&at=<position>`, and for a
// comparison the fork's change, `&fork=<change>` (docs/fork.md); a link that
// carries a whole tour file is `#t=<link>` (its stop in `?step=`).

/**
 * Reads `s`, `at`, `fork` and `t` from a fragment; `at` is null unless it is a
 * whole number. `fork` is taken as written, not percent-decoded: a change's
 * text is URL-safe already, and its own `%XX` (in a produce value) belong to
 * it. The core reads it (`parseChange`, `forkScenario`) and says what is wrong.
 */
export function parseFragment(hash) {
  const text = (hash || '').replace(/^#/, '');
  const out = { link: null, at: null, badAt: null, fork: null, tour: null };
  if (!text) return out;
  for (const part of text.split('&')) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const raw = eq < 0 ? '' : part.slice(eq + 1);
    let value;
    try {
      value = decodeURIComponent(raw);
    } catch {
      value = raw;
    }
    if (key === 's') out.link = value;
    else if (key === 't') out.tour = value;
    else if (key === 'fork') out.fork = raw;
    else if (key === 'at') {
      if (/^\d{1,15}$/.test(value)) out.at = Number(value);
      else out.badAt = value.slice(0, 40);
    }
  }
  return out;
}

/** The fragment for a run (and a fork of it): the core's link text is base64url, and a change's text URL-safe, as they are. */
export function buildFragment(link, position, fork = null) {
  return `#s=${encodeURIComponent(link)}&at=${position}${fork ? `&fork=${fork}` : ''}`;
}

/** Query parameters a shared address keeps: the language and the tour (a built-in one's id, or a tour file's URL) with its step. */
const KEPT = ['lang', 'tour', 'tour-src', 'step'];

/**
 * The page's address with the given fragment: the page's language and tour
 * stay; `embed` adds the ?embed query.
 */
export function pageUrl(location, fragment, { embed = false } = {}) {
  const base = `${location.origin}${location.pathname}`;
  const from = new URLSearchParams(location.search);
  const parts = embed ? ['embed'] : [];
  for (const key of KEPT) if (from.has(key)) parts.push(`${key}=${encodeURIComponent(from.get(key))}`);
  return `${base}${parts.length ? `?${parts.join('&')}` : ''}${fragment}`;
}

const escapeAttr = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The <iframe> snippet for embedding a run (escaped: the name is user text). */
export function embedSnippet(src, title) {
  return `<iframe src="${escapeAttr(src)}" width="800" height="500" style="border:0;max-width:100%" loading="lazy" title="${escapeAttr(title)}"></iframe>`;
}

/**
 * The custom element snippet: the module by its URL (no inline script, no
 * import map: it works pasted into a plain page, under a CSP without
 * 'unsafe-inline') and the element keeping what the iframe keeps: a
 * built-in tour (`tour`) or a tour file's URL (`tourSrc`) at its stop, else
 * the run (its link text) at its step, the fork and the language.
 */
export function elementSnippet({ scenario, step, lang, fork = null, tour = null, tourSrc = null, stop = 1, moduleUrl }) {
  const attrs = tour !== null ? [`tour="${escapeAttr(tour)}"`, `step="${Number(stop) || 1}"`]
    : tourSrc !== null ? [`tour-src="${escapeAttr(tourSrc)}"`, `step="${Number(stop) || 1}"`]
      : [`scenario="${escapeAttr(scenario)}"`, `step="${Number(step) || 0}"`];
  if (fork && tour === null && tourSrc === null) attrs.push(`fork="${escapeAttr(fork)}"`);
  if (lang && lang !== 'en') attrs.push(`lang="${escapeAttr(lang)}"`);
  return `<script type="module" src="${escapeAttr(moduleUrl)}"></script>\n<highwater-playground ${attrs.join(' ')} controls="compact"></highwater-playground>`;
}

// Sharing a run: Copy link, the Embed dialog (an iframe or the custom
// element), and the Trace dialog (the run as the command line prints it).

import { t } from '../words/i18n.js';
import { embedSnippet, elementSnippet } from '../element/share.js';
import { runUrl, notifyTooLong, moduleUrl } from '../element/links.js';
import { fileName, download } from '../draw/export.js';
import { visible } from '../words/user-text.js';

const TRACE_SHOWN_LINES = 10_000; // the dialog shows the first and last half of a longer trace

/** The whole trace, or for a long one its first and last lines with how many are left out
 *  (Copy and Download take the whole trace). */
function traceExcerpt(text) {
  const lines = text.split('\n');
  if (lines.length <= TRACE_SHOWN_LINES) return text;
  const half = TRACE_SHOWN_LINES / 2;
  const left = lines.length - 1 - TRACE_SHOWN_LINES;
  return `${lines.slice(0, half).join('\n')}\n… ${t('trace.left_out', { count: left })} …\n${lines.slice(-half - 1).join('\n')}`;
}

export async function copyText(pg, text, done) {
  try {
    await navigator.clipboard.writeText(text);
    pg.notify('info', done, { timeoutMs: 3000 });
  } catch {
    pg.notify('warn', t('notice.no_clipboard'));
  }
}

export function wireShare(pg) {
  const $ = (id) => pg.$(id);
  let traceText = ''; // the whole trace while the Trace dialog is open (Copy and Download use it)

  $('btn-copy-link').addEventListener('click', () => {
    if (pg.address) pg.address.writeHash();
    const url = runUrl(pg);
    // A link its reader would refuse is not copied: the scenario file is offered instead.
    if (url === null) {
      notifyTooLong(pg, pg.sim.toLink(), 'notice.link_too_long');
      return;
    }
    // A tour from another server stays its own: the notice names where it comes from.
    const foreign = pg.tour ? pg.tour.foreignOrigin : null;
    copyText(pg, url, foreign ? t('notice.link_copied_foreign', { origin: visible(foreign) }) : t('notice.link_copied'));
  });

  $('btn-embed').addEventListener('click', () => {
    const src = runUrl(pg, { embed: true });
    if (src === null) {
      notifyTooLong(pg, pg.sim.toLink(), 'notice.link_too_long');
      return;
    }
    const title = `Highwater: ${pg.name ? visible(pg.name) : t('page.embed_title')}`;
    const link = pg.guarded(t('notice.could_not_link'), () => pg.sim.toLink());
    $('embed-code').value = embedSnippet(src, title);
    // The element keeps what the iframe keeps: a built-in tour or a tour file's URL at its stop (a tour
    // that came in a `#t=` link, or inline, is shown as its run), else the run; the language.
    const origin = pg.tour ? pg.tour.origin : null;
    const tour = pg.tour && !origin ? pg.tour.id : null;
    const tourSrc = origin && origin.src !== undefined ? new URL(origin.src, document.baseURI).href : null;
    $('embed-element').value = link.ok || tour || tourSrc
      ? elementSnippet({ scenario: link.ok ? link.value : '', step: pg.sim.position(), lang: pg.lang, fork: pg.forkView ? pg.forkView.text : null, tour, tourSrc, stop: pg.tour ? pg.tour.index + 1 : 1, moduleUrl: moduleUrl(pg) })
      : '';
    $('embed-preview').href = src;
    $('dlg-embed').showModal();
  });
  $('btn-embed-copy').addEventListener('click', () => copyText(pg, $('embed-code').value, t('notice.embed_copied')));
  $('btn-embed-element-copy').addEventListener('click', () => copyText(pg, $('embed-element').value, t('notice.embed_copied')));

  $('btn-trace').addEventListener('click', () => {
    const r = pg.guarded(t('notice.could_not_trace'), () => pg.sim.traceText());
    if (!r.ok) return;
    traceText = r.value;
    $('trace-text').textContent = traceExcerpt(r.value);
    $('dlg-trace').showModal();
  });
  $('btn-trace-copy').addEventListener('click', () => copyText(pg, traceText, t('notice.trace_copied')));
  $('btn-trace-download').addEventListener('click', () => download(fileName(pg.name, 'trace.txt'), new Blob([traceText], { type: 'text/plain' })));
  // (An embedded playground's "Open in Highwater ↗" is kept by the element itself: links.js, wireOpenLink.)
}

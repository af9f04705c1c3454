// The page (index.html): its one element is the page; `?embed` makes it the
// compact size, for iframes. A module file, not an inline script, so the page
// runs under `script-src 'self'`. The size is set before the element's module
// is loaded: the element lays itself out once, by the size it has then. The
// page loads the bundle (scripts/bundle.mjs, built by make build and make serve).
import { chooseLanguage } from './words/languages.js';

const query = new URLSearchParams(location.search);
const embed = query.has('embed');
if (embed) document.querySelector('highwater-playground').setAttribute('controls', 'compact');

// The element's own rule for a first frame (HighwaterPlayground.frameSource): no fragment, no tour.
const opensEmptyRun = !location.hash && !query.has('tour') && !query.has('tour-src');

// The poster (index.html) is the empty run's board in English: taken away
// where the page opens another run, in the page's language elsewhere.
const poster = document.getElementById('poster');
if (poster) {
  const lang = chooseLanguage(query.get('lang'), navigator.languages || [navigator.language]);
  if (!opensEmptyRun) poster.remove();
  else if (lang !== 'en') poster.src = `posters/${lang}/default.svg`;
}

// Asked for now, before the element's bundle is in, only where they are used:
// the empty run's first frame (a link, a tour or a fork has none) and, on
// the full page, the tours' names its head offers.
const preload = (href, priority = 'auto') => {
  const link = document.createElement('link');
  link.rel = 'preload';
  link.as = 'fetch';
  link.crossOrigin = 'anonymous';
  link.fetchPriority = priority;
  link.href = href;
  document.head.append(link);
};
// The core (the largest file) too, now rather than once the bundle has run:
// ./pkg, or the full core ./pkg-quorum for a built-in tour with controllers
// (tours/index.json says which) or for a page with the space-time diagram or
// the operator's view left open (element/groups.js), which draws it at once.
// None for a tour file or a tour link in the fragment (`#t=`,
// element/share.js): which core they need is known only once they are read.
const viewsOpen = !embed && (() => {
  try {
    const open = JSON.parse(localStorage.getItem('highwater.open-groups') || '[]');
    return Array.isArray(open) && (open.includes('diagram') || open.includes('operator'));
  } catch {
    return false;
  }
})();
const fragment = new URLSearchParams(location.hash.slice(1));
const tour = query.get('tour');
if (tour !== null) {
  fetch('tours/index.json')
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(r.statusText))))
    .then((index) => {
      if (!Array.isArray(index.tours) || !index.tours.includes(tour)) return;
      preload(viewsOpen || (Array.isArray(index.quorum) && index.quorum.includes(tour)) ? 'pkg-quorum/highwater_bg.wasm' : 'pkg/highwater_bg.wasm', 'low');
    })
    .catch(() => {}); // the element says what it cannot load
} else if (!query.has('tour-src') && !fragment.has('t')) {
  preload(viewsOpen ? 'pkg-quorum/highwater_bg.wasm' : 'pkg/highwater_bg.wasm', 'low');
}
if (opensEmptyRun) preload('first-frames/default.json');
if (!embed) {
  preload('tours/index.json');
  preload('locales/en/tours.json');
}

import('./bundle/highwater-playground.js');

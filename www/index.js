// The page (index.html): its one element is the page; `?embed` makes it the
// compact size, for iframes. A module file, not an inline script, so the page
// runs under `script-src 'self'`. The size is set before the element's module
// is loaded: the element lays itself out once, by the size it has then. The
// page loads the bundle (scripts/bundle.mjs, built by make build and make serve).
if (new URLSearchParams(location.search).has('embed')) document.querySelector('highwater-playground').setAttribute('controls', 'compact');

import('./bundle/highwater-playground.js');

// Groups: on the full page, what goes beyond the main actions (Produce,
// Fetch, Crash, the clock, Play) starts collapsed and opens with one click
// on its toggle: Tools (the searches, What if…, settings, sharing, export,
// the clock's and the controller's other controls, each broker's More menu,
// the record size) and the Network, Operator's view, Event log and
// space-time diagram panels. Which groups are open is remembered in the
// browser. The embedded sizes show what their size shows, always.

const KEY = 'highwater.open-groups';

/** The groups the reader left open, from the browser's storage (none when it refuses). */
function readOpen() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) || '[]');
    return new Set(Array.isArray(list) ? list.filter((name) => typeof name === 'string') : []);
  } catch {
    return new Set();
  }
}

/**
 * Whether the full page opens with a group that needs the full core
 * (core.js): the space-time diagram or the operator's view, left open.
 */
export function opensViews() {
  const open = readOpen();
  return open.has('diagram') || open.has('operator');
}

function remember(name, open) {
  const names = readOpen();
  if (open) names.add(name);
  else names.delete(name);
  try {
    localStorage.setItem(KEY, JSON.stringify([...names]));
  } catch {
    // not remembered: the group still opens
  }
}

/** Shows or hides group `name`: its parts get `open`, its toggles `aria-expanded`; the playground knows (`pg.openGroups`). */
function show(pg, name, open) {
  const root = pg.root;
  if (open) pg.openGroups.add(name);
  else pg.openGroups.delete(name);
  root.getElementById('root').classList.toggle(`open-${name}`, open);
  for (const el of root.querySelectorAll(`[data-group="${name}"]`)) el.classList.toggle('open', open);
  for (const b of root.querySelectorAll(`[data-group-toggle="${name}"]`)) b.setAttribute('aria-expanded', String(open));
  pg.refreshToolbarsSoon();
}

export function wireGroups(pg) {
  const root = pg.root;
  const full = !pg.compact;
  const open = full ? readOpen() : null;
  const names = new Set([...root.querySelectorAll('[data-group]')].map((el) => el.dataset.group));
  for (const name of names) show(pg, name, !full || open.has(name));
  root.addEventListener('click', (e) => {
    const toggle = e.target.closest('[data-group-toggle]');
    if (!toggle || !full) return;
    const name = toggle.dataset.groupToggle;
    const now = toggle.getAttribute('aria-expanded') !== 'true';
    show(pg, name, now);
    remember(name, now);
    // The diagram's code comes when its panel is first opened; a closed panel
    // is not drawn (playground.js, `shows`): it is drawn as it opens.
    const redraw = () => { if (now && pg.sim && !pg.onFrame && !pg.closed) pg.draw(); };
    if (now && name === 'diagram') pg.loadDiagram().then(redraw, () => {});
    else redraw();
  });
}

// A row of controls that is one Tab stop (the WAI-ARIA toolbar pattern,
// "roving tabindex"): Tab reaches the control used last, ← and → (Home,
// End) move between the row's controls, Tab again leaves the row. The page's
// top row (Tours, Scenarios, Tools, Glossary, Help, the language) and the
// Tools row are toolbars, so the main actions (Produce among them) come a few
// Tab stops after the page starts. A column (`aria-orientation="vertical"`,
// the Export menu) moves with ↑ and ↓.
//
// The arrow keys also step the timeline (player.js). A control focused by a
// click leaves them to the timeline, as before; a control reached by the
// keyboard takes them for the row (and prevents the step).

const ITEMS = 'button, select, summary, input, a[href]';

/** The row's own controls: not inside a nested row or menu. */
function controls(bar) {
  return [...bar.querySelectorAll(ITEMS)].filter((el) => el.closest('[data-toolbar]') === bar);
}

/** Whether a reader can reach a control now: shown and not disabled. */
const reachable = (el) => !el.disabled && el.checkVisibility({ visibilityProperty: true });

/** The row's controls a reader can reach now. */
function items(bar) {
  return controls(bar).filter(reachable);
}

/** Exactly one reachable control of the row is a Tab stop: the one used last if it still can be, else the first. */
export function refreshToolbar(bar, { laidOut = true } = {}) {
  const all = controls(bar);
  // Before the first layout, what shows is not asked (that would lay out the
  // whole new markup there and then): the first enabled control, until the
  // first draw's refresh, a frame later, looks. After it, only as many are
  // asked as it takes to find the one: the one used last, else the first shown.
  const shown = laidOut ? (all.includes(bar.current) && reachable(bar.current) ? bar.current : all.find(reachable)) : null;
  // A row not shown yet (a closed group, a page still laying out) keeps its
  // first control a Tab stop, so it is one as soon as it shows.
  const current = shown || all.find((el) => !el.disabled) || null;
  for (const el of all) {
    const stop = el === current ? 0 : -1;
    if (el.tabIndex !== stop || !el.hasAttribute('tabindex')) el.tabIndex = stop;
  }
}

/** Makes `bar` a toolbar (its role and label are the markup's); `modality` says whether the focus last moved by a pointer. */
export function wireToolbar(bar, modality = { pointer: false }) {
  bar.addEventListener('focusin', (e) => {
    const el = e.target;
    if (el.closest('[data-toolbar]') !== bar || !el.matches(ITEMS)) return;
    bar.current = el;
    // How the focus came: by a click (or back from a dialog a click closed), or by Tab.
    bar.byPointer = modality.pointer;
    refreshToolbar(bar);
  });
  bar.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || bar.byPointer) return;
    const el = e.composedPath()[0];
    if (!el || el.closest('[data-toolbar]') !== bar) return;
    const vertical = bar.getAttribute('aria-orientation') === 'vertical';
    const moves = vertical ? { ArrowDown: 1, ArrowUp: -1, Home: -Infinity, End: Infinity } : { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
    if (!(e.key in moves)) return;
    // A text field keeps its caret keys.
    if (el.tagName === 'INPUT' && el.type !== 'checkbox' && el.type !== 'radio') return;
    const row = items(bar);
    const at = row.indexOf(el);
    if (at < 0 || !row.length) return;
    const step = moves[e.key];
    const next = step === -Infinity ? 0 : step === Infinity ? row.length - 1 : (at + step + row.length) % row.length;
    e.preventDefault();
    row[next].focus();
  });
  refreshToolbar(bar, { laidOut: false });
}

/** Every toolbar of a playground, once its markup is built. */
export function wireToolbars(root) {
  // The last way the reader moved the focus in this playground: a pointer, or Tab.
  const modality = { pointer: false };
  root.addEventListener('pointerdown', () => { modality.pointer = true; }, { capture: true });
  root.addEventListener('keydown', (e) => { if (e.key === 'Tab') modality.pointer = false; }, { capture: true });
  const bars = [...root.querySelectorAll('[data-toolbar]')];
  bars.forEach((bar) => wireToolbar(bar, modality));
  return () => bars.forEach(refreshToolbar);
}

// A small description-of-the-DOM and a patcher that brings a real element in
// line with it. Render functions stay pure (they return descriptions); the
// patcher reuses elements, so focus, open menus and typed input survive a
// redraw. Text goes in through text nodes and attributes through
// setAttribute: nothing here ever parses HTML. Custom properties (a record's
// offset, `--o`) go in through the CSSOM, never a `style` attribute, which a
// strict Content-Security-Policy (`style-src 'self'`) refuses.

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * h('div', { class: 'x', key: 3, 'aria-label': 'y', style: { '--o': 4 } }, child, [children], 'text')
 * Attribute values of null, undefined or false leave the attribute out; true
 * sets it empty. `key` keeps an element paired with the same item across redraws.
 * `style` is an object of CSS properties, set with style.setProperty.
 * `memo` is a text that says everything the element's subtree depends on: an
 * element patched with the same memo as last time is left as it is, subtree
 * and all (a redraw then costs nothing where nothing changed).
 */
export function h(tag, attrs, ...children) {
  const flat = [];
  flatten(children, flat);
  const a = attrs || {};
  return { tag, attrs: a, key: a.key, children: flat };
}

const made = new Map(); // memo -> the description made for it (descriptions are never changed once made)
const MADE_MAX = 4000;

/**
 * The description `make()` returns for `memo`, made once while the memo
 * lasts: a redraw where an item did not change neither describes it again
 * nor patches it (the element carries the memo). `memo` must say everything
 * the description depends on, the page's language included.
 */
export function memoized(memo, make) {
  let v = made.get(memo);
  if (!v) {
    if (made.size >= MADE_MAX) made.clear();
    v = make();
    v.attrs.memo = memo;
    made.set(memo, v);
  }
  return v;
}

function flatten(list, out) {
  for (const c of list) {
    if (c === null || c === undefined || c === false || c === true) continue;
    if (Array.isArray(c)) flatten(c, out);
    else if (typeof c === 'object') out.push(c);
    else out.push({ text: String(c) });
  }
}

/** Sets an element's text where it differs: the same text written again would still be laid out again. */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** Makes the children of `parent` match `vnodes` (one vnode or a list). */
export function patch(parent, vnodes) {
  const list = [];
  flatten([vnodes], list);
  const inSvg = parent.namespaceURI === SVG_NS && parent.tagName.toLowerCase() !== 'foreignobject';
  patchChildren(parent, list, inSvg);
}

function patchChildren(parent, list, inSvg) {
  const old = Array.from(parent.childNodes);
  const byKey = new Map();
  for (const node of old) if (node.__key !== undefined) byKey.set(node.__key, node);
  const used = new Set();
  const kept = new Array(list.length);
  let cursor = 0;
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    let node = null;
    if (v.key !== undefined && !('text' in v)) {
      const candidate = byKey.get(v.key);
      if (candidate && !used.has(candidate) && same(candidate, v)) node = candidate;
    } else {
      // Unkeyed: take the next unkeyed, unused old node at the cursor.
      while (cursor < old.length && (old[cursor].__key !== undefined || used.has(old[cursor]))) cursor++;
      if (cursor < old.length && same(old[cursor], v)) node = old[cursor++];
    }
    if (node) used.add(node);
    kept[i] = node;
  }
  // What goes goes first, so that what stays is not moved past it one by one.
  for (const node of old) if (!used.has(node) && node.parentNode === parent) parent.removeChild(node);
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    let node = kept[i];
    if (node) update(node, v, inSvg);
    else node = create(v, inSvg);
    const at = parent.childNodes[i];
    if (at !== node) parent.insertBefore(node, at || null);
  }
}

function same(node, v) {
  if ('text' in v) return node.nodeType === 3;
  return node.nodeType === 1 && node.__tag === v.tag;
}

function create(v, inSvg) {
  if ('text' in v) return document.createTextNode(v.text);
  const svg = inSvg || v.tag === 'svg';
  const el = svg ? document.createElementNS(SVG_NS, v.tag) : document.createElement(v.tag);
  el.__tag = v.tag;
  el.__attrs = {};
  update(el, v, svg);
  return el;
}

function update(node, v, inSvg) {
  if ('text' in v) {
    if (node.nodeValue !== v.text) node.nodeValue = v.text;
    return;
  }
  node.__key = v.key;
  const memo = v.attrs.memo;
  if (memo !== undefined && node.__memo === memo) return;
  node.__memo = memo;
  const prev = node.__attrs || {};
  const next = {};
  for (const [name, value] of Object.entries(v.attrs)) {
    if (name === 'key' || name === 'memo' || name === 'style' || value === null || value === undefined || value === false) continue;
    next[name] = value === true ? '' : String(value);
  }
  for (const name of Object.keys(prev)) if (!(name in next)) node.removeAttribute(name);
  for (const [name, value] of Object.entries(next)) if (prev[name] !== value) node.setAttribute(name, value);
  node.__attrs = next;
  setStyle(node, v.attrs.style);
  const svg = inSvg || v.tag === 'svg';
  patchChildren(node, v.children, svg && v.tag !== 'foreignObject');
}

/** Brings an element's CSSOM properties in line with a `style` object (no attribute is parsed). */
function setStyle(node, style) {
  const prev = node.__style || null;
  if (!style && !prev) return;
  const next = {};
  if (style) {
    if (typeof style !== 'object') throw new TypeError('dom.js: style must be an object of properties');
    for (const [name, value] of Object.entries(style)) if (value !== null && value !== undefined && value !== false) next[name] = String(value);
  }
  if (prev) for (const name of Object.keys(prev)) if (!(name in next)) node.style.removeProperty(name);
  for (const [name, value] of Object.entries(next)) if (!prev || prev[name] !== value) node.style.setProperty(name, value);
  node.__style = next;
}

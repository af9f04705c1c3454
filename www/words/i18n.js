// Words in one place: every string the page shows comes from a locale table
// by key. Each language is a folder under locales/ with one JSON file per
// bundle (BUNDLES); English is the source of the keys. Keys are the JSON
// paths, a bundle's name first except in ui.json: `player.play` in ui.json,
// `tours.leo-and-hw.title` in tours.json, `events.truncated` in events.json,
// `glossary.hw.term` in glossary.json.
//
// A value is a string with `{name}` placeholders, or a plural object
// ({ "one": …, "other": … }) chosen by Intl.PluralRules on `params.count`.

export { LANGUAGES, isLanguage, chooseLanguage } from './languages.js';
import { isLanguage } from './languages.js';

export const BUNDLES = ['ui', 'tours', 'events', 'gallery', 'glossary', 'rules', 'writer'];

/**
 * The bundles a first draw needs. The others are fetched when what reads them
 * is first opened (loadBundle): `tours` with the tours, `gallery` with the
 * Scenarios dialog (and a head naming a gallery scenario in a language other
 * than English), `glossary` with the Glossary, `rules` with Settings and the
 * rules in force (in a language other than English), `writer` with the lesson
 * writer.
 */
const FIRST = ['ui', 'events'];

const PLURAL_FORMS = new Set(['zero', 'one', 'two', 'few', 'many', 'other']);

/** Keys asked for that no table has (the browser tests read them: a gap is a failure). */
const missing = new Set();

export function missingKeys() {
  return [...missing];
}

const state = {
  code: 'en',
  table: new Map(),
  english: new Map(),
  plural: new Intl.PluralRules('en'),
  number: null, // Intl.NumberFormat, made when first needed (num)
};

/** Every language loaded so far (several playgrounds on one page may speak different ones). */
const loaded = new Map();

/** A bundle's nested JSON as [key, value] pairs (plural objects stay whole). */
export function flatten(value, prefix = '', out = []) {
  for (const [k, v] of Object.entries(value)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v) && !isPlural(v)) flatten(v, key, out);
    else out.push([key, v]);
  }
  return out;
}

function isPlural(v) {
  const keys = Object.keys(v);
  return keys.length > 0 && keys.includes('other') && keys.every((k) => PLURAL_FORMS.has(k));
}

/** One bundle of one language, fetched once however many playgrounds ask at the same moment. */
const fetches = new Map(); // `${code}/${bundle}` -> Promise<[key, value][]>

function fetchBundle(code, bundle, base) {
  const id = `${code}/${bundle}`;
  if (!fetches.has(id)) {
    const url = new URL(`../locales/${code}/${bundle}.json`, base);
    const p = fetch(url).then(async (response) => {
      if (!response.ok) throw new Error(`${url.pathname}: ${response.status}`);
      return flatten(await response.json(), bundle === 'ui' ? '' : bundle);
    });
    p.catch(() => fetches.delete(id));
    fetches.set(id, p);
  }
  return fetches.get(id);
}

/** Bundles asked for beyond the first ones: every language loaded from then on gets them too. */
const wanted = new Set(FIRST);

/** Languages asked for, loaded or on their way (a bundle asked for meanwhile must reach them too). */
const asked = new Set();

/** The bundles in each language's table: `${code}/${bundle}`. */
const present = new Set();

/** A language's table with the wanted bundles in it (the same Map, grown, once loaded). */
async function loadTable(code, base) {
  asked.add(code);
  const bundles = [...wanted];
  let parts;
  try {
    parts = await Promise.all(bundles.map((bundle) => fetchBundle(code, bundle, base)));
  } catch (err) {
    if (!loaded.has(code)) asked.delete(code);
    throw err;
  }
  const table = loaded.get(code) || new Map();
  for (const pairs of parts) for (const [k, v] of pairs) table.set(k, v);
  loaded.set(code, table);
  for (const bundle of bundles) present.add(`${code}/${bundle}`);
  return table;
}

/** Loads a language (and English, the fallback for a key a language lacks), without making it the one in use. */
export async function loadLanguage(code, base = import.meta.url) {
  const chosen = isLanguage(code) ? code : 'en';
  await Promise.all([loadTable('en', base), chosen === 'en' ? null : loadTable(chosen, base)]);
  return chosen;
}

/** Loads a language and makes it the one in use. */
export async function setLanguage(code, base = import.meta.url) {
  const chosen = await loadLanguage(code, base);
  useLanguage(chosen, { force: true });
  return chosen;
}

/**
 * Loads a bundle the first draw does without (`tours`, `gallery`, …) for
 * English and every language loaded or on its way, and for those loaded
 * later; fetched once however many playgrounds ask. Resolves once its keys
 * are in. Rejects when English's or a loaded language's file cannot be had:
 * then a language loaded later does not wait for it, and the next ask tries
 * again.
 */
export async function loadBundle(bundle, base = import.meta.url) {
  const added = !wanted.has(bundle);
  wanted.add(bundle);
  const codes = [...new Set(['en', ...asked])];
  const results = await Promise.allSettled(codes.map((code) => loadTable(code, base)));
  // A language that could not be loaded at all (its ui.json) is not shown: it does not fail the bundle.
  const failed = results.find((r, i) => r.status === 'rejected' && (codes[i] === 'en' || loaded.has(codes[i])));
  if (failed) {
    if (added) wanted.delete(bundle);
    throw failed.reason;
  }
}

/** Is a bundle in the table of the language in use (or of `code`)? */
export function hasBundle(bundle, code = state.code) {
  return present.has(`${code}/${bundle}`);
}

/**
 * Makes an already loaded language the one in use, at once (a playground
 * calls it before it draws or handles an event). False if it is not loaded.
 */
export function useLanguage(code, { force = false } = {}) {
  if (!force && state.code === code && state.table.size) return true;
  const table = loaded.get(code);
  if (!table) return false;
  state.english = loaded.get('en') || table;
  state.table = table;
  state.code = code;
  state.plural = new Intl.PluralRules(code);
  state.number = null;
  return true;
}

/** The language in use. */
export function language() {
  return state.code;
}

/** Does the current language have this key (English counts)? */
export function has(key) {
  return state.table.has(key) || state.english.has(key);
}

/**
 * A number as the language writes it (1,000 in English). A whole number is
 * grouped by threes with commas, as Intl.NumberFormat writes it in each of
 * the page's languages (en-US, zh-Hans, zh-Hant: tests/browser/locales.test.mjs);
 * any other goes to Intl.NumberFormat, made when first needed: the first one
 * a page makes costs about 20 ms of a phone's CPU (made as the module ran,
 * it held back the element's first requests).
 */
export function num(n) {
  if (typeof n !== 'number') return String(n);
  if (Number.isSafeInteger(n)) return `${n < 0 ? '-' : ''}${String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',')}`;
  state.number ??= new Intl.NumberFormat(state.code === 'en' ? 'en-US' : state.code);
  return state.number.format(n);
}

/**
 * The text of `key` with `{name}` filled from params (numbers formatted for
 * the language). A key missing in the language falls back to English, and a
 * key missing everywhere shows itself, so a gap is visible, never fatal.
 */
export function t(key, params = {}) {
  let value = state.table.get(key);
  if (value === undefined) value = state.english.get(key);
  if (value === undefined) {
    missing.add(key);
    return key;
  }
  if (typeof value === 'object') {
    const form = state.plural.select(Number(params.count ?? 0));
    value = value[form] ?? value.other;
  }
  return fill(value, params);
}

/** `{name}` placeholders filled from params; unknown ones are left as written. */
export function fill(text, params) {
  return String(text).replace(/\{([a-zA-Z0-9_.]+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const v = params[name];
    return typeof v === 'number' ? num(v) : String(v);
  });
}

/**
 * Static markup: an element with data-i18n="key" gets the key's text, and
 * data-i18n-attr="aria-label:key; title:key" sets those attributes. A key no
 * table has (no table loaded at all, offline) leaves the markup's English as
 * it is written, rather than the key; it is still counted as missing. Markup
 * inside data-i18n-bundle="glossary" has its words in that bundle: it is left
 * as it is until the bundle is in (its dialog loads it, then translates it).
 */
export function translateTree(root) {
  const later = (el) => {
    const part = el.closest('[data-i18n-bundle]');
    return part !== null && !hasBundle(part.dataset.i18nBundle);
  };
  for (const el of root.querySelectorAll('[data-i18n]')) {
    if (later(el)) continue;
    const text = t(el.dataset.i18n);
    if (text !== el.dataset.i18n) el.textContent = text;
  }
  for (const el of root.querySelectorAll('[data-i18n-attr]')) {
    if (later(el)) continue;
    for (const pair of el.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split(':').map((s) => s.trim());
      if (!attr || !key) continue;
      const text = t(key);
      if (text !== key) el.setAttribute(attr, text);
    }
  }
}

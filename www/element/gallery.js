// The scenario gallery (www/gallery.json, written by scripts/gallery.mjs):
// one card per scenario with its one-line explanation, one click to load it,
// and for the scenarios that compare Kafka versions, one button per version.
// Names and explanations come from the locale tables (`gallery.<id>.*`, the
// bundle locales/<language>/gallery.json, fetched with the Scenarios dialog),
// the English ones being the scenario files' own words, which gallery.json
// holds too.

import { h } from '../draw/dom.js';
import { t, has, hasBundle, loadBundle, language } from '../words/i18n.js';
import { settingsDigest } from './gallery-digest.js';

/** A gallery entry's name, summary or description in the page's language (gallery.json's English until its words are in). */
export function galleryText(entry, field) {
  const key = `gallery.${entry.id}.${field}`;
  return has(key) ? t(key) : entry[field] || '';
}

/**
 * The gallery's words for a head that names a gallery entry (its name and
 * description), in `code`: nothing to fetch in English, whose words are
 * gallery.json's own (tests/browser/locales.test.mjs checks that they are the
 * same); in another language the locale bundle `gallery`, fetched once.
 */
export function galleryWords(code = language()) {
  return code === 'en' || hasBundle('gallery', code) ? Promise.resolve() : loadBundle('gallery');
}

/**
 * The gallery entry a run came from, if any: the same English name, the same
 * description and the settings of the entry (or of one of its versions). A
 * link that only takes an entry's name (with words and settings of its own)
 * gets none, so the page never shows it with words that are not its own.
 */
export function galleryEntryNamed(gallery, name, { description = '', config } = {}) {
  const entries = ((gallery && gallery.entries) || []).filter((e) => e.name === name && (e.description || '') === (description || ''));
  if (!entries.length || config === undefined) return null;
  const settings = settingsDigest(config);
  return entries.find((e) => Array.isArray(e.configs) && e.configs.includes(settings)) || null;
}

export function renderGallery(gallery, currentName) {
  const entries = (gallery && gallery.entries) || [];
  if (!entries.length) return h('p', { class: 'muted' }, t('gallery_ui.empty'));
  return h('ul', { class: 'gallery-list' },
    entries.map((e, i) => {
      const name = galleryText(e, 'name');
      const summary = galleryText(e, 'summary') || galleryText(e, 'description');
      const description = galleryText(e, 'description');
      return h('li', { class: `gallery-card${e.name === currentName ? ' current' : ''}`, key: e.file, 'data-id': e.id },
        h('h3', null, name),
        h('p', { class: 'gallery-summary' }, summary),
        description && description !== summary
          ? h('details', { class: 'gallery-more' }, h('summary', null, t('gallery_ui.more')), h('p', null, description))
          : null,
        h('div', { class: 'gallery-actions' },
          h('button', { type: 'button', class: 'primary', 'data-entry': i, 'aria-label': t('gallery_ui.load_label', { name }) }, t('gallery_ui.load')),
          e.variants && e.variants.length
            ? h('span', { class: 'variants', role: 'group', 'aria-label': t('gallery_ui.variants_label', { name }) },
                h('span', { class: 'muted small variants-label' }, t('gallery_ui.or_under')),
                e.variants.map((v) => h('button', {
                  type: 'button',
                  class: `mini${v.protocol === e.protocol ? ' current' : ''}`,
                  key: v.protocol,
                  'data-entry': i,
                  'data-protocol': v.protocol,
                  'aria-label': t(v.protocol === e.protocol ? 'gallery_ui.variant_label_written' : 'gallery_ui.variant_label', { name, version: v.protocol }),
                  title: t(v.protocol === e.protocol ? 'gallery_ui.variant_title_written' : 'version.name', { name: v.protocol }),
                }, v.protocol)))
            : null,
        ),
      );
    }),
  );
}

let loading = null;

/** The gallery (www/gallery.json beside this module), loaded once for every playground on the page. */
export function loadGallery() {
  if (!loading) {
    loading = fetch(new URL('../gallery.json', import.meta.url)).then(async (response) => {
      if (!response.ok) throw new Error(`gallery.json: ${response.status} (run make build)`);
      return response.json();
    });
    loading.catch(() => { loading = null; });
  }
  return loading;
}

/** A gallery entry by its id (`kip101-loss-after-restart`), or null. */
export function galleryEntry(gallery, id) {
  return ((gallery && gallery.entries) || []).find((e) => e.id === id) || null;
}

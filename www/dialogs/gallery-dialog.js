// The Scenarios dialog: the gallery's cards; one click loads a scenario (or
// its run under another Kafka version) at its start, the run before kept for Undo.

import { isCrash } from '../core.js';
import { h, patch } from '../draw/dom.js';
import { t, hasBundle, loadBundle } from '../words/i18n.js';
import { VERSION_TEXT } from '../words/describe.js';
import { renderGallery, galleryText, loadGallery } from '../element/gallery.js';

export function wireGallery(pg) {
  const $ = (id) => pg.$(id);

  /** Opens once the gallery and its cards' words (the locale bundle `gallery`, fetched at the first opening) are in; if they cannot be had, with the reason instead. */
  async function open() {
    const dialog = $('dlg-gallery');
    let failed = null;
    try {
      [pg.gallery] = await Promise.all([loadGallery(), hasBundle('gallery') ? null : loadBundle('gallery')]);
    } catch (err) {
      failed = err;
    }
    if (pg.closed) return;
    pg.enter();
    patch($('gallery'), failed ? h('p', { class: 'error' }, t('gallery_ui.load_failed', { message: failed.message })) : renderGallery(pg.gallery, pg.name));
    if (!dialog.open) dialog.showModal();
  }

  function onClick(e) {
    const b = e.target.closest('button[data-entry]');
    if (!b || !pg.gallery) return;
    const entry = pg.gallery.entries[Number(b.dataset.entry)];
    if (!entry) return;
    const variant = b.dataset.protocol ? entry.variants.find((v) => v.protocol === b.dataset.protocol) : null;
    const scenario = variant ? variant.scenario : entry.scenario;
    pg.player.stop();
    const before = pg.currentScenario();
    const position = pg.sim.position();
    const name = galleryText(entry, 'name');
    try {
      // A story opens at its start: Play tells it from there.
      pg.loadScenario(scenario, { at: 0 });
    } catch (err) {
      if (isCrash(err)) { pg.recover(err); return; }
      pg.notify('error', t('gallery_ui.could_not_load', { name, message: err.message }));
      return;
    }
    $('dlg-gallery').close();
    $('btn-play').focus();
    pg.undo = { scenario: before, position };
    pg.notify('info', t(variant ? 'gallery_ui.loaded_under' : 'gallery_ui.loaded', { name, version: variant ? VERSION_TEXT.name(variant.protocol) : '', count: pg.sim.length() }), pg.undoAction());
  }

  $('btn-gallery').addEventListener('click', open);
  $('gallery').addEventListener('click', onClick);
}

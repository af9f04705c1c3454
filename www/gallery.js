// The scenario gallery (www/gallery.json, written by scripts/gallery.mjs):
// one card per scenario with its one-line explanation, one click to load it,
// and for the scenarios that compare Kafka versions, one button per version.

import { h } from './dom.js';

export function renderGallery(gallery, currentName) {
  const entries = (gallery && gallery.entries) || [];
  if (!entries.length) return h('p', { class: 'muted' }, 'No scenarios found.');
  return h('ul', { class: 'gallery-list' },
    entries.map((e, i) => h('li', { class: `gallery-card${e.name === currentName ? ' current' : ''}`, key: e.file },
      h('h3', null, e.name),
      h('p', { class: 'gallery-summary' }, e.summary || e.description),
      e.description && e.description !== e.summary
        ? h('details', { class: 'gallery-more' }, h('summary', null, 'More'), h('p', null, e.description))
        : null,
      h('div', { class: 'gallery-actions' },
        h('button', { type: 'button', class: 'primary', 'data-entry': i, 'aria-label': `Load the scenario ${e.name}` }, 'Load'),
        e.variants && e.variants.length
          ? h('span', { class: 'variants', role: 'group', 'aria-label': `Load ${e.name} under a Kafka version` },
              h('span', { class: 'muted small variants-label' }, 'or under Kafka'),
              e.variants.map((v) => h('button', {
                type: 'button',
                class: `mini${v.protocol === e.protocol ? ' current' : ''}`,
                key: v.protocol,
                'data-entry': i,
                'data-protocol': v.protocol,
                'aria-label': `Load ${e.name} under Kafka ${v.protocol}${v.protocol === e.protocol ? ' (as written)' : ''}`,
                title: v.protocol === e.protocol ? `Kafka ${v.protocol}: the version the scenario is written for` : `Kafka ${v.protocol}`,
              }, v.protocol)))
          : null,
      ),
    )),
  );
}

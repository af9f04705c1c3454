// Words in one place: every language has every key of English, with the same
// placeholders; the English gallery and rule texts are the scenario files' and
// the core's own words; Chinese files hold Chinese, not English left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, loadCore } from './harness.mjs';
import { flatten, LANGUAGES, BUNDLES, num } from '../../www/words/i18n.js';

const read = (lang, bundle) => JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'locales', lang, `${bundle}.json`), 'utf8'));
const table = (lang, bundle) => new Map(flatten(read(lang, bundle)));
const placeholders = (v) => {
  const texts = typeof v === 'object' ? Object.values(v) : [v];
  return [...new Set(texts.flatMap((s) => [...String(s).matchAll(/\{([a-zA-Z0-9_.]+)\}/g)].map((m) => m[1])))].sort();
};

for (const bundle of BUNDLES) {
  for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
    test(`${bundle}.json: ${code} has exactly English's keys, each with the same placeholders`, () => {
      const en = table('en', bundle);
      const other = table(code, bundle);
      const missing = [...en.keys()].filter((k) => !other.has(k));
      const extra = [...other.keys()].filter((k) => !en.has(k));
      assert.deepEqual(missing, [], `keys missing in ${code}/${bundle}.json`);
      assert.deepEqual(extra, [], `keys in ${code}/${bundle}.json that English lacks`);
      const differing = [...en.keys()].filter((k) => {
        // Chinese has no plural: a plural object may use {count} in "other" only.
        const a = placeholders(en.get(k)).filter((p) => p !== 'count');
        const b = placeholders(other.get(k)).filter((p) => p !== 'count');
        return JSON.stringify(a) !== JSON.stringify(b);
      });
      assert.deepEqual(differing, [], `placeholders differ from English in ${code}/${bundle}.json`);
      for (const [k, v] of other) {
        if (typeof en.get(k) === 'object') assert.equal(typeof v, 'object', `${code}/${bundle}.json ${k}: a plural object in English`);
        const texts = typeof v === 'object' ? Object.values(v) : [v];
        // Empty only where English is only spaces (a gap between sentences, which Chinese does not write).
        const english = en.get(k);
        const blankInEnglish = typeof english === 'string' && english.trim() === '';
        for (const s of texts) assert.ok(blankInEnglish || String(s).trim() !== '', `${code}/${bundle}.json ${k} is empty`);
      }
    });

    test(`${bundle}.json: ${code} sentences are Chinese, not English left untranslated`, () => {
      const en = table('en', bundle);
      const other = table(code, bundle);
      // A value with three or more English words in a row and no Chinese character
      // is an untranslated sentence (labels such as "HW", "Fetch @{offset}" or a
      // config name are not).
      const leaked = [...other].filter(([k, v]) => {
        const texts = typeof v === 'object' ? Object.values(v) : [v];
        return texts.some((s) => !/[\u3400-\u9fff]/.test(s) && /\b[a-z]{3,} [a-z]{3,} [a-z]{3,}\b/i.test(String(s).replace(/\{[^}]+\}/g, '')) && String(s) === String(typeof en.get(k) === 'object' ? en.get(k).other : en.get(k)));
      }).map(([k]) => k);
      assert.deepEqual(leaked, [], `${code}/${bundle}.json values still in English`);
    });
  }
}

test('gallery.json: the English gallery texts are the scenario files\' own words, for every gallery entry', () => {
  const gallery = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'gallery.json'), 'utf8'));
  const en = read('en', 'gallery');
  assert.deepEqual(Object.keys(en).sort(), gallery.entries.map((e) => e.id).sort());
  for (const e of gallery.entries) {
    // The same, or absent from both: an English head shows gallery.json's words without this bundle (element/gallery.js, galleryWords).
    for (const field of ['name', 'summary', 'description']) assert.equal(en[e.id][field] || '', e[field] || '', `gallery.${e.id}.${field}`);
  }
});

test('rules.json: the English rule summaries are the core\'s, for every rule of the catalogue', async () => {
  const core = await loadCore();
  const { rules } = core.versions();
  const en = read('en', 'rules');
  assert.deepEqual(Object.keys(en).sort(), rules.map((r) => r.rule).sort());
  for (const r of rules) assert.equal(en[r.rule], r.summary, `rules.${r.rule}`);
});

test('tours.json: every tour of the index has a title and a summary in every language', () => {
  const { tours } = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'tours', 'index.json'), 'utf8'));
  for (const { code } of LANGUAGES) {
    const texts = read(code, 'tours');
    for (const id of tours) {
      assert.ok(texts[id] && texts[id].title && texts[id].summary, `${code}: tours.${id}.title/summary`);
    }
  }
});

test('num() writes a whole number as Intl.NumberFormat does in every language of the page', () => {
  const wholes = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 12345, 123456, 1234567, 98765432, 2 ** 31, 2 ** 53 - 1];
  for (const { code } of LANGUAGES) {
    const intl = new Intl.NumberFormat(code === 'en' ? 'en-US' : code);
    for (const n of [...wholes, ...wholes.filter((w) => w).map((w) => -w)]) assert.equal(num(n), intl.format(n), `${code}: ${n}`);
  }
  // Anything else is Intl's own.
  assert.equal(num(1234.5678), new Intl.NumberFormat('en-US').format(1234.5678));
  assert.equal(num('12'), '12');
});

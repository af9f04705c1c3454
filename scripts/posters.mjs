#!/usr/bin/env node
// Writes www/posters/: a picture of the board for a page to show before any
// script has run (docs/embedding.md, "A poster"), made from the core's own
// state by the page's own drawing of a moment (posterSvg, draw/export.js),
// so a poster says what the element then draws:
//
//   posters/<scenario>.svg        each gallery scenario at its default step (gallery.json's `focus`)
//   posters/tour-<tour>.svg       each built-in tour at its first stop
//   posters/default.svg           the empty run the page opens on
//
// in English, and the same under posters/zh-Hans/ and posters/zh-Hant/.
//
//   node scripts/posters.mjs        after scripts/gallery.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { WWW, loadCore, writeFolder } from './generated.mjs';
import { posterSvg } from '../www/draw/export.js';
import { setLanguage, t } from '../www/words/i18n.js';

const OUT = path.join(WWW, 'posters');
const LANGUAGES = ['en', 'zh-Hans', 'zh-Hant'];

if (!fs.existsSync(path.join(WWW, 'gallery.json'))) {
  console.error('posters: www/gallery.json is missing; run make build');
  process.exit(1);
}
const core = await loadCore('pkg-quorum', 'posters');

// The words, read as the page fetches them (its locale files), from disk.
const pageFetch = globalThis.fetch;
globalThis.fetch = async (url) => (String(url).startsWith('file:') ? new Response(fs.readFileSync(fileURLToPath(url))) : pageFetch(url));

const drawing = { Simulation: core.Simulation, versions: core.versions() };

const { entries } = JSON.parse(fs.readFileSync(path.join(WWW, 'gallery.json'), 'utf8'));
const { tours } = JSON.parse(fs.readFileSync(path.join(WWW, 'tours', 'index.json'), 'utf8'));
const runs = [
  ['default', { version: 1, config: core.defaultConfig(), steps: [] }, 0],
  ...entries.map((e) => [e.id, e.scenario, e.focus]),
  ...tours.map((id) => {
    const tour = JSON.parse(fs.readFileSync(path.join(WWW, 'tours', `${id}.json`), 'utf8'));
    return [`tour-${id}`, tour.parts[0].scenario, tour.parts[0].stops[0].at];
  }),
];
const files = new Map();
for (const lang of LANGUAGES) {
  await setLanguage(lang, pathToFileURL(path.join(WWW, 'words', 'i18n.js')).href);
  for (const [id, scenario, at] of runs) files.set(`${lang === 'en' ? '' : `${lang}/`}${id}.svg`, posterSvg(drawing, scenario, at, t));
}
fs.mkdirSync(OUT, { recursive: true });
const bytes = writeFolder(OUT, files);
console.log(`posters: ${files.size} files in www/posters/ (${bytes} bytes)`);

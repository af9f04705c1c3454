#!/usr/bin/env node
// Writes www/tour-answers/<id>.json: for each built-in tour, what the model
// says of it (`checkBuiltInTour` on the workers' core, www/pkg-fast: the
// answer and the choices of each question, and the findings, none for a
// built-in tour). The page reads a tour's answers from this small file
// (panels/tour-panel.js) instead of starting the workers' core to check the
// tour; each file carries the fingerprint of the tour it was made from
// (`tourFingerprint`, www/element/tour-fingerprint.js), and the page checks the tour
// itself in a worker when the two differ.
//
//   node scripts/tour-answers.mjs        after scripts/build-wasm.sh
import fs from 'node:fs';
import path from 'node:path';
import { tourFingerprint } from '../www/element/tour-fingerprint.js';
import { WWW, loadCore, writeFolder } from './generated.mjs';

const OUT = path.join(WWW, 'tour-answers');
/** The file's format; the page ignores a file of another. */
export const FORMAT = 1;

const core = await loadCore('pkg-fast', 'tour-answers');
const { tours } = JSON.parse(fs.readFileSync(path.join(WWW, 'tours', 'index.json'), 'utf8'));
const files = new Map();
for (const id of tours) {
  const text = fs.readFileSync(path.join(WWW, 'tours', `${id}.json`), 'utf8');
  const checked = core.checkBuiltInTour(text);
  if (checked.findings.length) {
    console.error(`tour-answers: tours/${id}.json: the model does not bear out ${checked.findings.length} fact(s): ${checked.findings[0].message}`);
    process.exit(1);
  }
  const file = { highwater_tour_answers: FORMAT, tour: id, fingerprint: tourFingerprint(JSON.parse(text)), checked };
  files.set(`${id}.json`, `${JSON.stringify(file)}\n`);
}
fs.mkdirSync(OUT, { recursive: true });
const bytes = writeFolder(OUT, files);
console.log(`tour-answers: ${tours.length} files in www/tour-answers/ (${bytes} bytes)`);

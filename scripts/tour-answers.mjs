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
import { fileURLToPath } from 'node:url';
import { tourFingerprint } from '../www/element/tour-fingerprint.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WWW = path.join(ROOT, 'www');
const PKG = path.join(WWW, 'pkg-fast');
const OUT = path.join(WWW, 'tour-answers');
/** The file's format; the page ignores a file of another. */
export const FORMAT = 1;

if (!fs.existsSync(path.join(PKG, 'highwater_bg.wasm'))) {
  console.error('tour-answers: www/pkg-fast is missing; build the cores first (scripts/build-wasm.sh)');
  process.exit(1);
}
const core = await import(path.join(PKG, 'highwater.js'));
core.initSync({ module: fs.readFileSync(path.join(PKG, 'highwater_bg.wasm')) });

const { tours } = JSON.parse(fs.readFileSync(path.join(WWW, 'tours', 'index.json'), 'utf8'));
fs.mkdirSync(OUT, { recursive: true });
let bytes = 0;
for (const id of tours) {
  const text = fs.readFileSync(path.join(WWW, 'tours', `${id}.json`), 'utf8');
  const checked = core.checkBuiltInTour(text);
  if (checked.findings.length) {
    console.error(`tour-answers: tours/${id}.json: the model does not bear out ${checked.findings.length} fact(s): ${checked.findings[0].message}`);
    process.exit(1);
  }
  const file = { highwater_tour_answers: FORMAT, tour: id, fingerprint: tourFingerprint(JSON.parse(text)), checked };
  const out = `${JSON.stringify(file)}\n`;
  bytes += out.length;
  // Written beside and renamed into place: test files run in parallel.
  const target = path.join(OUT, `${id}.json`);
  const tmp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, out);
  fs.renameSync(tmp, target);
}
const keep = new Set(tours.map((id) => `${id}.json`));
for (const name of fs.readdirSync(OUT)) if (!keep.has(name) && !name.endsWith('.tmp')) fs.rmSync(path.join(OUT, name));
console.log(`tour-answers: ${tours.length} files in www/tour-answers/ (${bytes} bytes)`);

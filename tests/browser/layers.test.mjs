// The page's folders are its layers (www/*/README.md): imports run one way,
// words ← draw ← element ← panels, dialogs ← the element module, with
// core.js (the JS API) open to all and the workers apart (started by the
// dialogs and by the element's tour check, element/tour-check.js). No
// browser needed: this reads the modules' import statements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WWW = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'www');

/** What each folder may import besides itself ('.' is www/ itself: core.js and the element module). */
const MAY_USE = {
  words: [],
  draw: ['words'],
  element: ['draw', 'words', 'workers', 'core.js'],
  panels: ['element', 'draw', 'words', 'core.js'],
  dialogs: ['element', 'draw', 'words', 'workers', 'core.js'],
  workers: ['pkg-fast'],
};

function imports(file) {
  const text = fs.readFileSync(file, 'utf8');
  const found = [];
  for (const m of text.matchAll(/\b(?:import|export)\s+(?:[\w*{}\s,$]+?\s+from\s+)?['"](\.[^'"]+)['"]/g)) found.push(m[1]);
  for (const m of text.matchAll(/\bimport\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g)) found.push(m[1]);
  for (const m of text.matchAll(/new\s+URL\(\s*['"](\.[^'"]+\.js)['"]/g)) found.push(m[1]);
  return found;
}

/** The folder (or top-level file) of www/ a resolved path is in. */
const part = (abs) => path.relative(WWW, abs).split(path.sep)[0];

test('each folder of www/ imports only the folders below it', () => {
  let checked = 0;
  for (const [folder, allowed] of Object.entries(MAY_USE)) {
    for (const name of fs.readdirSync(path.join(WWW, folder)).filter((f) => f.endsWith('.js'))) {
      const file = path.join(WWW, folder, name);
      for (const spec of imports(file)) {
        const target = part(path.resolve(path.dirname(file), spec));
        assert.ok(target === folder || allowed.includes(target), `www/${folder}/${name} imports ${spec} (${target}): ${folder} may use ${[folder, ...allowed].join(', ')}`);
        checked += 1;
      }
    }
  }
  assert.ok(checked > 100, `only ${checked} imports found`);
});

test('www/ holds only the public files at its top; every module is in a folder that says what it is', () => {
  // The element module, the JS API, and the full page's own script and style (index.html's).
  const top = fs.readdirSync(WWW).filter((f) => /\.(js|css)$/.test(f)).sort();
  assert.deepEqual(top, ['core.js', 'highwater-playground.js', 'index.css', 'index.js']);
  for (const folder of Object.keys(MAY_USE)) assert.ok(fs.existsSync(path.join(WWW, folder, 'README.md')), `www/${folder}/README.md missing`);
});

// Builds are path-free: no shipped file (what the package holds, from
// scripts/package.mjs's collectFiles, and both wasm packages) names a path of
// the machine that built it. scripts/build-wasm.sh remaps the cargo registry,
// the toolchain's sysroot and the repository to fixed prefixes; the wasm
// files once held 14 and 16 registry paths (panic locations).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, ensureBuilt } from './harness.mjs';
import { WWW, collectFiles } from '../../scripts/package.mjs';

const FORBIDDEN = ['/root/', '/home/', '.cargo/registry', ROOT, fs.realpathSync(ROOT)];

before(() => ensureBuilt());

/** Every file of a directory, relative to it. */
function walk(dir, rel = '') {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(dir, path.posix.join(rel, e.name)) : [path.posix.join(rel, e.name)]);
}

test('no shipped file names a path of the build machine', () => {
  const shipped = new Set(collectFiles(WWW).files);
  for (const dir of ['pkg', 'pkg-quorum', 'pkg-fast']) for (const f of walk(path.join(WWW, dir))) shipped.add(`${dir}/${f}`);
  assert.ok([...shipped].some((f) => f.endsWith('.wasm')), 'the wasm files are among them');
  const found = [];
  for (const f of shipped) {
    // latin1: every byte is one character, so a path inside a binary is found as text.
    const text = fs.readFileSync(path.join(WWW, f), 'latin1');
    for (const p of new Set(FORBIDDEN)) {
      const at = text.indexOf(p);
      if (at >= 0) found.push(`${f}: ${JSON.stringify(text.slice(Math.max(0, at - 20), at + 80))}`);
    }
  }
  assert.deepEqual(found, []);
});

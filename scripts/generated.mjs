// What the build's generators share (scripts/first-frames.mjs,
// tour-answers.mjs, posters.mjs): a core loaded in Node, and a folder of
// files written so that a reader never sees half of one.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WWW = path.join(ROOT, 'www');

/** A core of www/ (`pkg`, `pkg-quorum`, `pkg-fast`), instantiated; exits saying what to build when it is missing. */
export async function loadCore(dir, who) {
  const pkg = path.join(WWW, dir);
  if (!fs.existsSync(path.join(pkg, 'highwater_bg.wasm'))) {
    console.error(`${who}: www/${dir} is missing; build the cores first (scripts/build-wasm.sh)`);
    process.exit(1);
  }
  const core = await import(pathToFileURL(path.join(pkg, 'highwater.js')).href);
  core.initSync({ module: fs.readFileSync(path.join(pkg, 'highwater_bg.wasm')) });
  return core;
}

/**
 * Writes `files` (name -> text; a name may hold a folder: `zh-Hans/x.svg`)
 * into `out`: each written beside and renamed into place (test files run in
 * parallel and read them), then every other file of `out` removed. Returns
 * the bytes written.
 */
export function writeFolder(out, files) {
  let bytes = 0;
  for (const [name, text] of files) {
    const file = path.join(out, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
    bytes += Buffer.byteLength(text);
  }
  for (const name of fs.readdirSync(out, { recursive: true })) {
    const file = path.join(out, name);
    if (!files.has(name.split(path.sep).join('/')) && !name.endsWith('.tmp') && fs.statSync(file).isFile()) fs.rmSync(file);
  }
  return bytes;
}

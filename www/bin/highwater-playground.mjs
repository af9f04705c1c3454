#!/usr/bin/env node
// The package's command: checks tour files with the model, as
// `highwater tour check` does, without Rust: on the workers' core
// (pkg-fast, WebAssembly), in Node; and copies the package's files where a
// docs site serves its static files.
//
//   npx highwater-playground check [--json] lessons/*.json
//   npx highwater-playground copy static/highwater-playground
//
// For each file it prints what `highwater tour check` prints, word for word
// (the report is the core's: src/view/tour_report.rs): each finding on
// standard output, a summary on standard error. The exit status is the
// worst of the files': 0 every fact holds, 1 a finding, 2 a file that cannot
// be read (or a usage error).
import { readFileSync, openSync, readSync, closeSync, cpSync, existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initSync, tourCheckReport } from '../pkg-fast/highwater.js';

const PROGRAM = 'highwater-playground';
/** `view::tour::MAX_TOUR_BYTES`: a file is read up to one byte past it, and refused with its size by the core. */
const MAX_TOUR_BYTES = 1 << 20;

const USAGE = `usage: ${PROGRAM} check [--json] FILE...
       ${PROGRAM} copy DIR
  check: checks tour files (docs/tours.md) with the model, as \`highwater tour check\`
  does: every fact a stop states must be the model's. Exit status 0 when every
  fact holds, 1 when a file has findings, 2 when a file cannot be read.
  copy: puts the files a page loads (the element, its core, words, tours and
  gallery, the full page) into DIR, a folder the docs site serves as it is
  (static/highwater-playground, public/highwater-playground, …), replacing an
  earlier copy. A DIR that holds anything else is left as it is (exit 2).`;

/** The installed package's folder: this file is its bin/. */
const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** What a page never loads: the command, the typings, the package's own texts. */
const NOT_SERVED = (rel) => rel === 'bin' || rel === 'types' || rel === 'node_modules' || rel.endsWith('.d.ts') || rel.endsWith('.md');

/** An earlier copy: its package.json names this package. */
function isCopy(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name === PROGRAM;
  } catch {
    return false;
  }
}

/**
 * `copy DIR`: the served files into a new folder beside DIR, then renamed
 * into place, so a site never serves half a copy and a failed copy leaves
 * DIR as it was.
 */
function copy(args) {
  if (args.length !== 1 || args[0].startsWith('--')) return fail(`copy: name one folder\n${USAGE}`);
  const dir = resolve(args[0]);
  if (dir === PACKAGE || dir.startsWith(`${PACKAGE}/`)) return fail(`copy: ${args[0]} is inside the package itself`);
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) return fail(`copy: ${args[0]} is a file, not a folder`);
    if (readdirSync(dir).length && !isCopy(dir)) return fail(`copy: ${args[0]} holds files that are not an earlier copy of ${PROGRAM}; name an empty or new folder`);
  }
  const next = join(dirname(dir), `.${basename(dir)}.${process.pid}.new`);
  try {
    cpSync(PACKAGE, next, { recursive: true, filter: (src) => src === PACKAGE || !NOT_SERVED(src.slice(PACKAGE.length + 1)) });
    rmSync(dir, { recursive: true, force: true });
    renameSync(next, dir);
  } catch (err) {
    rmSync(next, { recursive: true, force: true });
    return fail(`copy: ${err && err.message ? err.message : err}`);
  }
  process.stderr.write(`${PROGRAM}: copied to ${args[0]}\n`);
  return 0;
}

function fail(message) {
  process.stderr.write(`${PROGRAM}: ${message}\n`);
  return 2;
}

/** A file's text as the command line reads it: at most the limit plus one byte, UTF-8. */
function read(file) {
  const name = file === '-' ? 'standard input' : file;
  let fd;
  try {
    fd = file === '-' ? 0 : openSync(file, 'r');
    const buffer = Buffer.alloc(MAX_TOUR_BYTES + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0; ) length += n;
    const bytes = buffer.subarray(0, length);
    if (bytes.length > MAX_TOUR_BYTES) return { name, error: `${name}: larger than the limit of ${MAX_TOUR_BYTES} bytes` };
    try {
      return { name, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
    } catch {
      return { name, error: `${name}: not UTF-8 text` };
    }
  } catch (err) {
    return { name, error: `cannot read ${name}: ${err && err.message ? err.message : err}` };
  } finally {
    if (fd !== undefined && fd !== 0) closeSync(fd);
  }
}

function main(argv) {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'copy') return copy(rest);
  if (command !== 'check') return fail(`${command === undefined ? 'no command' : `unknown command ${JSON.stringify(command)}`}\n${USAGE}`);
  const json = rest.includes('--json');
  const files = rest.filter((a) => a !== '--json');
  const unknown = files.find((a) => a.startsWith('--'));
  if (unknown) return fail(`unknown option ${JSON.stringify(unknown)}\n${USAGE}`);
  if (!files.length) return fail(`check: name at least one tour file\n${USAGE}`);
  initSync({ module: readFileSync(new URL('../pkg-fast/highwater_bg.wasm', import.meta.url)) });
  let worst = 0;
  for (const file of files) {
    const { name, text, error } = read(file);
    if (error !== undefined) {
      worst = Math.max(worst, fail(error));
      continue;
    }
    const report = tourCheckReport(name, text, json);
    if (report.error != null) {
      worst = Math.max(worst, fail(report.error));
      continue;
    }
    process.stdout.write(report.stdout);
    process.stderr.write(report.stderr);
    worst = Math.max(worst, report.code);
  }
  return worst;
}

process.exitCode = main(process.argv.slice(2));

#!/usr/bin/env node
// The package's command: checks tour files with the model, as
// `highwater tour check` does, without Rust: on the workers' core
// (pkg-fast, WebAssembly), in Node.
//
//   npx highwater-playground check [--json] lessons/*.json
//
// For each file it prints what `highwater tour check` prints, word for word
// (the report is the core's: src/view/tour_report.rs): each finding on
// standard output, a summary on standard error. The exit status is the
// worst of the files': 0 every fact holds, 1 a finding, 2 a file that cannot
// be read (or a usage error).
import { readFileSync, openSync, readSync, closeSync } from 'node:fs';
import { initSync, tourCheckReport } from '../pkg-fast/highwater.js';

const PROGRAM = 'highwater-playground';
/** `view::tour::MAX_TOUR_BYTES`: a file is read up to one byte past it, and refused with its size by the core. */
const MAX_TOUR_BYTES = 1 << 20;

const USAGE = `usage: ${PROGRAM} check [--json] FILE...
  Checks tour files (docs/tours.md) with the model, as \`highwater tour check\` does:
  every fact a stop states must be the model's. Exit status 0 when every fact
  holds, 1 when a file has findings, 2 when a file cannot be read.`;

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

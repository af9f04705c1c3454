// The package's command, `npx highwater-playground check` (www/bin/, on the
// workers' core in Node), and the command line's `highwater tour check` say
// the same about every built-in tour, the sample lesson, a lesson with a
// false fact and a file that is no tour: the same lines on standard output
// and standard error (the program's name aside) and the same exit status.
// Needs www/pkg-fast (scripts/build-wasm.sh) and builds the binary if missing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, cliBinary } from './harness.mjs';

const BIN = path.join(ROOT, 'www', 'bin', 'highwater-playground.mjs');
const built = fs.existsSync(path.join(ROOT, 'www', 'pkg-fast', 'highwater_bg.wasm'));

function both(args) {
  const npm = spawnSync(process.execPath, [BIN, 'check', ...args], { encoding: 'utf8', cwd: ROOT });
  const cli = spawnSync(cliBinary(), ['tour', 'check', ...args], { encoding: 'utf8', cwd: ROOT });
  return { npm, cli };
}

/** Standard error with the program's name put the same. */
const same = (stderr) => stderr.replace(/^highwater-playground: /gm, 'highwater: ');

/** A copy of the sample lesson whose first stated fact is made false. */
function falseLesson() {
  const lesson = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'tours', 'acks-1-loss.json'), 'utf8'));
  const stop = lesson.parts[0].stops.find((s) => s.facts && Object.keys(s.facts).length);
  assert.ok(stop, 'the sample lesson states a fact');
  stop.facts.high_watermark = 9999;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hw-check-')), 'false-fact.json');
  fs.writeFileSync(file, JSON.stringify(lesson, null, 2));
  return file;
}

test('the package command and the command line agree on every tour, a false fact and a file that is no tour', { skip: !built && 'www/pkg-fast is not built' }, () => {
  const tours = fs.readdirSync(path.join(ROOT, 'www', 'tours')).filter((f) => f.endsWith('.json')).map((f) => path.join('www', 'tours', f));
  const files = [...tours, path.join('examples', 'tours', 'acks-1-loss.json'), falseLesson()];
  let findings = 0;
  for (const file of files) {
    for (const json of [[], ['--json']]) {
      const { npm, cli } = both([...json, file]);
      assert.equal(npm.stdout, cli.stdout, `${file} ${json}: standard output`);
      assert.equal(same(npm.stderr), cli.stderr, `${file} ${json}: standard error`);
      assert.equal(npm.status, cli.status, `${file} ${json}: exit status`);
      if (npm.status === 1) findings++;
    }
  }
  // index.json lists the tours: not a tour file, refused (exit 2) by both.
  assert.ok(tours.some((t) => t.endsWith('index.json')));
  const { npm, cli } = both([falseLesson()]);
  assert.equal(npm.status, 1);
  assert.match(npm.stdout, /high_watermark/);
  assert.ok(findings >= 2, `${findings} runs with findings: the false fact, as text and as JSON`);
});

test('several files: each reported, the exit status the worst', { skip: !built && 'www/pkg-fast is not built' }, () => {
  const good = path.join('www', 'tours', 'leo-and-hw.json');
  const ok = spawnSync(process.execPath, [BIN, 'check', good, path.join('www', 'tours', 'broker-dies.json')], { encoding: 'utf8', cwd: ROOT });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stderr, /^leo-and-hw: every fact holds/m);
  assert.match(ok.stderr, /^broker-dies: every fact holds/m);
  const bad = spawnSync(process.execPath, [BIN, 'check', good, falseLesson(), 'no-such-file.json'], { encoding: 'utf8', cwd: ROOT });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^highwater-playground: cannot read no-such-file\.json: /m);
  const usage = spawnSync(process.execPath, [BIN], { encoding: 'utf8' });
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /usage: highwater-playground check \[--json\] FILE\.\.\./);
});

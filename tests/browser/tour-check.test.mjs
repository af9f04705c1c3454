// The page checks a tour as `highwater tour check` does, in a Web Worker on
// the core built for speed (www/element/tour-check.js, ../workers/
// tour-worker.js): the same findings, the same predictions (answers and
// choices), the reader's own message for a file it cannot read, tour links
// that round-trip and corrupt ones refused. The page's core (www/pkg, on the
// first load) has none of the tour calls.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import zlib from 'node:zlib';
import { ROOT, setup, openPage, cliBinary } from './harness.mjs';

const SAMPLE = path.join(ROOT, 'examples/tours/acks-1-loss.json');
const TEXT = fs.readFileSync(SAMPLE, 'utf8');
const CALLS = ['checkTourText', 'checkBuiltInTour', 'tourFromLink', 'tourToLink'];
const CORE_CALLS = ['checkTour', 'checkBuiltInTour', 'tourFromLink', 'tourToLink'];

let env;
let page;
before(async () => {
  env = await setup();
  page = await openPage(env, { groups: null });
});
after(async () => env && env.close());

/** `highwater <args…> FILE` on `text` written to a file: { status, stdout, stderr, file }. */
function cli(args, text) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-tour-')), 'tour.json');
  fs.writeFileSync(file, text);
  const r = spawnSync(cliBinary(), [...args, file], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, file };
}

/** Text as a link's text: `v1.` + deflate + base64url, as the core writes one. */
function pack(text) {
  return `v1.${zlib.deflateRawSync(Buffer.from(text), { level: 9 }).toString('base64url')}`;
}

/** `name(arg)` of element/tour-check.js in the page: { ok } or { error, type }. */
function call(name, arg) {
  return page.evaluate(async ([name, arg]) => {
    const m = await import('./element/tour-check.js');
    try {
      return { ok: await m[name](arg) };
    } catch (e) {
      return { error: e.message, type: e.constructor.name };
    }
  }, [name, arg]);
}

test('the module exports exactly the four calls', async () => {
  const names = await page.evaluate(async () => Object.keys(await import('./element/tour-check.js')).sort());
  assert.deepEqual(names, [...CALLS].sort());
});

test('the sample lesson checks clean, with the predictions `tour check --json` gives', async () => {
  const { ok } = await call('checkTourText', TEXT);
  assert.ok(ok, 'resolved');
  const expected = JSON.parse(cli(['tour', 'check', '--json'], TEXT).stdout);
  assert.deepEqual(ok.findings, []);
  assert.equal(ok.predictions.length, 2);
  assert.deepEqual(ok.predictions, expected.predictions);
  assert.deepEqual(ok.predictions.map((p) => p.stop), ['guess-hw', 'failover']);
  // The tour is the file as read.
  assert.deepEqual(ok.tour, JSON.parse(TEXT));
});

test('a wrong fact is a finding naming the stop, the fact and both values, as on the command line', async () => {
  const wrong = TEXT.replace('"log_end_offset": 1, "high_watermark": 0', '"log_end_offset": 1, "high_watermark": 1');
  assert.notEqual(wrong, TEXT);
  const { ok } = await call('checkTourText', wrong);
  const cliOut = cli(['tour', 'check', '--json'], wrong);
  assert.equal(cliOut.status, 1);
  assert.deepEqual(ok.findings, JSON.parse(cliOut.stdout).findings);
  assert.equal(ok.findings.length, 1);
  const [f] = ok.findings;
  assert.deepEqual([f.stop, f.part, f.at, f.fact, f.expected, f.actual], ['write-m1', 0, 1, 'brokers.1.high_watermark', 1, 0]);
  assert.equal(f.message, 'fact `brokers.1.high_watermark`: expected 1, actual 0');
});

test('a built-in tour checks as on the command line', async () => {
  const text = fs.readFileSync(path.join(ROOT, 'www/tours/leo-and-hw.json'), 'utf8');
  const { ok, error } = await call('checkBuiltInTour', JSON.parse(text));
  assert.ok(ok, error);
  assert.deepEqual(ok, JSON.parse(cli(['tour', 'check', '--json'], text).stdout));
  assert.deepEqual(ok.findings, []);
});

test('a file it cannot read rejects with the reader\'s message', async () => {
  for (const text of [
    '{ this is not json',
    TEXT.replace('"summary"', '"sumary"'),
    TEXT.replace('"highwater_tour": 1', '"highwater_tour": 2'),
    JSON.stringify({ highwater_tour: 1, id: 'x', title: { en: 'x' }, parts: [], ['k'.repeat(100_000)]: 1 }),
  ]) {
    const { ok, error, type } = await call('checkTourText', text);
    assert.equal(ok, undefined);
    assert.equal(type, 'Error');
    const c = cli(['tour', 'check'], text);
    assert.equal(c.status, 2);
    // The command line names the file first: `highwater: FILE: <the reader's message>`.
    assert.equal(error, c.stderr.trim().replace(`highwater: ${c.file}: `, ''));
    assert.ok(error.length < 400, error);
  }
  const { error, type } = await call('checkTourText', 42);
  assert.equal(type, 'TypeError');
  assert.equal(error, 'checkTourText: expected a string, got a number');
});

test('a tour link round-trips: the link of the command line, the same tour and check back', async () => {
  const { ok: link } = await call('tourToLink', TEXT);
  assert.match(link, /^v1\.[A-Za-z0-9_-]+$/);
  assert.equal(`#t=${link}\n`, cli(['tour', 'link'], TEXT).stdout);
  const [fromFile, fromLink] = await Promise.all([call('checkTourText', TEXT), call('tourFromLink', link)]);
  assert.deepEqual(fromLink.ok, fromFile.ok);
  // A file it cannot read has no link.
  const bad = await call('tourToLink', TEXT.replace('"summary"', '"sumary"'));
  assert.match(bad.error, /^tour\.sumary: unknown field "sumary"/);
});

test('a corrupt, truncated, foreign or oversized link rejects with a short message', async () => {
  const { ok: link } = await call('tourToLink', TEXT);
  const cases = [
    [link.slice(0, -40), /^tour link: (is corrupt or truncated \(it does not decompress\)|is not valid base64url .*; it may be cut short)$/],
    [link.slice(0, -1) + '@', /^tour link: is not valid base64url/],
    ['hello', /^tour link: does not start with "v1\."; it is not a Highwater tour link$/],
    // A scenario's link is not a tour's.
    [pack(JSON.stringify({ version: 1, steps: [{ fetch: 2 }] })), /^tour link: highwater_tour: missing/],
    // A bomb: 64 MiB of spaces stops at the limit of 1 MiB.
    [pack(' '.repeat(64 << 20)), /^tour link: expands past the limit of 1048576 bytes$/],
    [pack(Buffer.from([0xc3, 0x28])), /^tour link: does not hold UTF-8 text$/],
    ['v1.' + 'A'.repeat(500_000), /^tour link: 500003 characters is longer than the limit of 500000$/],
  ];
  for (const [bad, want] of cases) {
    const { ok, error, type } = await call('tourFromLink', bad);
    assert.equal(ok, undefined, bad.slice(0, 40));
    assert.equal(type, 'Error');
    assert.match(error, want);
    assert.ok(error.length < 300, error);
  }
});

test('requests overlap, each in its own worker, and each gets its own answer', async () => {
  const wrong = TEXT.replace('"log_end_offset": 1, "high_watermark": 0', '"log_end_offset": 1, "high_watermark": 1');
  const answers = await page.evaluate(async ([text, wrong]) => {
    const m = await import('./element/tour-check.js');
    const settle = (p) => p.then((ok) => ({ ok }), (e) => ({ error: e.message }));
    return Promise.all([settle(m.checkTourText(text)), settle(m.checkTourText(wrong)), settle(m.tourFromLink('hello')), settle(m.tourToLink(text))]);
  }, [TEXT, wrong]);
  assert.equal(answers[0].ok.findings.length, 0);
  assert.equal(answers[1].ok.findings.length, 1);
  assert.match(answers[2].error, /not a Highwater tour link/);
  assert.match(answers[3].ok, /^v1\./);
});

test('a request not answered in time is cancelled and rejects saying so', async () => {
  // The page's timers made short: 20 s becomes 0 ms, before any worker answers.
  const error = await page.evaluate(async (text) => {
    const m = await import('./element/tour-check.js');
    const real = window.setTimeout;
    window.setTimeout = (f, ms, ...rest) => real(f, ms === 20000 ? 0 : ms, ...rest);
    try {
      await m.checkTourText(text);
      return null;
    } catch (e) {
      return e.message;
    } finally {
      window.setTimeout = real;
    }
  }, TEXT);
  assert.equal(error, 'the tour took longer than 20 s to check');
  // Nothing is left waiting: the next request is answered.
  assert.deepEqual((await call('checkTourText', TEXT)).ok.findings, []);
  assert.deepEqual(page.errors, []);
});

test('the page\'s core has none of the tour calls; the workers\' core has them all', async () => {
  const small = await import(`${path.join(ROOT, 'www/pkg/highwater.js')}?tour-check`);
  const fast = await import(`${path.join(ROOT, 'www/pkg-fast/highwater.js')}?tour-check`);
  for (const name of CORE_CALLS) {
    assert.equal(name in small, false, `www/pkg exports ${name}`);
    assert.equal(typeof fast[name], 'function', `www/pkg-fast lacks ${name}`);
  }
  const glue = fs.readFileSync(path.join(ROOT, 'www/pkg/highwater.js'), 'utf8');
  assert.ok(!/checkTour|tourFromLink|tourToLink/.test(glue), 'no trace of them in the page core\'s glue');
  // The page as loaded: its core module has none of them either.
  const exported = await page.evaluate(async (names) => {
    const core = await import('./pkg/highwater.js');
    return names.filter((n) => n in core);
  }, CORE_CALLS);
  assert.deepEqual(exported, []);
});

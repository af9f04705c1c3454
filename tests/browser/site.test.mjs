// `make site` (scripts/site.mjs): the whole static site in one folder, built
// for a sub-path as a project's pages are served (/sub/): the playground at
// /sub/, the sample docs site at /sub/docs/, the tarball beside them. Served
// as plain static files, each page draws its element with no failed request
// and no console error, and the docs' lesson from a tour file plays there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { NAME, crateVersion, packTarball, tmpdir, serveDir, launch, open, waitReady, shadowView } from './package-harness.mjs';
import { buildSite, normaliseBase } from '../../scripts/site.mjs';

let root; // served at /, the site in root/sub
let out;
let server;
let browser;
before(async () => {
  const { tarball } = packTarball();
  root = tmpdir('site');
  out = buildSite({ out: path.join(root, 'sub'), base: '/sub/', tarball, log: () => {} }).out;
  server = await serveDir(root);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('a base is a path with one slash each side; anything else is refused', () => {
  assert.equal(normaliseBase('/'), '/');
  assert.equal(normaliseBase(''), '/');
  assert.equal(normaliseBase('highwater'), '/highwater/');
  assert.equal(normaliseBase('/kafka/docs//'), '/kafka/docs/');
  assert.throws(() => normaliseBase('/a b/'), /a path only/);
  assert.throws(() => normaliseBase('/x?y=1'), /a path only/);
});

test('the folder holds the playground, the docs site under docs/ and the tarball', () => {
  for (const f of ['index.html', 'bundle/highwater-playground.js', 'pkg/highwater_bg.wasm', 'package.json', 'CHANGELOG.md',
    `${NAME}-${crateVersion()}.tgz`, 'docs/index.html', 'docs/acks-1-loss.html', `docs/${NAME}/bundle/highwater-playground.js`, 'docs/lessons/acks-1-loss.json']) {
    assert.ok(fs.existsSync(path.join(out, f)), `${f} is in the site`);
  }
  // The docs' pages link each other under the base.
  assert.match(fs.readFileSync(path.join(out, 'docs', 'index.html'), 'utf8'), /href="\/sub\/docs\/acks-1-loss\.html"/);
});

test('at /sub/ the playground draws its run', { timeout: 60000 }, async () => {
  const page = await open(browser, `${server.url}sub/`);
  await waitReady(page, 'highwater-playground');
  assert.ok((await shadowView(page, 'highwater-playground')).brokerRows >= 3, 'the board has its brokers');
  assert.deepEqual(page.failed, []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('at /sub/docs/ the lessons draw their elements, and a tour file plays, from the base', { timeout: 90000 }, async () => {
  for (const [file, elements] of [['docs/', 2], ['docs/acks-1-loss.html', 1]]) {
    const page = await open(browser, `${server.url}sub/${file}`);
    assert.equal(await waitReady(page, 'highwater-playground'), elements, file);
    for (const el of await page.locator('highwater-playground').all()) {
      assert.ok(await el.evaluate((e) => e.shadowRoot.querySelectorAll('.broker-row').length >= 2), `${file}: an element has its board`);
    }
    if (file.endsWith('acks-1-loss.html')) {
      // The tour file came from /sub/docs/lessons/: every fact holds, and its title is the lesson's heading.
      const host = page.locator('highwater-playground');
      await page.waitForFunction((e) => e.hasAttribute('data-tour-errors'), await host.elementHandle(), { timeout: 30000 });
      assert.equal(await host.getAttribute('data-tour-errors'), '0');
    }
    assert.deepEqual(page.failed, [], file);
    assert.deepEqual(page.errors, [], file);
    await page.context().close();
  }
});

// The recipes of docs/embedding.md ("Recipes: five docs tools") for plain
// HTML and VitePress, followed word for word by scripts/check-sites.mjs with
// the packed tarball: the site is made, built, served under /kafka/ and
// checked in Chromium (the run draws, the lesson plays to its end, dark mode
// follows the site, "Open in Highwater" opens the run, no error). `make
// check-sites` does the same for Docusaurus, Astro Starlight and MkDocs
// Material. Also the package's `copy` command, which every recipe uses.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { NAME, packTarball, extractTarball, tmpdir } from './package-harness.mjs';
import { checkSites, recipe, withTarball } from '../../scripts/check-sites.mjs';
import { TOOLS } from '../../scripts/sites/checks.mjs';

let tarball;
before(() => { tarball = packTarball().tarball; });

test('every tool has its recipe: a first block that makes the site, files, and a build', () => {
  for (const { heading } of Object.values(TOOLS)) {
    const blocks = recipe(heading);
    assert.equal(blocks[0].path, 'run', heading);
    assert.match(blocks[0].body, /^mkdir kafka|kafka /m, `${heading}: the first block makes kafka/`);
    assert.ok(blocks.some((b) => b.path !== 'run'), `${heading}: a file of the recipe`);
    assert.ok(blocks.some((b) => /\bhighwater-playground(@[\w.]+)? copy\b/.test(b.body)), `${heading}: the package copied`);
    assert.ok(blocks.some((b) => /highwater-playground:not\(\[data-ready\]\) \{ min-height: 440px; \}/.test(b.body)), `${heading}: the room while it loads`);
    assert.ok(blocks.some((b) => /@media \(max-width: 600px\) \{ highwater-playground:not\(\[data-ready\]\) \{ min-height: 480px; \} \}/.test(b.body)), `${heading}: the room on a phone`);
    assert.ok(blocks.some((b) => /<img [^>]*posters\/kip101-loss-after-restart\.svg[^>]*elementtiming="highwater-poster"/.test(b.body)), `${heading}: the run's poster`);
  }
  // The package comes from the tarball, the rest from the registry as written.
  assert.equal(withTarball('npm install vitepress@1.6.4 vue@3.5.45 highwater-playground', '/t.tgz'), 'npm install vitepress@1.6.4 vue@3.5.45 /t.tgz');
  assert.equal(withTarball('npx --yes highwater-playground@0.1 copy docs/x', '/t.tgz'), 'npx --yes --package=/t.tgz highwater-playground copy docs/x');
  assert.equal(withTarball('npx highwater-playground copy x', '/t.tgz'), 'npx highwater-playground copy x');
});

test('plain HTML and VitePress: each recipe as written, built, served under /kafka/ and checked', { timeout: 600000 }, async () => {
  const results = await checkSites({ tools: ['html', 'vitepress'], tarball, work: tmpdir('check-sites') });
  for (const r of results) {
    assert.deepEqual(r.failures, [], r.heading);
    assert.equal(r.checks.length, 5, `${r.heading}: ${r.checks.join(', ')}`);
  }
});

test('copy: the files a page loads, no .md, no command; an earlier copy replaced; a folder of other files left alone', () => {
  const pkg = extractTarball(tarball);
  const bin = path.join(pkg, 'bin', `${NAME}.mjs`);
  const copy = (dir) => spawnSync(process.execPath, [bin, 'copy', dir], { encoding: 'utf8' });
  const site = tmpdir('copy');
  const dir = path.join(site, 'static', NAME);

  let r = copy(dir);
  assert.equal(r.status, 0, r.stderr);
  for (const f of ['bundle/highwater-playground.js', 'pkg/highwater_bg.wasm', 'pkg-fast/highwater_bg.wasm', 'index.html', 'gallery.json', 'package.json']) assert.ok(fs.existsSync(path.join(dir, f)), f);
  const all = fs.readdirSync(dir, { recursive: true });
  assert.deepEqual(all.filter((f) => f.endsWith('.md') || f.endsWith('.d.ts') || f.startsWith('bin') || f.startsWith('types')), []);

  // Again: the earlier copy replaced, a file left in it by hand gone.
  fs.writeFileSync(path.join(dir, 'stale.js'), '');
  r = copy(dir);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(!fs.existsSync(path.join(dir, 'stale.js')));
  assert.deepEqual(fs.readdirSync(path.dirname(dir)), [NAME], 'no temporary folder left beside it');

  // A folder with other files: refused, untouched.
  const other = path.join(site, 'static');
  r = copy(other);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /not an earlier copy/);
  assert.deepEqual(fs.readdirSync(other), [NAME]);
  // A file, the package itself, no folder: refused.
  fs.writeFileSync(path.join(site, 'file'), 'x');
  assert.equal(copy(path.join(site, 'file')).status, 2);
  assert.equal(fs.readFileSync(path.join(site, 'file'), 'utf8'), 'x');
  assert.equal(copy(path.join(pkg, 'bundle')).status, 2);
  assert.equal(spawnSync(process.execPath, [bin, 'copy'], { encoding: 'utf8' }).status, 2);
});

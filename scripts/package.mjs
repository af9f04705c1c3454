#!/usr/bin/env node
// Builds the npm package `highwater-playground` into dist/<name>-<version>.tgz
// (`make package`). The version is the crate's (Cargo.toml).
//
//   node scripts/package.mjs [--out dist] [--keep-stage]
//
// What goes in is derived, not listed: every file of www/ reachable from the
// entry points (the element module, the JS API and the page that the iframe
// embed loads), following static and dynamic imports, `new URL(...)` and
// `fetch(...)` of relative paths (a template such as `locales/${code}/${bundle}.json`
// matches every file of that shape), HTML src/href and CSS url(); beside every
// module its hand-written or generated `.d.ts`. Then packaging/README.md, the
// project's LICENSE and a package.json with `files`, `exports` and `types`.
// Builds www/pkg first when it is missing, and always rewrites the gallery.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WWW = path.join(ROOT, 'www');
export const NAME = 'highwater-playground';
/** The element module's source (`import 'highwater-playground/source'`, for those who bundle themselves). */
export const ELEMENT = 'highwater-playground.js';
/** The element bundled (scripts/bundle.mjs): the package's main export (`import 'highwater-playground'`). */
export const BUNDLE = 'bundle/highwater-playground.js';
/** The JS API (`highwater-playground/core`). */
export const CORE = 'core.js';
/** The package's command (`npx highwater-playground check`: tour files checked on the workers' core). */
export const COMMAND = 'bin/highwater-playground.mjs';
/** The element in the frameworks' JSX and templates (`import type {} from 'highwater-playground/types/react'`): types only. */
export const FRAMEWORK_TYPES = ['react', 'preact', 'vue'];
/** Entry points, relative to www/: the element (bundled and its sources), the JS API, the page for `index.html?embed`, the tour file's JSON Schema, the command, the frameworks' typings. */
export const ENTRIES = [BUNDLE, ELEMENT, CORE, 'index.html', 'tour.schema.json', COMMAND, ...FRAMEWORK_TYPES.map((f) => `types/${f}.d.ts`)];

/** The crate's version, from the [package] table of Cargo.toml. */
export function crateVersion(root = ROOT) {
  const text = fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8');
  const table = /^\[package\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(text);
  const m = table && /^version\s*=\s*"([^"]+)"/m.exec(table[1]);
  if (!m) throw new Error('package: no version in the [package] table of Cargo.toml');
  return m[1];
}

/** A string field of the [package] table of Cargo.toml (`repository`, `homepage`), or null. */
export function crateField(name, root = ROOT) {
  const text = fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8');
  const table = /^\[package\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(text);
  const m = table && new RegExp(`^${name}\\s*=\\s*"([^"]+)"`, 'm').exec(table[1]);
  return m ? m[1] : null;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** A template literal's text as a regular expression over paths: each `${…}` is one path segment or part of one. */
function templatePattern(text) {
  const parts = text.split(/\$\{[^}]*\}/);
  return new RegExp(`^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`);
}

/**
 * What one file refers to: `required` (imports, which must exist) and
 * `optional` (relative path literals, included when such a file exists), as
 * paths relative to the file; `patterns` for templates with `${…}`.
 */
export function references(file, text) {
  const required = [];
  const optional = [];
  const patterns = [];
  const ext = path.extname(file).toLowerCase();
  if (ext === '.js' || ext === '.mjs') {
    const code = text;
    // Relative specifiers only: a page's module (no bundler, no import map) can
    // import nothing else, so a bare one is text, such as a snippet to copy.
    for (const m of code.matchAll(/\b(?:import|export)\s+(?:[\w*{}\s,$]+?\s+from\s+)?(['"])([^'"\n]+)\1/g)) if (/^\.\.?\//.test(m[2])) required.push(m[2]);
    for (const m of code.matchAll(/\bimport\s*\(\s*(['"])([^'"\n]+)\1\s*[,)]/g)) required.push(m[2]);
    // new URL('x', …), fetch('x'), new Worker('x'), import('x'): the first argument, with or without "./".
    for (const m of code.matchAll(/\b(?:new\s+URL|fetch|new\s+Worker|import)\s*\(\s*(['"`])([^'"`\n]+)\1/g)) {
      if (m[1] === '`' && m[2].includes('${')) patterns.push(m[2]);
      else optional.push(m[2]);
    }
    // Any other relative path literal ('./pkg/highwater.js' chosen at run time, a template for a tour).
    for (const m of code.matchAll(/(['"`])(\.\.?\/[^'"`\s]+)\1/g)) {
      if (m[1] === '`' && m[2].includes('${')) patterns.push(m[2]);
      else optional.push(m[2]);
    }
  } else if (ext === '.html') {
    for (const m of text.matchAll(/<script\b[^>]*\bsrc\s*=\s*(['"])([^'"]+)\1/gi)) required.push(m[2]);
    for (const m of text.matchAll(/<link\b[^>]*\bhref\s*=\s*(['"])([^'"]+)\1/gi)) required.push(m[2]);
    for (const m of text.matchAll(/\b(?:src|href)\s*=\s*(['"])([^'"]+)\1/gi)) optional.push(m[2]);
  } else if (ext === '.css') {
    for (const m of text.matchAll(/@import\s+(?:url\()?\s*(['"]?)([^'")\s;]+)\1/g)) required.push(m[2]);
    for (const m of text.matchAll(/\burl\(\s*(['"]?)([^'")]+)\1\s*\)/g)) optional.push(m[2]);
  }
  const local = (s) => s && !SCHEME.test(s) && !s.startsWith('/') && !s.startsWith('#') && !s.startsWith('data:');
  const clean = (s) => s.split(/[?#]/)[0];
  return {
    required: required.filter(local).map(clean).filter(Boolean),
    optional: optional.filter(local).map(clean).filter(Boolean),
    patterns: patterns.filter(local).map((p) => p.split(/[?#]/)[0]),
  };
}

function walk(dir, base = dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, base, out);
    else if (entry.isFile()) out.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return out;
}

/**
 * The files of `dir` reachable from `entries` (paths relative to `dir`,
 * "/"-separated). Throws when an import names a file that does not exist;
 * entries that do not exist are reported in `missingEntries`.
 */
export function collectFiles(dir, entries = ENTRIES) {
  const all = walk(dir);
  const exists = new Set(all);
  const files = new Set();
  const missingEntries = [];
  const problems = [];
  const queue = [];
  const add = (rel) => {
    if (files.has(rel)) return;
    files.add(rel);
    queue.push(rel);
    // Types beside a module: x.js -> x.d.ts, x.wasm -> x.wasm.d.ts; a bundled module's source map.
    for (const d of [rel.replace(/\.m?js$/, '.d.ts'), `${rel}.d.ts`, `${rel}.map`]) if (d !== rel && exists.has(d)) files.add(d);
  };
  const resolve = (from, spec) => {
    const rel = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
    return rel.startsWith('../') ? null : rel;
  };
  for (const e of entries) {
    if (exists.has(e)) add(e);
    else {
      missingEntries.push(e);
      // Its types still go in: they are written for the module's contract.
      const d = e.replace(/\.m?js$/, '.d.ts');
      if (d !== e && exists.has(d)) files.add(d);
    }
  }
  // The posters: for host pages to show before any script (docs/embedding.md); no module names them.
  for (const f of all) if (f.startsWith('posters/') && f.endsWith('.svg')) add(f);
  while (queue.length) {
    const rel = queue.shift();
    if (!/\.(m?js|html|css)$/i.test(rel)) continue;
    const refs = references(rel, fs.readFileSync(path.join(dir, rel), 'utf8'));
    for (const spec of refs.required) {
      const target = resolve(rel, spec);
      if (target && exists.has(target)) add(target);
      else problems.push(`${rel} imports ${spec}, which is not in ${path.basename(dir)}/`);
    }
    for (const spec of refs.optional) {
      const target = resolve(rel, spec);
      if (target && exists.has(target)) add(target);
    }
    for (const tpl of refs.patterns) {
      const target = resolve(rel, tpl.replace(/\$\{[^}]*\}/g, '\u0000'));
      if (!target) continue;
      const re = templatePattern(target.replace(/\u0000/g, '${}'));
      for (const f of all) if (re.test(f)) add(f);
    }
  }
  return { files: [...files].sort(), missingEntries, problems };
}

/** The package's package.json. */
export function packageJson({ version, description, files, repository = null, homepage = null }) {
  const has = (f) => files.includes(f);
  return {
    name: NAME,
    version,
    description,
    license: 'Apache-2.0',
    // Where the source, the docs and the issues are (Cargo.toml's `repository` and `homepage`).
    ...(repository ? { repository: { type: 'git', url: `git+${repository}.git` }, bugs: { url: `${repository}/issues` } } : {}),
    ...(homepage ? { homepage } : {}),
    type: 'module',
    keywords: ['kafka', 'replication', 'high-watermark', 'web-component', 'custom-element', 'webassembly', 'playground'],
    main: `./${has(BUNDLE) ? BUNDLE : ELEMENT}`,
    types: './highwater-playground.d.ts',
    exports: {
      '.': { types: './highwater-playground.d.ts', default: `./${has(BUNDLE) ? BUNDLE : ELEMENT}` },
      './source': { types: './highwater-playground.d.ts', default: `./${ELEMENT}` },
      './core': { types: './core.d.ts', default: `./${CORE}` },
      ...(has('workers/explorer.js') ? { './explorer': { types: './workers/explorer.d.ts', default: './workers/explorer.js' } } : {}),
      './pkg/*': './pkg/*',
      ...(has('pkg-quorum/highwater.js') ? { './pkg-quorum/*': './pkg-quorum/*' } : {}),
      ...(has('pkg-fast/highwater.js') ? { './pkg-fast/*': './pkg-fast/*' } : {}),
      // The element's style sheet keeps its public name at the package's root.
      ...(has('element/style.css') ? { './style.css': './element/style.css' } : {}),
      ...(has('gallery.json') ? { './gallery.json': './gallery.json' } : {}),
      ...(files.some((f) => f.startsWith('posters/')) ? { './posters/*': './posters/*' } : {}),
      ...(has('index.html') ? { './index.html': './index.html' } : {}),
      ...(has('tour.schema.json') ? { './tour.schema.json': './tour.schema.json' } : {}),
      ...Object.fromEntries(FRAMEWORK_TYPES.filter((f) => has(`types/${f}.d.ts`)).map((f) => [`./types/${f}`, { types: `./types/${f}.d.ts` }])),
      './package.json': './package.json',
    },
    ...(has(COMMAND) ? { bin: { [NAME]: `./${COMMAND}` } } : {}),
    files,
    // The element module defines <highwater-playground> when imported.
    sideEffects: [`./${ELEMENT}`, `./${BUNDLE}`],
    engines: { node: '>=20' },
  };
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
  return r;
}

/** www/pkg, www/pkg-quorum and www/pkg-fast (built when missing: on a fresh machine setup.sh installs the wasm tools first), www/gallery.json and the bundle. */
export function ensureBuilt() {
  if (['pkg', 'pkg-quorum', 'pkg-fast'].some((dir) => !fs.existsSync(path.join(WWW, dir, 'highwater_bg.wasm')))) {
    run('bash', ['scripts/setup.sh', 'wasm']);
    run('bash', ['scripts/build-wasm.sh']);
  }
  run(process.execPath, ['scripts/gallery.mjs']);
  run(process.execPath, ['scripts/first-frames.mjs']);
  run(process.execPath, ['scripts/tour-answers.mjs']);
  run(process.execPath, ['scripts/posters.mjs']);
  if (!fs.existsSync(path.join(ROOT, 'node_modules', 'esbuild'))) run('bash', ['scripts/setup.sh', 'node']);
  run(process.execPath, ['scripts/bundle.mjs']);
}

/** Builds the tarball; resolves with { tarball, files, missingEntries }. */
export function buildPackage({ out = path.join(ROOT, 'dist'), keepStage = false, log = console.log } = {}) {
  ensureBuilt();
  const version = crateVersion();
  const description = (/^description\s*=\s*"([^"]+)"/m.exec(fs.readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8')) || [])[1]
    || 'Highwater: a playground for Apache Kafka partition replication';
  const { files, missingEntries, problems } = collectFiles(WWW);
  if (problems.length) throw new Error(`package: broken references in www/:\n  ${problems.join('\n  ')}`);
  for (const e of missingEntries) {
    log(`package: warning: www/${e} is missing; the package has no ${e === ELEMENT ? 'element module (<highwater-playground>)' : e}`);
  }

  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-package-'));
  const dir = path.join(stage, 'package');
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(WWW, f), path.join(dir, f));
  }
  fs.copyFileSync(path.join(ROOT, 'packaging', 'README.md'), path.join(dir, 'README.md'));
  fs.copyFileSync(path.join(ROOT, 'LICENSE'), path.join(dir, 'LICENSE'));
  fs.copyFileSync(path.join(ROOT, 'CHANGELOG.md'), path.join(dir, 'CHANGELOG.md'));
  const meta = { repository: crateField('repository'), homepage: crateField('homepage') };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(packageJson({ version, description, files: [...files, 'CHANGELOG.md'], ...meta }), null, 2)}\n`);

  fs.mkdirSync(out, { recursive: true });
  const tarball = path.join(out, `${NAME}-${version}.tgz`);
  fs.rmSync(tarball, { force: true });
  const r = spawnSync('npm', ['pack', '--json', '--pack-destination', out, dir], { cwd: stage, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm pack failed (${r.status}): ${r.stderr}`);
  const [info] = JSON.parse(r.stdout);
  if (path.join(out, info.filename) !== tarball) throw new Error(`npm pack wrote ${info.filename}, expected ${path.basename(tarball)}`);
  if (!keepStage) fs.rmSync(stage, { recursive: true, force: true });
  log(`package: ${path.relative(ROOT, tarball) || tarball}: ${info.entryCount} files, ${info.size} bytes (${info.unpackedSize} unpacked)`);
  return { tarball, files: info.files.map((f) => f.path), missingEntries, stage: keepStage ? dir : null };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: 'dist' }, 'keep-stage': { type: 'boolean', default: false } } });
  try {
    buildPackage({ out: path.resolve(values.out), keepStage: values['keep-stage'] });
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}

#!/usr/bin/env node
// `make site`: the whole static site in one folder any static host serves
// (the release workflow deploys it as the project's pages):
//
//   ./                        the playground: the package's own page
//                             (index.html) with every file it loads
//   ./docs/                   the sample documentation site (site/, VitePress)
//                             that embeds the package, built for BASE/docs/
//   ./highwater-playground-<version>.tgz   the npm package, as published
//
//   node scripts/site.mjs [--out dist/site] [--base /] [--tarball FILE]
//
// BASE is the path the folder is served under (`/` on a host of its own,
// `/highwater/` for a project's GitHub Pages): the playground finds its files
// beside itself wherever it is; the docs site needs it to link its pages.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, buildPackage } from './package.mjs';
import { buildDocsSite, installTarball } from './docs-site.mjs';

/** BASE as VitePress wants it: one leading and one trailing slash. */
export function normaliseBase(base) {
  const inner = String(base).split('/').filter(Boolean).join('/');
  if (/[?#\\\s]/.test(inner)) throw new Error(`site: --base ${base}: a path only, such as /highwater/`);
  return inner ? `/${inner}/` : '/';
}

/** Writes the site into `out` (emptied first); returns { out, tarball }. */
export function buildSite({ out = path.join(ROOT, 'dist', 'site'), base = '/', tarball, log = console.log } = {}) {
  base = normaliseBase(base);
  out = path.resolve(out);
  tarball ??= buildPackage({ log }).tarball;
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });

  // The playground: the installed package, as a reader of the docs gets it.
  const scratch = fs.mkdtempSync(path.join(path.dirname(out), '.site-install-'));
  try {
    const installed = installTarball(path.resolve(tarball), scratch);
    fs.cpSync(installed, out, { recursive: true });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  fs.copyFileSync(tarball, path.join(out, path.basename(tarball)));

  // The docs site under docs/.
  buildDocsSite({ out: path.join(out, 'docs'), tarball, base: `${base}docs/`, log });
  log(`site: ${path.relative(ROOT, out) || out} (the playground at ${base}, the docs at ${base}docs/)`);
  return { out, tarball };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, base: { type: 'string', default: '/' }, tarball: { type: 'string' } } });
  try {
    buildSite({ out: values.out, base: values.base, tarball: values.tarball });
  } catch (err) {
    console.error(`site: ${err.message}`);
    process.exit(1);
  }
}

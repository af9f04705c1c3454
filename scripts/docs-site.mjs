#!/usr/bin/env node
// Builds the sample documentation site (site/, VitePress) against the npm
// package as a user gets it: the tarball from `make package` is installed with
// `npm install <tarball>` into a scratch copy of the site, and the installed
// package directory is put into the copy's public/highwater-playground/ so
// that its modules keep their relative URLs (the site loads the element from
// there; VitePress does not bundle it). The site's own npm packages come from
// site/node_modules (scripts/setup.sh docs), linked into the copy.
//
//   node scripts/docs-site.mjs [--out DIR] [--tarball FILE] [--keep]
//   node scripts/docs-site.mjs --dev [--port 5173] [--tarball FILE]
//
// Prints the output directory (default: a new temp dir). --tarball skips
// building the package; --keep keeps the scratch copy. --dev runs VitePress's
// dev server on the scratch copy instead (loopback only; edits to site/ are
// not seen by it: run it again).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, NAME, buildPackage } from './package.mjs';

const SITE = path.join(ROOT, 'site');
/** What of site/ is not copied: installed or built, never sources. */
const SKIP = new Set(['node_modules', '.vitepress/cache', '.vitepress/dist', 'public/highwater-playground']);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
}

/** Installs the tarball into a fresh npm project in `dir`; returns the installed package's directory. */
export function installTarball(tarball, dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'scratch', private: true, version: '0.0.0' }, null, 2)}\n`);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: dir });
  const installed = path.join(dir, 'node_modules', NAME);
  if (!fs.existsSync(path.join(installed, 'package.json'))) throw new Error(`npm install ${tarball}: no ${NAME} in ${dir}/node_modules`);
  return installed;
}

/** The scratch copy of the site with the package installed from the tarball; returns { scratch, site }. */
export function prepareSite({ tarball, log = console.log } = {}) {
  tarball ??= buildPackage({ log }).tarball;
  run('bash', [path.join(ROOT, 'scripts', 'setup.sh'), 'docs']);

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-docs-'));
  const site = path.join(scratch, 'site');
  fs.cpSync(SITE, site, { recursive: true, filter: (src) => !SKIP.has(path.relative(SITE, src).split(path.sep).join('/')) });

  // node_modules: each of the site's packages linked, and the package installed from the tarball.
  const modules = path.join(site, 'node_modules');
  fs.mkdirSync(modules);
  for (const name of fs.readdirSync(path.join(SITE, 'node_modules'))) {
    if (name === NAME || name.startsWith('.setup')) continue;
    fs.symlinkSync(path.join(SITE, 'node_modules', name), path.join(modules, name));
  }
  const installed = installTarball(path.resolve(tarball), path.join(scratch, 'install'));
  fs.cpSync(installed, path.join(modules, NAME), { recursive: true });
  fs.mkdirSync(path.join(site, 'public'), { recursive: true });
  fs.cpSync(installed, path.join(site, 'public', NAME), { recursive: true });
  return { scratch, site };
}

const VITEPRESS = path.join(SITE, 'node_modules', 'vitepress', 'bin', 'vitepress.js');

/** Builds the site (for `base`, the path it is served under, `/` by default); returns { out, scratch }. */
export function buildDocsSite({ out, tarball, keep = false, base = null, log = console.log } = {}) {
  const { scratch, site } = prepareSite({ tarball, log });
  out = path.resolve(out ?? fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-docs-out-')));
  // base: the path the site is served under (VitePress's `base`; `/` unless given).
  run(process.execPath, [VITEPRESS, 'build', site, '--outDir', out, ...(base ? ['--base', base] : [])], { cwd: scratch });
  if (!fs.existsSync(path.join(out, 'index.html'))) throw new Error(`vitepress build wrote no index.html into ${out}`);
  if (!keep) fs.rmSync(scratch, { recursive: true, force: true });
  log(`docs-site: ${out}`);
  return { out, scratch: keep ? scratch : null };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' }, tarball: { type: 'string' }, keep: { type: 'boolean', default: false },
      dev: { type: 'boolean', default: false }, port: { type: 'string', default: '5173' },
    },
  });
  try {
    if (values.dev) {
      const { site } = prepareSite({ tarball: values.tarball });
      console.log(`docs-site: dev server on the copy in ${site}`);
      run(process.execPath, [VITEPRESS, 'dev', site, '--host', '127.0.0.1', '--port', values.port], { stdio: 'inherit', cwd: path.dirname(site) });
    } else {
      buildDocsSite({ out: values.out, tarball: values.tarball, keep: values.keep });
    }
  } catch (err) {
    console.error(`docs-site: ${err.message}`);
    process.exit(1);
  }
}

#!/usr/bin/env node
// make check-sites: each recipe of docs/embedding.md ("Recipes: five docs
// tools") followed as it is written there, with the packed tarball for the
// package, then the site built, served under /kafka/ and checked in Chromium
// (scripts/sites/checks.mjs).
//
//   node scripts/check-sites.mjs [--tools html,vitepress,docusaurus,starlight,mkdocs]
//                                [--tarball FILE] [--work DIR] [--write-docs]
//
// A recipe is its section's code blocks, in order: ```sh run``` blocks are run
// with bash (the first in the work folder, where it makes the site's folder
// `kafka/`; the rest in that folder), with `npm install highwater-playground`
// and `npx highwater-playground@0.1` given the tarball; ```lang PATH``` blocks
// are written to PATH, ```lang PATH append``` added to its end, ```json PATH
// merge``` merged into it, and ```lang PATH replace KEY``` put in place of the
// file's line that starts with KEY. The sample lesson goes to the site's
// static folder (lessons/acks-1-loss.json) once the first block has made the site.
//
// Prints a table of the times and the checks; --write-docs puts it into
// docs/embedding.md. Exit status 1 when a tool fails a step or a check.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, buildPackage } from './package.mjs';
import { TOOLS, checkSite } from './sites/checks.mjs';

export const DOCS = path.join(ROOT, 'docs', 'embedding.md');
const LESSON = path.join(ROOT, 'site', 'public', 'lessons', 'acks-1-loss.json');
/** The site's folder, made by each recipe's first block. */
const SITE = 'kafka';
const RESULTS = /(<!-- check-sites results -->\n)[\s\S]*?(\n<!-- \/check-sites results -->)/;

/** The code blocks of a tool's recipe: { lang, path, mode, arg, body }. */
export function recipe(heading, docs = fs.readFileSync(DOCS, 'utf8')) {
  const from = docs.indexOf(`\n#### ${heading}\n`);
  if (from < 0) throw new Error(`docs/embedding.md has no recipe "#### ${heading}"`);
  const rest = docs.slice(from + heading.length + 6);
  const end = rest.search(/\n#{2,4} /);
  const section = end < 0 ? rest : rest.slice(0, end);
  const blocks = [...section.matchAll(/^```(\S+)(?: (\S+))?(?: (\S+))?(?: (\S+))?\n([\s\S]*?)^```$/gm)]
    .map(([, lang, file, mode = 'write', arg, body]) => ({ lang, path: file, mode, arg, body }))
    .filter((b) => b.path);
  if (!blocks.length || blocks[0].path !== 'run') throw new Error(`recipe "${heading}": its first block must be \`\`\`sh run`);
  return blocks;
}

/** A `sh run` block with the package taken from the tarball. */
export function withTarball(script, tarball) {
  return script.split('\n').map((line) => {
    if (/^\s*npm install /.test(line)) return line.replace(/(?<=\s)highwater-playground(?=\s|$)/, tarball);
    return line.replace(/\bnpx (--yes )?highwater-playground@[\w.]+ /, (_, yes = '') => `npx ${yes}--package=${tarball} highwater-playground `);
  }).join('\n');
}

function apply(block, site) {
  const file = path.join(site, block.path);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  if (block.mode === 'write') return fs.writeFileSync(file, block.body);
  if (old === null) throw new Error(`${block.path}: not made by the tool, so nothing to ${block.mode}`);
  if (block.mode === 'append') return fs.writeFileSync(file, `${old.replace(/\n?$/, '\n')}${block.body}`);
  if (block.mode === 'merge') {
    const merge = (a, b) => (b && typeof b === 'object' && !Array.isArray(b)
      ? Object.fromEntries([...new Set([...Object.keys(a ?? {}), ...Object.keys(b)])].map((k) => [k, k in b ? merge(a?.[k], b[k]) : a[k]]))
      : b);
    return fs.writeFileSync(file, `${JSON.stringify(merge(JSON.parse(old), JSON.parse(block.body)), null, 2)}\n`);
  }
  if (block.mode === 'replace') {
    const lines = old.split('\n');
    const at = lines.findIndex((l) => l.trimStart().startsWith(block.arg));
    if (at < 0) throw new Error(`${block.path}: no line starts with ${block.arg}`);
    lines.splice(at, 1, ...block.body.replace(/\n$/, '').split('\n'));
    return fs.writeFileSync(file, lines.join('\n'));
  }
  throw new Error(`${block.path}: unknown mode ${block.mode}`);
}

function bash(script, cwd, log) {
  const started = Date.now();
  const r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
  log(r.stdout + r.stderr);
  if (r.status !== 0) throw new Error(`\`${script.trim().split('\n').at(-1)}\` failed (${r.status ?? r.signal}):\n${(r.stdout + r.stderr).trim().split('\n').slice(-15).join('\n')}`);
  return Date.now() - started;
}

/**
 * Follows one tool's recipe in `work` and builds the site; returns
 * { site, out, seconds: { make, build } }.
 */
export function makeSite(tool, { tarball, work, log = () => {} }) {
  const { heading, out, statics } = TOOLS[tool];
  const blocks = recipe(heading);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const site = path.join(work, SITE);
  const last = blocks.map((b) => b.path).lastIndexOf('run');
  let make = 0;
  let build = 0;
  blocks.forEach((block, i) => {
    if (block.path !== 'run') return apply(block, site);
    const ms = bash(withTarball(block.body, tarball), i === 0 ? work : site, log);
    if (i === last && i > 0) build += ms;
    else make += ms;
    if (i === 0) {
      // The lesson, the author's own file, beside the pages.
      if (!fs.existsSync(site)) throw new Error(`the recipe's first block made no folder ${SITE}/`);
      fs.mkdirSync(path.join(site, statics, 'lessons'), { recursive: true });
      fs.copyFileSync(LESSON, path.join(site, statics, 'lessons', 'acks-1-loss.json'));
    }
  });
  return { site, out: path.join(site, out), seconds: { make: make / 1000, build: build / 1000 } };
}

/** The built site copied to `<root>/kafka/` (what a host serving it under /kafka/ has). */
export function stage(out) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-sites-'));
  fs.cpSync(out, path.join(root, SITE), { recursive: true, filter: (src) => !/\/(node_modules|\.venv)$/.test(src) });
  return root;
}

/** Makes, builds and checks each tool's site; resolves with one result per tool. */
export async function checkSites({ tools = Object.keys(TOOLS), tarball, work, log = () => {} } = {}) {
  tarball = path.resolve(tarball ?? buildPackage({ log }).tarball);
  work ??= path.join(ROOT, 'target', 'check-sites');
  const results = [];
  for (const tool of tools) {
    if (!TOOLS[tool]) throw new Error(`unknown tool ${tool} (${Object.keys(TOOLS).join(', ')})`);
    const result = { tool, heading: TOOLS[tool].heading, failures: [], checks: [] };
    results.push(result);
    const started = Date.now();
    try {
      const made = makeSite(tool, { tarball, work: path.join(work, tool), log });
      result.seconds = made.seconds;
      result.version = TOOLS[tool].version(made.site);
      const root = stage(made.out);
      try {
        const checked = await checkSite(tool, { root, base: `/${SITE}/` });
        result.checks = checked.passed;
        result.failures.push(...checked.failures);
        result.seconds.check = checked.seconds;
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    } catch (err) {
      result.failures.push(err.message);
    }
    result.seconds = { ...result.seconds, total: (Date.now() - started) / 1000 };
    log(`${tool}: ${result.failures.length ? `FAILED\n  ${result.failures.join('\n  ')}` : `${result.checks.length} checks passed`}`);
  }
  return results;
}

/** The results as docs/embedding.md shows them. */
export function table(results, { date = new Date().toISOString().slice(0, 10) } = {}) {
  const s = (x) => (x === undefined ? '' : `${Math.round(x)} s`);
  return [
    `On ${date}, on a machine of 2 cores (npm's cache warm; each time is the script's, a reader adds the time to read the recipe):`,
    '',
    '| tool | version | make the site and add the package | build | checks | to a working embed |',
    '| --- | --- | ---: | ---: | --- | ---: |',
    ...results.map((r) => `| ${r.heading} | ${r.version || '–'} | ${s(r.seconds?.make)} | ${s(r.seconds?.build)} | ${r.failures.length ? `${r.checks.length} of ${r.checks.length + r.failures.length} passed` : `all ${r.checks.length} passed`} | ${r.failures.length ? '' : s((r.seconds?.make ?? 0) + (r.seconds?.build ?? 0) + (r.seconds?.check ?? 0))} |`),
    '',
    ...results.flatMap((r) => [
      ...r.failures.map((f) => `- ${r.heading}, failed: ${f.split('\n')[0]}`),
      ...r.checks.filter((c) => c.endsWith(')')).map((c) => `- ${r.heading}: ${c}`),
    ]),
  ].join('\n').replace(/\n+$/, '');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { values } = parseArgs({
    options: {
      tools: { type: 'string' }, tarball: { type: 'string' }, work: { type: 'string' },
      'write-docs': { type: 'boolean', default: false }, verbose: { type: 'boolean', default: false },
    },
  });
  try {
    const results = await checkSites({
      tools: values.tools?.split(','),
      tarball: values.tarball,
      work: values.work,
      log: values.verbose ? (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`) : (s) => { if (/^\w+: /.test(s)) console.error(s); },
    });
    const text = table(results);
    console.log(text);
    if (values['write-docs']) {
      const docs = fs.readFileSync(DOCS, 'utf8');
      if (!RESULTS.test(docs)) throw new Error('docs/embedding.md has no <!-- check-sites results --> block');
      fs.writeFileSync(DOCS, docs.replace(RESULTS, (_, open, close) => `${open}${text}${close}`));
    }
    process.exitCode = results.some((r) => r.failures.length) ? 1 : 0;
  } catch (err) {
    console.error(`check-sites: ${err.message}`);
    process.exitCode = 2;
  }
}

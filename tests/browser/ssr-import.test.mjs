// The element's module is safe to import where there is no DOM: a docs tool
// (VitePress, Docusaurus, Astro) imports it while it renders its pages on a
// server, in Node. Importing the bundle, the package's main module (`"."`,
// the bundle), its sources (`"./source"`) and its JS API (`"./core"`) in
// plain Node touches no browser global, fetches nothing, defines nothing
// (`customElements.define` runs only where there is a window), and adds no
// global but the core's registered symbol. Plain Node: no browser.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, NAME, packTarball, extractTarball, tmpdir } from './package-harness.mjs';

const BROWSER_ONLY = ['window', 'document', 'matchMedia', 'customElements', 'HTMLElement', 'CSSStyleSheet', 'IntersectionObserver', 'MutationObserver', 'getComputedStyle', 'requestAnimationFrame', 'localStorage', 'location', 'CSS'];

before(() => {
  // The bundle as the page and the package load it, made again when a source module is newer.
  const b = spawnSync(process.execPath, ['scripts/bundle.mjs', '--if-stale'], { cwd: ROOT, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`scripts/bundle.mjs failed: ${b.stderr}`);
  for (const name of BROWSER_ONLY) assert.equal(typeof globalThis[name], 'undefined', `plain Node has no ${name}`);
});

/**
 * Imports `load()` with fetch watched: resolves with what it exported, the
 * globals it added (by name) and the symbols it added, and the fetches made.
 */
async function imported(load) {
  const names = new Set(Object.getOwnPropertyNames(globalThis));
  const symbols = new Set(Object.getOwnPropertySymbols(globalThis));
  const fetched = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (url) => { fetched.push(String(url)); return Promise.reject(new Error('no fetch at import')); };
  try {
    const module = await load();
    return {
      module,
      added: Object.getOwnPropertyNames(globalThis).filter((n) => !names.has(n)),
      symbols: Object.getOwnPropertySymbols(globalThis).filter((s) => !symbols.has(s)).map((s) => Symbol.keyFor(s) ?? String(s)),
      fetched,
    };
  } finally {
    globalThis.fetch = realFetch;
  }
}

const allowedSymbols = (list) => list.filter((s) => s !== 'highwater.core');

test('the bundle (www/bundle/highwater-playground.js) imports in Node: no browser global, no fetch, nothing defined', async () => {
  const r = await imported(() => import(pathToFileURL(path.join(ROOT, 'www', 'bundle', 'highwater-playground.js')).href));
  assert.equal(typeof r.module.HighwaterPlayground, 'function', 'the element class is exported');
  assert.deepEqual(r.added, [], 'no global added');
  assert.deepEqual(allowedSymbols(r.symbols), [], 'no symbol on globalThis but the shared core\'s');
  assert.deepEqual(r.fetched, [], 'nothing fetched at import');
  assert.equal(typeof globalThis.customElements, 'undefined');
});

test('the source module (www/highwater-playground.js) imports in Node too', async () => {
  const r = await imported(() => import(pathToFileURL(path.join(ROOT, 'www', 'highwater-playground.js')).href));
  assert.equal(typeof r.module.HighwaterPlayground, 'function');
  assert.deepEqual(r.added, []);
  assert.deepEqual(r.fetched, []);
});

test('customElements without a window (a server that stubs it): the module still defines nothing', async () => {
  const calls = [];
  globalThis.customElements = { define: (name) => calls.push(name), get: () => undefined };
  try {
    // A fresh instance of each module (its query makes it another module to Node).
    await import(`${pathToFileURL(path.join(ROOT, 'www', 'bundle', 'highwater-playground.js')).href}?ssr-stub`);
    await import(`${pathToFileURL(path.join(ROOT, 'www', 'highwater-playground.js')).href}?ssr-stub`);
  } finally {
    delete globalThis.customElements;
  }
  assert.deepEqual(calls, [], 'customElements.define is called only where there is a window');
});

test('the npm package, installed, imports by its name in Node: ".", "./source" and "./core"', async () => {
  const { tarball } = packTarball();
  const site = tmpdir('ssr');
  fs.mkdirSync(path.join(site, 'node_modules'), { recursive: true });
  fs.renameSync(extractTarball(tarball), path.join(site, 'node_modules', NAME));
  const pkg = JSON.parse(fs.readFileSync(path.join(site, 'node_modules', NAME, 'package.json'), 'utf8'));
  assert.equal(pkg.exports['.'].default, './bundle/highwater-playground.js', 'the main module is the bundle');
  // As a docs tool's server build imports it: by the package's name, from a module of the site.
  fs.writeFileSync(path.join(site, 'render.mjs'), [
    `export * as element from '${NAME}';`,
    `export * as source from '${NAME}/source';`,
    `export * as core from '${NAME}/core';`,
  ].join('\n'));
  const r = await imported(() => import(pathToFileURL(path.join(site, 'render.mjs')).href));
  assert.equal(typeof r.module.element.HighwaterPlayground, 'function', '"." exports the element class');
  assert.equal(typeof r.module.source.HighwaterPlayground, 'function', '"./source" exports the element class');
  assert.equal(typeof r.module.core.loadCore, 'function', '"./core" exports loadCore');
  assert.deepEqual(r.added, [], 'no global added');
  assert.deepEqual(allowedSymbols(r.symbols), []);
  assert.deepEqual(r.fetched, [], 'nothing fetched at import');
  assert.equal(typeof globalThis.customElements, 'undefined');
});

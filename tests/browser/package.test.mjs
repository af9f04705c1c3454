// The npm package (`make package`): what the tarball holds, its package.json,
// its types (type-checked with tsc), and the package installed into a plain
// HTML site as a user would, opened in Chromium: the element renders a
// playground from the package alone, and so does the iframe embed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  ROOT, NAME, ELEMENT, crateVersion, packTarball, tarballFiles, extractTarball, elementMissing,
  tmpdir, serveDir, launch, open, waitReady, shadowView, positions,
} from './package-harness.mjs';
import { installTarball } from '../../scripts/docs-site.mjs';
import { collectFiles } from '../../scripts/package.mjs';
import { BUNDLES } from '../../www/words/i18n.js';

let pack;
let files;
let dir; // the tarball extracted
before(() => {
  pack = packTarball();
  files = tarballFiles(pack.tarball);
  dir = extractTarball(pack.tarball);
});

const LANGS = ['en', 'zh-Hans', 'zh-Hant'];

test('no file in the tarball names a path of the machine that built it (issue 20: builds are path-free)', () => {
  const forbidden = [...new Set(['/root/', '/home/', '.cargo/registry', ROOT, fs.realpathSync(ROOT)])];
  const found = [];
  for (const f of files) {
    // latin1: one character per byte, so a path inside the wasm is found as text.
    const text = fs.readFileSync(path.join(dir, f), 'latin1');
    for (const p of forbidden) {
      const at = text.indexOf(p);
      if (at >= 0) found.push(`${f}: ${JSON.stringify(text.slice(Math.max(0, at - 20), at + 80))}`);
    }
  }
  assert.ok(files.some((f) => f.endsWith('.wasm')), 'the tarball holds the wasm');
  assert.deepEqual(found, []);
});

test('the file list is derived from what the entry points reach', () => {
  const www = tmpdir('reach');
  const write = (f, text = '') => {
    fs.mkdirSync(path.dirname(path.join(www, f)), { recursive: true });
    fs.writeFileSync(path.join(www, f), text);
  };
  write('el.js', "import { a } from './a.js';\nconst css = new URL('./look.css', import.meta.url);\nfetch(new URL(`locales/${lang}/${bundle}.json`, base));\n");
  write('el.d.ts', 'export {};');
  write('a.js', "export const a = 1;\nconst glue = n === 1 ? './pkg/glue.js' : `./pkg/glue.js?instance=${n}`;\nnew Worker(new URL('./worker.js', import.meta.url));");
  write('worker.js', "import init from './pkg/glue.js';");
  write('pkg/glue.js', "new URL('glue_bg.wasm', import.meta.url);");
  write('pkg/glue.d.ts');
  write('pkg/glue_bg.wasm');
  write('pkg/README.md');
  write('look.css', "@import './more.css'; .x { background: url(img/dot.svg); }");
  write('more.css');
  write('img/dot.svg');
  write('locales/en/ui.json', '{}');
  write('locales/zh-Hans/ui.json', '{}');
  write('locales/README.md');
  write('page-only.js', "import './a.js';");
  write('index.html', '<script type="module" src="page-only.js"></script>');
  const got = collectFiles(www, ['el.js']);
  assert.deepEqual(got.problems, []);
  assert.deepEqual(got.files, ['a.js', 'el.d.ts', 'el.js', 'img/dot.svg', 'locales/en/ui.json', 'locales/zh-Hans/ui.json', 'look.css', 'more.css', 'pkg/glue.d.ts', 'pkg/glue.js', 'pkg/glue_bg.wasm', 'worker.js']);
  assert.ok(collectFiles(www, ['el.js', 'index.html']).files.includes('page-only.js'));
  // An entry that is missing is reported, its types still go in; an import of a missing file is an error.
  const missing = collectFiles(www, ['gone.js', 'el.js']);
  assert.deepEqual(missing.missingEntries, ['gone.js']);
  write('el.js', "import './nowhere.js';");
  assert.match(collectFiles(www, ['el.js']).problems.join('\n'), /el\.js imports \.\/nowhere\.js/);
});

test('make package writes dist/highwater-playground-<version>.tgz with the version of Cargo.toml', () => {
  const r = spawnSync('make', ['--no-print-directory', 'package'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const tarball = path.join(ROOT, 'dist', `${NAME}-${crateVersion()}.tgz`);
  assert.ok(fs.existsSync(tarball), `${tarball} missing; make package said: ${r.stdout}${r.stderr}`);
  assert.deepEqual(tarballFiles(tarball).sort(), [...files].sort());
});

test('the tarball holds the JS API, the wasm package, locales, tours, gallery, types, README, LICENSE and CHANGELOG', () => {
  const must = [
    'package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'types/react.d.ts', 'types/preact.d.ts', 'types/vue.d.ts',
    'core.js', 'core.d.ts', 'highwater-playground.d.ts',
    'pkg/highwater.js', 'pkg/highwater_bg.wasm', 'pkg/highwater.d.ts',
    'gallery.json', 'tours/index.json', 'element/style.css', 'index.html', 'tour.schema.json',
    ...LANGS.flatMap((l) => BUNDLES.map((b) => `locales/${l}/${b}.json`)),
  ];
  const tours = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'tours', 'index.json'), 'utf8')).tours;
  must.push(...tours.map((id) => `tours/${id}.json`));
  assert.deepEqual(must.filter((f) => !files.includes(f)), [], 'files missing from the tarball');
  // Nothing but www/ files and the package's own four.
  const strays = files.filter((f) => !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(f) && !fs.existsSync(path.join(ROOT, 'www', f)));
  assert.deepEqual(strays, []);
  // wasm-pack's own README and package.json, the locales' notes: not part of the package.
  for (const f of ['pkg/README.md', 'pkg/package.json', 'locales/README.md']) assert.ok(!files.includes(f), `${f} should not be packed`);
  // The gallery in the package names the scenario of the README's example.
  const gallery = JSON.parse(fs.readFileSync(path.join(dir, 'gallery.json'), 'utf8'));
  assert.ok(gallery.entries.some((e) => e.id === 'kip101-loss-after-restart'));
});

test('the packed command checks a lesson from the unpacked package, as npx runs it', () => {
  const lesson = path.join(ROOT, 'examples', 'tours', 'acks-1-loss.json');
  const r = spawnSync(process.execPath, [path.join(dir, 'bin', 'highwater-playground.mjs'), 'check', lesson], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, 'acks-1-loss: every fact holds (2 predictions)\n');
});

test('package.json: name, version, license, types, exports and files point at packed files', () => {
  const pj = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  assert.equal(pj.name, NAME);
  assert.equal(pj.version, crateVersion());
  assert.match(pj.version, /^\d+\.\d+\.\d+(-[\w.]+)?$/);
  assert.equal(pj.license, 'Apache-2.0');
  assert.equal(pj.type, 'module');
  assert.equal(pj.types, './highwater-playground.d.ts');
  assert.ok(fs.existsSync(path.join(dir, pj.types)), `types ${pj.types} not packed`);
  // The element as one bundled module (scripts/bundle.mjs), its sources beside it for those who bundle themselves.
  assert.deepEqual(pj.exports['.'], { types: './highwater-playground.d.ts', default: './bundle/highwater-playground.js' });
  assert.equal(pj.main, './bundle/highwater-playground.js');
  assert.deepEqual(pj.exports['./source'], { types: './highwater-playground.d.ts', default: `./${ELEMENT}` });
  assert.deepEqual(pj.exports['./core'], { types: './core.d.ts', default: './core.js' });
  assert.equal(pj.exports['./pkg/*'], './pkg/*');
  for (const [key, target] of Object.entries(pj.exports)) {
    if (key === '.') continue; // the element: its own test below
    const targets = typeof target === 'string' ? [target] : Object.values(target);
    for (const t of targets) {
      if (t.includes('*')) assert.ok(fs.readdirSync(path.join(dir, path.dirname(t))).length > 0, `${key}: nothing under ${t}`);
      else assert.ok(fs.existsSync(path.join(dir, t)), `exports ${key} -> ${t}: not packed`);
    }
  }
  assert.ok(Array.isArray(pj.files) && pj.files.length > 0);
  assert.deepEqual(pj.files.filter((f) => !fs.existsSync(path.join(dir, f))), [], 'files entries not packed');
  // The command `npx highwater-playground check`, with the workers' core it runs on.
  assert.deepEqual(pj.bin, { [NAME]: './bin/highwater-playground.mjs' });
  for (const f of ['bin/highwater-playground.mjs', 'pkg-fast/highwater.js', 'pkg-fast/highwater_bg.wasm']) assert.ok(files.includes(f), `${f} not packed`);
  assert.equal(pj.dependencies, undefined, 'the package has no dependencies');
  // Ready to publish: where the source, the issues and the docs are (Cargo.toml's repository and homepage), and the changelog.
  const cargo = fs.readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8');
  const repository = /^repository\s*=\s*"([^"]+)"/m.exec(cargo)[1];
  assert.deepEqual(pj.repository, { type: 'git', url: `git+${repository}.git` });
  assert.deepEqual(pj.bugs, { url: `${repository}/issues` });
  assert.equal(pj.homepage, /^homepage\s*=\s*"([^"]+)"/m.exec(cargo)[1]);
  assert.ok(files.includes('CHANGELOG.md') && pj.files.includes('CHANGELOG.md'), 'the changelog is packed');
  for (const f of ['react', 'preact', 'vue']) assert.deepEqual(pj.exports[`./types/${f}`], { types: `./types/${f}.d.ts` });
});

test('CHANGELOG.md keeps a changelog: an Unreleased section, released versions in semver with a date, each with its link', () => {
  const text = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
  assert.match(text, /^# Changelog$/m);
  assert.match(text, /keepachangelog\.com/);
  const sections = [...text.matchAll(/^## \[([^\]]+)\](.*)$/gm)];
  assert.equal(sections[0][1], 'Unreleased', 'the first section is Unreleased');
  for (const [, version, rest] of sections.slice(1)) {
    assert.match(version, /^\d+\.\d+\.\d+$/, `a released version in semver: ${version}`);
    assert.match(rest, /^ - \d{4}-\d{2}-\d{2}$/, `${version} has its date`);
  }
  for (const [, version] of sections) assert.match(text, new RegExp(`^\\[${version.replace(/\./g, '\\.')}\\]: https://`, 'm'), `${version} has its link`);
  // No released version is ahead of the crate's, and versions go down the page.
  const tuple = (v) => v.split('.').map(Number);
  const newer = (a, b) => { for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i]; return false; };
  const released = sections.slice(1).map(([, v]) => tuple(v));
  for (const v of released) assert.ok(!newer(v, tuple(crateVersion())), `${v.join('.')} is ahead of Cargo.toml's ${crateVersion()}`);
  for (let i = 1; i < released.length; i++) assert.ok(newer(released[i - 1], released[i]), 'newest first');
});

test('README has the embedding snippet, every attribute, the event and the iframe; LICENSE is the Apache-2.0 text', () => {
  const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
  assert.ok(readme.includes(`<script type="module">import 'highwater-playground';</script>`));
  assert.ok(readme.includes('<highwater-playground scenario="kip101-loss-after-restart" step="8" lang="zh-Hans">'));
  for (const attr of ['scenario', 'step', 'tour', 'lang', 'height', 'controls', 'autoplay', 'theme']) assert.match(readme, new RegExp(`^\\| \`${attr}\` \\|`, 'm'), attr);
  assert.match(readme, /highwater-position/);
  assert.match(readme, /<iframe src="[^"]*index\.html\?embed/);
  const license = fs.readFileSync(path.join(dir, 'LICENSE'), 'utf8');
  for (const s of ['Apache License', 'Version 2.0, January 2004', 'TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION', '9. Accepting Warranty or Additional Liability.', 'END OF TERMS AND CONDITIONS']) {
    assert.ok(license.includes(s), `LICENSE lacks "${s}"`);
  }
  assert.ok(license.length > 10000, 'LICENSE is not the full text');
});

/** Relative module specifiers and `new URL('…', import.meta.url)` assets of a module, resolved statically. */
function staticImports(file) {
  const code = fs.readFileSync(file, 'utf8');
  const specs = [
    ...[...code.matchAll(/\b(?:import|export)\s+(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"\n]+)['"]/g)].map((m) => m[1]),
    ...[...code.matchAll(/\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g)].map((m) => m[1]),
    ...[...code.matchAll(/new\s+URL\(\s*['"]([^'"\n]+)['"]\s*,\s*import\.meta\.url\s*\)/g)].map((m) => m[1]),
  ];
  // Relative ones: without a bundler a module imports nothing else (a bare one is text, such as a snippet).
  return specs.filter((s) => /^\.\.?\//.test(s)).map((s) => path.resolve(path.dirname(file), s.split(/[?#]/)[0]));
}

test('the element module is in the package, with every file it imports', () => {
  assert.ok(files.includes(ELEMENT), elementMissing('the tarball'));
  const seen = new Set();
  const missing = [];
  const queue = [path.join(dir, ELEMENT)];
  while (queue.length) {
    const f = queue.shift();
    if (seen.has(f)) continue;
    seen.add(f);
    if (!fs.existsSync(f)) { missing.push(path.relative(dir, f)); continue; }
    if (/\.m?js$/.test(f)) queue.push(...staticImports(f));
  }
  assert.deepEqual(missing, [], 'imported by the element module but not packed');
  assert.ok(seen.has(path.join(dir, 'i18n.js')) || seen.has(path.join(dir, 'core.js')), 'the element module imports none of the page\'s modules');
});

test('the types type-check a consumer of the element, its event, the JS API and the wasm module (tsc --strict)', () => {
  const tsc = path.join(ROOT, 'site', 'node_modules', 'typescript', 'bin', 'tsc');
  if (!fs.existsSync(tsc)) {
    const r = spawnSync('bash', ['scripts/setup.sh', 'docs'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, `scripts/setup.sh docs (TypeScript for this check): ${r.stderr}`);
  }
  const app = tmpdir('tsc');
  installTarball(pack.tarball, app);
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'esnext.disposable', 'dom', 'dom.iterable'], strict: true, noEmit: true, skipLibCheck: false, types: [] },
    files: ['app.ts'],
  }));
  fs.writeFileSync(path.join(app, 'app.ts'), `
import 'highwater-playground';
import type { HighwaterPlaygroundElement, HighwaterPositionEvent, HighwaterPlaygroundAttributes } from 'highwater-playground';
import { loadCore, core, isCrash, type Core, type Scenario, type State } from 'highwater-playground/core';
import init, { Simulation } from 'highwater-playground/pkg/highwater.js';

const el = document.querySelector('highwater-playground');
const typed: HighwaterPlaygroundElement | null = el;
const made: HighwaterPlaygroundElement = document.createElement('highwater-playground');
made.setAttribute('scenario', 'kip101-loss-after-restart');
el?.addEventListener('highwater-position', (e) => {
  const position: number = e.detail.position;
  const length: number = e.detail.length;
  const scenario: string = e.detail.scenario;
  // @ts-expect-error: the detail has no such field
  e.detail.nothing;
  return [position, length, scenario];
});
document.addEventListener('highwater-position', (e: HighwaterPositionEvent) => e.detail.position + 1);
const attrs: HighwaterPlaygroundAttributes = { scenario: 'v1.x', step: 8, lang: 'zh-Hans', controls: 'compact', autoplay: true, height: '480px' };
// @ts-expect-error: not a language of the element
const bad: HighwaterPlaygroundAttributes = { lang: 'fr' };

const scenario: Scenario = { version: 1, config: { brokers: 3, protocol: '0.10' }, steps: [{ produce: { value: 'm1', acks: 'all' } }, { fetch: 2 }] };
// @ts-expect-error: not a step
const wrong: Scenario = { version: 1, steps: [{ teleport: 2 }] };
async function main(): Promise<number> {
  const c: Core = await loadCore();
  const sim = c.Simulation.fromScenario(scenario);
  const state: State = sim.state();
  const hw: number | null = state.partition.high_watermark;
  sim.free();
  await init();
  const raw = Simulation.fromScenario(scenario);
  raw.free();
  return (hw ?? 0) + core().generation + Number(isCrash(new Error('x')));
}
export { typed, attrs, bad, wrong, main };
`);
  const r = spawnSync(process.execPath, [tsc, '-p', app], { cwd: app, encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc:\n${r.stdout}${r.stderr}`);
});

test('the element in React, Preact and Vue: its attributes typed in JSX and in a template\'s props (tsc --strict)', () => {
  const modules = path.join(ROOT, 'site', 'node_modules');
  const tsc = path.join(modules, 'typescript', 'bin', 'tsc');
  if (!fs.existsSync(path.join(modules, 'preact', 'package.json'))) {
    const r = spawnSync('bash', ['scripts/setup.sh', 'docs'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, `scripts/setup.sh docs (React's types, Preact, Vue for this check): ${r.stderr}`);
  }
  const app = tmpdir('tsc-jsx');
  installTarball(pack.tarball, app);
  // The frameworks' types, as an app has them installed (pinned in site/package.json).
  fs.mkdirSync(path.join(app, 'node_modules', '@types'), { recursive: true });
  for (const m of ['@types/react', 'csstype', 'preact', 'vue', '@vue']) fs.symlinkSync(path.join(modules, m), path.join(app, 'node_modules', m));
  const options = { target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom', 'dom.iterable'], strict: true, noEmit: true, skipLibCheck: false, types: [] };
  const projects = {
    react: { options: { jsx: 'react-jsx' }, file: 'react.tsx', text: `
import 'highwater-playground';
import type {} from 'highwater-playground/types/react';
import type { HighwaterPlaygroundElement } from 'highwater-playground';

export function Lesson({ at }: { at: number }) {
  const ref = (el: HighwaterPlaygroundElement | null) => { void el?.position; };
  return (
    <div>
      <highwater-playground ref={ref} scenario="kip101-loss-after-restart" step={at} lang="zh-Hans" className="lesson" controls="compact" autoplay theme="dark" />
      <highwater-playground tour-src="/lessons/hw.json" height="480px" style={{ minHeight: 440 }} />
      {/* @ts-expect-error: not a language of the element */}
      <highwater-playground lang="fr" />
      {/* @ts-expect-error: not an attribute of the element */}
      <highwater-playground speed={2} />
    </div>
  );
}
` },
    preact: { options: { jsx: 'react-jsx', jsxImportSource: 'preact' }, file: 'preact.tsx', text: `
import 'highwater-playground';
import type {} from 'highwater-playground/types/preact';

export function Lesson({ at }: { at: number }) {
  return (
    <div>
      <highwater-playground scenario="kip101-loss-after-restart" step={at} lang="zh-Hant" class="lesson" controls="none" />
      <highwater-playground tour="leo-and-hw" />
      {/* @ts-expect-error: not a language of the element */}
      <highwater-playground lang="fr" />
      {/* @ts-expect-error: not a way to show the controls */}
      <highwater-playground controls="all" />
    </div>
  );
}
` },
    vue: { options: {}, file: 'vue.ts', text: `
import type {} from 'highwater-playground/types/vue';
import type { GlobalComponents } from 'vue';

type Props = InstanceType<GlobalComponents['highwater-playground']>['$props'];
export const ok: Props = { scenario: 'kip101-loss-after-restart', step: 8, lang: 'en', tourSrc: '/lessons/hw.json', 'tour-src': '/lessons/hw.json' };
// @ts-expect-error: not a language of the element
export const bad: Props = { lang: 'fr' };
// @ts-expect-error: a step is a number
export const badStep: Props = { step: 'eight' };
` },
  };
  for (const [name, p] of Object.entries(projects)) {
    fs.writeFileSync(path.join(app, p.file), p.text);
    fs.writeFileSync(path.join(app, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: { ...options, ...p.options }, files: [p.file] }));
    const r = spawnSync(process.execPath, [tsc, '-p', `tsconfig.${name}.json`], { cwd: app, encoding: 'utf8' });
    assert.equal(r.status, 0, `tsc (${name}):\n${r.stdout}${r.stderr}`);
    // The check can fail: the same file with a wrong attribute value is refused.
    fs.writeFileSync(path.join(app, p.file), p.text.replace(/lang(=|: )(["'])(zh-Hans|zh-Hant|en)\2/, 'lang$1$2klingon$2'));
    const wrong = spawnSync(process.execPath, [tsc, '-p', `tsconfig.${name}.json`], { cwd: app, encoding: 'utf8' });
    assert.notEqual(wrong.status, 0, `tsc (${name}) took lang="klingon"`);
    assert.match(wrong.stdout, /klingon/);
  }
});

test('installed into a plain HTML site, the element renders a playground from the package alone', { timeout: 120000 }, async () => {
  const site = tmpdir('plain-site');
  const installed = installTarball(pack.tarball, site);
  fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <link rel="icon" href="data:,">
  <title>Plain page</title>
  <script type="importmap">{ "imports": { "highwater-playground": "./node_modules/highwater-playground/${ELEMENT}" } }</script>
  <style>h1 { color: rgb(200, 0, 0); } p { font-size: 30px; }</style>
</head>
<body>
  <h1>A page about Kafka</h1>
  <p>The element below comes from the installed package.</p>
  <script type="module">import 'highwater-playground';</script>
  <highwater-playground id="one" scenario="kip101-loss-after-restart" step="8"></highwater-playground>
</body>
</html>
`);
  assert.ok(fs.existsSync(path.join(installed, ELEMENT)), elementMissing(`the installed package (${installed})`));
  const server = await serveDir(site);
  const browser = await launch();
  try {
    const page = await open(browser, server.url);
    await waitReady(page, 'highwater-playground');
    const view = await shadowView(page, '#one');
    assert.ok(view.open, 'the element renders in an open shadow root');
    assert.equal(view.brokerRows, 3, 'three broker rows in the shadow root');
    const events = await positions(page);
    const last = events.filter((e) => e.id === 'one').at(-1);
    assert.ok(last, `no highwater-position event from the element (events: ${JSON.stringify(events)})`);
    assert.equal(last.detail.position, 8);
    assert.equal(last.detail.length, 19);
    assert.equal(typeof last.detail.scenario, 'string');
    assert.ok(last.bubbles && last.composed, 'the event bubbles and is composed');
    assert.deepEqual(page.failed, []);
    assert.deepEqual(page.errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

test('installed, the package\'s page is an iframe embed of a run (index.html?embed#s=…)', { timeout: 120000 }, async () => {
  const site = tmpdir('iframe-site');
  const installed = installTarball(pack.tarball, site);
  // The link made by the installed package's own core, in Node, through its exports.
  const { createRequire } = await import('node:module');
  const require = createRequire(path.join(site, 'index.js'));
  const wasm = await import(require.resolve(`${NAME}/pkg/highwater.js`));
  wasm.initSync({ module: fs.readFileSync(require.resolve(`${NAME}/pkg/highwater_bg.wasm`)) });
  const gallery = JSON.parse(fs.readFileSync(path.join(installed, 'gallery.json'), 'utf8'));
  const sim = wasm.Simulation.fromScenario(gallery.entries.find((e) => e.id === 'kip101-loss-after-restart').scenario);
  const link = sim.toLink();
  sim.free();
  fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Iframe</title></head><body>
<iframe id="embed" src="node_modules/${NAME}/index.html?embed&lang=zh-Hans#s=${encodeURIComponent(link)}&at=8" width="800" height="500" style="border:0;max-width:100%" title="Highwater"></iframe>
</body></html>`);
  const server = await serveDir(site);
  const browser = await launch();
  try {
    const page = await open(browser, server.url);
    const frame = page.frameLocator('#embed');
    await frame.locator('body[data-ready="true"]').waitFor({ timeout: 30000 });
    assert.equal(await frame.locator('.broker-row').count(), 3);
    assert.equal((await frame.locator('#position').textContent()).trim().split(' ')[0], '8');
    assert.equal(await frame.locator('html').getAttribute('lang'), 'zh-Hans');
    assert.ok(await frame.locator('highwater-playground[controls="compact"] .hw.compact').count(), 'the embedded layout');
    assert.deepEqual(page.failed, []);
    assert.deepEqual(page.errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

#!/usr/bin/env node
// Bundles the element into www/bundle/ with esbuild: one minified module,
// `highwater-playground.js`, holding what a first draw needs (the element, the
// board, the words, the core's JavaScript glue), and a file for each part that
// is imported when first used (the explorer, the outcome grid, the fork view,
// the diagram, sharing, the exporters) with the code they share in chunks.
// The source modules stay as they are, for development and for those who
// bundle themselves; the page (index.html) and the npm package's main export
// load the bundle.
//
//   node scripts/bundle.mjs            build once (make build, make test)
//   node scripts/bundle.mjs --watch    build again on every change (make serve)
//   node scripts/bundle.mjs --if-stale build when a source is newer (the browser tests)
//   BUNDLE_MINIFY=0 node scripts/bundle.mjs   names kept, for reading a CPU profile
//
// The sources find their files (the wasm, style sheets, locales, tours, the
// gallery, the workers) by `new URL(…, import.meta.url)`: in the bundle each
// module's `import.meta.url` is replaced by its source file's URL, reckoned
// from the bundle's own, so every relative URL means what it means unbundled.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WWW = path.join(ROOT, 'www');
export const OUT = path.join(WWW, 'bundle');
/** The bundled entry, relative to www/. */
export const BUNDLE = 'bundle/highwater-playground.js';

/**
 * The bundle's own URL as its modules read it: `String(import.meta.url)`, not
 * `import.meta.url` alone, so that a bundler that bundles this bundle again
 * (Vite, for a site that imports the package by its name) does not take each
 * `new URL('…', import.meta.url)` for an asset of its own to move or inline: it
 * made a small module a `data:` URL, against which no relative URL resolves
 * ("Invalid URL" as the module was evaluated, and the element never defined).
 * The files are the package's, beside the bundle.
 */
const BUNDLE_URL = 'String(import.meta.url)';

/** The style sheets the modules name (`new URL('….css', import.meta.url)`): each is minified into the bundle's folder. */
const sheets = new Set();
const CSS_URL = /new URL\((['"])([^'"]+\.css)\1,\s*import\.meta\.url\)/g;

/**
 * Each source module's `import.meta.url` as its own URL, seen from the
 * bundle's folder; a style sheet it names is the bundle's minified copy.
 */
const sourceUrls = {
  name: 'source-urls',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      let text = await fs.promises.readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' };
      text = text.replace(CSS_URL, (whole, quote, rel) => {
        const sheet = path.resolve(path.dirname(args.path), rel);
        sheets.add(sheet);
        return `new URL(${JSON.stringify(`./${path.basename(sheet)}`)}, BUNDLE_URL)`;
      });
      const own = `new URL(${JSON.stringify(path.relative(OUT, args.path).split(path.sep).join('/'))}, BUNDLE_URL).href`;
      return { contents: text.replaceAll('import.meta.url', own).replaceAll('BUNDLE_URL', BUNDLE_URL), loader: 'js' };
    });
  },
};

/** The parts imported when first used, relative to www/; each is one file of the bundle, named as its source. */
export const PARTS = [
  'dialogs/explore-dialog.js',
  'dialogs/whatif-dialog.js',
  'dialogs/share-dialog.js',
  'panels/fork-view.js',
  'panels/diagram-panel.js',
  'panels/lesson-writer.js',
  'draw/export.js',
  'draw/cluster-map.js',
  'draw/quorum.js',
  'draw/operator.js',
];

const COMMON = {
  absWorkingDir: ROOT,
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: process.env.BUNDLE_MINIFY !== "0",
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  write: false,
};

/** Writes esbuild's output files, each by a rename (a page loading meanwhile never reads half a file). */
function save(result) {
  for (const f of result.outputFiles) {
    const tmp = `${f.path}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, f.contents);
    fs.renameSync(tmp, f.path);
  }
  return result.outputFiles.map((f) => f.path);
}

const abs = (rel) => path.join(WWW, rel);
const relOf = (file) => path.relative(WWW, file).split(path.sep).join('/');

/** A dynamic `import()` of a part: its own file of the bundle, loaded when asked for. */
const partsApart = (self) => ({
  name: 'parts-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const rel = relOf(path.resolve(args.resolveDir, args.path));
      if (!PARTS.includes(rel) || rel === self) return undefined;
      return { path: `./${path.basename(rel)}`, external: true };
    });
  },
});

/**
 * A part's imports of modules the element's bundle holds are taken from the
 * bundle, not copied: one instance of each module, its state (the words
 * loaded, the core) shared. The bundle exports each such module as a
 * namespace (`m0`, `m1`, …); the part reads the names it uses from it.
 */
const fromElement = (shared, used = new Set()) => ({
  name: 'from-element',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind !== 'import-statement' || args.namespace === 'element') return undefined;
      const rel = relOf(path.resolve(args.resolveDir, args.path));
      if (!shared.has(rel)) return undefined;
      used.add(rel);
      return { path: rel, namespace: 'element' };
    });
    build.onResolve({ filter: /^\.\/highwater-playground\.js$/, namespace: 'element' }, (args) => ({ path: args.path, external: true }));
    build.onLoad({ filter: /.*/, namespace: 'element' }, (args) => {
      const { name, exports } = shared.get(args.path);
      const lines = [`import { ${name} as ns } from './highwater-playground.js';`];
      for (const e of exports) lines.push(e === 'default' ? 'export default ns.default;' : `export const ${e} = ns.${e};`);
      return { contents: lines.join('\n'), loader: 'js', resolveDir: OUT };
    });
  },
});

/** Writes the bundle: the element's file, then each part against it. Resolves with the files written. */
export async function bundle() {
  fs.mkdirSync(OUT, { recursive: true });
  const entry = abs('highwater-playground.js');
  // 1. The modules the element's file holds, and the names each exports.
  const probe = await esbuild.build({ ...COMMON, entryPoints: [entry], outdir: OUT, plugins: [sourceUrls, partsApart(null)] });
  const held = Object.keys(probe.metafile.inputs).map((f) => relOf(path.resolve(ROOT, f))).filter((rel) => !rel.startsWith('..') && rel !== 'highwater-playground.js');
  const names = await esbuild.build({ ...COMMON, minify: false, entryPoints: held.map(abs), outdir: path.join(OUT, 'names'), outbase: WWW, splitting: true });
  const shared = new Map();
  held.forEach((rel, i) => {
    const out = Object.values(names.metafile.outputs).find((o) => o.entryPoint && relOf(path.resolve(ROOT, o.entryPoint)) === rel);
    shared.set(rel, { name: `m${i}`, exports: out ? out.exports : [] });
  });
  // 2. The element's file, exporting those of its modules the parts use.
  const used = new Set();
  for (const rel of PARTS) await esbuild.build({ ...COMMON, entryPoints: [abs(rel)], outdir: OUT, plugins: [fromElement(shared, used), sourceUrls, partsApart(rel)] });
  const element = [
    `export * from ${JSON.stringify(entry)};`,
    ...[...shared].filter(([rel]) => used.has(rel)).map(([rel, { name }]) => `export * as ${name} from ${JSON.stringify(abs(rel))};`),
  ].join('\n');
  const written = [];
  written.push(...save(await esbuild.build({
    ...COMMON,
    stdin: { contents: element, resolveDir: WWW, sourcefile: 'bundle-entry.js', loader: 'js' },
    outfile: path.join(WWW, BUNDLE),
    plugins: [sourceUrls, partsApart(null)],
  })));
  // 3. Each part, with what the element's file holds taken from it.
  for (const rel of PARTS) {
    written.push(...save(await esbuild.build({
      ...COMMON,
      entryPoints: [abs(rel)],
      outfile: path.join(OUT, path.basename(rel)),
      plugins: [fromElement(shared), sourceUrls, partsApart(rel)],
    })));
  }
  // The style sheets, minified (two with one name would be one file: refused).
  const sheetNames = new Map();
  for (const sheet of sheets) {
    const name = path.basename(sheet);
    if (sheetNames.has(name) && sheetNames.get(name) !== sheet) throw new Error(`two style sheets named ${name}: ${sheetNames.get(name)} and ${sheet}`);
    sheetNames.set(name, sheet);
    written.push(...save(await esbuild.build({ ...COMMON, bundle: false, sourcemap: false, entryPoints: [sheet], outfile: path.join(OUT, name) })));
  }
  // What an earlier build wrote and this one did not (another build's file being written is left alone).
  const keep = new Set(written);
  for (const name of fs.readdirSync(OUT)) if (!keep.has(path.join(OUT, name)) && !name.endsWith('.tmp')) fs.rmSync(path.join(OUT, name), { recursive: true, force: true });
  return written;
}

/** Is the bundle missing, or older than a source file of www/ (a module or a style sheet)? */
export function stale() {
  let built;
  try {
    built = fs.statSync(path.join(WWW, BUNDLE)).mtimeMs;
  } catch {
    return true;
  }
  const newer = (dir) => fs.readdirSync(dir, { withFileTypes: true }).some((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return !['bundle', 'locales', 'tours'].includes(e.name) && newer(file);
    return /\.(js|css)$/.test(e.name) && fs.statSync(file).mtimeMs > built;
  });
  return newer(WWW);
}

/** A line saying what was written. */
function summary(files) {
  const js = files.filter((f) => f.endsWith('.js'));
  const size = fs.statSync(path.join(WWW, BUNDLE)).size;
  return `bundle: www/${BUNDLE} (${size} bytes) and ${js.length - 1} parts loaded when first used`;
}

/** Builds again whenever a source file of www/ changes (not the bundle's or the wasm packages' own). */
async function watch() {
  console.log(summary(await bundle()));
  let timer = null;
  let building = Promise.resolve();
  fs.watch(WWW, { recursive: true }, (event, name) => {
    if (!name || /^(bundle|pkg|pkg-fast|pkg-quorum)[/\\]/.test(name) || !/\.(js|css)$/.test(name)) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      building = building.then(bundle).then((files) => console.log(summary(files)), (err) => console.error(`bundle: ${err.message}`));
    }, 50);
  });
  console.log('bundle: watching www/ (built again on every change)');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { watch: { type: 'boolean', default: false }, 'if-stale': { type: 'boolean', default: false } } });
  try {
    if (values.watch) await watch();
    else if (values['if-stale'] && !stale()) console.log(`bundle: www/${BUNDLE} is up to date`);
    else console.log(summary(await bundle()));
  } catch (err) {
    console.error(`bundle: ${err.message}`);
    process.exit(1);
  }
}

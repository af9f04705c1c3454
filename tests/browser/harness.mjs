// Shared set-up of the browser tests: builds what is missing, starts
// scripts/serve.mjs on a free port, launches Chromium through playwright-core,
// and closes both. Helpers read what the page shows (the DOM), not the core.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RESULTS = path.join(ROOT, 'test-results');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status})`);
}

/** The core (www/pkg-quorum: the page's core with the controller quorum), initialised in Node: the tests make their links with it. */
export async function loadCore() {
  // The core with the controller quorum: the same answers as www/pkg for a run without controllers, and it runs those with them.
  const core = await import(path.join(ROOT, 'www', 'pkg-quorum', 'highwater.js'));
  core.initSync({ module: fs.readFileSync(path.join(ROOT, 'www', 'pkg-quorum', 'highwater_bg.wasm')) });
  return core;
}

/** The workers' core (www/pkg-fast), initialised in Node: the searches (`explore`, `whatif`) are in it alone. */
export async function loadWorkersCore() {
  const core = await import(path.join(ROOT, 'www', 'pkg-fast', 'highwater.js'));
  core.initSync({ module: fs.readFileSync(path.join(ROOT, 'www', 'pkg-fast', 'highwater_bg.wasm')) });
  return core;
}

/** The share link of a scenario of tests/scenarios/ (by file name, without .json), as the core writes it. */
export async function scenarioLink(name) {
  const core = await loadCore();
  const sim = core.Simulation.fromScenario(JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', `${name}.json`), 'utf8')));
  try {
    return sim.toLink();
  } finally {
    sim.free();
  }
}

/** The wasm package (built if missing), the gallery, the first frames, the tours' answers and the posters (always rewritten: cheap, and they must match the scenarios) and the bundle. */
export function ensureBuilt() {
  if (['pkg', 'pkg-quorum', 'pkg-fast'].some((dir) => !fs.existsSync(path.join(ROOT, 'www', dir, 'highwater_bg.wasm')))) run('bash', ['scripts/build-wasm.sh']);
  const r = spawnSync(process.execPath, ['scripts/gallery.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`scripts/gallery.mjs failed: ${r.stderr}`);
  const f = spawnSync(process.execPath, ['scripts/first-frames.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (f.status !== 0) throw new Error(`scripts/first-frames.mjs failed: ${f.stderr}`);
  for (const script of ['tour-answers', 'posters']) {
    const a = spawnSync(process.execPath, [`scripts/${script}.mjs`], { cwd: ROOT, encoding: 'utf8' });
    if (a.status !== 0) throw new Error(`scripts/${script}.mjs failed: ${a.stderr}`);
  }
  // The page loads the bundle: made again when a source module is newer.
  const b = spawnSync(process.execPath, ['scripts/bundle.mjs', '--if-stale'], { cwd: ROOT, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`scripts/bundle.mjs failed: ${b.stderr}`);
}

/** The command-line binary (HIGHWATER_CLI, or target/release/highwater built if missing). */
export function cliBinary() {
  if (process.env.HIGHWATER_CLI) return path.resolve(process.env.HIGHWATER_CLI);
  const bin = path.join(ROOT, 'target', 'release', 'highwater');
  if (!fs.existsSync(bin)) run('cargo', ['build', '--release']);
  return bin;
}

/** The trace `highwater run` prints for a scenario (a file, or an object written to a temp file). */
export function cliTrace(scenario) {
  let file = scenario;
  if (typeof scenario !== 'string') {
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-')), 'scenario.json');
    fs.writeFileSync(file, JSON.stringify(scenario));
  }
  const r = spawnSync(cliBinary(), ['run', file], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`highwater run ${file}: ${r.stderr}`);
  return r.stdout;
}

/** Starts scripts/serve.mjs on a free port; resolves with { url, close }. */
export function startServer() {
  const child = spawn(process.execPath, ['scripts/serve.mjs', '--port', '0', '--root', 'www', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        resolve({
          url: m[1],
          close: () => new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
        });
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => { out += d; });
    child.once('exit', (code) => reject(new Error(`serve.mjs exited (${code}): ${out}`)));
  });
}

/** Server + browser for one test file. */
export async function setup() {
  ensureBuilt();
  const server = await startServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  return {
    url: server.url,
    browser,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * The page on the element's source modules instead of its bundle: for a test
 * that imports a module of www/ into the page (`await import('./draw/x.js')`),
 * which must be the same instance the element uses (the words loaded…).
 */
export async function onSourceModules(context) {
  await context.route(/\/index\.js$/, async (route) => {
    const response = await route.fetch();
    const body = (await response.text()).replace('./bundle/highwater-playground.js', './highwater-playground.js');
    await route.fulfill({ response, body });
  });
}

/**
 * Opens the page (path such as '' or '?embed', fragment such as '#s=...') and
 * waits until the first state is drawn. Page errors are collected in page.errors.
 * `source`: on the source modules (onSourceModules).
 */
/** The groups of the full page (www/element/groups.js), every one open. */
export const ALL_GROUPS = ['tools', 'network', 'operator', 'events', 'diagram'];

export async function openPage(env, { path: p = '', hash = '', viewport = { width: 1280, height: 900 }, colorScheme = 'light', reducedMotion = 'reduce', context: ctxOptions = {}, source = false, groups = ALL_GROUPS } = {}) {
  const context = await env.browser.newContext({ viewport, colorScheme, reducedMotion, ...ctxOptions });
  if (source) await onSourceModules(context);
  // The full page opens its tools collapsed (www/element/groups.js); the tests
  // of the tools open them as a reader who opened them once would find them.
  // `groups: null` is a first visit.
  if (groups) await context.addInitScript((names) => { try { localStorage.setItem('highwater.open-groups', JSON.stringify(names)); } catch { /* a frame without storage */ } }, groups);
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${env.url}${p}${hash}`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

/**
 * Waits until the page's address carries the run shown: the page writes it
 * after the frame of a step (www/element/links.js, scheduleHash), not in the
 * click's own task.
 */
export async function addressWritten(page) {
  await page.waitForFunction(() => {
    const pg = document.querySelector('highwater-playground')?.playground;
    return !pg || !pg.address || !pg.address.pending;
  });
}

/** A broker's figure as the page shows it (data-stat: leo, hw, ckpt, epoch). */
export async function brokerStat(page, broker, stat) {
  return (await page.locator(`.broker-row[data-broker="${broker}"] [data-stat="${stat}"]`).textContent()).trim();
}

/** The whole trace from the page's "Trace as text" view. */
export async function pageTrace(page) {
  await page.click('#btn-trace');
  // Sharing is loaded at its first use: the dialog opens once it is there.
  await page.locator('#dlg-trace[open]').waitFor();
  const text = await page.locator('#trace-text').textContent();
  await page.locator('#dlg-trace button[data-close]').click();
  return text;
}

/**
 * Opens Settings, changes fields, applies. The version is chosen first, as a
 * user would: choosing it moves the settings left at the old version's
 * defaults, and the other values given here are then typed over that.
 */
export async function applySettings(page, values) {
  await page.click('#btn-settings');
  const form = page.locator('#settings-form');
  const entries = Object.entries(values).sort(([a], [b]) => Number(b === 'protocol') - Number(a === 'protocol'));
  for (const [name, value] of entries) {
    const field = form.locator(`[name="${name}"]`);
    if (typeof value === 'boolean') await field.setChecked(value);
    else if (name === 'protocol') await field.selectOption(value);
    else await field.fill(String(value));
  }
  await form.locator('button[type="submit"]').click();
}

/**
 * Loads a gallery entry by name (and protocol variant). A scenario opens at
 * its start; `end` (the default) then goes to its last step, where the tests
 * read its outcome.
 */
export async function loadFromGallery(page, name, protocol, { end = true } = {}) {
  await page.click('#btn-gallery');
  const card = page.locator('.gallery-card', { has: page.locator('h3', { hasText: name }) }).first();
  if (protocol) await card.locator(`button[data-protocol="${protocol}"]`).click();
  else await card.locator('button.primary').click();
  await page.locator('#dlg-gallery').waitFor({ state: 'hidden' });
  // A run with controllers is made once the core with the quorum is loaded (Playground.withQuorumCore).
  await page.waitForFunction(() => !document.querySelector('highwater-playground').playground.awaitingQuorum);
  if (end) await page.keyboard.press('End');
}

/** Locale keys the page asked for that no table has. */
export async function missingKeys(page) {
  return page.evaluate(() => document.querySelector('highwater-playground').missingKeys());
}

export async function produce(page, value, acks = 'all') {
  await page.fill('#produce-value', value);
  await page.selectOption('#produce-acks', acks);
  await page.click('#btn-produce');
}

export function brokerButton(page, broker, action) {
  return page.locator(`.broker-row[data-broker="${broker}"] button[data-action="${action}"]`);
}

export async function noHorizontalScroll(page) {
  return page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
}

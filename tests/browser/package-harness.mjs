// Shared set-up of the package and docs-site tests: the tarball built into a
// temp dir, a static server on any directory (scripts/serve.mjs), Chromium,
// and readers for <highwater-playground> (its open shadow root, its events).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';
import { buildPackage, ELEMENT } from '../../scripts/package.mjs';

export { ROOT, NAME, ELEMENT, CORE, crateVersion } from '../../scripts/package.mjs';
export const RESULTS = path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'test-results');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

const made = [];
/** A new temp dir, removed when the test file's process exits. */
export function tmpdir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `highwater-${prefix}-`));
  made.push(dir);
  return dir;
}
process.on('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** `make package`'s script, writing into a temp dir: { tarball, files }. */
export function packTarball() {
  return buildPackage({ out: tmpdir('dist'), log: () => {} });
}

/** Paths in the tarball, without the leading "package/". */
export function tarballFiles(tarball) {
  const r = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tar -tzf ${tarball}: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
}

export function extractTarball(tarball) {
  const dir = tmpdir('extract');
  const r = spawnSync('tar', ['-xzf', tarball, '-C', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tar -xzf ${tarball}: ${r.stderr}`);
  return path.join(dir, 'package');
}

/** The message a test fails with while the element module is not in the package. */
export function elementMissing(where) {
  return `${ELEMENT} is not in ${where}: the <highwater-playground> element (www/${ELEMENT}) has not landed in www/, so the package has no element to import`;
}

/** Serves a directory on a free loopback port: { url, close }. */
export async function serveDir(root) {
  const server = await serve({ port: 0, root });
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
}

/**
 * Opens a page and records what goes wrong: page errors, console errors,
 * and responses of 400 and more (page.errors, page.failed).
 */
export async function open(browser, url, { viewport = { width: 1440, height: 900 }, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport, colorScheme, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.errors = [];
  page.failed = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  // A failed request is in page.failed (with its URL); its console line would say the same without it.
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) page.errors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) page.failed.push(`${r.status()} ${r.url()}`); });
  // Every highwater-position event that reaches the document, recorded before any module runs.
  await page.addInitScript(() => {
    window.__positions = [];
    document.addEventListener('highwater-position', (e) => {
      window.__positions.push({ id: e.target.id, bubbles: e.bubbles, composed: e.composed, detail: { ...e.detail } });
    });
  });
  await page.goto(url);
  return page;
}

/** Scrolls each element into view (they load lazily) and waits for its data-ready. */
export async function waitReady(page, selector, { timeout = 30000 } = {}) {
  const hosts = page.locator(selector);
  const n = await hosts.count();
  if (n === 0) throw new Error(`no ${selector} on ${page.url()}`);
  for (let i = 0; i < n; i++) {
    const host = hosts.nth(i);
    await host.scrollIntoViewIfNeeded();
    try {
      await page.waitForFunction((el) => el.hasAttribute('data-ready'), await host.elementHandle(), { timeout });
    } catch {
      const defined = await page.evaluate(() => Boolean(customElements.get('highwater-playground')));
      throw new Error(`${selector} #${i} on ${page.url()} has no data-ready after ${timeout} ms (element ${defined ? 'defined' : 'not defined'}; errors: ${JSON.stringify(page.errors)}; failed requests: ${JSON.stringify(page.failed)})`);
    }
  }
  return n;
}

/** What an element's shadow root shows: broker rows, its text, whether it is open. */
export async function shadowView(page, selector) {
  return page.locator(selector).evaluate((el) => ({
    open: el.shadowRoot !== null,
    brokerRows: el.shadowRoot ? el.shadowRoot.querySelectorAll('.broker-row').length : 0,
    text: el.shadowRoot ? el.shadowRoot.textContent.replace(/\s+/g, ' ').trim() : '',
  }));
}

/** The highwater-position events recorded so far (see open()). */
export function positions(page) {
  return page.evaluate(() => window.__positions);
}

export function screenshotPath(name) {
  fs.mkdirSync(RESULTS, { recursive: true });
  return path.join(RESULTS, name);
}

// What `make check-sites` asks of a docs site made by a recipe of
// docs/embedding.md, in Chromium: the run's element draws at its step in
// place of its poster, the
// lesson (a tour file) plays to its last stop with every fact holding, the
// element turns dark with the site's own toggle, "Open in Highwater ↗" opens
// the run at its step in the package's page, and no page logs an error or
// fails a request. Each tool: its recipe's heading, where its build writes
// the site, its static folder, the page's path, its version, its toggle.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, NAME, serveDir, launch, open, waitReady } from '../../tests/browser/package-harness.mjs';

const LESSON = JSON.parse(fs.readFileSync(path.join(ROOT, 'site', 'public', 'lessons', 'acks-1-loss.json'), 'utf8'));
/** The recipes' run: a gallery scenario, opened at its default step (gallery.json's focus), as its poster shows it. */
const SCENARIO = 'kip101-loss-after-restart';
const STEP = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'gallery.json'), 'utf8')).entries.find((e) => e.id === SCENARIO).focus;

/** The version of an npm package installed in the site. */
const npmVersion = (site, name) => JSON.parse(fs.readFileSync(path.join(site, 'node_modules', name, 'package.json'), 'utf8')).version;

/** Clicks `selector` (the first visible one) until the page says it is dark, at most three times (a toggle may pass through "system"). */
async function toggleUntil(page, selector, isDark) {
  for (let i = 0; i < 3 && !(await page.evaluate(isDark)); i++) {
    await page.locator(selector).locator('visible=true').first().click();
    await page.waitForTimeout(100);
  }
  if (!(await page.evaluate(isDark))) throw new Error(`the site's toggle (${selector}) did not make the site dark`);
}

export const TOOLS = {
  html: {
    heading: 'Plain HTML',
    out: '.',
    statics: '.',
    page: 'replication.html',
    version: () => '',
    // No toggle of its own: the page follows the reader's system.
    dark: (page) => page.emulateMedia({ colorScheme: 'dark' }),
  },
  vitepress: {
    heading: 'VitePress',
    out: '.vitepress/dist',
    statics: 'public',
    page: 'replication.html',
    version: (site) => `VitePress ${npmVersion(site, 'vitepress')}`,
    dark: (page) => toggleUntil(page, 'button.VPSwitchAppearance', () => document.documentElement.classList.contains('dark')),
  },
  docusaurus: {
    heading: 'Docusaurus 3',
    out: 'build',
    statics: 'static',
    page: 'docs/replication',
    version: (site) => `Docusaurus ${npmVersion(site, '@docusaurus/core')}, React ${npmVersion(site, 'react')}`,
    dark: (page) => toggleUntil(page, 'button[class*="toggleButton"]', () => document.documentElement.dataset.theme === 'dark'),
  },
  starlight: {
    heading: 'Astro Starlight',
    out: 'dist',
    statics: 'public',
    page: 'replication/',
    version: (site) => `Starlight ${npmVersion(site, '@astrojs/starlight')}, Astro ${npmVersion(site, 'astro')}`,
    dark: async (page) => {
      await page.locator('starlight-theme-select select').locator('visible=true').first().selectOption('dark');
      await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    },
  },
  mkdocs: {
    heading: 'MkDocs Material',
    out: 'site',
    statics: 'docs',
    page: 'replication/',
    version: (site) => {
      const r = spawnSync(path.join(site, '.venv', 'bin', 'python'), ['-c', 'import importlib.metadata as m; print(m.version("mkdocs-material"), m.version("mkdocs"))'], { encoding: 'utf8' });
      const [material, mkdocs] = r.stdout.trim().split(' ');
      return `Material ${material}, MkDocs ${mkdocs}`;
    },
    dark: (page) => toggleUntil(page, 'label.md-header__button[for^="__palette"]', () => document.body.dataset.mdColorScheme === 'slate'),
  },
};

const RUN = 'highwater-playground[scenario]';
const TOUR = 'highwater-playground[tour-src]';
const position = (page, selector) => page.locator(selector).evaluate((el) => el.shadowRoot.querySelector('#position')?.textContent.trim());

/** Plays the lesson's stops in the element, as a reader does: each prediction answered, each "do" done, Next to the last stop. */
async function playLesson(page) {
  const host = page.locator(TOUR);
  await host.locator('[data-testid="tour-caption"]').waitFor({ timeout: 30000 });
  await page.waitForFunction((sel) => document.querySelector(sel).hasAttribute('data-tour-errors'), TOUR, { timeout: 60000 });
  const errors = await host.getAttribute('data-tour-errors');
  if (errors !== '0') throw new Error(`data-tour-errors="${errors}": the model does not bear out the lesson`);
  const stops = LESSON.parts.flatMap((p) => p.stops);
  for (const [i, stop] of stops.entries()) {
    if (stop.predict) {
      const choice = host.locator('[data-testid="tour-choices"] button[data-tour="choice"]').first();
      await choice.waitFor({ timeout: 30000 });
      await choice.click();
      await host.locator('[data-testid="tour-verdict"]').waitFor({ timeout: 10000 });
    }
    if (stop.do) await host.locator('#tour button[data-tour="do"]').click();
    const caption = (await host.locator('[data-testid="tour-caption"]').textContent()).trim();
    if (caption !== stop.caption.en) throw new Error(`stop ${i + 1} of ${stops.length} shows "${caption}", not its caption`);
    if (i < stops.length - 1) await host.locator('#tour button[data-tour="next"]').click();
  }
  const at = await position(page, TOUR);
  const last = stops.at(-1).at;
  if (!at?.startsWith(`${last} /`)) throw new Error(`the last stop shows position ${at}, not ${last}`);
  return stops.length;
}

/** Serves `root` (the site under `base`) and runs every check; resolves with { passed, failures, seconds }. */
export async function checkSite(tool, { root, base }) {
  const { page: pagePath, dark } = TOOLS[tool];
  const server = await serveDir(root);
  const browser = await launch();
  const started = Date.now();
  const passed = [];
  const failures = [];
  const check = async (name, fn) => {
    try {
      const said = await fn();
      passed.push(said ? `${name} (${said})` : name);
    } catch (err) {
      failures.push(`${name}: ${err.message.split('\n')[0]}`);
    }
  };
  const url = `${server.url}${base.replace(/^\//, '')}${pagePath}`;
  const pages = [];
  try {
    const page = await open(browser, url, { viewport: { width: 1280, height: 900 } });
    pages.push(page);
    await check('the run draws at its step in place of its poster', async () => {
      const poster = await page.locator(RUN).evaluate((el) => el.querySelector('img[elementtiming="highwater-poster"]')?.src);
      if (!poster || new URL(poster).pathname !== `${base}${NAME}/posters/${SCENARIO}.svg`) throw new Error(`its poster is ${poster}`);
      await waitReady(page, RUN);
      const drawn = await page.locator(RUN).evaluate((el) => ({
        rows: el.shadowRoot.querySelectorAll('.broker-row').length,
        poster: el.querySelector('img').getClientRects().length,
      }));
      if (drawn.rows !== 3) throw new Error(`${drawn.rows} broker rows`);
      if (drawn.poster) throw new Error('the poster still shows beside the board');
      const at = await position(page, RUN);
      if (!at?.startsWith(`${STEP} /`)) throw new Error(`position ${at}, not ${STEP}`);
    });
    await check('the lesson plays to its last stop', async () => {
      await waitReady(page, TOUR);
      await playLesson(page);
    });
    await check('dark with the site', async () => {
      await dark(page);
      await page.waitForFunction(() => [...document.querySelectorAll('highwater-playground')].every((el) => el.dataset.scheme === 'dark'), null, { timeout: 5000 })
        .catch(async () => { throw new Error(`the elements' schemes: ${await page.evaluate(() => [...document.querySelectorAll('highwater-playground')].map((el) => el.dataset.scheme).join(', '))}`); });
    });
    await check('"Open in Highwater" opens the run', async () => {
      const href = await page.locator(RUN).evaluate((el) => el.shadowRoot.getElementById('open-full')?.href);
      const full = `${url.slice(0, url.indexOf(base) + base.length)}${NAME}/index.html#s=`;
      if (!href?.startsWith(full) || !href.endsWith(`&at=${STEP}`)) throw new Error(`it points at ${href}`);
      const opened = await open(browser, href, { viewport: { width: 1280, height: 900 } });
      pages.push(opened);
      await opened.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
      const at = (await opened.locator('#position').textContent()).trim();
      if (!at.startsWith(`${STEP} /`)) throw new Error(`the page opens at ${at}`);
    });
    await check('no error, no failed request', async () => {
      // The element's requests are inside its folder, the lesson's in lessons/;
      // any other is the site's own (a theme's default favicon, say), said but not held against the embed.
      const ours = (line) => [`${base}${NAME}/`, `${base}lessons/`].some((p) => new URL(line.split(' ')[1]).pathname.startsWith(p));
      const failed = pages.flatMap((p) => p.failed);
      const bad = [...pages.flatMap((p) => p.errors), ...failed.filter(ours)];
      if (bad.length) throw new Error(bad.join('; '));
      const site = failed.filter((f) => !ours(f)).map((f) => `${f.split(' ')[0]} ${new URL(f.split(' ')[1]).pathname}`);
      return site.length ? `the site's own: ${site.join(', ')}` : '';
    });
  } catch (err) {
    failures.push(`the page ${url}: ${err.message.split('\n')[0]}`);
  } finally {
    for (const p of pages) await p.context().close().catch(() => {});
    await browser.close();
    await server.close();
  }
  return { passed, failures, seconds: (Date.now() - started) / 1000 };
}

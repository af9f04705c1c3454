// The element in a docs site: its colours follow its `theme` attribute, else
// the host page's own toggle (a `dark` class or data-theme on <html>, as
// VitePress sets), else the page's painted background, else the OS; and it
// adds no landmark or top-level heading to the host page, while the full
// page (the element with sync-url) has its banner, navigation, main and
// contentinfo, and one h1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

async function hostPage({ html = '', body = '', element = '', colorScheme = 'light' }) {
  const context = await env.browser.newContext({ viewport: { width: 1000, height: 800 }, colorScheme, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  const url = `${env.url}theme-host.html`;
  await page.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en" ${html}><head><meta charset="utf-8"><title>Docs</title><script type="module" src="./bundle/highwater-playground.js"></script></head><body ${body}><h1>Docs</h1><highwater-playground id="a" scenario="kip101-loss-after-restart" step="8" ${element}></highwater-playground></body></html>`,
  }));
  await page.goto(url);
  await page.waitForSelector('#a[data-ready="true"]');
  return page;
}

/** The element's scheme and the background its board is painted with. */
const look = (page) => page.evaluate(() => {
  const el = document.getElementById('a');
  const panel = el.shadowRoot.querySelector('.cluster, .panel') || el.shadowRoot.getElementById('root');
  return { scheme: el.dataset.scheme, background: getComputedStyle(panel).backgroundColor };
});

test('theme: the attribute, the host page\'s toggle, its background, the OS', async () => {
  const cases = [
    [{ element: 'theme="dark"' }, 'dark'],
    [{ element: 'theme="light"', colorScheme: 'dark' }, 'light'],
    [{ html: 'class="dark"' }, 'dark'],
    [{ html: 'data-theme="dark"' }, 'dark'],
    [{ html: 'class="light"', colorScheme: 'dark' }, 'light'],
    [{ body: 'style="background:#ffffff"', colorScheme: 'dark' }, 'light'],
    [{ body: 'style="background:#1b1b1f"' }, 'dark'],
    [{ colorScheme: 'dark' }, 'dark'],
    [{ colorScheme: 'light' }, 'light'],
  ];
  const backgrounds = {};
  for (const [c, want] of cases) {
    const page = await hostPage(c);
    const { scheme, background } = await look(page);
    assert.equal(scheme, want, JSON.stringify(c));
    (backgrounds[want] ??= new Set()).add(background);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
  // The style sheets follow the scheme: one board colour per scheme, and they differ.
  assert.equal(backgrounds.dark.size, 1);
  assert.equal(backgrounds.light.size, 1);
  assert.notDeepEqual([...backgrounds.dark], [...backgrounds.light]);
});

test('theme: the host page\'s toggle and the attribute are followed as they change', async () => {
  const page = await hostPage({});
  assert.equal((await look(page)).scheme, 'light');
  await page.evaluate(() => document.documentElement.classList.add('dark'));
  await page.waitForFunction(() => document.getElementById('a').dataset.scheme === 'dark');
  await page.evaluate(() => document.documentElement.classList.remove('dark'));
  await page.waitForFunction(() => document.getElementById('a').dataset.scheme === 'light');
  await page.evaluate(() => document.getElementById('a').setAttribute('theme', 'dark'));
  await page.waitForFunction(() => document.getElementById('a').dataset.scheme === 'dark');
  await page.context().close();
});

test('theme: a toggle of the body\'s own attribute that repaints its background (MkDocs Material\'s data-md-color-scheme) is followed', async () => {
  const page = await hostPage({ body: 'data-md-color-scheme="default"' });
  await page.addStyleTag({ content: 'body { background: #ffffff } [data-md-color-scheme="slate"] { background: #1e2129 }' });
  assert.equal((await look(page)).scheme, 'light');
  await page.evaluate(() => document.body.setAttribute('data-md-color-scheme', 'slate'));
  await page.waitForFunction(() => document.getElementById('a').dataset.scheme === 'dark');
  await page.evaluate(() => document.body.setAttribute('data-md-color-scheme', 'default'));
  await page.waitForFunction(() => document.getElementById('a').dataset.scheme === 'light');
  await page.context().close();
});

const LANDMARKS = 'h1, header, main, footer, nav, aside, section[aria-label]:not([role="group"]), section[aria-labelledby]:not([role="group"]), form[aria-label]:not([role="group"]), [role="banner"], [role="main"], [role="contentinfo"], [role="navigation"], [role="heading"][aria-level="1"]';

test('an element in a docs page adds no landmark and no h1; the full page has its own', async () => {
  const page = await hostPage({ element: 'controls="full"' });
  assert.deepEqual(await page.evaluate((sel) => [...document.getElementById('a').shadowRoot.querySelectorAll(sel)].map((e) => e.outerHTML.slice(0, 60)), LANDMARKS), []);
  assert.equal(await page.evaluate(() => document.querySelectorAll('h1').length), 1, 'the host page\'s one h1');
  await page.context().close();

  const full = await openPage(env);
  const roles = await full.evaluate(() => {
    const root = document.querySelector('highwater-playground').shadowRoot;
    return ['banner', 'navigation', 'main', 'contentinfo'].map((r) => root.querySelectorAll(`[role="${r}"]`).length)
      .concat(root.querySelectorAll('[role="heading"][aria-level="1"]').length);
  });
  assert.deepEqual(roles, [1, 1, 1, 1, 1]);
  assert.equal(await full.getByRole('heading', { level: 1 }).textContent(), 'Highwater');
  assert.equal(await full.getByRole('navigation').getAttribute('aria-label'), 'Page actions');
  await full.context().close();
});

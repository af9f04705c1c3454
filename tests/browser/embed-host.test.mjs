// The element in someone's docs site, as docs/embedding.md tells its author
// to put it there: the npm package served under a sub-path
// (`/kafka/highwater-playground/`), and a page made of the snippets of the
// docs' "Using it" (an external module script, the iframe styled by a class)
// under the Content-Security-Policy the docs state. Every file the element
// asks for is inside its own folder and nothing is refused; "Open in
// Highwater ↗" opens the run in the package's own full page, not the host
// page, and follows the run; when the core cannot be loaded, the element is
// one line of text over the host's own fallback content, nothing of the host
// page lost; without the module, the fallback shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, NAME, packTarball, extractTarball, tmpdir, serveDir, launch } from './package-harness.mjs';
import { scenarioLink } from './harness.mjs';

const PREFIX = `kafka/${NAME}/`; // where the site serves the package
const DOCS = fs.readFileSync(path.join(ROOT, 'docs', 'embedding.md'), 'utf8');

let server;
let browser;
let link; // kip101-loss-after-restart's link text

before(async () => {
  const { tarball } = packTarball();
  const site = tmpdir('embed-host');
  fs.mkdirSync(path.join(site, 'kafka'), { recursive: true });
  fs.renameSync(extractTarball(tarball), path.join(site, PREFIX));
  link = await scenarioLink('kip101-loss-after-restart');
  // The site's own style sheet: the docs' rules (the element's room, the iframe's class).
  fs.writeFileSync(path.join(site, 'kafka', 'site.css'), [...section('### Its room while it loads').matchAll(/```css\n([\s\S]*?)```/g), ...section('### Using it').matchAll(/```css\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n'));
  server = await serveDir(site);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** A section of docs/embedding.md, from its heading to the next one of its level. */
function section(heading) {
  const from = DOCS.indexOf(`${heading}\n`);
  assert.ok(from >= 0, `docs/embedding.md has "${heading}"`);
  const rest = DOCS.slice(from + heading.length);
  const end = rest.search(/\n### /);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The policy docs/embedding.md says the element needs nothing weaker than. */
function policy() {
  const m = /^Content-Security-Policy: (.+)$/m.exec(DOCS);
  assert.ok(m, 'docs/embedding.md states a policy');
  return m[1].trim();
}

const LISTEN = `window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sample || '')), true);`;

/**
 * A host page of the site at /kafka/guide/NAME.html, served with the docs'
 * policy: `body` inside, the site's style sheet and, unless `script` is
 * false, the element's module by an external script tag. `block`: requests
 * refused. Records page errors, failed requests and every request made.
 */
async function hostPage(name, body, { block = null, script = true, viewport = { width: 800, height: 500 } } = {}) {
  const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
  await context.addInitScript(LISTEN);
  const page = await context.newPage();
  page.errors = [];
  page.failed = [];
  page.requests = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) page.errors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) page.failed.push(`${r.status()} ${r.url()}`); });
  context.on('request', (r) => page.requests.push(r.url()));
  if (block) await context.route(block, (route) => route.abort());
  const url = `${server.url}kafka/guide/${name}.html`;
  await page.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    headers: { 'Content-Security-Policy': policy() },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Kafka docs</title>
<link rel="stylesheet" href="../site.css">${script ? `\n<script type="module" src="../${NAME}/bundle/highwater-playground.js"></script>` : ''}</head>
<body><p id="before">Text of the page before.</p>${body}<p id="after">Text of the page after.</p></body></html>`,
  }));
  await page.goto(url);
  return page;
}

const ready = (page, id, value = 'true') => page.waitForSelector(`#${id}[data-ready="${value}"]`, { timeout: 30000 });
const openHref = (page, id) => page.evaluate((id) => document.getElementById(id).shadowRoot.getElementById('open-full').href, id);

test('the docs\' "Using it" snippets, under the docs\' policy, from a sub-path: drawn, nothing refused, every file from the package\'s folder', { timeout: 120000 }, async () => {
  // The snippets as written, with the site's paths for the package and a real run for the placeholder.
  const snippets = [...section('### Using it').matchAll(/```html\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(snippets.length, 2, 'the element and the iframe');
  for (const s of snippets) assert.doesNotMatch(s, /<script(?![^>]*\bsrc=)|<style|\bstyle=/, 'no inline script or style');
  const body = snippets.join('\n').replaceAll('/node_modules/highwater-playground/', `/${PREFIX}`).replaceAll('v1.…', link).replace('<highwater-playground ', '<highwater-playground id="a" ');
  const withScript = body.includes('<script type="module" src=');
  assert.ok(withScript, 'the element snippet loads the module by an external script');
  const page = await hostPage('snippets', body, { script: false, viewport: { width: 1280, height: 1400 } });
  try {
    await ready(page, 'a');
    await page.frameLocator('iframe.highwater-frame').locator('body[data-ready="true"]').waitFor({ timeout: 30000 });
    assert.equal(await page.locator('#a').evaluate((el) => el.shadowRoot.querySelectorAll('.broker-row[data-broker]').length), 3, 'the element draws the run');
    assert.equal(await page.locator('iframe.highwater-frame').evaluate((f) => getComputedStyle(f).borderTopWidth), '0px', 'the iframe styled by its class');
    assert.equal(await page.locator('#a > a').isVisible(), false, 'the fallback hidden once the element draws');
    assert.deepEqual(await page.evaluate(() => window.__violations), [], 'no policy violation');
    assert.deepEqual(page.failed, []);
    assert.deepEqual(page.errors, []);
    const outside = page.requests.filter((u) => !u.startsWith(`${server.url}kafka/`) && !u.startsWith('data:') && u !== `${server.url}favicon.ico`);
    assert.deepEqual(outside, [], 'nothing asked for outside the site\'s /kafka/');
    assert.ok(page.requests.some((u) => u.startsWith(`${server.url}${PREFIX}pkg/`) && u.endsWith('.wasm')), 'the core from the package\'s folder');
  } finally {
    await page.context().close();
  }
});

test('"Open in Highwater ↗" of a compact element opens the run in the package\'s full page, follows the run, and opens there at its step', { timeout: 120000 }, async () => {
  const page = await hostPage('open', `<highwater-playground id="a" scenario="kip101-loss-after-restart" step="8"></highwater-playground>
<highwater-playground id="t" tour="leo-and-hw" step="2" lang="zh-Hans"></highwater-playground>`, { viewport: { width: 800, height: 1400 } });
  try {
    await ready(page, 'a');
    await ready(page, 't');
    const full = `${server.url}${PREFIX}index.html`;
    // Made after the frame that shows the run (links.js: wireOpenLink).
    await page.waitForFunction(() => [['a', '#s='], ['t', 'tour=']].every(([id, part]) => document.getElementById(id).shadowRoot.getElementById('open-full').href.includes(part)));
    let href = await openHref(page, 'a');
    assert.ok(href.startsWith(`${full}#s=`), `the package's index.html with the run, not the host page: ${href}`);
    assert.match(href, /&at=8$/);
    // It follows the run: another step, without a click.
    await page.evaluate(() => document.getElementById('a').setAttribute('step', '12'));
    await page.waitForFunction(() => document.getElementById('a').shadowRoot.getElementById('open-full').href.endsWith('&at=12'));
    href = await openHref(page, 'a');
    // A tour: its id and stop, and the element's language.
    const tour = await openHref(page, 't');
    assert.ok(tour.startsWith(`${full}?`), tour);
    const query = new URL(tour).searchParams;
    assert.equal(query.get('lang'), 'zh-Hans');
    assert.equal(query.get('tour'), 'leo-and-hw');
    assert.equal(query.get('step'), '2');
    // What it opens: the full page of the package, at the run's step.
    const [opened] = await Promise.all([page.context().waitForEvent('page'), page.locator('#a').locator('#open-full').click()]);
    await opened.waitForLoadState();
    assert.equal(opened.url(), href);
    await opened.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.equal(await opened.locator('#position').textContent(), '12 / 19');
    // A step's link is made after the step's frame, not in its own task.
    const step = await page.evaluate(() => {
      const root = document.getElementById('a').shadowRoot;
      const before = root.getElementById('open-full').href;
      root.getElementById('btn-forward').click();
      return { before, during: root.getElementById('open-full').href, position: root.getElementById('position').textContent };
    });
    assert.equal(step.position, '13 / 19', 'the step was taken');
    assert.equal(step.during, step.before, 'the step\'s task leaves the link as it was');
    await page.waitForFunction(() => document.getElementById('a').shadowRoot.getElementById('open-full').href.endsWith('&at=13'));
    assert.deepEqual(page.errors, []);
    assert.deepEqual(page.failed, []);
    assert.ok(!page.requests.some((u) => u.endsWith('/share-dialog.js')), 'the link needs no share dialog');
    assert.deepEqual(page.requests.filter((u) => !u.startsWith(`${server.url}kafka/`) && !u.startsWith('data:') && u !== `${server.url}favicon.ico`), [], 'a tour and another language from the package\'s folder too');
  } finally {
    await page.context().close();
  }
});

for (const [what, attrs] of [['a tour', 'tour="leo-and-hw" step="2"'], ['a link\'s run', null]]) {
  test(`the core refused (${what}, no first frame): one line of text, the host's fallback below it, nothing of the host page lost`, { timeout: 120000 }, async () => {
    const fallback = '<a id="fallback" href="https://example.org/highwater/">Open this run in Highwater</a>';
    const page = await hostPage('no-core', `<highwater-playground id="a" ${attrs ?? `scenario="${link}" step="8"`}>${fallback}</highwater-playground>`, { block: /\.wasm$/ });
    try {
      await ready(page, 'a', 'error');
      const view = await page.locator('#a').evaluate((el) => {
        const line = el.shadowRoot.querySelector('.hw-failed');
        return {
          parts: [...el.shadowRoot.children].map((c) => c.localName),
          text: line && line.textContent,
          markup: line ? line.childElementCount : null,
          height: line ? line.getBoundingClientRect().height : 0,
        };
      });
      assert.deepEqual(view.parts, ['p', 'slot'], 'the line and the host\'s content, nothing else');
      assert.match(view.text, /^The simulation core could not be loaded: \S/);
      assert.equal(view.markup, 0, 'text only');
      assert.ok(view.height > 0 && view.height < 40, `one line (${view.height} px)`);
      // The host's own content: still the element's, as written, and shown.
      assert.equal(await page.locator('#a').evaluate((el) => el.innerHTML), fallback);
      assert.ok(await page.locator('#fallback').isVisible(), 'the fallback link shows');
      assert.ok(await page.locator('#before').isVisible());
      assert.ok(await page.locator('#after').isVisible());
      assert.deepEqual(page.errors, []);
      assert.deepEqual(await page.evaluate(() => window.__violations), []);
    } finally {
      await page.context().close();
    }
  });
}

test('the style sheet refused: one line too, not an unstyled playground', { timeout: 120000 }, async () => {
  const page = await hostPage('no-style', '<highwater-playground id="a" scenario="kip101-loss-after-restart" step="8"><a id="fallback" href="https://example.org/">Open</a></highwater-playground>', { block: /\/bundle\/style\.css$/ });
  try {
    await ready(page, 'a', 'error');
    assert.match(await page.locator('#a').evaluate((el) => el.shadowRoot.querySelector('.hw-failed').textContent), /^Could not start: /);
    assert.ok(await page.locator('#fallback').isVisible());
    assert.deepEqual(page.errors, []);
  } finally {
    await page.context().close();
  }
});

test('the module refused: the element is an unknown tag and its fallback shows', { timeout: 60000 }, async () => {
  const page = await hostPage('no-module', '<highwater-playground id="a" scenario="kip101-loss-after-restart" step="8"><a id="fallback" href="https://example.org/">Open this run in Highwater</a></highwater-playground>', { block: /\/bundle\/highwater-playground\.js$/ });
  try {
    await page.waitForTimeout(500);
    assert.equal(await page.evaluate(() => Boolean(customElements.get('highwater-playground'))), false);
    assert.ok(await page.locator('#fallback').isVisible(), 'the fallback link shows');
  } finally {
    await page.context().close();
  }
});

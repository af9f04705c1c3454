// The sample documentation site (site/, VitePress), built by
// scripts/docs-site.mjs from the packed tarball and served as static files:
// the iframe embed and the elements render, the site's styles do not reach
// into the element, two elements on one page are independent, the Chinese
// page's element speaks Chinese. Screenshots of every page at 1440 and 390 px
// go to test-results/docs-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  NAME, ELEMENT, packTarball, tmpdir, serveDir, launch, open, waitReady, shadowView, positions, screenshotPath, elementMissing,
} from './package-harness.mjs';
import { buildDocsSite } from '../../scripts/docs-site.mjs';

const PAGES = [
  { name: 'lesson', path: 'index.html', elements: 2 },
  { name: 'zh-hans', path: 'zh-hans/index.html', elements: 1 },
  { name: 'iframe', path: 'iframe.html', elements: 0 },
  { name: 'acks-1-loss', path: 'acks-1-loss.html', elements: 1 },
  { name: 'zh-hans-acks-1-loss', path: 'zh-hans/acks-1-loss.html', elements: 1 },
];

let out;
let server;
let browser;
before(async () => {
  const { tarball } = packTarball();
  out = buildDocsSite({ tarball, out: tmpdir('docs-out'), log: () => {} }).out;
  server = await serveDir(out);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Fails with the reason when the site has no element module to load. */
function assertElementPackaged() {
  assert.ok(fs.existsSync(path.join(out, NAME, ELEMENT)), elementMissing(`the docs site's copy of the package (${NAME}/)`));
}

test('the site is built from the installed package: its pages, the package copy, no package page', () => {
  for (const p of PAGES) assert.ok(fs.existsSync(path.join(out, p.path)), p.path);
  for (const f of ['core.js', 'index.html', 'pkg/highwater_bg.wasm', 'package.json']) assert.ok(fs.existsSync(path.join(out, NAME, f)), `${NAME}/${f}`);
  assert.ok(!fs.existsSync(path.join(out, 'public')), 'public/ is copied, not rendered as pages');
  const lesson = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
  // Vue left the custom elements as they are written, attributes included.
  assert.match(lesson, /<highwater-playground id="min-isr" scenario="hw-is-min-isr-leo" step="9"[^>]*>/);
  assert.match(lesson, /<highwater-playground id="kip101" scenario="kip101-loss-after-restart" step="8"[^>]*>/);
  assert.match(fs.readFileSync(path.join(out, 'zh-hans', 'index.html'), 'utf8'), /<highwater-playground [^>]*lang="zh-Hans"/);
  // The first element's poster, from the package's copy, shown until the element draws.
  assert.match(lesson, /<highwater-playground id="min-isr"[^>]*><img [^>]*src="\/highwater-playground\/posters\/hw-is-min-isr-leo\.svg"[^>]*elementtiming="highwater-poster"/);
  assert.ok(fs.existsSync(path.join(out, NAME, 'posters', 'hw-is-min-isr-leo.svg')));
});

test('screenshots of every page at 1440 and 390 px', { timeout: 180000 }, async () => {
  for (const p of PAGES) {
    for (const width of [1440, 390]) {
      const page = await open(browser, `${server.url}${p.path}`, { viewport: { width, height: width > 500 ? 900 : 844 } });
      await page.locator('.VPContent').waitFor();
      // Give each embed its chance to load (lazily, in view); the other tests say whether it did.
      for (const el of await page.locator('highwater-playground').all()) {
        await el.scrollIntoViewIfNeeded();
        await page.waitForFunction((e) => e.hasAttribute('data-ready'), await el.elementHandle(), { timeout: 8000 }).catch(() => {});
      }
      if (p.name === 'iframe') {
        await page.locator('#embed-kip101').scrollIntoViewIfNeeded();
        await page.frameLocator('#embed-kip101').locator('body[data-ready="true"]').waitFor({ timeout: 30000 });
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: screenshotPath(`docs-${p.name}-${width}.png`), fullPage: true });
      // The page fits its width: no sideways scrolling on a phone.
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), `${p.path} at ${width}px scrolls sideways`);
      await page.context().close();
    }
  }
});

test('the iframe page: the package\'s embedded page shows the run at its step', { timeout: 60000 }, async () => {
  const page = await open(browser, `${server.url}iframe.html`);
  await page.locator('#embed-kip101').scrollIntoViewIfNeeded();
  const frame = page.frameLocator('#embed-kip101');
  await frame.locator('body[data-ready="true"]').waitFor({ timeout: 30000 });
  assert.equal(await frame.locator('.broker-row').count(), 3);
  assert.equal((await frame.locator('#position').textContent()).trim().split(' ')[0], '13');
  assert.ok(await frame.locator('highwater-playground[controls="compact"] .hw.compact').count(), 'the embedded layout');
  const src = await page.locator('#embed-kip101').getAttribute('src');
  assert.match(src, new RegExp(`^/${NAME}/index\\.html\\?embed&lang=en#s=v1\\.`));
  // The theme imports the element module on every page: while the package has
  // none, that one request fails (the element tests say so); nothing else may.
  const packaged = fs.existsSync(path.join(out, NAME, ELEMENT));
  const elementLoad = (s) => !packaged && (s.endsWith(`/${NAME}/${ELEMENT}`) || s.startsWith(`${NAME}: could not load`));
  assert.deepEqual(page.failed.filter((s) => !elementLoad(s)), []);
  assert.deepEqual(page.errors.filter((s) => !elementLoad(s)), []);
  await page.context().close();
});

test('the lesson: both elements render, and each keeps its own step', { timeout: 90000 }, async () => {
  assertElementPackaged();
  const page = await open(browser, `${server.url}index.html`);
  assert.equal(await waitReady(page, 'highwater-playground'), 2);
  const a = await shadowView(page, '#min-isr');
  const b = await shadowView(page, '#kip101');
  assert.ok(a.open && b.open, 'open shadow roots');
  assert.equal(a.brokerRows, 3);
  assert.equal(b.brokerRows, 3);

  const lastOf = async (id) => (await positions(page)).filter((e) => e.id === id).at(-1)?.detail;
  assert.equal((await lastOf('min-isr'))?.position, 9);
  assert.equal((await lastOf('kip101'))?.position, 8);
  // The page's own script follows the second element through the event.
  await page.waitForFunction(() => document.querySelector('.readout')?.textContent.trim() === 'Step 8 of 19');

  // Moving one element moves only that one.
  const before = (await positions(page)).length;
  await page.locator('#min-isr').evaluate((el) => el.setAttribute('step', '5'));
  await page.waitForFunction(() => window.__positions.some((e) => e.id === 'min-isr' && e.detail.position === 5));
  const since = (await positions(page)).slice(before);
  assert.ok(since.every((e) => e.id === 'min-isr'), `the other element moved too: ${JSON.stringify(since)}`);
  assert.equal((await lastOf('kip101')).position, 8);
  assert.equal(await page.locator('.readout').textContent().then((t) => t.trim()), 'Step 8 of 19');
  assert.notEqual((await shadowView(page, '#min-isr')).text, a.text, 'the element shows the new step');
  assert.equal((await shadowView(page, '#kip101')).text, b.text, 'the other element still shows its step');
  assert.deepEqual(page.failed, []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

/** Computed styles of the element's headings, paragraphs, buttons and cells, in document order. */
function shadowStyles(host) {
  const props = ['font-family', 'font-size', 'font-weight', 'font-style', 'line-height', 'letter-spacing', 'color', 'text-transform', 'margin-top', 'margin-bottom', 'padding-left', 'border-top-width', 'background-color'];
  return [...host.shadowRoot.querySelectorAll('h1, h2, h3, h4, p, button, li, td, th, a, code')].slice(0, 60).map((el) => {
    const cs = getComputedStyle(el);
    return `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}: ${props.map((p) => `${p}=${cs.getPropertyValue(p)}`).join('; ')}`;
  });
}

test('the site\'s styles do not reach into the element: it looks as on a bare page', { timeout: 90000 }, async () => {
  assertElementPackaged();
  const page = await open(browser, `${server.url}index.html`);
  await waitReady(page, '#kip101');
  const width = await page.locator('#kip101').evaluate((el) => el.getBoundingClientRect().width);
  const inSite = await page.locator('#kip101').evaluate(shadowStyles);

  // The same element on a page with no styles of its own, at the same width.
  fs.writeFileSync(path.join(out, 'bare.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Bare</title></head><body>
<script type="module">import './${NAME}/${ELEMENT}';</script>
<highwater-playground id="kip101" scenario="kip101-loss-after-restart" step="8" height="520px" style="display:block;width:${width}px"></highwater-playground>
</body></html>`);
  const bare = await open(browser, `${server.url}bare.html`);
  await waitReady(bare, '#kip101');
  const inBare = await bare.locator('#kip101').evaluate(shadowStyles);
  assert.ok(inSite.length > 3, `too few elements to compare: ${inSite.length}`);
  assert.deepEqual(inSite, inBare);

  // And the element leaves the site's own headings and paragraphs as the theme draws them.
  const siteText = (p) => p.evaluate(() => ['h1', '.vp-doc p'].map((s) => {
    const cs = getComputedStyle(document.querySelector(s));
    return `${s}: ${cs.fontFamily} ${cs.fontSize} ${cs.color} ${cs.lineHeight}`;
  }));
  const iframePage = await open(browser, `${server.url}iframe.html`);
  assert.deepEqual(await siteText(page), await siteText(iframePage));
  for (const p of [page, bare, iframePage]) await p.context().close();
});

test('the Chinese page: the element speaks zh-Hans', { timeout: 60000 }, async () => {
  assertElementPackaged();
  const page = await open(browser, `${server.url}zh-hans/index.html`);
  assert.equal(await page.locator('html').getAttribute('lang'), 'zh-Hans');
  await waitReady(page, 'highwater-playground');
  const view = await shadowView(page, '#kip101-zh');
  assert.equal(view.brokerRows, 3);
  const han = (view.text.match(/[\u4e00-\u9fff]/g) || []).length;
  assert.ok(han > 20, `few Chinese characters in the element (${han}): ${view.text.slice(0, 200)}`);
  assert.deepEqual(page.failed, []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// The lesson written only in the tour format (site/public/lessons/acks-1-loss.json),
// played by the element's tour-src in the page's language, with its predictions.
// The choices are buttons while asked ([data-testid="tour-choices"]
// button[data-tour="choice"]), then a list with the model's answer marked
// (.correct); each choice sends highwater-answer.
const LESSON = JSON.parse(fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'site', 'public', 'lessons', 'acks-1-loss.json'), 'utf8'));

test('the lesson file is copied to the site as it is, and the pages embed it by tour-src', () => {
  const served = path.join(out, 'lessons', 'acks-1-loss.json');
  assert.ok(fs.existsSync(served), 'lessons/acks-1-loss.json is in the built site');
  assert.deepEqual(JSON.parse(fs.readFileSync(served, 'utf8')), LESSON);
  for (const p of ['acks-1-loss.html', 'zh-hans/acks-1-loss.html']) {
    assert.match(fs.readFileSync(path.join(out, p), 'utf8'), /<highwater-playground [^>]*tour-src="\/lessons\/acks-1-loss\.json"/, p);
  }
});

for (const [lang, file] of [['en', 'acks-1-loss.html'], ['zh-Hans', 'zh-hans/acks-1-loss.html']]) {
  test(`the tour-file lesson in ${lang}: the file's title, a prediction with the model's choices, the answer marked and announced`, { timeout: 90000 }, async () => {
    assertElementPackaged();
    const page = await open(browser, `${server.url}${file}`);
    assert.equal(await page.locator('html').getAttribute('lang'), lang);
    await waitReady(page, 'highwater-playground');
    const host = page.locator('highwater-playground');
    await host.locator('[data-testid="tour-caption"]').waitFor({ timeout: 30000 });
    assert.equal((await host.locator('#tour [data-testid="tour-title"]').textContent()).trim(), LESSON.title[lang]);
    // Every answer the element announces.
    await page.evaluate(() => {
      window.__answers = [];
      document.addEventListener('highwater-answer', (e) => window.__answers.push({ ...e.detail }));
    });
    const stops = LESSON.parts.flatMap((p) => p.stops);
    const first = stops.findIndex((s) => s.predict);
    assert.ok(first >= 0, 'the lesson has a prediction stop');
    // Up to the first prediction: "do" stops done for the learner, then Next.
    for (let i = 0; i < first; i++) {
      if (stops[i].do) await host.locator('#tour button[data-tour="do"]').click();
      await host.locator('#tour button[data-tour="next"]').click();
    }
    const stop = stops[first];
    const choices = host.locator('[data-testid="tour-choices"] button[data-tour="choice"]');
    await choices.first().waitFor({ timeout: 30000 });
    const n = await choices.count();
    assert.ok(n >= 3 && n <= 4, `${n} choices`);
    // The board waits at the position before the stop while the learner chooses.
    assert.equal((await host.locator('#position').textContent()).trim().split(' ')[0], String(stop.at - 1));
    await choices.first().click();
    // (In the element's compact size the verdict, which names both values, stands for the marked list.)
    const correct = host.locator('[data-testid="tour-choices"] .tour-choice.correct');
    await correct.waitFor({ state: 'attached', timeout: 10000 });
    await host.locator('[data-testid="tour-verdict"]').waitFor();
    assert.equal(await correct.count(), 1, 'one choice is marked as the model\'s answer');
    // The model's answer: the stop's own fact at the predicted path (the lesson states it, tour check holds it).
    const answer = stop.predict.split('.').reduce((v, k) => v?.[k], { ...stop.facts, brokers: stop.facts.brokers });
    await page.waitForFunction(() => window.__answers.length > 0);
    const [detail] = await page.evaluate(() => window.__answers);
    assert.equal(detail.stop, stop.key);
    assert.ok('chosen' in detail && typeof detail.correct === 'boolean', JSON.stringify(detail));
    if (answer !== undefined) assert.equal(detail.correct, JSON.stringify(detail.chosen) === JSON.stringify(answer), JSON.stringify(detail));
    await page.waitForFunction((at) => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.trim().startsWith(`${at} /`), stop.at);
    assert.equal((await host.locator('[data-testid="tour-caption"]').textContent()).trim(), stop.caption[lang]);
    assert.deepEqual(page.failed, []);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

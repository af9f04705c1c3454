// Layout, accessibility and motion: the embed fits 800x500, the main view
// fits 360 px, long logs are windowed, every control has a name, reduced
// motion means no animation. Also writes the screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, noHorizontalScroll, loadFromGallery, brokerButton, produce, ROOT, RESULTS, loadCore } from './harness.mjs';

let env;
let core;
before(async () => {
  env = await setup();
  core = await loadCore();
  fs.mkdirSync(RESULTS, { recursive: true });
});
after(async () => { await env?.close(); });

function link(scenario) {
  const sim = core.Simulation.fromScenario(scenario);
  const text = sim.toLink();
  sim.free();
  return text;
}

const scenarioFile = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', `${name}.json`), 'utf8'));

function longRun(brokers, records) {
  const steps = [];
  for (let i = 0; i < records; i++) steps.push({ produce: { value: `r${i}`, acks: '1' } });
  for (let b = 2; b <= brokers; b++) steps.push({ fetch: b }, { fetch: b });
  return { version: 1, name: 'Long logs', config: { brokers }, steps };
}

test('the embed view fits an 800x500 frame (and a smaller one) without horizontal scroll', async () => {
  const cases = [
    ['isolated-old-leader', { width: 800, height: 500 }],
    ['kip101-loss-after-restart', { width: 800, height: 500 }],
    ['timed-failover', { width: 480, height: 360 }],
  ];
  for (const [name, viewport] of cases) {
    const page = await openPage(env, { path: '?embed', hash: `#s=${link(scenarioFile(name))}`, viewport });
    assert.ok(await noHorizontalScroll(page), `${name} at ${viewport.width}x${viewport.height}`);
    // Compact chrome: no page toolbar, no producer form; the player and the link out are there.
    assert.equal(await page.locator('#btn-gallery').isVisible(), false);
    assert.equal(await page.locator('#produce-form').isVisible(), false);
    assert.equal(await page.locator('#btn-play').isVisible(), true);
    assert.match(await page.locator('#open-full').getAttribute('href'), /#s=v1\./);
    // The player works in the embed.
    await page.click('#btn-start');
    await page.click('#btn-forward');
    assert.match(await page.locator('#position').textContent(), /^1 \//);
    await page.context().close();
  }
  const seven = await openPage(env, { path: '?embed', hash: `#s=${link(longRun(7, 300))}`, viewport: { width: 800, height: 500 } });
  assert.ok(await noHorizontalScroll(seven), '7 brokers, 300 records');
});

test('the main view at 360 px wide has no horizontal scroll', async () => {
  const viewport = { width: 360, height: 740 };
  const page = await openPage(env, { viewport });
  assert.ok(await noHorizontalScroll(page), 'empty playground');
  await loadFromGallery(page, 'Isolated old leader');
  await page.locator('#banner .banner').waitFor();
  assert.ok(await noHorizontalScroll(page), 'scenario with a banner');
  await page.locator('.broker-row[data-broker="3"] summary').click();
  assert.ok(await noHorizontalScroll(page), 'broker menu open');
  const long = await openPage(env, { viewport, hash: `#s=${link(longRun(7, 300))}` });
  assert.ok(await noHorizontalScroll(long), '7 brokers, 300 records');
  await long.click('#btn-explore');
  assert.ok(await noHorizontalScroll(long), 'search dialog');
});

test('long logs are windowed: a few cells in the DOM, and the offsets can be scrolled', async () => {
  const page = await openPage(env, { hash: `#s=${link(longRun(3, 1000))}` });
  const cells = await page.locator('.broker-row[data-broker="1"] .cell').count();
  assert.ok(cells > 3 && cells < 200, `${cells} cells drawn for 1000 records`);
  // Following the end: the last record is drawn.
  assert.equal(await page.locator('.broker-row[data-broker="1"] .cell-value').last().textContent(), 'r999');
  await page.locator('#log-window').waitFor();
  await page.locator('#win-start').fill('0');
  assert.equal(await page.locator('.broker-row[data-broker="1"] .cell-value').first().textContent(), 'r0');
  await page.click('#win-next');
  const first = await page.locator('.broker-row[data-broker="1"] .cell .cell-offset').first().textContent();
  assert.ok(Number(first) > 0, `after "later" the first offset is ${first}`);
  await page.click('#win-end');
  assert.equal(await page.locator('.broker-row[data-broker="1"] .cell-value').last().textContent(), 'r999');
  // The event log is windowed too.
  const rows = await page.locator('#event-log .log-line').count();
  assert.ok(rows > 5 && rows < 100, `${rows} log rows drawn`);
});

test('every control has an accessible name', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, 'Isolated old leader');
  const nameless = await page.evaluate(() => {
    const missing = [];
    for (const el of document.querySelectorAll('button, select, input, textarea, summary, a[href]')) {
      const labelled = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || (el.labels && el.labels.length) || el.textContent.trim() || el.getAttribute('title');
      if (!labelled) missing.push(el.outerHTML.slice(0, 80));
    }
    return missing;
  });
  assert.deepEqual(nameless, []);
});

test('reduced motion: no animation; otherwise a fetch travels between the brokers', async () => {
  const calm = await openPage(env, { reducedMotion: 'reduce' });
  await produce(calm, 'm1');
  await brokerButton(calm, 2, 'fetch').click();
  assert.equal(await calm.locator('.overlay .envelope').count(), 0);

  const lively = await openPage(env, { reducedMotion: 'no-preference' });
  await produce(lively, 'm1');
  await brokerButton(lively, 2, 'fetch').click();
  await lively.locator('.overlay .envelope').first().waitFor({ state: 'attached' });
  assert.match(await lively.locator('.overlay .envelope').first().textContent(), /Fetch @0/);
});

test('screenshots of the main view and the embed view, light and dark', async () => {
  const hash = `#s=${link({ ...scenarioFile('kip101-loss-after-restart') })}&at=13`;
  const shots = {};
  for (const colorScheme of ['light', 'dark']) {
    const main = await openPage(env, { hash, colorScheme, viewport: { width: 1440, height: 900 } });
    await main.locator('#banner .banner').waitFor();
    shots[`main-${colorScheme}`] = path.join(RESULTS, `main-${colorScheme}.png`);
    await main.screenshot({ path: shots[`main-${colorScheme}`] });
    const embed = await openPage(env, { path: '?embed', hash, colorScheme, viewport: { width: 800, height: 500 } });
    await embed.locator('#banner .banner').waitFor();
    shots[`embed-${colorScheme}`] = path.join(RESULTS, `embed-${colorScheme}.png`);
    await embed.screenshot({ path: shots[`embed-${colorScheme}`] });
    const phone = await openPage(env, { hash, colorScheme, viewport: { width: 360, height: 760 } });
    await phone.screenshot({ path: path.join(RESULTS, `main-360-${colorScheme}.png`) });
    for (const p of [main, embed, phone]) await p.context().close();
  }
  // The README's pictures are refreshed on request only, so a test run leaves the tree clean.
  if (process.env.HIGHWATER_SCREENSHOTS) {
    fs.copyFileSync(shots['main-light'], path.join(ROOT, 'docs', 'screenshot-main.png'));
    fs.copyFileSync(shots['embed-light'], path.join(ROOT, 'docs', 'screenshot-embed.png'));
  }
  for (const file of Object.values(shots)) assert.ok(fs.statSync(file).size > 10000, file);
});

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
    await page.locator('#open-full[href*="#s=v1."]').waitFor({ state: 'attached', timeout: 5000 }); // made after the frame
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
  await long.locator('#dlg-explore[open]').waitFor();
  assert.ok(await noHorizontalScroll(long), 'search dialog');
});

/**
 * Each drawn cell of a broker's row against where its offset is: the
 * window's first offset at the track's left padding, one cell width per
 * offset (the ruler's ticks and the LEO marker by the same measure).
 */
async function cellPlaces(page, broker) {
  return page.locator(`.broker-row[data-broker="${broker}"] > .track`).evaluate((track) => {
    const box = track.getBoundingClientRect();
    const style = getComputedStyle(track);
    const cell = parseFloat(style.getPropertyValue('--cell-w'));
    const pad = parseFloat(style.getPropertyValue('--pad'));
    const start = Number(track.dataset.windowStart);
    const at = (o) => pad + (o - start) * cell;
    const drawn = [...track.querySelectorAll('.cell')].map((el) => ({ offset: Number(el.querySelector('.cell-offset').textContent), left: el.getBoundingClientRect().left - box.left }));
    const left = new Map(drawn.map((c) => [c.offset, c.left]));
    const ruler = track.closest('.cluster').querySelector('.ruler');
    const rulerLeft = ruler.getBoundingClientRect().left;
    const ticks = [...ruler.querySelectorAll('.tick')].map((el) => ({ offset: Number(el.textContent), left: el.getBoundingClientRect().left - rulerLeft }));
    const leo = Number(track.closest('.broker-row').querySelector('[data-stat="leo"]').textContent);
    return {
      start, cells: drawn.length, first: drawn[0]?.offset, last: drawn.at(-1)?.offset,
      worst: Math.max(...drawn.map((c) => Math.abs(c.left - at(c.offset)))),
      // The marker's line is 2 px left of its slot (style.css .marker).
      leoError: Math.abs(track.querySelector('.marker-leo').getBoundingClientRect().left - box.left + 2 - at(leo)),
      tickErrors: ticks.filter((tk) => left.has(tk.offset)).map((tk) => Math.abs(tk.left - left.get(tk.offset))),
    };
  });
}

test('every cell is drawn at its offset, the ruler\'s tick and the LEO marker with it, wherever the window starts and at every zoom', async () => {
  const page = await openPage(env, { viewport: { width: 1440, height: 900 }, hash: `#s=${link(longRun(3, 1100))}` });
  await page.locator('#log-window').waitFor();
  const seen = [];
  for (const zoom of ['normal', 'compact', 'dense']) {
    await page.locator('#zoom').evaluate((el, value) => { el.value = value; el.dispatchEvent(new Event('change')); }, zoom);
    // The end (1,100 records), a window across the 1,024th offset, the start.
    for (const from of [null, 1010, 0]) {
      if (from === null) {
        if (await page.locator('#win-end').isEnabled()) await page.click('#win-end');
      } else await page.locator('#win-start').fill(String(from));
      let r = null;
      for (let tries = 0; tries < 50; tries++) {
        r = await cellPlaces(page, 1);
        if (from === null ? r.last === 1099 : r.start === from) break;
        await page.waitForTimeout(50);
      }
      seen.push([zoom, r.start]);
      assert.ok(r.cells > 3, `${zoom} from ${r.start}: ${r.cells} cells`);
      assert.equal(r.first, r.start, `${zoom}: the first cell drawn is the window's first offset`);
      assert.ok(r.worst < 0.5, `${zoom} from ${r.start}: a cell is ${r.worst} px from its offset`);
      assert.ok(r.tickErrors.length > 0 && r.tickErrors.every((e) => e < 0.5), `${zoom} from ${r.start}: ticks ${r.tickErrors.join(' ')}`);
      if (from === null) {
        assert.equal(r.last, 1099);
        assert.ok(r.leoError < 0.5, `${zoom}: the LEO marker is ${r.leoError} px from offset 1100`);
      }
    }
  }
  assert.ok(seen.some(([, start]) => start > 1024) && seen.some(([, start]) => start > 1000 && start < 1024), seen.join(' '));
  assert.deepEqual(page.errors, []);
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
  // The event log keeps its last 300 lines in the DOM (and says how many are left to the Trace dialog).
  const rows = await page.locator('#event-log .log-line').count();
  assert.equal(rows, 301, `${rows} log rows drawn`);
  assert.match(await page.locator('#event-log .log-earlier').textContent(), /earlier lines: Trace as text has them all/);
});

test('every control has an accessible name', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, 'Isolated old leader');
  const nameless = await page.evaluate(() => {
    const missing = [];
    for (const el of document.querySelector('highwater-playground').shadowRoot.querySelectorAll('button, select, input, textarea, summary, a[href]')) {
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

test('the gallery\'s eight version buttons fit their card at 360 px and at 800x500', async () => {
  for (const viewport of [{ width: 360, height: 740 }, { width: 800, height: 500 }]) {
    const page = await openPage(env, { viewport });
    await page.click('#btn-gallery');
    await page.locator('#gallery .variants').first().waitFor();
    const overflow = await page.evaluate(() => {
      const bad = [];
      for (const group of document.querySelector('highwater-playground').shadowRoot.querySelectorAll('#gallery .variants')) {
        const card = group.closest('.gallery-card').getBoundingClientRect();
        const buttons = group.querySelectorAll('button');
        if (buttons.length !== 8) bad.push(`${buttons.length} buttons`);
        for (const b of buttons) {
          const r = b.getBoundingClientRect();
          if (r.left < card.left || r.right > card.right) bad.push(`${b.getAttribute('aria-label')} at ${r.left}–${r.right}, card ${card.left}–${card.right}`);
          if (r.width < 24 || r.height < 20) bad.push(`${b.getAttribute('aria-label')} is ${r.width}x${r.height}`);
        }
      }
      const dialog = document.querySelector('highwater-playground').shadowRoot.querySelector('#dlg-gallery');
      if (dialog.scrollWidth > dialog.clientWidth) bad.push('the dialog scrolls sideways');
      return bad;
    });
    assert.deepEqual(overflow, [], `${viewport.width}x${viewport.height}`);
    assert.equal(await page.locator('#gallery .variants').count(), 5);
    assert.ok(await noHorizontalScroll(page), `${viewport.width}x${viewport.height}`);
    await page.context().close();
  }
});

test('the rules dialog, the settings and a 4.1 state with ELR marks fit 360 px and the 800x500 embed', async () => {
  const hash = `#s=${link(scenarioFile('eligible-leader-replicas'))}&at=12`;
  const sideways = (page, sel) => page.evaluate((s) => { const d = document.querySelector('highwater-playground').shadowRoot.querySelector(s); return d.scrollWidth > d.clientWidth; }, sel);
  for (const [p, viewport] of [['', { width: 360, height: 740 }], ['?embed', { width: 800, height: 500 }]]) {
    const page = await openPage(env, { path: p, hash, viewport });
    assert.ok(await noHorizontalScroll(page), `ELR state ${p} ${viewport.width}`);
    assert.equal(await page.locator('[data-testid="elr"]').count(), 2);
    await page.locator('#caption [data-testid="version"]').click();
    await page.locator('#dlg-rules').waitFor();
    assert.equal(await sideways(page, '#dlg-rules'), false, `rules dialog ${p} ${viewport.width}`);
    const box = await page.locator('#dlg-rules').boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= viewport.width, `rules dialog inside the viewport: ${JSON.stringify(box)}`);
    await page.keyboard.press('Escape');
    if (!p) {
      await page.click('#btn-settings');
      assert.equal(await sideways(page, '#dlg-settings'), false, 'settings dialog');
      const select = await page.locator('#settings-form [name="protocol"]').boundingBox();
      const dialog = await page.locator('#dlg-settings').boundingBox();
      assert.ok(select.x + select.width <= dialog.x + dialog.width, 'the version picker fits the dialog');
    }
    await page.context().close();
  }
});

test('screenshots of the main view and the embed view, light and dark', async () => {
  const hash = `#s=${link({ ...scenarioFile('kip101-loss-after-restart') })}&at=17`;
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
  // Kafka 4.1 with Eligible Leader Replicas (offline, then elected from the ELR), the rules in force, a starting broker.
  const elr = (at) => `#s=${link(scenarioFile('eligible-leader-replicas'))}&at=${at}`;
  const fast = `#s=${link({ version: 1, name: 'A fast restart', config: {}, steps: [{ produce: { value: 'm1', acks: 'all' } }, { fetch: 2 }, { fetch: 3 }, { advance_ms: 2000 }, { crash: { broker: 2 } }, { restart: 2 }] })}`;
  const sizes = { desktop: { width: 1440, height: 900 }, '360': { width: 360, height: 760 } };
  for (const [size, viewport] of Object.entries(sizes)) {
    const page = await openPage(env, { hash: elr(12), viewport });
    await page.screenshot({ path: path.join(RESULTS, `elr-41-${size}.png`), fullPage: size === '360' });
    await page.locator('#caption [data-testid="version"]').click();
    await page.screenshot({ path: path.join(RESULTS, `rules-${size}.png`) });
    await page.keyboard.press('Escape');
    await page.click('#btn-settings');
    await page.screenshot({ path: path.join(RESULTS, `settings-${size}.png`) });
    await page.keyboard.press('Escape');
    await page.click('#btn-gallery');
    await page.locator('#gallery .variants').first().waitFor();
    await page.locator('#gallery .gallery-card').last().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS, `gallery-${size}.png`) });
    const starting = await openPage(env, { hash: fast, viewport });
    await starting.screenshot({ path: path.join(RESULTS, `starting-${size}.png`), fullPage: size === '360' });
    for (const p of [page, starting]) await p.context().close();
  }
  const embed = await openPage(env, { path: '?embed', hash: elr(13), viewport: { width: 800, height: 500 } });
  await embed.screenshot({ path: path.join(RESULTS, 'elr-41-embed.png') });
  await embed.locator('#caption [data-testid="version"]').click();
  await embed.screenshot({ path: path.join(RESULTS, 'rules-embed.png') });
  await embed.context().close();
  // The README's pictures are refreshed on request only, so a test run leaves the tree clean.
  if (process.env.HIGHWATER_SCREENSHOTS) {
    fs.copyFileSync(shots['main-light'], path.join(ROOT, 'docs', 'screenshot-main.png'));
    fs.copyFileSync(shots['embed-light'], path.join(ROOT, 'docs', 'screenshot-embed.png'));
  }
  for (const file of Object.values(shots)) assert.ok(fs.statSync(file).size > 10000, file);
});

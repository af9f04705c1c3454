// The first screen of free play: on a first visit the full page shows the
// brokers and the main actions (Produce, Fetch, Crash, the clock, Play); the
// other tools are grouped (www/element/groups.js) and collapsed, open with one
// click, and stay open (or closed) across reloads. The embedded sizes show
// what their size shows, whatever the page remembers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, RESULTS } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

/** The controls a reader sees in the viewport: all, and those that can be used (not disabled). */
function controlsInView(page) {
  return page.evaluate(() => {
    const root = document.querySelector('highwater-playground').shadowRoot;
    const shown = [...root.querySelectorAll('button, select, input, summary, a[href], textarea')].filter((el) => {
      const r = el.getBoundingClientRect();
      return el.checkVisibility({ visibilityProperty: true }) && r.width > 0 && r.height > 0 && r.top < innerHeight && r.bottom > 0;
    });
    return { all: shown.length, usable: shown.filter((el) => !el.disabled).length, names: shown.map((el) => el.textContent.trim() || el.getAttribute('aria-label')) };
  });
}

const shown = (page, selector) => page.locator(selector).first().isVisible();

test('a first visit at 1440x900: the brokers and the main actions, the other tools collapsed behind their toggles', async () => {
  const page = await openPage(env, { viewport: { width: 1440, height: 900 }, groups: null });
  for (const main of ['#btn-produce', '#btn-consume', '#btn-clock', '#btn-play', '.broker-row[data-broker="2"] button[data-action="fetch"]', '.broker-row[data-broker="1"] button[data-action="crash"]']) {
    assert.equal(await shown(page, main), true, `${main} is on the first screen`);
  }
  for (const tool of ['#btn-explore', '#btn-fork', '#btn-whatif', '#btn-settings', '#btn-copy-link', '#btn-embed', '#export-menu', '#btn-session', '#btn-elect', '.broker-actions .more', '#zoom', '#link-form', '#operator', '#event-log', '#diagram']) {
    assert.equal(await shown(page, tool), false, `${tool} waits behind its group's toggle`);
  }
  for (const toggle of ['#btn-tools', '[data-group-toggle="network"]', '[data-group-toggle="operator"]', '[data-group-toggle="events"]', '[data-group-toggle="diagram"]']) {
    assert.equal(await page.locator(toggle).getAttribute('aria-expanded'), 'false', toggle);
  }
  const first = await controlsInView(page);
  // Play and the timeline's buttons are there but disabled until there is a run to play.
  assert.ok(first.all <= 25, `${first.all} controls in view: ${first.names.join(' | ')}`);
  // The timeline's buttons come with the first step; Play is there, not pressable.
  for (const later of ['#btn-start', '#btn-back', '#btn-forward', '#timeline', '#btn-reset']) assert.equal(await shown(page, later), false, `${later} waits for a step`);
  assert.equal(await page.locator('#btn-play').isDisabled(), true);
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, 'first-screen-1440.png') });
  assert.deepEqual(page.errors, []);
});

test('Tools opens every tool with one click (the row, the clock\'s others, each broker\'s More), and the page remembers it', async () => {
  const page = await openPage(env, { viewport: { width: 1440, height: 900 }, groups: null });
  await page.click('#btn-tools');
  assert.equal(await page.locator('#btn-tools').getAttribute('aria-expanded'), 'true');
  for (const tool of ['#btn-explore', '#btn-settings', '#export-menu', '#btn-session', '#btn-lag', '#btn-elect', '.broker-row[data-broker="2"] .more', '#zoom']) {
    assert.equal(await shown(page, tool), true, tool);
  }
  // One click on a tool works at once.
  await page.click('#btn-settings');
  await page.locator('#dlg-settings[open]').waitFor();
  await page.keyboard.press('Escape');
  // Kept across a reload, and closed again the same way.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.locator('#btn-tools').getAttribute('aria-expanded'), 'true');
  assert.equal(await shown(page, '#btn-explore'), true);
  await page.click('#btn-tools');
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await shown(page, '#btn-explore'), false);
  assert.deepEqual(page.errors, []);
});

test('a panel opens from its heading, is drawn when opened, and stays open across a reload', async () => {
  const page = await openPage(env, { viewport: { width: 1440, height: 900 }, groups: null });
  await page.click('#btn-produce');
  // A closed panel costs nothing: it is drawn when it opens.
  assert.equal(await page.locator('#event-log').evaluate((el) => el.childElementCount), 0);
  assert.equal(await page.locator('#operator').evaluate((el) => el.childElementCount), 0);
  const toggle = page.locator('[data-group-toggle="events"]');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  assert.match(await page.locator('#event-log').textContent(), /appended|m1/);
  await page.locator('[data-group-toggle="diagram"]').click();
  await page.locator('#diagram svg').first().waitFor();
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await shown(page, '#event-log'), true);
  assert.equal(await shown(page, '#diagram'), true);
  assert.equal(await shown(page, '#link-form'), false, 'the others stay closed');
  // The operator's view: its drawing code loads when the panel first opens.
  await page.locator('[data-group-toggle="operator"]').click();
  await page.locator('#operator pre').waitFor();
  assert.match(await page.locator('#operator').textContent(), /kafka-topics/);
  assert.deepEqual(page.errors, []);
});

test('the embed shows what its size shows, whatever the page remembers', async () => {
  const seen = async (groups) => {
    const page = await openPage(env, { path: '?embed', viewport: { width: 800, height: 500 }, groups });
    const r = await controlsInView(page);
    assert.equal(await page.locator('[data-group-toggle]').evaluateAll((els) => els.filter((el) => el.checkVisibility()).length), 0, 'no toggles in the embed');
    assert.deepEqual(page.errors, []);
    await page.context().close();
    return r.names;
  };
  assert.deepEqual(await seen(null), await seen(['tools', 'network', 'operator', 'events', 'diagram']));
});

/** The control the keyboard focus is on, inside the element's shadow root: its id, or its text. */
function focused(page) {
  return page.evaluate(() => {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    return el ? el.id || el.textContent.trim() : null;
  });
}

test('Produce is within the first 10 Tab stops of free play; the top row and the Tools row are one Tab stop each, the arrow keys move along them', async () => {
  const page = await openPage(env, { viewport: { width: 1440, height: 900 }, groups: null });
  const stops = [];
  for (let i = 0; i < 12 && !stops.includes('btn-produce'); i++) {
    await page.keyboard.press('Tab');
    stops.push(await focused(page));
  }
  const at = stops.indexOf('btn-produce') + 1;
  assert.ok(at >= 1 && at <= 10, `Produce is Tab stop ${at}: ${stops.join(' | ')}`);
  assert.equal(stops[0], 'btn-tours');
  assert.equal(stops.filter((id) => ['btn-gallery', 'btn-tools', 'btn-glossary', 'lang'].includes(id)).length, 0, 'the rest of the top row is not a Tab stop of its own');
  // Shift+Tab back to the top row, then along it with the arrow keys (and no step is taken).
  await page.keyboard.press('Home');
  for (let i = 0; i < at - 1; i++) await page.keyboard.press('Shift+Tab');
  assert.equal(await focused(page), 'btn-tours');
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(page), 'btn-gallery');
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(page), 'btn-tools');
  await page.keyboard.press('End');
  assert.equal(await focused(page), 'lang');
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(page), 'btn-tours', 'the row wraps round');
  // The row remembers the control used last: Tools, opened with Enter, is the Tab stop now.
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('#btn-tools').getAttribute('aria-expanded'), 'true');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'btn-explore', 'Tab goes from the top row to the Tools row');
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(page), 'btn-fork');
  await page.keyboard.press('Tab');
  assert.notEqual(['btn-whatif', 'btn-write', 'btn-settings'].includes(await focused(page)), true, 'the Tools row is one Tab stop');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await focused(page), 'btn-fork', 'the Tools row keeps its control');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await focused(page), 'btn-tools');
  // A run to step through: with the focus on a button put there by a click, the arrows step the timeline as before.
  await page.click('#btn-produce');
  await page.click('#btn-glossary');
  await page.locator('#dlg-glossary[open]').waitFor(); // its words are fetched at its first opening
  await page.keyboard.press('Escape');
  await page.locator('#dlg-glossary[open]').waitFor({ state: 'detached' });
  await page.click('#btn-tours');
  await page.locator('#dlg-tours[open]').waitFor();
  await page.keyboard.press('Escape');
  await page.locator('#dlg-tours[open]').waitFor({ state: 'detached' });
  await page.locator('#btn-tools').click();
  await page.keyboard.press('ArrowLeft');
  assert.equal((await page.locator('#position').textContent()).trim(), '0 / 1', 'a clicked button leaves the arrows to the timeline');
  assert.deepEqual(page.errors, []);
});

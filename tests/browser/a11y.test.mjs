// Accessibility: axe-core finds no serious or critical violation on the main
// page (with its tools open, and as a first visit finds it), a tour stop (and
// one in lesson mode on a phone), the embed, the fork view and the outcome grid, in English
// and Simplified Chinese, light and dark (axe pierces the element's open
// shadow root); and Escape closes every menu and every dialog.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, loadCore, ROOT } from './harness.mjs';

const AXE = fs.readFileSync(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const KIP101 = fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', 'kip101-loss-after-restart.json'), 'utf8');

let env;
let kip101Link;
before(async () => {
  env = await setup();
  const core = await loadCore();
  const sim = core.Simulation.fromScenario(JSON.parse(KIP101));
  kip101Link = sim.toLink();
  sim.free();
});
after(async () => { await env?.close(); });

/** axe's violations on the page as it is now (axe injected once per document). */
async function violations(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ content: AXE });
  return page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.flat().join(' > '), summary: n.failureSummary, impact: n.impact })),
  }))));
}

/** The violations a reader should fix first, one line each. */
function describe(list) {
  return list.flatMap((v) => v.nodes.map((n) => `${v.id} (${n.impact || v.impact}) ${n.target}\n    ${(n.summary || v.help).replace(/\n\s*/g, ' | ')}`)).join('\n');
}

const serious = (list) => list.filter((v) => v.impact === 'serious' || v.impact === 'critical');

/** Switches the page's colour scheme and waits until the element follows. */
async function scheme(page, colorScheme) {
  await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
  await page.waitForFunction((s) => document.querySelector('highwater-playground').dataset.scheme === s, colorScheme);
}

const STATES = {
  main: async (lang) => openPage(env, { path: `?lang=${lang}`, viewport: { width: 1440, height: 900 } }),
  'first visit': async (lang) => openPage(env, { path: `?lang=${lang}`, viewport: { width: 1440, height: 900 }, groups: null }),
  'lesson on a phone': async (lang) => {
    const page = await openPage(env, { path: `?lang=${lang}&tour=hw-truncation-loss&step=3`, viewport: { width: 390, height: 844 }, groups: null });
    await page.waitForSelector('highwater-playground >> [data-testid="task-control"]');
    return page;
  },
  tour: async (lang) => {
    const page = await openPage(env, { path: `?lang=${lang}&tour=leo-and-hw&step=2`, viewport: { width: 1440, height: 900 } });
    await page.waitForSelector('highwater-playground >> [data-testid="tour-caption"]');
    return page;
  },
  // The KRaft quorum: a row per controller (the full page), then one row (a tour stop).
  'quorum rows': async (lang) => {
    const page = await openPage(env, { path: `?lang=${lang}&tour=two-replication-protocols&step=5`, viewport: { width: 1440, height: 900 } });
    await page.waitForSelector('highwater-playground >> .quorum-row .md-cell');
    return page;
  },
  'quorum rows, open': async (lang) => {
    const page = await openPage(env, { path: `?lang=${lang}&tour=two-replication-protocols&step=9`, viewport: { width: 1440, height: 900 } });
    await page.click('highwater-playground >> button[data-quorum-toggle]');
    await page.waitForSelector('highwater-playground >> .controller-row[data-controller="3"] .md-cell');
    return page;
  },
  // A tour file's prediction stop: the question, its choices, then the marked answer.
  'prediction stop': async (lang) => {
    const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 }, reducedMotion: 'reduce' });
    await context.route(`${env.url}lessons/acks-1-loss.json`, (route) => route.fulfill({ contentType: 'application/json', path: path.join(ROOT, 'examples', 'tours', 'acks-1-loss.json') }));
    const page = await context.newPage();
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    await page.goto(`${env.url}?lang=${lang}&tour-src=lessons/acks-1-loss.json&step=3`);
    await page.waitForSelector('highwater-playground >> .tour-choice:not(:disabled)');
    return page;
  },
  'lesson writer': async (lang) => {
    const page = await openPage(env, { path: `?lang=${lang}`, viewport: { width: 1440, height: 900 } });
    await page.click('#btn-write');
    await page.click('#writer [data-writer="add"]');
    await page.waitForSelector('highwater-playground >> #writer textarea[data-field="caption"]');
    return page;
  },
  embed: async (lang) => {
    const page = await openPage(env, { path: `?embed&lang=${lang}`, hash: `#s=${kip101Link}&at=12`, viewport: { width: 800, height: 500 } });
    await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#position')?.textContent.trim().startsWith('12 /'));
    return page;
  },
  fork: async (lang) => {
    const page = await openPage(env, { path: `?lang=${lang}`, hash: `#s=${kip101Link}&at=19&fork=protocol=0.11`, viewport: { width: 1440, height: 1000 } });
    await page.waitForFunction(() => document.querySelector('highwater-playground').playground?.forkView?.sim
      && document.querySelector('highwater-playground').shadowRoot.querySelector('#compare [data-testid="fork-change"]'));
    return page;
  },
  grid: async (lang) => {
    const page = await openPage(env, { path: `?lang=${lang}`, hash: `#s=${kip101Link}&at=19`, viewport: { width: 1440, height: 900 } });
    await page.click('#btn-whatif');
    await page.waitForSelector('#dlg-whatif[data-ready="true"]');
    return page;
  },
};

/** A11Y_SUMMARY=1: every violation's count by rule and impact, per state (the serious ones fail the test). */
const summary = {};
after(() => {
  if (!process.env.A11Y_SUMMARY) return;
  for (const [state, list] of Object.entries(summary)) {
    const counts = {};
    for (const v of list) counts[`${v.id} ${v.impact}`] = (counts[`${v.id} ${v.impact}`] || 0) + v.nodes.length;
    console.log(state, JSON.stringify(counts));
  }
});

for (const [state, open] of Object.entries(STATES)) {
  for (const lang of ['en', 'zh-Hans']) {
    test(`axe: no serious or critical violation, ${state} (${lang}), light and dark`, async () => {
      const page = await open(lang);
      const found = [];
      for (const colorScheme of ['light', 'dark']) {
        await scheme(page, colorScheme);
        const list = await violations(page);
        summary[`${state} ${lang} ${colorScheme}`] = list;
        // In lesson mode the scenario's heading gives way: the tour's title is the h2 before the panels' h3s.
        const bad = [...serious(list), ...(state === 'tour' || state === 'lesson on a phone' ? list.filter((v) => v.id === 'heading-order') : [])];
        if (bad.length) found.push(`${colorScheme}:\n${describe(bad)}`);
      }
      assert.deepEqual(page.errors, []);
      await page.context().close();
      assert.equal(found.length, 0, `${state} (${lang}):\n${found.join('\n')}`);
    });
  }
}

/** The element's focused element (inside its shadow root). */
const focused = (page) => page.evaluate(() => {
  const el = document.querySelector('highwater-playground').shadowRoot.activeElement;
  return el ? `${el.tagName.toLowerCase()}${el.closest('details') ? ` in ${el.closest('details').className}` : ''}` : null;
});

test('Escape closes every menu (a broker\'s More, Export) and gives the focus back to its button', async () => {
  const page = await openPage(env, { path: '?lang=en', hash: `#s=${kip101Link}&at=8`, viewport: { width: 1440, height: 900 } });
  const more = page.locator('.broker-row[data-broker="2"] details.more');
  const exportMenu = page.locator('#export-menu');
  const isOpen = (loc) => loc.evaluate((d) => d.open);
  // Opened by a click, closed by Escape: the focus is on the summary.
  await more.locator('summary').click();
  assert.equal(await isOpen(more), true);
  await page.keyboard.press('Escape');
  assert.equal(await isOpen(more), false);
  assert.equal(await focused(page), 'summary in more');
  // Opened from the keyboard, Escape from a field inside the menu.
  await page.keyboard.press('Enter');
  assert.equal(await isOpen(more), true);
  await more.locator('input[data-field="lose"]').focus();
  await page.keyboard.press('Escape');
  assert.equal(await isOpen(more), false);
  assert.equal(await focused(page), 'summary in more');
  // The position did not move: Escape is not a player key.
  assert.match(await page.locator('#position').textContent(), /^8 \//);
  await exportMenu.locator('summary').click();
  assert.equal(await isOpen(exportMenu), true);
  await exportMenu.locator('button[data-export="trace"]').focus();
  await page.keyboard.press('Escape');
  assert.equal(await isOpen(exportMenu), false);
  assert.equal(await focused(page), 'summary in export-menu');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('Escape closes every dialog and the help', async () => {
  const page = await openPage(env, { path: '?lang=en', hash: `#s=${kip101Link}&at=19`, viewport: { width: 1440, height: 900 } });
  const dialogs = [
    ['#btn-tours', '#dlg-tours'],
    ['#btn-gallery', '#dlg-gallery'],
    ['#btn-glossary', '#dlg-glossary'],
    ['#btn-settings', '#dlg-settings'],
    ['#caption button[data-action="rules"]', '#dlg-rules'],
    ['#btn-explore', '#dlg-explore'],
    ['#btn-fork', '#dlg-fork'],
    ['#btn-whatif', '#dlg-whatif'],
    ['#btn-embed', '#dlg-embed'],
    ['#btn-trace', '#dlg-trace'],
  ];
  const left = [];
  for (const [button, dialog] of dialogs) {
    await page.click(button);
    await page.locator(`${dialog}[open]`).waitFor();
    await page.keyboard.press('Escape');
    try {
      await page.locator(dialog).waitFor({ state: 'hidden', timeout: 2000 });
    } catch {
      left.push(dialog);
    }
  }
  assert.deepEqual(left, []);
  await page.click('#btn-help');
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.getElementById('help').matches(':popover-open'));
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('highwater-playground').shadowRoot.getElementById('help').matches(':popover-open'));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the focus stays on a broker\'s control after Crash, Restart and Power loss, so the keyboard goes on from there', async () => {
  const page = await openPage(env, { viewport: { width: 1440, height: 900 } });
  const active = () => page.evaluate(() => {
    const el = document.querySelector('highwater-playground').shadowRoot.activeElement;
    return el ? `${el.dataset.action}@${el.dataset.broker}` : null;
  });
  const role = (b) => page.locator(`.broker-row[data-broker="${b}"]`).getAttribute('class');
  await page.locator('.broker-row[data-broker="2"] button[data-action="crash"]').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('.broker-row[data-broker="2"]').className.includes('role-down'));
  assert.equal(await active(), 'restart@2', 'Crash became Restart under the focus');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => !document.querySelector('highwater-playground').shadowRoot.querySelector('.broker-row[data-broker="2"]').className.includes('role-down'));
  assert.equal(await active(), 'crash@2', 'and Restart became Crash again');
  // Power loss, in the More menu, goes with the broker: the focus moves to its Restart.
  await page.locator('.broker-row[data-broker="3"] summary').click();
  await page.locator('.broker-row[data-broker="3"] button[data-action="powerloss"]').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('.broker-row[data-broker="3"]').className.includes('role-down'));
  assert.match(await role(3), /role-down/);
  assert.equal(await active(), 'restart@3');
  assert.deepEqual(page.errors, []);
});

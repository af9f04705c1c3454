// The iframe embed fits 800x500 for every gallery scenario at every step: no
// scroll bars, and no marker label drawn over another.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, loadCore, ROOT } from './harness.mjs';

let env;
let core;
before(async () => { env = await setup(); core = await loadCore(); });
after(async () => { await env?.close(); });

/** Sizes of the page and the marker labels that overlap within a broker row. */
function measure() {
  const overlaps = [];
  for (const row of document.querySelector('highwater-playground').shadowRoot.querySelectorAll('.broker-row')) {
    const labels = [...row.querySelectorAll('.marker-label')].map((el) => ({ text: el.textContent, r: el.getBoundingClientRect() })).filter((l) => l.r.width > 0);
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i].r;
        const b = labels[j].r;
        if (a.left < b.right - 1 && a.right > b.left + 1 && a.top < b.bottom - 1 && a.bottom > b.top + 1) overlaps.push(`broker ${row.dataset.broker}: "${labels[i].text}" over "${labels[j].text}"`);
      }
    }
  }
  return { w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight, overlaps };
}

for (const lang of ['en', 'zh-Hans']) {
  test(`every gallery scenario fits the 800x500 embed at every step (${lang})`, async () => {
    const gallery = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'gallery.json'), 'utf8'));
    const page = await openPage(env, { path: `?embed&lang=${lang}`, viewport: { width: 800, height: 500 } });
    const bad = [];
    for (const e of gallery.entries) {
      const sim = core.Simulation.fromScenario(e.scenario);
      const link = sim.toLink();
      const length = sim.length();
      sim.free();
      await page.goto(`${env.url}?embed&lang=${lang}#s=${link}&at=0`);
      await page.waitForSelector('body[data-ready="true"]');
      for (let at = 0; at <= length; at++) {
        if (at > 0) await page.keyboard.press('ArrowRight');
        await page.waitForFunction((n) => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.trim().startsWith(`${n} /`), at);
        const m = await page.evaluate(measure);
        if (m.w > 800 || m.h > 500) bad.push(`${e.id} at ${at}: ${m.w}x${m.h}`);
        for (const o of m.overlaps) bad.push(`${e.id} at ${at}: ${o}`);
      }
    }
    assert.deepEqual(bad, []);
    assert.deepEqual(page.errors, []);
  });
}

test('an empty ?embed says what it is and where to go; with a run it shows the step as before', async () => {
  for (const [lang, words] of [['en', /^An empty run: this embed shows the run it is given\. Use “Open in Highwater ↗” to make your own, or to take a tour\.$/], ['zh-Hant', /^這是一次空的模擬/]]) {
    const page = await openPage(env, { path: `?embed&lang=${lang}`, viewport: { width: 800, height: 500 } });
    assert.match(await page.locator('[data-testid="empty-embed"]').textContent(), words);
    assert.equal(await page.locator('#open-full').isVisible(), true, 'the link it names is there');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
  const core = await loadCore();
  const sim = core.Simulation.fromScenario({ version: 1, config: { brokers: 3 }, steps: [{ produce: { value: 'm1' } }] });
  const link = sim.toLink();
  sim.free();
  const page = await openPage(env, { path: '?embed', hash: `#s=${link}`, viewport: { width: 800, height: 500 } });
  assert.equal(await page.locator('[data-testid="empty-embed"]').count(), 0);
  assert.match(await page.locator('#caption').textContent(), /produce “m1”/);
  await page.context().close();
});

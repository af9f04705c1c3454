// One screen: at every moment of every tour (a stop as it opens, and again
// after its step or its answer) the brokers the stop speaks of are fully in
// the viewport together with the caption (or the question) and the control
// it asks for, on a 390x844 phone, at 1280x720 and 1440x900, and in the
// 800x500 embed, in every language. Lesson mode is designed for it (a short
// broker card, the details the tour speaks of, a banner in two lines); after
// a tour action the page scrolls the board into view without losing the
// panel's top. A screenshot of each tour's busiest stop per size and
// language is kept in test-results/one-screen/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, RESULTS } from './harness.mjs';
import { SIZES, tourIds, tourStops, walkTour, outOfView } from './one-screen.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => env && env.close());

const SHOTS = path.join(RESULTS, 'one-screen');

for (const size of SIZES) {
  for (const lang of ['en', 'zh-Hans', 'zh-Hant']) {
    test(`${size.name} (${size.width}x${size.height}), ${lang}: every tour's brokers, caption and control in view at every moment`, async () => {
      fs.mkdirSync(SHOTS, { recursive: true });
      const context = await env.browser.newContext({ viewport: { width: size.width, height: size.height }, reducedMotion: 'reduce', colorScheme: lang === 'zh-Hant' ? 'dark' : 'light' });
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const problems = [];
      let moments = 0;
      for (const id of tourIds()) {
        const stops = tourStops(id);
        const busiest = stops.reduce((best, s, i) => (s.named.length > stops[best].named.length ? i : best), 0) + 1;
        const seen = await walkTour(page, env.url, id, lang, {
          embed: size.embed,
          onMoment: async (s) => {
            if (s.stop === busiest && s.moment === 'open') await page.screenshot({ path: path.join(SHOTS, `${id}-${size.name}-${lang}.png`) });
          },
        });
        assert.equal(seen.filter((s) => s.moment === 'open').length, stops.length, `${id}: every stop reached`);
        moments += seen.length;
        for (const s of outOfView(seen)) problems.push(`${id} stop ${s.stop} (${s.key}, ${s.moment}): ${JSON.stringify({ caption: s.caption, control: s.control, brokers: s.brokers })}`);
      }
      assert.ok(moments > 100, `${moments} moments`);
      assert.deepEqual(problems, []);
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
}

/** The page with an empty run at `size`, as a reader opens it. */
async function freePlay(size) {
  const context = await env.browser.newContext({ viewport: { width: size.width, height: size.height }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.url);
  await page.waitForSelector('body[data-ready="true"]');
  return { context, page, errors };
}

// Free play: Produce and the leader's log on one screen, before and after
// the first records: the Producer form beside the board on a wide screen,
// the leader's own Produce (the form's value and acks) on a narrow one.
for (const size of SIZES.filter((s) => !s.embed)) {
  test(`free play, ${size.name} (${size.width}x${size.height}): Produce and the leader's log in view together, before and after producing`, async () => {
    const { context, page, errors } = await freePlay(size);
    const seen = () => page.evaluate(() => {
      const root = document.querySelector('highwater-playground').shadowRoot;
      const fully = (el) => { const r = el.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth; };
      const leader = root.querySelector('[data-testid="partition-leader"]').textContent.match(/\d+/)[0];
      const produce = [root.querySelector(`.broker-row[data-broker="${leader}"] button[data-produce]`), root.querySelector('#btn-produce')].find((b) => b && b.offsetParent);
      return { produce: fully(produce), log: fully(root.querySelector(`.broker-row[data-broker="${leader}"] .track`)), leader };
    });
    assert.deepEqual(await seen(), { produce: true, log: true, leader: '1' }, 'the empty run');
    const own = page.locator('highwater-playground').locator('.broker-row[data-broker="1"] button[data-produce]');
    assert.equal(await own.isVisible(), size.width < 1100, 'the leader\'s own Produce on a narrow screen');
    const produce = size.width < 1100 ? own : page.locator('highwater-playground').locator('#btn-produce');
    for (const value of ['m1', 'm2', 'm3']) {
      await produce.click();
      await page.locator('highwater-playground').locator('.broker-row[data-broker="1"] .cell-value', { hasText: value }).waitFor();
      assert.deepEqual(await seen(), { produce: true, log: true, leader: '1' }, `after producing ${value}`);
    }
    assert.deepEqual(errors, []);
    await context.close();
  });
}

// Free play as the hints lead it: after every action the hint and the broker
// it speaks of are fully in view (the page scrolls up by what is missing,
// never past the hint), and so is Produce.
for (const size of SIZES.filter((s) => !s.embed)) {
  test(`free play, ${size.name}: following the hints, the hint and the broker it names stay in view after every action`, async () => {
    const { context, page, errors } = await freePlay(size);
    const host = page.locator('highwater-playground');
    const seen = () => page.evaluate(() => {
      const root = document.querySelector('highwater-playground').shadowRoot;
      const fully = (el) => { if (!el) return null; const r = el.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; };
      const hint = root.querySelector('[data-testid="hint"]');
      const text = hint ? hint.textContent : '';
      const broker = (text.match(/broker (\d)/) || [])[1] || null;
      const produce = [root.querySelector('.layout button[data-produce]'), root.querySelector('#btn-produce')].find((b) => b && b.offsetParent);
      return { text, broker, hint: fully(hint), row: broker ? fully(root.querySelector(`.layout .broker-row[data-broker="${broker}"]`)) : true, produce: fully(produce) };
    });
    let actions = 0;
    for (const step of ['produce', 'hint', 'hint', 'hint', 'hint', 'produce', 'hint', 'hint']) {
      const now = await seen();
      if (step === 'produce' || /produce a record/.test(now.text)) await host.locator(size.width < 1100 ? '.layout button[data-produce]' : '#btn-produce').click();
      else if (/press Fetch on broker (\d)/.test(now.text)) await host.locator(`.broker-row[data-broker="${now.broker}"] button[data-action="fetch"]`).click();
      else break;
      actions += 1;
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const after = await seen();
      if (!after.text) continue;
      assert.deepEqual({ hint: after.hint, row: after.row, produce: after.produce }, { hint: true, row: true, produce: true }, `after action ${actions}: ${after.text}`);
    }
    assert.ok(actions >= 5, `${actions} actions`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

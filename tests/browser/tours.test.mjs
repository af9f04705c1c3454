// Tours play from start to end in every language; the URL carries the stop;
// a "do" stop waits for the learner's own action; the player never adds steps.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, loadFromGallery, missingKeys, produce, ROOT, RESULTS, addressWritten } from './harness.mjs';
import { flatten } from '../../www/words/i18n.js';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const { tours } = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'tours', 'index.json'), 'utf8'));
const tourData = (id) => JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'tours', `${id}.json`), 'utf8'));
const texts = (lang) => new Map(flatten(JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'locales', lang, 'tours.json'), 'utf8'))));
const stepParam = (page) => new URL(page.url()).searchParams.get('step');
/** The scenario step a "do" stop asks for. */
const stepOf = (id, stop) => tourData(id).parts.find((p) => p.stops.some((s) => s.key === stop.key)).scenario.steps[stop.at - 1];
/** What a task must name of its step, in any language: the value and acks of a produce, the broker of the rest. */
function stepFacts(step) {
  const [kind] = Object.keys(step);
  const v = step[kind];
  if (kind === 'produce') return [v.value, `acks=${v.acks ?? 'all'}`];
  if (kind === 'crash') return [v.rack ?? `broker ${v.broker}`];
  // A partition's number (words differ by language; the number does not).
  if (kind === 'elect_preferred') return v === null ? [] : [String(v)];
  if (typeof v === 'number' && kind !== 'advance_ms') return [`broker ${v}`];
  if (kind === 'advance_ms') return [String(v >= 1000 ? v / 1000 : v)];
  return [];
}

for (const lang of ['en', 'zh-Hans', 'zh-Hant']) {
  test(`every tour plays from its first stop to its last in ${lang}, each caption the locale's, the URL on the stop`, async () => {
    const words = texts(lang);
    const page = await openPage(env, { path: `?lang=${lang}` });
    assert.equal(await page.evaluate(() => document.documentElement.lang), lang);
    for (const id of tours) {
      const stops = tourData(id).parts.flatMap((p) => p.stops);
      await page.goto(`${env.url}?lang=${lang}&tour=${id}`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.locator('[data-testid="tour-caption"]').waitFor();
      for (let i = 0; i < stops.length; i++) {
        const stop = stops[i];
        const caption = page.locator('[data-testid="tour-caption"]');
        await page.waitForFunction((at) => Number(document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.split('/')[0]) >= at - 1 && !document.querySelector('highwater-playground').shadowRoot.querySelector('#btn-play').classList.contains('playing'), stop.at);
        assert.equal(stepParam(page), String(i + 1), `${id} stop ${i + 1}: step in the URL`);
        assert.equal(await page.locator('[data-testid="tour-count"]').textContent(), lang === 'en' ? `${i + 1} of ${stops.length}` : await page.locator('[data-testid="tour-count"]').textContent());
        if (stop.predict) {
          // A question first: the choices, the caption (which tells) held back; any choice moves on.
          const choice = page.locator('#tour button[data-tour="choice"]:not([disabled])');
          await choice.first().waitFor();
          assert.equal(await caption.count(), 0, `${id}/${stop.key}: the caption waits for the answer`);
          // The question names what it asks in words, never by the fact's path.
          const question = await page.locator('#tour .tour-question').first().textContent();
          assert.ok(!/[a-z]+_[a-z_]+/.test(question) && !(stop.predict.includes('.') && question.includes(stop.predict)), `${id}/${stop.key}: the question “${question}” names ${stop.predict} in words`);
          await choice.first().click();
        }
        if (stop.do) {
          // The task first, said from the step itself (its value, acks, broker); its control takes the step, then the caption.
          const task = await page.locator('[data-testid="tour-task"]').textContent();
          for (const fact of stepFacts(stepOf(id, stop))) assert.ok(task.includes(fact), `${id}/${stop.key}: the task “${task}” names ${fact}`);
          assert.equal(words.has(`${id}.tasks.${stop.key}`), false, `${id}/${stop.key}: no task words of the tour's own`);
          await page.locator('#tour button[data-tour="do"]').click();
        }
        await page.waitForFunction(([key]) => document.querySelector('highwater-playground').shadowRoot.querySelector('[data-testid="tour-caption"]')?.dataset.stop === key && !document.querySelector('highwater-playground').shadowRoot.querySelector('#tour button[data-tour="next"]')?.textContent.includes('…'), [stop.key]);
        await page.waitForFunction((at) => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.trim().startsWith(`${at} /`), stop.at);
        assert.equal(await caption.textContent(), words.get(`${id}.stops.${stop.key}`), `${id}/${stop.key}: caption`);
        const next = page.locator('#tour button[data-tour="next"]');
        if (i < stops.length - 1) await next.click();
        else assert.equal(await next.count(), 0, `${id}: the last stop offers Finish`);
      }
    }
    assert.deepEqual(await missingKeys(page), []);
    assert.deepEqual(page.errors, []);
  });
}

test('a tour link opens at its stop, a reload shows the same caption, and a bad tour is a message on a working page', async () => {
  const page = await openPage(env, { path: '?tour=leo-and-hw&step=4' });
  const caption = page.locator('[data-testid="tour-caption"]');
  await caption.waitFor();
  const first = await caption.textContent();
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await caption.waitFor();
  assert.equal(await caption.textContent(), first);
  assert.equal(stepParam(page), '4');
  // Stop 4 (the first fetch) is the learner's to take (its control beside the caption); Next then goes to stop 5, and the URL follows.
  assert.ok(tourData('leo-and-hw').parts[0].stops[3].do, 'stop 4 of leo-and-hw is a "do" stop');
  await page.locator('#tour button[data-tour="do"]').click();
  assert.equal(stepParam(page), '4');
  await page.locator('#tour button[data-tour="next"]').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') === '5');
  const bad = await openPage(env, { path: '?tour=%3Cimg%20src%3Dx%3E&step=2' });
  await bad.locator('.notice-error').waitFor();
  assert.match(await bad.locator('.notice-error').textContent(), /no tour “<img src=x>”/);
  assert.equal(await bad.locator('#notices img').count(), 0);
  assert.equal(await bad.locator('#tour').isHidden(), true);
  assert.deepEqual([...page.errors, ...bad.errors], []);
});

test('a "do" stop waits for the learner: the board\'s own Produce, holding the task\'s values, moves the tour on without replacing the run', async () => {
  const page = await openPage(env, { path: '?tour=leo-and-hw&step=2' });
  const caption = page.locator('[data-testid="tour-caption"]');
  await caption.waitFor();
  const words = texts('en');
  assert.equal(await caption.textContent(), 'Your turn: produce “m1” with acks=all.');
  assert.match(await page.locator('#position').textContent(), /^0 \//);
  // The board's controls are one click away; the form holds what the task names.
  await page.locator('#tour button[data-tour="all"]').click();
  assert.equal(await page.locator('#produce-value').inputValue(), 'm1');
  assert.equal(await page.locator('#produce-acks').inputValue(), 'all');
  await page.click('#btn-produce');
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('[data-testid="tour-caption"]').dataset.stop === 'produce' && document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.startsWith('1 /'));
  assert.equal(await caption.textContent(), words.get('leo-and-hw.stops.produce'));
  assert.equal(await page.locator('.tour-off').count(), 0, 'still on the tour');
  assert.equal(await page.locator('.notice', { hasText: 'replaced' }).count(), 0, 'no step was replaced');
  // Something else instead: the tour says so and offers to go back.
  await page.locator('#tour button[data-tour="next"]').click();
  await produce(page, 'other');
  await page.locator('.tour-off').waitFor();
  // The caption now describes the tour's run, not the board: it says so.
  assert.equal(await page.locator('[data-testid="tour-expected"]').textContent(), "What the tour's own run shows here: ");
  assert.match(await caption.textContent(), /^What the tour's own run shows here: /);
  await page.locator('.tour-off button[data-tour="resume"]').click();
  await page.waitForFunction(() => !document.querySelector('highwater-playground').shadowRoot.querySelector('.tour-off'));
  assert.equal(await page.locator('[data-testid="tour-expected"]').count(), 0, 'back on the tour: the caption is the board\'s again');
  assert.deepEqual(page.errors, []);
});

test('Play stops at the end of a loaded scenario, pauses where a guarantee breaks, and never adds a step or changes the scenario in the URL', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, 'KIP-101: an acknowledged write lost to truncation at the high watermark', '0.10', { end: false });
  const position = () => page.locator('#position').textContent();
  assert.equal(await position(), '0 / 19', 'a scenario opens at its start');
  assert.equal(await page.evaluate(() => document.querySelector('highwater-playground').shadowRoot.activeElement.id), 'btn-play', 'focus on Play: Space plays');
  const scenario = () => new URLSearchParams(location.hash.slice(1)).get('s');
  await addressWritten(page);
  const before = await page.evaluate(scenario);
  await page.keyboard.press('Space');
  // It pauses at the step where the loss appears (17 in this scenario)...
  await page.waitForFunction(() => !document.querySelector('highwater-playground').shadowRoot.querySelector('#btn-play').classList.contains('playing'), null, { timeout: 60000 });
  const paused = await position();
  const at = Number(paused.split(' / ')[0]);
  assert.ok(at < 19, `paused before the end at the violation (${paused})`);
  assert.equal(await page.locator('#banner .banner-violation').count(), 1);
  // ...and goes on to the end, where it stops.
  await page.click('#btn-play');
  await page.waitForFunction(() => !document.querySelector('highwater-playground').shadowRoot.querySelector('#btn-play').classList.contains('playing'), null, { timeout: 60000 });
  assert.equal(await position(), '19 / 19');
  await page.waitForTimeout(600);
  assert.equal(await position(), '19 / 19', 'nothing is appended after the end');
  // → at the end adds nothing either.
  await page.keyboard.press('ArrowRight');
  assert.equal(await position(), '19 / 19');
  assert.equal(await page.locator('#btn-forward').isDisabled(), true);
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(scenario), before, 'the scenario in the URL is unchanged');
  assert.deepEqual(page.errors, []);
});

test('the empty page offers the first tour, and a hint follows the state, naming only controls in view', async () => {
  // A first visit: the tools (+session among them) are closed.
  const page = await openPage(env, { groups: null });
  const offer = page.locator('#onboard button[data-start-tour]');
  assert.equal(await offer.getAttribute('data-start-tour'), tours[0]);
  assert.match(await page.locator('[data-testid="hint"]').textContent(), /produce a record/);
  await produce(page, 'm1');
  assert.match(await page.locator('[data-testid="hint"]').textContent(), /press Fetch on broker 2/);
  await page.locator('.broker-row[data-broker="1"] button[data-action="crash"]').click();
  assert.match(await page.locator('[data-testid="hint"]').textContent(), /only when its session times out: advance the clock by 9 s\. \+9 s session$/);
  assert.equal(await page.locator('#btn-session').isVisible(), false, '+session is among the closed tools');
  // The hint's own button is that control: the clock moves by the session timeout and the controller elects.
  const at = await page.locator('#position').textContent();
  await page.locator('[data-testid="hint"] button[data-hint-action="session"]').click();
  await page.waitForFunction((before) => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent !== before, at);
  assert.equal(await page.locator('.caption-what').textContent(), 'advance the clock 9 s');
  assert.notEqual(await page.locator('[data-testid="partition-leader"]').textContent(), 'broker 1');
  await offer.click().catch(() => {});
  assert.deepEqual(page.errors, []);
});

for (const lang of ['zh-Hans', 'zh-Hant']) {
  for (const [w, hgt] of [[1440, 900], [390, 844]]) {
    test(`screenshots in ${lang} at ${w} px: the leo-and-hw tour's two-round lesson`, async () => {
      // Stop 5 (the second fetch) is a prediction: where the page asks for it, any choice moves the board to the stop.
      const page = await openPage(env, { path: `?lang=${lang}&tour=leo-and-hw&step=5`, viewport: { width: w, height: hgt } });
      const at = () => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.startsWith('4 /');
      const choice = page.locator('[data-testid="tour-choices"] button[data-tour="choice"]');
      await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.startsWith('4 /')
        || document.querySelector('highwater-playground').shadowRoot.querySelector('[data-testid="tour-choices"] button[data-tour="choice"]'));
      if (await choice.count()) await choice.first().click();
      await page.waitForFunction(at);
      fs.mkdirSync(RESULTS, { recursive: true });
      const file = path.join(RESULTS, `tour-${lang}-${w}.png`);
      await page.screenshot({ path: file });
      assert.ok(fs.statSync(file).size > 10000, file);
      // The README's Chinese picture is refreshed on request only (make screenshots).
      if (process.env.HIGHWATER_SCREENSHOTS && lang === 'zh-Hans' && w === 1440) fs.copyFileSync(file, path.join(ROOT, 'docs', 'screenshot-zh-Hans.png'));
      assert.deepEqual(await missingKeys(page), []);
      assert.deepEqual(page.errors, []);
    });
  }
}

test('the page speaks the browser\'s language by default: zh-TW is Traditional, zh-CN Simplified, others English', async () => {
  for (const [locale, lang, play] of [['zh-TW', 'zh-Hant', '播放'], ['zh-CN', 'zh-Hans', '播放'], ['fr-FR', 'en', 'Play']]) {
    const page = await openPage(env, { context: { locale } });
    assert.equal(await page.evaluate(() => document.documentElement.lang), lang, locale);
    assert.equal(await page.locator('#lang').inputValue(), lang);
    assert.match(await page.locator('#btn-play').getAttribute('aria-label'), new RegExp(play));
    // The switcher changes every word at once, and the URL keeps the choice for links.
    if (lang !== 'en') {
      await page.selectOption('#lang', 'en');
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
      assert.equal(new URL(page.url()).searchParams.get('lang'), 'en');
      assert.equal(await page.locator('#btn-tours').textContent(), 'Tours');
    }
    assert.deepEqual(await missingKeys(page), []);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('every tour fits the 800x500 embed at every stop: no scroll bars', async () => {
  const page = await openPage(env, { path: '?embed', viewport: { width: 800, height: 500 } });
  for (const id of tours) {
    const stops = tourData(id).parts.flatMap((p) => p.stops);
    await page.goto(`${env.url}?embed&tour=${id}`);
    await page.waitForSelector('body[data-ready="true"]');
    for (let i = 0; i < stops.length; i++) {
      const stop = stops[i];
      if (stop.predict) {
        const choice = page.locator('#tour button[data-tour="choice"]:not([disabled])');
        await choice.first().waitFor();
        const size = await page.evaluate(() => ({ w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight }));
        assert.ok(size.w <= 800 && size.h <= 500, `${id} stop ${i + 1} (${stop.key}, the question): ${size.w}x${size.h}`);
        await choice.first().click();
      }
      if (stop.do) await page.locator('#tour button[data-tour="do"]').click();
      await page.waitForFunction(([key, at]) => document.querySelector('highwater-playground').shadowRoot.querySelector('[data-testid="tour-caption"]')?.dataset.stop === key
        && document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.trim().startsWith(`${at} /`)
        && !document.querySelector('highwater-playground').shadowRoot.querySelector('#btn-play').classList.contains('playing'), [stop.key, stop.at]);
      const size = await page.evaluate(() => ({ w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight }));
      assert.ok(size.w <= 800 && size.h <= 500, `${id} stop ${i + 1} (${stop.key}): ${size.w}x${size.h}`);
      if (i < stops.length - 1) await page.locator('#tour button[data-tour="next"]').click();
    }
  }
  assert.deepEqual(page.errors, []);
});

test('the step\'s explanation is in view beside the picture at 1280x800, 1440x900 and 390x844, and event-log lines wrap', async () => {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 1440, height: 900 }, { width: 390, height: 844 }]) {
    const page = await openPage(env, { viewport });
    await loadFromGallery(page, 'Two fetch rounds', undefined, { end: false });
    // Notices sit in the flow under the timeline: the gallery's "Loaded" one
    // is dismissed, as a reader would, before the layout is measured.
    for (const close of await page.locator('#notices .notice button.close').all()) await close.click();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    const notes = page.locator('#caption .step-notes li');
    assert.ok(await notes.count() > 0, 'the caption explains the step');
    assert.match(await page.locator('#caption').textContent(), /the HW is the smallest LEO in the ISR/);
    const seen = await page.evaluate(() => {
      const r = document.querySelector('highwater-playground').shadowRoot.querySelector('#caption .step-notes').getBoundingClientRect();
      const c = document.querySelector('highwater-playground').shadowRoot.querySelector('#cluster').getBoundingClientRect();
      return { notes: r.top >= 0 && r.bottom <= innerHeight, cluster: c.top < innerHeight };
    });
    assert.equal(seen.notes, true, `${viewport.width}: the explanation is in view`);
    assert.equal(seen.cluster, true, `${viewport.width}: the picture starts in view`);
    // A long line of the event log wraps inside the log instead of being cut.
    const wraps = await page.evaluate(() => [...document.querySelector('highwater-playground').shadowRoot.querySelectorAll('#event-log .log-line')].every((l) => l.scrollWidth <= l.clientWidth + 1));
    assert.equal(wraps, true, `${viewport.width}: event-log lines wrap`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('keyboard: Next to a question puts the focus on its first choice (Enter chooses it), the last stop on the next tour, and Finish on the Tours button', async () => {
  const page = await openPage(env, { path: '?tour=hw-truncation-loss&step=6' });
  const active = () => page.evaluate(() => {
    const el = document.querySelector('highwater-playground').shadowRoot.activeElement;
    return el ? { id: el.id, tour: el.dataset.tour || null, cls: el.className } : null;
  });
  await page.locator('#tour button[data-tour="do"]').click();
  assert.equal((await active()).tour, 'next', 'after the step, Next');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') === '7');
  await page.locator('#tour button.tour-choice').first().waitFor();
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.activeElement?.classList.contains('tour-choice'));
  await page.keyboard.press('Enter');
  await page.locator('#tour [data-testid="tour-verdict"]').waitFor();
  // The last stop of the first tour, its step taken: the next tour is the next move.
  await page.goto(`${env.url}?tour=leo-and-hw&step=6`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.locator('#tour button[data-tour="do"]').click();
  await page.locator('#tour [data-testid="next-tour"]').waitFor();
  assert.equal((await active()).tour, 'next-tour');
  await page.locator('#tour button[data-tour="close"]', { hasText: 'Finish' }).click();
  assert.equal((await active()).id, 'btn-tours');
  assert.deepEqual(page.errors, []);
});

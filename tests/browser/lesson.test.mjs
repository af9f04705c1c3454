// Lesson mode: while a tour runs, the page shows its caption, the board and
// the control the stop asks for, beside the caption; every other tool is one
// click away ("Show all controls"). At every stop of every tour, on a laptop,
// a phone and in the 800x500 embed, the caption and the stop's button are in
// the viewport; the control a task offers is the board's own; the caption is
// never ahead of the board; Finish offers the next tour, and the list of tours
// marks those done, per language.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, ROOT, RESULTS } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const { tours } = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'tours', 'index.json'), 'utf8'));
const tourData = (id) => JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'tours', `${id}.json`), 'utf8'));
/** Every stop of a tour with the step a "do" stop asks for. */
const stopsOf = (id) => tourData(id).parts.flatMap((p) => p.stops.map((stop) => ({ ...stop, step: stop.do ? p.scenario.steps[stop.at - 1] : null })));

/** What the learner sees: the visible controls, and whether the caption and the stop's button are inside the viewport. */
function seen(page) {
  return page.evaluate(() => {
    const root = document.querySelector('highwater-playground').shadowRoot;
    // Not in a closed menu, not hidden, and drawn with a size.
    const visible = (el) => {
      const r = el.getBoundingClientRect();
      return el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true }) && r.width > 0 && r.height > 0;
    };
    const inView = (el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
    };
    const controls = [...root.querySelectorAll('button, select, input, summary, a[href], textarea')].filter(visible);
    const caption = root.querySelector('[data-testid="tour-caption"]');
    // An open question's button is its first choice; else the stop's primary button.
    const primary = root.querySelector('#tour button.tour-choice') || root.querySelector('#tour .tour-buttons .primary');
    const question = root.querySelector('#tour .tour-question');
    return {
      controls: controls.length,
      names: controls.map((el) => el.textContent.trim() || el.getAttribute('aria-label') || el.id),
      caption: Boolean(caption) && inView(caption),
      question: Boolean(question) && inView(question),
      primary: Boolean(primary) && inView(primary),
      label: primary ? primary.textContent : null,
    };
  });
}

/**
 * Waits until the tour shows `stop` with the board on it: a "do" stop before
 * its step (after, with `done`); a prediction stop asking, one step before
 * (`asking`), else as any other.
 */
function atStop(page, stop, done = false, asking = false) {
  const at = (stop.do || asking) && !done ? stop.at - 1 : stop.at;
  return page.waitForFunction(([key, position, question]) => {
    const root = document.querySelector('highwater-playground').shadowRoot;
    const shown = question ? Boolean(root.querySelector('#tour button.tour-choice')) : root.querySelector('[data-testid="tour-caption"]')?.dataset.stop === key;
    return shown
      && root.querySelector('#position').textContent.trim().startsWith(`${position} /`)
      && !root.querySelector('#btn-play').classList.contains('playing');
  }, [stop.key, at, asking]);
}

/** The board's own control for a step, found with every control shown. */
function boardControl(page, step) {
  const [kind] = Object.keys(step);
  const v = step[kind];
  if (kind === 'produce') return page.locator('#btn-produce');
  if (kind === 'consume') return page.locator('#btn-consume');
  if (kind === 'advance_ms') return page.locator('.toolbar button[data-advance]').filter({ hasText: String(v / 1000) });
  if (kind === 'elect_preferred') return page.locator('#btn-elect-preferred');
  // A rack's crash: the menu of any of its brokers has it.
  if (kind === 'crash' && v.rack !== undefined) return page.locator(`.broker-row button[data-action="crash-rack"][data-rack="${v.rack}"]`);
  const broker = kind === 'crash' ? v.broker : v;
  return page.locator(`.broker-row[data-broker="${broker}"] button[data-action="${kind}"]`);
}

const SIZES = [
  { name: 'laptop', path: '', viewport: { width: 1440, height: 900 } },
  { name: 'phone', path: '', viewport: { width: 390, height: 844 } },
  { name: 'embed', path: '?embed', viewport: { width: 800, height: 500 } },
];

for (const size of SIZES) {
  test(`${size.name} (${size.viewport.width}x${size.viewport.height}): at every stop of every tour the caption and its button are in view, with at most 15 controls shown`, async () => {
    const page = await openPage(env, { path: size.path, viewport: size.viewport });
    let most = { controls: 0 };
    for (const id of tours) {
      const sep = size.path ? '&' : '?';
      await page.goto(`${env.url}${size.path}${sep}tour=${id}`);
      await page.waitForSelector('body[data-ready="true"]');
      const stops = stopsOf(id);
      for (let i = 0; i < stops.length; i++) {
        const stop = stops[i];
        await atStop(page, stop, false, Boolean(stop.predict));
        const phases = [...(stop.predict ? ['question'] : []), ...(stop.do ? ['task', 'done'] : ['caption'])];
        for (const phase of phases) {
          if (phase === 'done') {
            await page.locator('#tour button[data-tour="do"]').click();
            await atStop(page, stop, true);
          }
          if (phase === 'task' || phase === 'caption') await atStop(page, stop);
          const s = await seen(page);
          const where = `${id} stop ${i + 1} (${stop.key}, ${phase})`;
          if (phase === 'question') assert.ok(s.question, `${where}: the question is in view`);
          else assert.ok(s.caption, `${where}: the caption is in view`);
          assert.ok(s.primary, `${where}: its button (${s.label}) is in view`);
          assert.ok(s.controls <= 15, `${where}: ${s.controls} controls: ${s.names.join(' | ')}`);
          if (s.controls > most.controls) most = { ...s, where };
          // The learner chooses (the first choice): the board moves on, or waits for the step.
          if (phase === 'question') await page.locator('#tour .tour-choice').first().click();
        }
        if (i < stops.length - 1) await page.locator('#tour button[data-tour="next"]').click();
      }
    }
    fs.mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS, `lesson-${size.name}.png`) });
    assert.deepEqual(page.errors, []);
  });
}

test('a task\'s control is the board\'s own: the same label, and pressing either takes the run\'s next step', async () => {
  const page = await openPage(env, { viewport: { width: 1440, height: 900 } });
  let checked = 0;
  for (const id of tours) {
    await page.goto(`${env.url}?tour=${id}`);
    await page.waitForSelector('body[data-ready="true"]');
    const stops = stopsOf(id);
    for (let i = 0; i < stops.length; i++) {
      const stop = stops[i];
      if (stop.predict) {
        await atStop(page, stop, false, true);
        await page.locator('#tour .tour-choice').first().click();
      }
      await atStop(page, stop);
      if (stop.do) {
        const label = await page.locator('[data-testid="task-control"]').textContent();
        await page.locator('#tour button[data-tour="all"]').click();
        assert.equal((await boardControl(page, stop.step).first().textContent()).trim(), label, `${id}/${stop.key}: the board's control for ${JSON.stringify(stop.step)}`);
        await page.locator('#tour button[data-tour="all"]').click();
        await page.locator('[data-testid="task-control"]').click();
        await atStop(page, stop, true);
        assert.equal(await page.locator('.tour-off').count(), 0, `${id}/${stop.key}: still on the tour`);
        checked++;
      }
      if (i < stops.length - 1) await page.locator('#tour button[data-tour="next"]').click();
    }
  }
  assert.equal(checked, tours.reduce((n, id) => n + stopsOf(id).filter((s) => s.do).length, 0));
  assert.deepEqual(page.errors, []);
});

test('"Show all controls" brings every tool back and "Show fewer controls" hides them again; closing the tour leaves them all', async () => {
  const page = await openPage(env, { path: '?tour=leo-and-hw&step=3', viewport: { width: 1440, height: 900 } });
  await page.locator('[data-testid="tour-caption"]').waitFor();
  const toggle = page.locator('#tour button[data-tour="all"]');
  assert.equal(await page.locator('#btn-explore').isVisible(), false);
  assert.equal(await page.locator('#produce-form').isVisible(), false);
  const lesson = await seen(page);
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
  assert.equal(await toggle.textContent(), 'Show fewer controls');
  assert.equal(await page.evaluate(() => document.querySelector('highwater-playground').shadowRoot.activeElement?.dataset.tour), 'all', 'the focus stays on the toggle');
  const all = await seen(page);
  assert.ok(all.controls > 40, `${all.controls} controls with every tool shown`);
  for (const id of ['#btn-explore', '#btn-settings', '#produce-form', '#btn-consume']) assert.equal(await page.locator(id).isVisible(), true, id);
  await toggle.click();
  assert.equal((await seen(page)).controls, lesson.controls);
  await page.locator('#tour button[data-tour="close"]').click();
  assert.equal(await page.locator('#btn-explore').isVisible(), true, 'free play shows the tools');
  assert.deepEqual(page.errors, []);
});

test('Next moves the board to the stop at once: the caption is never ahead of it', async () => {
  const page = await openPage(env, { path: '?tour=hw-min-isr', viewport: { width: 1440, height: 900 } });
  const stops = stopsOf('hw-min-isr');
  await atStop(page, stops[0]);
  assert.ok(stops[1].at - stops[0].at > 1, 'the second stop is several steps on');
  // Read in the same task as the click: no frame in which the caption describes another position.
  const r = await page.evaluate(() => {
    const root = document.querySelector('highwater-playground').shadowRoot;
    root.querySelector('#tour button[data-tour="next"]').click();
    return { stop: root.querySelector('[data-testid="tour-caption"]').dataset.stop, position: document.querySelector('highwater-playground').playground.sim.position() };
  });
  assert.deepEqual(r, { stop: stops[1].key, position: stops[1].at });
  assert.deepEqual(page.errors, []);
});

test('Finish offers the next tour in teaching order; the list of tours marks a finished one, per language', async () => {
  const first = stopsOf(tours[0]);
  const page = await openPage(env, { path: `?tour=${tours[0]}&step=${first.length}`, viewport: { width: 1440, height: 900 } });
  const last = first[first.length - 1];
  await atStop(page, last);
  assert.equal(await page.locator('[data-testid="next-tour"]').count(), 0, 'not before the last step is taken');
  if (last.do) await page.locator('[data-testid="task-control"]').click();
  await atStop(page, last, true);
  assert.equal(await page.locator('#tour button[data-tour="close"].primary').textContent(), 'Finish');
  const next = page.locator('[data-testid="next-tour"]');
  assert.equal(await next.getAttribute('data-next'), tours[1]);
  await page.locator('#btn-tours').click();
  await page.locator(`#tour-list li[data-id="${tours[0]}"]`).waitFor();
  const done = () => page.locator('#tour-list li').evaluateAll((els) => Object.fromEntries(els.map((el) => [el.dataset.id, el.dataset.done])));
  assert.deepEqual(await done(), Object.fromEntries(tours.map((id) => [id, String(id === tours[0])])));
  await page.locator('#dlg-tours button[data-close]').click();
  await next.click();
  await page.waitForFunction((id) => new URL(location.href).searchParams.get('tour') === id && new URL(location.href).searchParams.get('step') === '1', tours[1]);
  await atStop(page, stopsOf(tours[1])[0]);
  // Another language keeps a list of its own.
  const zh = await page.context().newPage();
  await zh.goto(`${env.url}?lang=zh-Hans`);
  await zh.waitForSelector('body[data-ready="true"]');
  await zh.locator('#btn-tours').click();
  await zh.locator(`#tour-list li[data-id="${tours[0]}"]`).waitFor();
  assert.deepEqual(await zh.locator('#tour-list li[data-done="true"]').count(), 0);
  assert.deepEqual(page.errors, []);
});

test('at 1x every move of every tour animates in under 2 s (a long timed step overlaps its messages to fit)', async () => {
  const page = await openPage(env, { viewport: { width: 1440, height: 900 }, reducedMotion: 'no-preference' });
  let longest = { ms: 0 };
  for (const id of tours) {
    await page.goto(`${env.url}?tour=${id}`);
    await page.waitForSelector('body[data-ready="true"]');
    const stops = stopsOf(id);
    for (let i = 0; i < stops.length; i++) {
      // A question: "Show me" (the stop's Next) moves the board there; a "do" stop's step is then taken too.
      const reveal = Boolean(stops[i].predict);
      if (reveal) await atStop(page, stops[i], false, true);
      else await atStop(page, stops[i]);
      const moves = [...(reveal ? ['reveal'] : stops[i].do ? ['do'] : []), ...(i < stops.length - 1 ? ['next'] : [])];
      for (const move of moves) {
        // The animation the click starts, as planned (its schedule, not a clock reading).
        const ms = await page.evaluate((m) => {
          const pg = document.querySelector('highwater-playground').playground;
          pg.root.querySelector(`#tour button[data-tour="${m === 'reveal' ? 'next' : m}"]`).click();
          return pg.animation ? pg.animation.plannedMs : 0;
        }, move);
        if (ms > longest.ms) longest = { ms, where: `${id} stop ${i + 1} (${stops[i].key}), ${move}` };
        if (move === 'do' || move === 'reveal') await atStop(page, stops[i], true);
      }
    }
  }
  assert.ok(longest.ms > 0, 'the moves animate');
  assert.ok(longest.ms < 2000, `${longest.where}: ${Math.round(longest.ms)} ms`);
  assert.deepEqual(page.errors, []);
});

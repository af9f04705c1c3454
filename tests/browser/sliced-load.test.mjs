// A long link is computed a slice at a time (playground.js loadLink, the
// core's SimulationBuild): the page's main thread is given back between
// slices, a notice says how far it is and offers Stop, the address keeps the
// link, and the run is then the one the core makes at once. Behaviour only:
// the blocked times are in scripts/bench-main-thread.mjs and
// docs/worst-cases-and-fuzzing.md.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, loadCore, ROOT } from './harness.mjs';

let env;
let core;
before(async () => { env = await setup(); core = await loadCore(); });
after(async () => env && env.close());

const LONG = fs.readFileSync(path.join(ROOT, 'tests/fuzz-seeds/retry-rescan-9999-steps.link'), 'utf8').trim();

/** A page that counts the tasks it gets to run (a chain of 0 ms timeouts) until the element is ready. */
async function openCounting(hash, { slow = 1 } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  await context.addInitScript(() => {
    window.__ticks = 0;
    window.__sawNotice = '';
    const tick = () => {
      window.__ticks += 1;
      const root = document.querySelector('highwater-playground')?.shadowRoot;
      const note = root?.querySelector('.notice-info .notice-text');
      if (note && !window.__sawNotice) window.__sawNotice = note.textContent;
      if (!window.__hash && note) window.__hash = location.hash;
      if (document.body?.dataset.ready !== 'true') setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
  });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  // A slower CPU keeps the computing on screen long enough to act on it.
  if (slow > 1) await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: slow });
  await page.goto(`${env.url}${hash}`);
  return { page, context };
}

test('a long link is computed in slices: the page runs other tasks meanwhile, says how far it is, keeps the link in the address, then shows the run', async () => {
  const expected = core.Simulation.fromLink(LONG);
  const length = expected.length();
  const lastLine = expected.traceLines().at(-1);
  expected.free();
  // A slow phone's CPU (20x): on a fast machine, and with the engine's copies
  // cheaper, at 4x the run could be done before the notice was due.
  const { page, context } = await openCounting(`#s=${LONG}`, { slow: 20 });
  await page.waitForSelector('body[data-ready="true"]', { timeout: 120_000 });
  const root = (sel) => page.locator('highwater-playground').locator(sel);
  assert.equal(await root('#position').textContent(), `${length.toLocaleString('en-US')} / ${length.toLocaleString('en-US')}`);
  const seen = await page.evaluate(() => ({ ticks: window.__ticks, notice: window.__sawNotice, hash: window.__hash }));
  assert.ok(seen.ticks >= 5, `other tasks ran while it was computed: ${seen.ticks}`);
  assert.match(seen.notice, /^Computing the run: step [\d,]+ of 9,999…$/);
  assert.equal(seen.hash, `#s=${LONG}`, 'the address kept the link while it was computed');
  assert.equal(await root('.notice-info', { hasText: 'Computing the run' }).count(), 0, 'the notice goes once the run is there');
  // The same run as the core makes at once: its last trace line.
  const trace = await page.evaluate(() => document.querySelector('highwater-playground').pg.sim.traceLines().at(-1));
  assert.equal(trace, lastLine);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Stop leaves the empty run, live and in the address; a step taken meanwhile stops the computing too', async () => {
  const { page, context } = await openCounting(`#s=${LONG}`, { slow: 20 });
  // Stop is pressed in the task that shows it: at 20x CPU the board drawn
  // meanwhile can move it between Playwright's aim and its click, and the run
  // can be done before a retry (the notice gone).
  await page.evaluate(() => new Promise((resolve, reject) => {
    const press = () => {
      const button = [...(document.querySelector('highwater-playground')?.shadowRoot?.querySelectorAll('.notice-info button.notice-action') ?? [])].find((b) => b.textContent === 'Stop');
      if (!button) return false;
      button.click();
      resolve();
      return true;
    };
    if (press()) return;
    const watch = setInterval(() => { if (press()) clearInterval(watch); }, 0);
    setTimeout(() => { clearInterval(watch); reject(new Error('no Stop in 60 s')); }, 60_000);
  }));
  await page.waitForSelector('body[data-ready="true"]');
  const pos = page.locator('highwater-playground').locator('#position');
  assert.equal(await pos.textContent(), '0 / 0', 'the empty run shown meanwhile stays');
  await page.waitForFunction((long) => location.hash !== `#s=${long}`, LONG);
  assert.deepEqual(page.errors, []);
  await context.close();

  // Producing on the board shown meanwhile is a step on that run: the link gives way.
  const second = await openCounting(`#s=${LONG}`, { slow: 20 });
  const note = second.page.locator('highwater-playground').locator('.notice-info', { hasText: 'Computing the run' });
  await note.waitFor({ timeout: 60_000 });
  await second.page.evaluate(() => document.querySelector('highwater-playground').pg.apply({ produce: { value: 'mine', acks: 'all' } }));
  await second.page.waitForSelector('body[data-ready="true"]');
  await note.waitFor({ state: 'detached' });
  assert.equal(await second.page.locator('highwater-playground').locator('#position').textContent(), '1 / 1', 'the step taken stays');
  assert.deepEqual(second.page.errors, []);
  await second.context.close();
});

// A tour link's run was computed in one task (a fuzz seed wrapped as a
// one-stop tour blocked the main thread 2.5-3.0 s as #t= against 0.16 s as
// #s=): the part the tour opens at is now computed in slices as a link's is.
test('a tour of a long run is computed in slices too: other tasks run meanwhile, the notice says how far it is, then the tour plays at its stop', async () => {
  const expected = core.Simulation.fromLink(LONG);
  const scenario = expected.scenario();
  const length = expected.length();
  expected.free();
  const pkg = await import(`${path.join(ROOT, 'www', 'pkg-fast', 'highwater.js')}?sliced-tour`);
  pkg.initSync({ module: fs.readFileSync(path.join(ROOT, 'www', 'pkg-fast', 'highwater_bg.wasm')) });
  const tour = { highwater_tour: 1, id: 'long-run', title: { en: 'A long run' }, parts: [{ scenario, stops: [{ key: 'end', at: length, caption: { en: 'The end.' } }] }] };
  // Tasks counted until the tour's panel is drawn (the page is ready, with its first board, before).
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  await context.addInitScript(() => {
    window.__ticks = 0;
    window.__sawNotice = '';
    // The notice is seen as it is written (a mutation observer on the
    // element's shadow root), not only when a counting task happens to run
    // while it is up: a fast machine computes the run in well under a second.
    let watched = null;
    const look = (root) => {
      const note = root.querySelector('.notice-info .notice-text');
      if (note && note.textContent && !window.__sawNotice) window.__sawNotice = note.textContent;
    };
    const tick = () => {
      window.__ticks += 1;
      const root = document.querySelector('highwater-playground')?.shadowRoot;
      if (root && watched !== root) {
        watched = root;
        new MutationObserver(() => look(root)).observe(root, { childList: true, subtree: true, characterData: true });
      }
      if (root) look(root);
      if (!root?.querySelector('#tour [data-testid="tour-title"]')) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
  });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  // A phone's CPU (4x slower): on a fast machine the run takes a few tenths
  // of a second, and the notice, written at the first slice past 25 ms, was
  // sometimes never up long enough to be there at all.
  await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await page.goto(`${env.url}#t=${pkg.tourToLink(JSON.stringify(tour))}`);
  const panel = page.locator('highwater-playground').locator('#tour');
  await panel.locator('[data-testid="tour-title"]').waitFor({ timeout: 120_000 });
  const n = length.toLocaleString('en-US');
  await page.waitForFunction((text) => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent === text, `${n} / ${n}`);
  const seen = await page.evaluate(() => ({ ticks: window.__ticks, notice: window.__sawNotice }));
  assert.ok(seen.ticks >= 5, `other tasks ran while it was computed: ${seen.ticks}`);
  assert.match(seen.notice, /^Computing the run: step [\d,]+ of 9,999…$/);
  assert.equal(await panel.locator('[data-testid="tour-caption"]').textContent(), 'The end.');
  assert.deepEqual(page.errors, []);
  await context.close();
});

// A later part of a tour, reached by Next, was built in one task: a long one
// is now computed in slices too, and until it is there the tour stays at the
// stop it was at, its board and its caption together; Stop leaves it there.
test("a tour's later part is computed in slices when Next reaches it; Stop keeps the stop the tour was at", async () => {
  const expected = core.Simulation.fromLink(LONG);
  const scenario = expected.scenario();
  const length = expected.length();
  expected.free();
  const pkg = await import(`${path.join(ROOT, 'www', 'pkg-fast', 'highwater.js')}?sliced-part`);
  pkg.initSync({ module: fs.readFileSync(path.join(ROOT, 'www', 'pkg-fast', 'highwater_bg.wasm')) });
  const short = { version: 1, config: { brokers: 3 }, steps: [{ produce: { value: 'm1' } }, { fetch: 2 }] };
  const tour = {
    highwater_tour: 1, id: 'two-parts', title: { en: 'Two parts' },
    parts: [
      { scenario: short, stops: [{ key: 'short', at: 2, caption: { en: 'A short run.' } }] },
      { scenario, stops: [{ key: 'end', at: length, caption: { en: 'The end.' } }] },
    ],
  };
  const link = pkg.tourToLink(JSON.stringify(tour));
  const n = length.toLocaleString('en-US');
  const open = async (slow) => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    await page.goto(`${env.url}#t=${link}`);
    const panel = page.locator('highwater-playground').locator('#tour');
    await panel.locator('[data-testid="tour-caption"]', { hasText: 'A short run.' }).waitFor({ timeout: 60_000 });
    await page.waitForSelector('body[data-ready="true"]');
    await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: slow });
    return { page, context, panel, root: (sel) => page.locator('highwater-playground').locator(sel) };
  };

  // Next: the page keeps running tasks while the part is computed, the
  // notice says how far it is, and the first stop stays shown until the run is there.
  {
    // A slow phone (20x): on a fast machine the run can finish inside the
    // first slices, before the notice is due (it is written past 25 ms).
    const { page, context, panel, root } = await open(20);
    await page.evaluate(() => {
      window.__ticks = 0;
      window.__seen = [];
      const sr = document.querySelector('highwater-playground').shadowRoot;
      const look = () => {
        const note = sr.querySelector('.notice-info .notice-text');
        if (note && /Computing/.test(note.textContent)) {
          window.__seen.push({ note: note.textContent, caption: sr.querySelector('#tour [data-testid="tour-caption"]').textContent, position: sr.querySelector('#position').textContent });
        }
      };
      new MutationObserver(look).observe(sr, { childList: true, subtree: true, characterData: true });
      const tick = () => {
        window.__ticks += 1;
        if (sr.querySelector('#tour [data-testid="tour-caption"]').textContent !== 'The end.') setTimeout(tick, 0);
      };
      setTimeout(tick, 0);
    });
    await panel.locator('button[data-tour="next"]').click();
    await panel.locator('[data-testid="tour-caption"]', { hasText: 'The end.' }).waitFor({ timeout: 120_000 });
    assert.equal(await root('#position').textContent(), `${n} / ${n}`);
    const { ticks, seen } = await page.evaluate(() => ({ ticks: window.__ticks, seen: window.__seen }));
    assert.ok(ticks >= 5, `other tasks ran while it was computed: ${ticks}`);
    assert.ok(seen.length > 0, 'the progress notice was up');
    assert.match(seen[0].note, /^Computing the run: step [\d,]+ of 9,999…$/);
    for (const s of seen) assert.deepEqual([s.caption, s.position], ['A short run.', '2 / 2'], 'meanwhile the first stop and its board');
    assert.equal(await root('.notice-info', { hasText: 'Computing the run' }).count(), 0, 'the notice goes once the run is there');
    // Back to the short part: at once.
    await panel.locator('button[data-tour="back"]').click();
    await panel.locator('[data-testid="tour-caption"]', { hasText: 'A short run.' }).waitFor();
    assert.equal(await root('#position').textContent(), '2 / 2');
    assert.deepEqual(page.errors, []);
    await context.close();
  }

  // Stop: the tour stays at its first stop, with that stop's board and address.
  {
    const { page, context, panel, root } = await open(20);
    await panel.locator('button[data-tour="next"]').click();
    const stop = root('.notice-info button.notice-action', { hasText: 'Stop' });
    await stop.waitFor({ timeout: 60_000 });
    // The notice is written again at each slice (its step count), so at 20x
    // the button may move or be replaced between Playwright's checks and its
    // pointer click; a click event on the button as it is now is what a
    // user's click on it does.
    await stop.dispatchEvent('click');
    await root('.notice-info', { hasText: 'Computing the run' }).waitFor({ state: 'detached' });
    assert.equal(await panel.locator('[data-testid="tour-caption"]').textContent(), 'A short run.');
    assert.equal(await root('#position').textContent(), '2 / 2');
    assert.equal(new URL(page.url()).searchParams.get('step'), '1');
    assert.deepEqual(page.errors, []);
    await context.close();
  }
});

// The views (the diagram, the fork, the operator's view) are in the full
// core (core.js): one opened while a link is computed loads it, and the
// link's run is computed again there, not given up for the board shown
// meanwhile.
test('a view opened while a long link is computed: the full core comes, and the link\'s run is the one shown, in it, with the view drawn', { timeout: 240_000 }, async () => {
  const expected = core.Simulation.fromLink(LONG);
  const length = expected.length();
  const lastLine = expected.traceLines().at(-1);
  expected.free();
  const { page, context } = await openCounting(`#s=${LONG}`, { slow: 20 });
  const root = (sel, opts) => page.locator('highwater-playground').locator(sel, opts);
  await root('.notice-info', { hasText: 'Computing the run' }).waitFor({ timeout: 60_000 });
  // Opened in a task of the page's own (at 20x the panel's toggle may move under a pointer).
  await page.evaluate(() => document.querySelector('highwater-playground').shadowRoot.querySelector('[data-group-toggle="diagram"]').click());
  const total = length.toLocaleString('en-US');
  await page.waitForFunction((text) => document.querySelector('highwater-playground').shadowRoot.getElementById('position').textContent === text, `${total} / ${total}`, { timeout: 200_000, polling: 500 });
  await root('.notice-info', { hasText: 'Computing the run' }).waitFor({ state: 'detached' });
  const seen = await page.evaluate(() => {
    const pg = document.querySelector('highwater-playground').pg;
    return { last: pg.sim.traceLines().at(-1), views: typeof pg.sim.spaceTime === 'function' };
  });
  assert.equal(seen.last, lastLine, 'the link\'s run');
  assert.equal(seen.views, true, 'in the full core');
  await root('#diagram svg').first().waitFor({ timeout: 60_000 });
  // The address is the run's.
  await page.waitForFunction(() => location.hash.startsWith(`#s=${document.querySelector('highwater-playground').pg.sim.toLink()}`), null, { timeout: 10_000 });
  assert.deepEqual(page.errors, []);
  await context.close();
});

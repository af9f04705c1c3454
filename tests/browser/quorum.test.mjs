// The KRaft quorum on the board: a scenario with controllers shows the
// active controller, the quorum epoch, the metadata HW, and a row per
// controller with its role and its metadata log (each record a cell, solid
// below that controller's HW, its LEO and HW marked), as the core's state
// has them at every step of the gallery's controller failover, in every
// language; the rows' buttons are the controller steps; a scenario without
// controllers shows none of it and loads none of its code, the core's engine
// included: the page's core (www/pkg) has no quorum, and the core with it
// (www/pkg-quorum) is loaded for the first run with controllers, at once for
// a tour or a first frame that has them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage, loadFromGallery, missingKeys, loadCore } from './harness.mjs';

let env;
let core;
before(async () => { env = await setup(); core = await loadCore(); });
after(async () => { await env?.close(); });

const NAME = 'A controller fails over while a broker is down';

/** What the strip says, and what the core's state says. */
async function strip(page) {
  return page.evaluate(() => {
    const root = document.querySelector('highwater-playground').shadowRoot;
    const q = root.querySelector('[data-testid="quorum"]');
    const state = document.querySelector('highwater-playground').playground.sim.state();
    if (!q) return { shown: null, state: state.quorum ?? null };
    const text = (id) => q.querySelector(`[data-testid="${id}"]`)?.textContent.trim();
    return {
      shown: {
        active: text('quorum-active'),
        epoch: text('quorum-epoch'),
        hw: text('quorum-hw'),
        roles: state.quorum.voters.map((v) => q.querySelector(`[data-testid="voter-${v.id}"] [data-role]`)?.dataset.role),
        isolated: state.quorum.voters.map((v) => Boolean(q.querySelector(`[data-testid="voter-${v.id}-isolated"]`))),
        // Per controller: its cells (offset, record, committed), its LEO and HW markers.
        rows: state.quorum.voters.map((v) => {
          const row = q.querySelector(`[data-testid="voter-${v.id}"]`);
          const start = Number(row.querySelector('.track').dataset.windowStart);
          return {
            cells: [...row.querySelectorAll('.md-cell')].map((c) => [Number(c.querySelector('.cell-offset').textContent), c.dataset.record, c.classList.contains('committed')]),
            expected: v.log.filter((r) => r.offset >= start).map((r) => [r.offset, r.record, v.high_watermark != null && r.offset < v.high_watermark]),
            leo: row.querySelector('[data-marker="leo"]')?.textContent,
            hw: row.querySelector('[data-marker="hw"]')?.textContent ?? null,
            want: { leo: `LEO ${v.log_end_offset}`, hw: v.high_watermark == null ? null : `HW ${v.high_watermark}` },
            start,
          };
        }),
      },
      state: state.quorum,
    };
  });
}

test('the quorum line and rows say what the core holds at every step of the controller failover', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, NAME, null, { end: false });
  await page.locator('[data-testid="voter-1"] .md-cell').first().waitFor();
  const seen = new Set();
  for (let i = 0; i <= 8; i++) {
    await page.evaluate((n) => document.querySelector('highwater-playground').playground.seek(n), i);
    const { shown, state } = await strip(page);
    assert.ok(shown && state, `step ${i}: a quorum line`);
    assert.equal(shown.epoch, String(state.epoch), `step ${i}: epoch`);
    assert.equal(shown.hw, state.high_watermark == null ? '–' : String(state.high_watermark), `step ${i}: metadata HW`);
    assert.equal(shown.active, state.active_controller == null ? 'none: nothing is decided' : String(state.active_controller), `step ${i}: active controller`);
    assert.deepEqual(shown.roles, state.voters.map((v) => v.role), `step ${i}: roles`);
    assert.deepEqual(shown.isolated, state.voters.map((v) => v.isolated), `step ${i}: isolation`);
    for (const [k, row] of shown.rows.entries()) {
      assert.ok(row.cells.length > 0, `step ${i}, controller ${k + 1}: its records are drawn`);
      assert.deepEqual(row.cells, row.expected.slice(0, row.cells.length), `step ${i}, controller ${k + 1}: cells`);
      assert.equal(row.leo, row.want.leo, `step ${i}, controller ${k + 1}: LEO marker`);
      assert.equal(row.hw, row.want.hw, `step ${i}, controller ${k + 1}: HW marker`);
    }
    seen.add(`${state.active_controller}`);
  }
  // The run goes through controller 1 active, and another after the failover.
  assert.ok(seen.has('1') && [...seen].some((c) => c !== '1' && c !== 'null'), `active controllers seen: ${[...seen]}`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the quorum line has every word in each language, and a scenario without controllers has none', async () => {
  const names = { en: NAME, 'zh-Hans': 'broker 宕机期间 controller 发生故障转移', 'zh-Hant': 'broker 當機期間 controller 發生容錯移轉' };
  const labels = { en: 'KRaft quorum', 'zh-Hans': '元数据 HW', 'zh-Hant': '中繼資料 HW' };
  for (const [lang, name] of Object.entries(names)) {
    const page = await openPage(env, { path: `?lang=${lang}` });
    assert.equal(await page.evaluate(() => Boolean(document.querySelector('highwater-playground').shadowRoot.querySelector('[data-testid="quorum"]'))), false, `${lang}: no quorum line without controllers`);
    await loadFromGallery(page, name, null);
    await page.locator('[data-testid="quorum"]').waitFor();
    const text = await page.evaluate(() => document.querySelector('highwater-playground').shadowRoot.querySelector('[data-testid="quorum"]').textContent);
    assert.ok(text.includes(labels[lang]), `${lang}: ${text}`);
    assert.deepEqual(await missingKeys(page), [], `${lang}: no key missing`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('the rows\' buttons are the controller steps: crash, restart, isolate, reconnect, resign', async () => {
  const page = await openPage(env, { path: '?lang=en' });
  const sim = core.Simulation.fromScenario({ version: 1, config: { brokers: 3, protocol: '4.1', controllers: 3, auto_fetch: true }, steps: [{ advance_ms: 1000 }] });
  const link = sim.toLink();
  sim.free();
  await page.goto(`${env.url}?lang=en#s=${link}&at=1`);
  await page.waitForSelector('body[data-ready="true"]');
  const row = (c) => page.locator(`[data-testid="voter-${c}"]`);
  const lastStep = () => page.evaluate(() => { const pg = document.querySelector('highwater-playground').playground; return pg.steps[pg.steps.length - 1]; });
  const voter = (c) => page.evaluate((id) => document.querySelector('highwater-playground').playground.sim.state().quorum.voters.find((v) => v.id === id), c);
  await row(2).locator('button[data-action="crash-controller"]').click();
  assert.deepEqual(await lastStep(), { crash: { controller: 2 } });
  assert.equal((await voter(2)).alive, false);
  await row(2).locator('button[data-action="restart-controller"]').click();
  assert.deepEqual(await lastStep(), { restart: { controller: 2 } });
  assert.equal((await voter(2)).alive, true);
  await row(3).locator('summary').click();
  await row(3).locator('button[data-action="isolate-controller"]').click();
  assert.deepEqual(await lastStep(), { isolate: { controller: 3 } });
  assert.equal((await voter(3)).isolated, true);
  await row(3).locator('summary').click();
  await row(3).locator('button[data-action="heal-controller"]').click();
  assert.deepEqual(await lastStep(), { heal: { controller: 3 } });
  assert.equal((await voter(3)).isolated, false);
  // Only the active controller offers to resign.
  const active = await page.evaluate(() => document.querySelector('highwater-playground').playground.sim.state().quorum.active_controller);
  for (const c of [1, 2, 3]) assert.equal(await row(c).locator('button[data-action="resign"]').count(), c === active ? 1 : 0, `controller ${c}`);
  await row(active).locator('summary').click();
  await row(active).locator('button[data-action="resign"]').click();
  assert.deepEqual(await lastStep(), { resign: null });
  assert.equal((await voter(active)).role, 'resigned');
  // The step reads as words in the caption.
  const caption = await page.evaluate(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#caption').textContent);
  assert.match(caption, /active controller resigns/);
  assert.ok(!/undefined|object Object/.test(caption), caption);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a scenario without controllers loads none of the quorum\'s code', async () => {
  // A first visit: no panel open that needs the full core (the diagram, the operator's view).
  const page = await openPage(env, { path: '?lang=en', groups: null });
  const asked = [];
  page.on('request', (r) => asked.push(r.url()));
  await loadFromGallery(page, 'acks=1 loss after failover', null);
  await page.locator('.broker-row').first().waitFor();
  assert.equal(await page.locator('[data-testid="quorum"]').count(), 0);
  assert.deepEqual(asked.filter((u) => /quorum/.test(u)), []);
  // The first scenario with controllers loads it.
  await loadFromGallery(page, NAME, null);
  await page.locator('[data-testid="voter-1"] .md-cell').first().waitFor();
  assert.ok(asked.some((u) => /quorum\.js/.test(u)) && asked.some((u) => /quorum\.css/.test(u)), asked.filter((u) => /quorum/.test(u)).join(' '));
  // And the core with the quorum's engine (www/pkg-quorum), which www/pkg has not.
  assert.ok(asked.some((u) => u.endsWith('/pkg-quorum/highwater_bg.wasm')), 'the core with the quorum');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('closed, the quorum is one row: each controller with its role, the leader\'s log, a flag where each other log ends', async () => {
  const page = await openPage(env, { path: '?lang=en' });
  await loadFromGallery(page, NAME, null, { end: false });
  await page.locator('[data-testid="voter-1"] .md-cell').first().waitFor();
  await page.locator('button[data-quorum-toggle]').click();
  assert.equal(await page.locator('button[data-quorum-toggle]').getAttribute('aria-expanded'), 'false');
  for (let i = 0; i <= 8; i++) {
    await page.evaluate((n) => document.querySelector('highwater-playground').playground.seek(n), i);
    const seen = await page.evaluate(() => {
      const root = document.querySelector('highwater-playground').shadowRoot;
      const q = root.querySelector('[data-testid="quorum"]');
      const state = document.querySelector('highwater-playground').playground.sim.state().quorum;
      const row = q.querySelector('.quorum-row');
      const start = Number(row.querySelector('.track').dataset.windowStart);
      return {
        rows: q.querySelectorAll('.controller-row').length,
        drawn: Number(row.dataset.drawn),
        roles: state.voters.map((v) => q.querySelector(`[data-testid="voter-${v.id}"] [data-role]`)?.dataset.role),
        cells: [...row.querySelectorAll('.md-cell')].map((c) => c.dataset.record),
        flags: [...row.querySelectorAll('[data-remote-marker]')].map((m) => m.dataset.remoteMarker).sort(),
        state,
        start,
      };
    });
    const { state } = seen;
    assert.equal(seen.rows, 1, `step ${i}: one row`);
    // The quorum leader's log while it runs; else the longest log of a controller up.
    const leader = state.voters.find((v) => v.id === state.leader && v.alive);
    const up = state.voters.filter((v) => v.alive);
    const drawn = leader ?? up.reduce((a, v) => (v.log_end_offset > a.log_end_offset ? v : a));
    assert.equal(seen.drawn, drawn.id, `step ${i}: whose log`);
    assert.deepEqual(seen.roles, state.voters.map((v) => v.role), `step ${i}: roles`);
    assert.deepEqual(seen.cells, drawn.log.filter((r) => r.offset >= seen.start).map((r) => r.record).slice(0, seen.cells.length), `step ${i}: the drawn log`);
    const ends = new Map();
    for (const v of state.voters.filter((x) => x.id !== drawn.id)) ends.set(v.log_end_offset, [...(ends.get(v.log_end_offset) || []), v.id]);
    assert.deepEqual(seen.flags, [...ends.values()].map((ids) => ids.join(',')).sort(), `step ${i}: a flag where each other log ends`);
  }
  // Open again: a row per controller.
  await page.locator('button[data-quorum-toggle]').click();
  assert.equal(await page.locator('[data-testid="quorum"] .controller-row').count(), 3);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

/** A page opened with every wasm file it asks for recorded (the page's cores: www/pkg, www/pkg-quorum). */
async function openRecording(path, { html = null } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  if (html) await context.route(`${env.url}${path}`, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }));
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  const wasm = [];
  page.on('request', (r) => { const p = new URL(r.url()).pathname; if (/^\/pkg(-quorum)?\/.*\.wasm$/.test(p)) wasm.push(p); });
  await page.goto(`${env.url}${path}`);
  return { page, wasm };
}

const PLAIN = '/pkg/highwater_bg.wasm';
const QUORUM = '/pkg-quorum/highwater_bg.wasm';

test('the tour of the quorum loads the core with the quorum at once, and only it', async () => {
  const { page, wasm } = await openRecording('?tour=two-replication-protocols&lang=en');
  await page.waitForSelector('body[data-ready="true"]');
  await page.locator('[data-testid="quorum"]').waitFor();
  const quorum = await page.evaluate(() => document.querySelector('highwater-playground').playground.sim.state().quorum);
  assert.ok(quorum && quorum.voters.length === 3, 'the tour\'s run has its three controllers');
  assert.deepEqual(wasm, [QUORUM], 'one core: the one with the quorum');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a link with controllers opened on the page loads the core with the quorum; the run before stays until it is there, then it goes on in it', async () => {
  const sim = core.Simulation.fromScenario({ version: 1, config: { brokers: 3, protocol: '4.1', controllers: 3, auto_fetch: true }, steps: [{ advance_ms: 1000 }, { produce: { value: 'x', acks: 'all' } }] });
  const link = sim.toLink();
  const expected = sim.state();
  sim.free();
  const { page, wasm } = await openRecording('?lang=en');
  await page.waitForSelector('body[data-ready="true"]');
  assert.deepEqual(wasm, [PLAIN], 'the page starts on the core without the quorum');
  assert.equal(await page.locator('[data-testid="quorum"]').count(), 0);
  await page.evaluate((l) => { location.hash = `#s=${l}&at=2`; }, link);
  await page.locator('[data-testid="voter-1"] .md-cell').first().waitFor();
  assert.deepEqual(wasm, [PLAIN, QUORUM]);
  const shown = await page.evaluate(() => { const pg = document.querySelector('highwater-playground').playground; return { state: pg.sim.state(), position: pg.position }; });
  assert.equal(shown.position, 2);
  assert.deepEqual(shown.state.quorum, expected.quorum, 'the same quorum as the core in Node computes');
  assert.deepEqual(shown.state.brokers, expected.brokers);
  // It goes on in the core with the quorum: a controller step, then a run without controllers from the gallery.
  await page.locator('[data-testid="voter-2"] button[data-action="crash-controller"]').click();
  assert.equal(await page.evaluate(() => document.querySelector('highwater-playground').playground.sim.state().quorum.voters[1].alive), false);
  await loadFromGallery(page, 'acks=1 loss after failover', null);
  await page.locator('.broker-row').first().waitFor();
  assert.equal(await page.locator('[data-testid="quorum"]').count(), 0);
  assert.deepEqual(wasm, [PLAIN, QUORUM], 'no core is loaded again');
  assert.equal(await page.locator('.notice-error').count(), 0, 'no error notice');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('two elements, one run with controllers: each draws its run, and the other goes on in the core with the quorum', async () => {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Two</title>
<script type="module" src="./bundle/highwater-playground.js"></script></head><body>
<highwater-playground id="a" scenario="two-fetch-rounds" step="3"></highwater-playground>
<highwater-playground id="b" scenario="controller-failover-during-broker-failure" step="4"></highwater-playground>
</body></html>`;
  const { page, wasm } = await openRecording('two-elements.html', { html });
  for (const id of ['a', 'b']) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await page.waitForFunction((i) => document.getElementById(i).dataset.ready === 'true', id);
  }
  await page.waitForFunction(() => ['a', 'b'].every((i) => document.getElementById(i).playground?.sim?.snapshot !== true));
  assert.ok(wasm.includes(QUORUM), `the quorum's core is loaded for b: ${wasm}`);
  const b = await page.evaluate(() => document.getElementById('b').playground.sim.state().quorum);
  assert.ok(b && b.voters.length === 3, 'b has its controllers');
  // a's run, made first in the other core, is made again in this one: it still steps, with the same board.
  const before = await page.evaluate(() => { const pg = document.getElementById('a').playground; return { position: pg.position, brokers: pg.sim.state().brokers }; });
  assert.equal(before.position, 3);
  const after = await page.evaluate(() => { const pg = document.getElementById('a').playground; pg.seek(4); pg.seek(3); return { position: pg.position, brokers: pg.sim.state().brokers }; });
  assert.deepEqual(after, before);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('an element with controllers added once the core without the quorum is there opens its run at its step, in the core with the quorum', async () => {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Later</title>
<script type="module" src="./bundle/highwater-playground.js"></script></head><body>
<highwater-playground id="a" scenario="two-fetch-rounds" step="3"></highwater-playground>
</body></html>`;
  const { page, wasm } = await openRecording('later-element.html', { html });
  await page.waitForFunction(() => document.getElementById('a').dataset.ready === 'true');
  assert.deepEqual(wasm, [PLAIN], 'the first element loads the core without the quorum');
  // No first frame for b: the core is there already, so b's run is made at once, in the core it needs.
  await page.evaluate(() => {
    const b = document.createElement('highwater-playground');
    b.id = 'b';
    b.setAttribute('scenario', 'controller-failover-during-broker-failure');
    b.setAttribute('step', '4');
    document.body.prepend(b);
  });
  await page.waitForFunction(() => document.getElementById('b').dataset.ready === 'true');
  await page.waitForFunction(() => document.getElementById('b').playground?.sim?.state().quorum !== undefined, null, { timeout: 10_000 }).catch(() => {});
  const b = await page.evaluate(() => {
    const el = document.getElementById('b');
    const pg = el.playground;
    return {
      voters: pg.sim.state().quorum?.voters.length,
      position: pg.position,
      controllers: pg.config.controllers,
      errors: [...el.shadowRoot.querySelectorAll('.notice-error')].map((n) => n.textContent),
    };
  });
  assert.deepEqual(b, { voters: 3, position: 4, controllers: 3, errors: [] });
  assert.deepEqual(wasm, [PLAIN, QUORUM]);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

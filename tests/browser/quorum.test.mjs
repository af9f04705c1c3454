// The KRaft quorum's line on the board: a scenario with controllers shows
// the active controller, the quorum epoch, the metadata HW and each
// controller's role as the core's state has them, at every step of the
// gallery's controller failover, in every language; a scenario without
// controllers shows no such line.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage, loadFromGallery, missingKeys } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
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
      },
      state: state.quorum,
    };
  });
}

test('the quorum line says what the core holds at every step of the controller failover', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, NAME, null, { end: false });
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
    const text = await page.evaluate(() => document.querySelector('highwater-playground').shadowRoot.querySelector('[data-testid="quorum"]').textContent);
    assert.ok(text.includes(labels[lang]), `${lang}: ${text}`);
    assert.deepEqual(await missingKeys(page), [], `${lang}: no key missing`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

// The verdict of a loss, as the core gives it (`protocol_violation`,
// `allowed_by`), is what the banner and the pause notice say: a guarantee
// Kafka makes, broken, in red; a loss a setting allows (acks=1, an unclean
// election the config enabled) in amber, with the setting and its
// trade-off. The words expected come from the locale files by the keys the
// core's fields pick, never from a copy of the text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, loadCore, loadWorkersCore, missingKeys, ROOT } from './harness.mjs';

let env;
let core;
before(async () => { env = await setup(); core = await loadCore(); });
after(async () => env && env.close());

const scenario = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', `${name}.json`), 'utf8'));
const words = Object.fromEntries(['en', 'zh-Hans'].map((l) => [l, JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'locales', l, 'ui.json'), 'utf8'))]));
/** A key of ui.json in a language, its placeholders filled. */
function word(lang, key, params = {}) {
  const text = key.split('.').reduce((o, k) => o[k], words[lang]);
  return text.replace(/\{(\w+)\}/g, (_, k) => String(params[k]));
}
/** The setting the banner names for the core's `allowed_by`, and the key of its words. */
const ALLOWED = { 'acks=1': { key: 'acks1', setting: 'acks=1' }, 'unclean.leader.election.enable': { key: 'unclean', setting: 'unclean.leader.election.enable=true' } };

/** The run of a scenario as the core has it: its link, its length and its violations at the end. */
function runOf(s) {
  const sim = core.Simulation.fromScenario(s);
  const state = JSON.parse(JSON.stringify(sim.state(0, 0)));
  const out = { link: sim.toLink(), length: sim.length(), violations: state.violations };
  sim.free();
  return out;
}

const pg = (page) => page.evaluate(() => document.querySelector('highwater-playground').playground.sim.position());
const playing = (page) => page.locator('#btn-play').evaluate((b) => b.classList.contains('playing'));

async function banner(page) {
  const b = page.locator('#banner .banner').last();
  const first = b.locator('.violation').first();
  return {
    classes: (await b.getAttribute('class')).split(' '),
    tag: (await first.locator('.violation-head .tag').textContent()).trim(),
    tagClasses: (await first.locator('.violation-head .tag').getAttribute('class')).split(' '),
    verdict: await first.getAttribute('data-verdict'),
    tradeoff: await first.locator('.violation-tradeoff').count() ? (await first.locator('.violation-tradeoff').textContent()).trim() : null,
  };
}

const UNCLEAN = scenario('unclean-election-loss');
const ACKS1 = scenario('acks1-loss-after-failover');
const KIP101 = scenario('kip101-loss-after-restart');

test('the core: an acks=all loss after the enabled unclean election is allowed by it; KIP-101 is not', async () => {
  const unclean = runOf(UNCLEAN).violations;
  assert.deepEqual(unclean.map((v) => [v.kind, v.acks, v.value, v.protocol_violation, v.allowed_by]), [['acked_write_lost', 'all', 'm2', false, 'unclean.leader.election.enable']]);
  const off = runOf({ ...UNCLEAN, config: { ...UNCLEAN.config, unclean_leader_election: false } }).violations;
  assert.deepEqual(off, [], 'without unclean election nothing is lost');
  assert.deepEqual(runOf(ACKS1).violations.map((v) => v.allowed_by), ['acks=1']);
  assert.deepEqual(runOf(KIP101).violations.map((v) => [v.kind, v.protocol_violation, v.allowed_by]), [['acked_write_lost', true, null]]);
  // The page's explorer looks for broken guarantees: with unclean election
  // on, 0.10 loses an acks=all write in four steps, allowed by the setting,
  // and that is no counterexample; the divergence it still finds is.
  const search = { config: { brokers: 2, protocol: '0.10', unclean_leader_election: true }, acks: 'all' };
  const { explore } = await loadWorkersCore();
  assert.equal(explore({ ...search, depth: 5 }, () => true).found, false, 'no allowed loss reported');
  const found = explore({ ...search, depth: 6 }, () => true);
  assert.deepEqual([found.found, found.violation.kind, found.violation.protocol_violation], [true, 'committed_divergence', true]);
});

test('the banner: amber with the setting and its trade-off for an allowed loss, red for a protocol violation, in en and zh-Hans', async () => {
  for (const lang of ['en', 'zh-Hans']) {
    for (const s of [UNCLEAN, ACKS1, KIP101]) {
      const run = runOf(s);
      const [v] = run.violations;
      const page = await openPage(env, { path: `?lang=${lang}`, hash: `#s=${run.link}&at=${v.step}` });
      await page.locator('#banner .violation').first().waitFor();
      const b = await banner(page);
      const allowed = ALLOWED[v.allowed_by];
      const at = `${lang} ${s.name}`;
      assert.equal(Boolean(allowed), !v.protocol_violation, at);
      if (allowed) {
        assert.ok(b.classes.includes('banner-allowed') && !b.classes.includes('banner-violation'), `${at}: ${b.classes}`);
        assert.ok(b.tagClasses.includes('tag-warn'), at);
        assert.equal(b.tag, word(lang, `banner.allowed_by_${allowed.key}`), at);
        assert.ok(b.tag.includes(allowed.setting), `${at}: the tag names the setting: ${b.tag}`);
        assert.equal(b.verdict, allowed.key, at);
        assert.equal(b.tradeoff, word(lang, `banner.tradeoff_${allowed.key}`), at);
      } else {
        assert.ok(b.classes.includes('banner-violation') && !b.classes.includes('banner-allowed'), `${at}: ${b.classes}`);
        assert.ok(b.tagClasses.includes('tag-bad'), at);
        assert.equal(b.tag, word(lang, 'banner.protocol_violation'), at);
        assert.equal(b.verdict, 'protocol', at);
        assert.equal(b.tradeoff, null, `${at}: no trade-off under a broken guarantee`);
      }
      assert.deepEqual(await missingKeys(page), []);
      assert.deepEqual(page.errors, []);
      await page.context().close();
    }
  }
});

test('several losses one setting allows: each tagged with it, its trade-off said once', async () => {
  const run = runOf({ ...scenario('consumer-saw-vanished-record'), config: { ...scenario('consumer-saw-vanished-record').config, protocol: '0.10' } });
  const step = run.violations[0].step;
  const here = run.violations.filter((v) => v.step === step);
  assert.ok(here.length > 1 && here.every((v) => v.allowed_by === 'unclean.leader.election.enable'), JSON.stringify(here));
  const page = await openPage(env, { hash: `#s=${run.link}&at=${step}` });
  await page.locator('#banner .violation').first().waitFor();
  const tags = await page.locator('#banner .violation .violation-head .tag').allTextContents();
  assert.deepEqual(tags, here.map(() => word('en', 'banner.allowed_by_unclean')));
  assert.deepEqual(await page.locator('#banner .violation-tradeoff').allTextContents(), [word('en', 'banner.tradeoff_unclean')]);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

/** Plays from the start at the fastest speed until Play stops by itself. */
async function playUntilPaused(page) {
  await page.locator('#speed').selectOption('10');
  await page.click('#btn-play');
  await page.waitForFunction(() => !document.querySelector('highwater-playground').shadowRoot.querySelector('#btn-play').classList.contains('playing'), null, { timeout: 60000 });
}

const noticeTexts = (page) => page.locator('#notices .notice p').allTextContents();

test('Play through an allowed loss: it pauses there and says what allowed it, never "broke a guarantee"; the notice goes on the next step', async () => {
  const run = runOf(UNCLEAN);
  const [v] = run.violations;
  const allowed = ALLOWED[v.allowed_by];
  const page = await openPage(env, { hash: `#s=${run.link}&at=0` });
  await playUntilPaused(page);
  assert.equal(await pg(page), v.step, 'paused at the loss');
  const texts = await noticeTexts(page);
  assert.ok(!texts.some((x) => x.includes(word('en', 'notice.paused_violation', { step: v.step }))), `no "broke a guarantee": ${texts}`);
  assert.ok(!texts.some((x) => /broke a guarantee/.test(x)), `${texts}`);
  assert.deepEqual(texts, [word('en', 'notice.paused_allowed', { step: v.step, setting: allowed.setting })]);
  assert.equal(await page.locator('#notices .notice').getAttribute('data-paused'), allowed.key);
  await page.click('#btn-forward');
  assert.equal(await pg(page), v.step + 1);
  assert.equal(await page.locator('#notices .notice').count(), 0, 'gone once the run moves on');
  assert.equal(await playing(page), false);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a notice raised at a protocol violation goes when the run moves to another step, by a step, a seek or a new run', async () => {
  const run = runOf(KIP101);
  const [v] = run.violations;
  const page = await openPage(env, { path: '?lang=zh-Hans', hash: `#s=${run.link}&at=0` });
  const paused = word('zh-Hans', 'notice.paused_violation', { step: v.step });
  const moves = [
    ['step forward', () => page.click('#btn-forward')],
    ['step back', () => page.click('#btn-back')],
    ['seek', () => page.locator('#timeline').evaluate((el) => { el.value = '3'; el.dispatchEvent(new Event('input', { bubbles: true })); })],
    ['a new run', () => page.evaluate(({ s }) => document.querySelector('highwater-playground').playground.loadScenario(s), { s: UNCLEAN })],
  ];
  for (const [name, move] of moves) {
    await page.evaluate((s) => { const p = document.querySelector('highwater-playground').playground; p.loadScenario(s); p.seek(0); }, KIP101);
    await playUntilPaused(page);
    assert.equal(await pg(page), v.step, `${name}: paused at the violation`);
    assert.deepEqual(await noticeTexts(page), [paused], name);
    assert.equal(await page.locator('#notices .notice').getAttribute('data-paused'), 'protocol');
    // A redraw at the same step keeps it (a language change redraws everything).
    await page.evaluate(() => document.querySelector('highwater-playground').playground.draw());
    assert.equal(await page.locator('#notices .notice').count(), 1, `${name}: kept while the step stays`);
    await move();
    assert.equal(await page.locator('#notices .notice', { hasText: paused }).count(), 0, `${name}: the notice is gone`);
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('notices sit in the flow: they cover neither the banner, the timeline nor the fork view', async () => {
  const run = runOf(KIP101);
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const page = await openPage(env, { viewport, hash: `#s=${run.link}&at=17&fork=protocol=0.11` });
    await page.waitForFunction(() => document.querySelector('highwater-playground').playground.root.querySelector('#compare [data-testid="fork-change"]'));
    await page.evaluate((text) => {
      const p = document.querySelector('highwater-playground').playground;
      for (let i = 0; i < 3; i++) p.notify('warn', text, { timeoutMs: 600000 });
    }, word('en', 'notice.paused_violation', { step: 17 }));
    const overlaps = await page.evaluate(() => {
      const root = document.querySelector('highwater-playground').shadowRoot;
      const panes = ['.player', '#banner', '#compare', '#caption', '.compare-bar'].map((s) => [s, root.querySelector(s).getBoundingClientRect()]);
      const out = [];
      for (const n of root.querySelectorAll('#notices .notice')) {
        const b = n.getBoundingClientRect();
        for (const [s, a] of panes) if (a.height && b.left < a.right && b.right > a.left && b.top < a.bottom && b.bottom > a.top) out.push(s);
      }
      return out;
    });
    assert.deepEqual(overlaps, [], `${viewport.width} px`);
    if (process.env.HIGHWATER_SHOTS) await page.screenshot({ path: path.join(process.env.HIGHWATER_SHOTS, `notices-fork-${viewport.width}.png`) });
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('the banner says when the loss happened and the step header shows the step\'s time span, so the two agree (the loss at 31.0 s, during step 17, 25.0 s → 45.0 s)', async () => {
  const run = runOf(KIP101);
  const [v] = run.violations;
  const page = await openPage(env, { hash: `#s=${run.link}&at=${run.length}` });
  const where = page.locator('#banner .violation-where .muted').first();
  await where.waitFor();
  const m = (await where.textContent()).match(/^acked_write_lost · happened during step (\d+), at ([\d.]+) s $/);
  assert.ok(m, await where.textContent());
  assert.equal(Number(m[1]), v.step);
  assert.equal(Number(m[2]) * 1000, v.time_ms);
  await page.locator('#banner button[data-action="goto"]').first().click();
  await page.waitForFunction((n) => document.querySelector('highwater-playground').shadowRoot.querySelector('#caption .caption-line').textContent.startsWith(`Step ${n} `), v.step);
  const header = await page.locator('#caption .caption-line').textContent();
  const span = header.match(/ · ([\d.]+) s → ([\d.]+) s · /);
  assert.ok(span, header);
  assert.ok(Number(span[1]) * 1000 <= v.time_ms && v.time_ms <= Number(span[2]) * 1000, `${header}: ${v.time_ms} ms within`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

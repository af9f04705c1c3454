// Each broker's leader-epoch cache on the board: at every position of runs
// with leader changes, what a broker's card draws (the entries, and the words
// its title and screen readers get) is the `leader_epoch_cache` of the core's
// state at that position, a broker that is down included; under 0.10, which
// has no leader-epoch-checkpoint file, nothing is drawn (nor its legend); a tour stop that
// states a cache shows that cache; the line fits a 390 px phone and the
// 800x500 embed. Screenshots at 1440 and 390 px and of the embed go to
// target/test-results/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, loadCore, missingKeys, noHorizontalScroll, ROOT } from './harness.mjs';
import { flatten, fill } from '../../www/words/i18n.js';

const SHOTS = path.join(ROOT, 'target', 'test-results');
/** Entries a card draws at most (render.js): the latest ones. */
const SHOWN = 4;

let env;
let core;
before(async () => { env = await setup(); core = await loadCore(); });
after(async () => { await env?.close(); });

const scenarioFile = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', `${name}.json`), 'utf8'));
const words = (lang, bundle = 'ui') => new Map(flatten(JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'locales', lang, `${bundle}.json`), 'utf8'))));
const tourData = (id) => JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'tours', `${id}.json`), 'utf8'));

/** A scenario file under another version preset, as a share link. */
function link(name, protocol) {
  const scenario = scenarioFile(name);
  scenario.config = { ...scenario.config, protocol };
  const sim = core.Simulation.fromScenario(scenario);
  const text = sim.toLink();
  const length = sim.length();
  sim.free();
  return { text, length };
}

/** What each broker's card draws of its epoch cache, and the page's own state at this position. */
function drawnAndState() {
  const pg = document.querySelector('highwater-playground');
  const root = pg.shadowRoot;
  const drawn = [...root.querySelectorAll('#cluster .broker-row')].map((row) => {
    const box = row.querySelector('[data-testid="epoch-cache"]');
    return {
      broker: Number(row.dataset.broker),
      drawn: Boolean(box),
      count: box ? Number(box.dataset.entries) : null,
      entries: box ? [...box.querySelectorAll('.epoch-entry[data-epoch]')].map((e) => ({ epoch: Number(e.dataset.epoch), start_offset: Number(e.dataset.startOffset), text: e.textContent })) : [],
      more: box ? box.querySelectorAll('.epoch-more').length : 0,
      label: box ? box.querySelector('.visually-hidden').textContent : null,
      title: box ? box.getAttribute('title') : null,
    };
  });
  const state = pg.playground.sim.state();
  return { position: pg.playground.sim.position(), drawn, state: state.brokers.map((b) => ({ broker: b.id, alive: b.alive, cache: b.leader_epoch_cache })) };
}

/** The sentence a card's label must say of this cache, from the locale's own templates. */
function expectedLabel(w, broker, cache) {
  if (!cache.length) return fill(w.get('broker.epoch_cache_empty'), { broker });
  const entries = cache.map((e, i) => fill(w.get(i ? 'broker.epoch_cache_next' : 'broker.epoch_cache_first'), { epoch: e.epoch, offset: e.start_offset })).join('');
  return fill(w.get('broker.epoch_cache_label'), { broker, entries });
}

/** Every way the drawn cache of a broker differs from the state's, as lines. */
function compare(at, seen, w) {
  const bad = [];
  const { drawn, state } = seen;
  assert.equal(seen.position, at);
  for (const s of state) {
    const d = drawn.find((x) => x.broker === s.broker);
    const where = `at ${at}, broker ${s.broker}${s.alive ? '' : ' (down)'}`;
    if (!d || !d.drawn) { bad.push(`${where}: no epoch cache drawn`); continue; }
    const shown = s.cache.slice(-SHOWN);
    const got = d.entries.map(({ epoch, start_offset }) => ({ epoch, start_offset }));
    if (JSON.stringify(got) !== JSON.stringify(shown)) bad.push(`${where}: drawn ${JSON.stringify(got)}, state ${JSON.stringify(s.cache)}`);
    for (const e of d.entries) if (e.text !== `e${e.epoch}@${e.start_offset}`) bad.push(`${where}: entry reads "${e.text}"`);
    if (d.count !== s.cache.length) bad.push(`${where}: ${d.count} entries said, the state has ${s.cache.length}`);
    if (d.more !== (s.cache.length > SHOWN ? 1 : 0)) bad.push(`${where}: the mark of older entries is wrong`);
    const label = expectedLabel(w, s.broker, s.cache);
    if (d.label !== label) bad.push(`${where}: label "${d.label}", expected "${label}"`);
    if (!d.title || !d.title.startsWith(label)) bad.push(`${where}: title "${d.title}"`);
  }
  return bad;
}

async function goTo(page, at) {
  await page.waitForFunction((n) => document.querySelector('highwater-playground').shadowRoot.querySelector('#position').textContent.trim().startsWith(`${n} /`), at);
}

// Runs with leader changes: KIP-101's loss under 0.11 (a new leader records
// its epoch at its first append) and 3.7 (at once, KAFKA-7415: an entry with no
// record yet, and a down broker keeping it), the power-loss divergence, and
// KIP-279's fast leader changes (three entries).
const RUNS = [
  ['kip101-loss-after-restart', '0.11'],
  ['kip101-loss-after-restart', '3.7'],
  ['kip101-divergence-after-power-loss', '2.1'],
  ['kip279-fast-leader-change', '0.11'],
];

for (const [lang, runs] of [['en', RUNS], ['zh-Hans', RUNS.slice(1, 2)], ['zh-Hant', RUNS.slice(2, 4)]]) {
  test(`every broker's drawn epoch cache is the core's at every position (${lang}: ${runs.map((r) => r.join(' ')).join(', ')})`, async () => {
    const w = words(lang);
    const page = await openPage(env, { path: `?lang=${lang}`, viewport: { width: 1440, height: 900 } });
    const bad = [];
    let entriesSeen = 0;
    let downSeen = 0;
    for (const [name, protocol] of runs) {
      const { text, length } = link(name, protocol);
      await page.goto(`${env.url}?lang=${lang}#s=${text}&at=0`);
      await page.waitForSelector('body[data-ready="true"]');
      for (let at = 0; at <= length; at++) {
        if (at > 0) await page.keyboard.press('ArrowRight');
        await goTo(page, at);
        const seen = await page.evaluate(drawnAndState);
        bad.push(...compare(at, seen, w).map((line) => `${name} ${protocol} ${line}`));
        entriesSeen = Math.max(entriesSeen, ...seen.state.map((s) => s.cache.length));
        downSeen += seen.state.filter((s) => !s.alive && s.cache.length).length;
      }
    }
    assert.deepEqual(bad, []);
    assert.ok(entriesSeen >= 2, 'the runs change leaders: some cache has two entries or more');
    assert.ok(downSeen > 0, 'a broker that is down keeps its cache, and it is drawn');
    assert.deepEqual(await missingKeys(page), []);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

test('under 0.10, which has no leader-epoch-checkpoint, no card draws an epoch cache', async () => {
  const page = await openPage(env, { viewport: { width: 1440, height: 900 } });
  for (const name of ['kip101-loss-after-restart', 'kip101-divergence-after-power-loss']) {
    const { text, length } = link(name, '0.10');
    await page.goto(`${env.url}#s=${text}&at=0`);
    await page.waitForSelector('body[data-ready="true"]');
    for (let at = 0; at <= length; at++) {
      if (at > 0) await page.keyboard.press('ArrowRight');
      await goTo(page, at);
      const { drawn } = await page.evaluate(drawnAndState);
      assert.deepEqual(drawn.filter((d) => d.drawn).map((d) => d.broker), [], `${name} at ${at}`);
      assert.equal(await page.locator('#cluster .epoch-cache').count(), 0, `${name} at ${at}: not even an empty box`);
      assert.equal(await page.locator('#legend .epoch-entry').count(), 0, `${name} at ${at}: the legend has no epoch-cache entry`);
    }
  }
  // The same run under 0.11 draws one on every card.
  const { text } = link('kip101-loss-after-restart', '0.11');
  await page.goto(`${env.url}#s=${text}&at=3`);
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.locator('#cluster [data-testid="epoch-cache"]').count(), 3);
  assert.equal(await page.locator('#legend .epoch-entry').count(), 1, 'the legend reads the notation');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a tour stop whose caption states an epoch cache shows that cache on the board, the core\'s', async () => {
  const { tours } = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'tours', 'index.json'), 'utf8'));
  const captions = Object.fromEntries(['en', 'zh-Hans', 'zh-Hant'].map((lang) => [lang, words(lang, 'tours')]));
  // The board's notation in a caption (e0@0 e1@1), as a sorted list.
  const tokens = (text) => [...new Set(String(text).match(/\be\d+@\d+\b/g) || [])].sort();
  const page = await openPage(env, { viewport: { width: 1440, height: 900 } });
  const checked = [];
  for (const id of tours) {
    const stops = tourData(id).parts.flatMap((p) => p.stops);
    for (let i = 0; i < stops.length; i++) {
      const stop = stops[i];
      const facts = Object.entries(stop.facts?.brokers || {}).filter(([, f]) => f.epoch_cache);
      const said = tokens(captions.en.get(`${id}.stops.${stop.key}`));
      for (const lang of ['zh-Hans', 'zh-Hant']) assert.deepEqual(tokens(captions[lang].get(`${id}.stops.${stop.key}`)), said, `${id}/${stop.key}: ${lang} names the entries English names`);
      if (said.length) assert.ok(facts.length, `${id}/${stop.key}: a caption that quotes the cache has epoch_cache facts`);
      if (!facts.length) continue;
      await page.goto(`${env.url}?tour=${id}&step=${i + 1}`);
      await page.waitForSelector('body[data-ready="true"]');
      // A question first (any choice), then a "do" stop's step.
      if (stop.predict) await page.locator('#tour button[data-tour="choice"]').first().click();
      else await page.locator('[data-testid="tour-caption"]').waitFor();
      if (stop.do) await page.locator('#tour button[data-tour="do"]').click();
      await page.waitForFunction(([key]) => document.querySelector('highwater-playground').shadowRoot.querySelector('[data-testid="tour-caption"]')?.dataset.stop === key, [stop.key]);
      await goTo(page, stop.at);
      const seen = await page.evaluate(drawnAndState);
      for (const [broker, f] of facts) {
        const d = seen.drawn.find((x) => x.broker === Number(broker));
        const s = seen.state.find((x) => x.broker === Number(broker));
        const pairs = (list) => list.map((e) => [e.epoch, e.start_offset]);
        assert.deepEqual(pairs(s.cache), f.epoch_cache, `${id}/${stop.key}: the caption's cache of broker ${broker} is the core's`);
        assert.deepEqual(pairs(d.entries), f.epoch_cache, `${id}/${stop.key}: broker ${broker} draws the caption's cache`);
        checked.push(`${id}/${stop.key}/${broker}`);
      }
      // Each entry the caption quotes is drawn on a card it states, and those cards draw no other.
      const drawnTokens = [...new Set(facts.flatMap(([broker]) => seen.drawn.find((x) => x.broker === Number(broker)).entries.map((e) => e.text)))].sort();
      if (said.length) assert.deepEqual(said, drawnTokens, `${id}/${stop.key}: the caption quotes what the cards draw`);
    }
  }
  assert.ok(checked.length >= 6, checked.join(' '));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the cache fits a 390 px phone and the 800x500 embed, readable, with screenshots at 1440, 390 and the embed', async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  const { text } = link('kip101-loss-after-restart', '3.7');
  const hash = `#s=${text}&at=16`;
  for (const [name, p, viewport] of [['1440', '', { width: 1440, height: 900 }], ['390', '', { width: 390, height: 844 }], ['embed-800x500', '?embed', { width: 800, height: 500 }]]) {
    for (const lang of ['en', 'zh-Hant']) {
      const page = await openPage(env, { path: `${p}${p ? '&' : '?'}lang=${lang}`, hash, viewport });
      await goTo(page, 16);
      const seen = await page.evaluate(drawnAndState);
      assert.deepEqual(compare(16, seen, words(lang)), []);
      const boxes = await page.evaluate(() => [...document.querySelector('highwater-playground').shadowRoot.querySelectorAll('#cluster .broker-row')].map((row) => {
        const r = row.getBoundingClientRect();
        const info = row.querySelector('.broker-info').getBoundingClientRect();
        return {
          row: { left: r.left, right: r.right },
          info: { right: info.right },
          entries: [...row.querySelectorAll('.epoch-entry')].map((e) => {
            const b = e.getBoundingClientRect();
            return { left: b.left, right: b.right, width: b.width, font: parseFloat(getComputedStyle(e).fontSize) };
          }),
        };
      }));
      for (const b of boxes) {
        assert.ok(b.entries.length > 0, `${name} ${lang}: entries drawn`);
        for (const e of b.entries) {
          assert.ok(e.width > 0 && e.left >= b.row.left && e.right <= b.info.right + 0.5, `${name} ${lang}: an entry inside its card (${JSON.stringify(e)}, card ends at ${b.info.right})`);
          assert.ok(e.font >= 10, `${name} ${lang}: ${e.font} px is readable`);
        }
      }
      assert.equal(await noHorizontalScroll(page), true, `${name} ${lang}: no horizontal scroll`);
      if (p) {
        const size = await page.evaluate(() => ({ w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight }));
        assert.ok(size.w <= 800 && size.h <= 500, `${lang}: the embed fits 800x500 (${size.w}x${size.h})`);
      }
      await page.screenshot({ path: path.join(SHOTS, `epoch-cache-${name}-${lang}.png`), fullPage: name === '390' });
      assert.deepEqual(await missingKeys(page), []);
      assert.deepEqual(page.errors, []);
      await page.context().close();
    }
  }
});

test('the glossary says what the epoch cache is, in every language', async () => {
  for (const lang of ['en', 'zh-Hans', 'zh-Hant']) {
    // The glossary's own bundle (locales/<language>/glossary.json), fetched when it first opens.
    const w = words(lang, 'glossary');
    const page = await openPage(env, { path: `?lang=${lang}` });
    await page.click('#btn-glossary');
    await page.locator('#dlg-glossary[open]').waitFor();
    const item = page.locator('#term-epoch_cache');
    assert.equal(await item.locator('dt').textContent(), w.get('epoch_cache.term'));
    const text = await item.locator('dd').textContent();
    assert.equal(text, w.get('epoch_cache.text'));
    // Kafka's names stay as written: the file, the class, the KIP, the request.
    for (const name of ['leader-epoch-checkpoint', 'LeaderEpochFileCache', 'KIP-101', '0.11', 'HW', 'OffsetsForLeaderEpoch', 'DivergingEpoch']) assert.ok(text.includes(name), `${lang}: ${name}`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

// Details of the board a newcomer reads: the messages in flight rest where
// they cover no LEO or HW label, the diagram names each lane once, a point
// in the run's time is written one way everywhere, the exported moment
// draws record epochs as the board does (none before 0.11), and the
// legend's committed swatch looks like a committed cell.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, loadCore, ROOT, RESULTS } from './harness.mjs';

let env;
let core;
before(async () => {
  env = await setup();
  core = await loadCore();
  fs.mkdirSync(RESULTS, { recursive: true });
});
after(async () => { await env?.close(); });

const scenarioFile = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', `${name}.json`), 'utf8'));

/** The link of a scenario and its number of steps. */
function linkOf(scenario) {
  const sim = core.Simulation.fromScenario(scenario);
  const out = { link: sim.toLink(), length: sim.length() };
  sim.free();
  return out;
}

/** Moves the page to a step through its address, as a shared link at that step would. */
async function goTo(page, at) {
  await page.evaluate((at) => { location.hash = location.hash.replace(/&at=\d+/, '') + `&at=${at}`; }, at);
  await page.waitForFunction((at) => document.querySelector('highwater-playground').shadowRoot.getElementById('position').textContent.startsWith(`${at} /`), at);
}

test('a message in flight rests where it covers no LEO or HW label, at 1440 px and at 390 px', async () => {
  const { link, length } = linkOf(scenarioFile('timed-failover'));
  for (const width of [1440, 390]) {
    const page = await openPage(env, { hash: `#s=${link}&at=1`, viewport: { width, height: 900 } });
    let pills = 0;
    for (let at = 1; at <= length; at++) {
      await goTo(page, at);
      const r = await page.evaluate(() => {
        const root = document.querySelector('highwater-playground').shadowRoot;
        const box = (e) => e.getBoundingClientRect();
        const envelopes = [...root.querySelectorAll('.inflight-layer .envelope')].map(box);
        const labels = [...root.querySelectorAll('.marker-leo .marker-label, .marker-hw .marker-label')].map((e) => ({ text: e.textContent, r: box(e) })).filter((l) => l.r.width > 0);
        const hits = [];
        envelopes.forEach((p, i) => {
          for (const l of labels) if (p.left < l.r.right && l.r.left < p.right && p.top < l.r.bottom && l.r.top < p.bottom) hits.push(`envelope ${i} covers ${l.text}`);
        });
        return { envelopes: envelopes.length, hits };
      });
      pills += r.envelopes;
      assert.deepEqual(r.hits, [], `${width} px, step ${at}`);
    }
    assert.ok(pills > 0, `messages were in flight at ${width} px`);
    await page.context().close();
  }
});

test('the space-time diagram names each lane once: the strip at its top, not the picture under it as well', async () => {
  const { link } = linkOf(scenarioFile('kip101-loss-after-restart'));
  const page = await openPage(env, { hash: `#s=${link}&at=5`, viewport: { width: 1440, height: 1000 } });
  await page.locator('#diagram > svg.diagram .dg-step.current').waitFor();
  const r = await page.evaluate(() => {
    const box = document.querySelector('highwater-playground').shadowRoot.getElementById('diagram');
    const names = [...box.querySelectorAll('.dg-lane text')].map((e) => e.textContent);
    const head = box.querySelector('.diagram-head').getBoundingClientRect();
    const picture = box.querySelector(':scope > svg.diagram').getBoundingClientRect();
    return { names, headBottom: head.bottom, pictureTop: picture.top, headTop: head.top };
  });
  const counts = {};
  for (const n of r.names) counts[n] = (counts[n] || 0) + 1;
  assert.deepEqual(counts, { producer: 1, 'broker 1': 1, 'broker 2': 1, 'broker 3': 1, consumer: 1, controller: 1 });
  // The picture starts under the strip (its own header hidden there), not a header's height below it.
  assert.ok(r.pictureTop < r.headBottom, `picture at ${r.pictureTop}, strip ends at ${r.headBottom}`);
  await page.locator('.diagram-panel').screenshot({ path: path.join(RESULTS, 'diagram-lanes-once.png') });
  assert.deepEqual(page.errors, []);
});

test('a point in the run\'s time reads the same way on the board: seconds, as the caption writes them', async () => {
  const { link, length } = linkOf(scenarioFile('timed-failover'));
  const page = await openPage(env, { hash: `#s=${link}&at=1`, viewport: { width: 1440, height: 900 } });
  const seen = { caption: 0, held: 0, chips: 0, envelopes: 0 };
  for (let at = 1; at <= length; at++) {
    await goTo(page, at);
    const r = await page.evaluate(() => {
      const root = document.querySelector('highwater-playground').shadowRoot;
      const texts = (sel) => [...root.querySelectorAll(sel)].map((e) => e.textContent);
      return {
        caption: texts('.caption-line > .muted').slice(0, 1),
        held: texts('.held'),
        chips: texts('.in-flight .chip'),
        envelopes: texts('.inflight-layer .envelope'),
      };
    });
    for (const [kind, list] of Object.entries(r)) {
      for (const text of list) {
        seen[kind] += 1;
        assert.doesNotMatch(text, /\d ms\b/, `${kind} at step ${at}: ${text}`);
        assert.match(text, /\d+\.\d+ s\b/, `${kind} at step ${at}: ${text}`);
      }
    }
  }
  for (const [kind, n] of Object.entries(seen)) assert.ok(n > 0, `${kind} was shown`);
  assert.deepEqual(page.errors, []);
});

/** The "This moment" SVG the Export menu saves, parsed: its records' texts. */
async function exportedMoment(page) {
  await page.click('#export-menu summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-menu button[data-export="moment_svg"]')]);
  const text = fs.readFileSync(await download.path(), 'utf8');
  return page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const records = [...doc.querySelectorAll('.mo-record')];
    return {
      records: records.length,
      texts: records.flatMap((g) => [...g.querySelectorAll('text')].map((t) => t.textContent)),
      fills: [...new Set(records.map((g) => g.querySelector('rect').getAttribute('fill')))],
      title: doc.querySelector('svg > text').textContent,
    };
  }, text);
}

test('the exported moment writes record epochs as the board draws them: none under 0.10, e0… from 0.11', async () => {
  const scenario = scenarioFile('kip101-loss-after-restart');
  for (const protocol of ['0.10', '0.11']) {
    const { link } = linkOf({ ...scenario, config: { ...scenario.config, protocol } });
    const page = await openPage(env, { hash: `#s=${link}&at=6` });
    const onBoard = await page.locator('.broker-row .cell-epoch').count();
    const m = await exportedMoment(page);
    assert.ok(m.records > 0, `${protocol}: records drawn`);
    const epochs = m.texts.filter((x) => /^e\d+$/.test(x));
    if (protocol === '0.10') {
      assert.equal(onBoard, 0, 'the board draws no record epoch under 0.10');
      assert.deepEqual(epochs, [], '0.10: no epoch label in the export');
      assert.equal(m.fills.length, 1, `0.10: one colour for every record (${m.fills})`);
    } else {
      assert.ok(onBoard > 0, 'the board draws record epochs from 0.11');
      assert.equal(epochs.length, m.records, '0.11: an epoch label under each record');
    }
    assert.match(m.title, /· \d+\.\d+ s ·/, `the title's time: ${m.title}`);
    await page.context().close();
  }
});

test('the legend\'s committed and uncommitted swatches are coloured as the cells are (an epoch\'s colour, grey under 0.10)', async () => {
  // "a" committed on every broker, "b" written on the leader only.
  const steps = [{ produce: { value: 'a', acks: '1' } }, { fetch: 2 }, { fetch: 3 }, { fetch: 2 }, { fetch: 3 }, { produce: { value: 'b', acks: '1' } }];
  const committed = {};
  for (const protocol of ['0.10', '0.11', '3.7']) {
    const { link } = linkOf({ version: 1, name: 'Committed and not', config: { brokers: 3, protocol }, steps });
    const page = await openPage(env, { hash: `#s=${link}` });
    const r = await page.evaluate(() => {
      const root = document.querySelector('highwater-playground').shadowRoot;
      const paint = (el) => { const s = getComputedStyle(el); return { background: s.backgroundColor, border: s.borderTopColor }; };
      const first = (sel) => root.querySelector(sel);
      return {
        committedCell: paint(first('.broker-row .cell.committed')),
        uncommittedCell: paint(first('.broker-row .cell.uncommitted')),
        committedSwatch: paint(first('[data-testid="legend-committed"]')),
        uncommittedSwatch: paint(first('[data-testid="legend-uncommitted"]')),
        cellClass: first('.broker-row .cell.committed').className,
      };
    });
    assert.deepEqual(r.committedSwatch, r.committedCell, `${protocol}: committed (${r.cellClass})`);
    assert.deepEqual(r.uncommittedSwatch, r.uncommittedCell, `${protocol}: uncommitted`);
    committed[protocol] = r.committedSwatch.background;
    await page.context().close();
  }
  assert.notEqual(committed['0.11'], committed['0.10'], 'epoch 0\'s colour from 0.11, grey under 0.10');
});

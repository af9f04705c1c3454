// A big run (7 brokers, 240 records in every log; scripts/bench-interactions.mjs
// times it): the page draws what is in view and changes what a step changed.
// The space-time diagram and the producer list draw only the rows in view (a
// scroll draws the others), and a step leaves the rows of brokers it did not
// touch alone, DOM nodes and all. Behaviour only: no timing here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage } from './harness.mjs';
import { bigRunLink } from '../../scripts/bench-interactions.mjs';

let env;
let link;
before(async () => {
  env = await setup();
  ({ link } = await bigRunLink());
});
after(async () => { await env?.close(); });

const open = () => openPage(env, { hash: `#s=${encodeURIComponent(link)}` });
const inRoot = (page, fn, arg) => page.evaluate(({ fn, arg }) => new Function('root', 'arg', `return (${fn})(root, arg)`)(document.querySelector('highwater-playground').shadowRoot, arg), { fn: fn.toString(), arg });

test('the diagram of a big run draws the arrows and marks in view, every step\'s band, and the others once scrolled to', async () => {
  const page = await open();
  // The diagram's panel is loaded once the board is drawn: its picture, scrolled to the current step.
  await page.locator('#diagram > svg.diagram .dg-step.current').waitFor();
  const drawn = () => inRoot(page, (root) => {
    const box = root.getElementById('diagram');
    const svg = box.querySelector(':scope > svg.diagram');
    const view = box.getBoundingClientRect();
    const shown = [...svg.querySelectorAll('g.dg-arrow, g.dg-mark')].filter((g) => {
      const r = g.getBoundingClientRect();
      return r.bottom > view.top + 41 && r.top < view.bottom;
    });
    return {
      arrows: Number(svg.getAttribute('data-arrows')),
      drawnArrows: svg.querySelectorAll('g.dg-arrow').length,
      bands: svg.querySelectorAll('g.dg-step').length,
      nodes: svg.querySelectorAll('*').length,
      height: svg.getBoundingClientRect().height,
      boxHeight: box.clientHeight,
      scrollHeight: box.scrollHeight,
      scrollTop: box.scrollTop,
      steps: [...new Set(shown.map((g) => Number(g.dataset.step)))].sort((a, b) => a - b),
      bandsInView: [...svg.querySelectorAll('g.dg-step')].filter((g) => {
        const r = g.getBoundingClientRect();
        return r.bottom > view.top + 41 && r.top < view.bottom;
      }).map((g) => Number(g.dataset.step)),
    };
  });
  const end = await drawn();
  assert.equal(end.bands, 40, 'every step of the window has its band');
  assert.ok(end.height > 3 * end.boxHeight, `the picture (${end.height} px) is taller than three boxes (${end.boxHeight} px)`);
  assert.ok(end.drawnArrows < end.arrows / 2, `${end.drawnArrows} of ${end.arrows} arrows drawn`);
  assert.ok(end.steps.length > 0, 'what is in view is drawn');
  assert.ok(end.steps.every((s) => end.bandsInView.includes(s)), 'the arrows and marks drawn in view are those of the steps in view');
  assert.ok(end.bandsInView.includes(await page.locator('#diagram .dg-step.current').getAttribute('data-step').then(Number)), 'the current step is in view');
  // Scrolled to the top: the first steps' arrows are drawn, and the current step's are not any more.
  await inRoot(page, (root) => { root.getElementById('diagram').scrollTop = 0; });
  await page.waitForFunction(() => {
    const svg = document.querySelector('highwater-playground').shadowRoot.querySelector('#diagram > svg.diagram');
    const first = svg.querySelector('g.dg-step').dataset.step;
    return svg.querySelector(`g.dg-arrow[data-step="${first}"], g.dg-mark[data-step="${first}"]`);
  });
  const top = await drawn();
  assert.ok(top.steps.length > 0 && top.steps.every((s) => top.bandsInView.includes(s)), `in view at the top: ${top.steps}`);
  assert.ok(top.steps[0] < end.steps[0], 'other rows are drawn there');
  assert.deepEqual(page.errors, []);
});

test('a long producer list draws the rows in view between spacers, numbered as before, and others once scrolled to', async () => {
  const page = await open();
  const rows = () => inRoot(page, (root) => {
    const box = root.getElementById('producer');
    const list = box.querySelector('ol.records');
    const view = box.getBoundingClientRect();
    const lis = [...list.querySelectorAll('li')];
    return {
      count: lis.length,
      // Each row says its number (`<li value>`), so the window moving by a row changes that row only.
      numbers: lis.map((li) => li.value),
      values: lis.map((li) => li.querySelector('.rec-value').textContent),
      inView: lis.filter((li) => { const r = li.getBoundingClientRect(); return r.bottom > view.top && r.top < view.bottom; }).map((li) => li.querySelector('.rec-value').textContent),
      spacers: box.querySelectorAll('.records-spacer').length,
      scrollHeight: box.scrollHeight,
      earlier: box.querySelector('p.muted').textContent,
    };
  });
  const first = await rows();
  assert.match(first.earlier, /140 earlier records/);
  assert.ok(first.count < 40, `${first.count} of 100 rows drawn`);
  assert.equal(first.spacers, 2);
  assert.equal(first.numbers[0], 141);
  assert.deepEqual(first.numbers, first.numbers.map((_, i) => 141 + i), 'numbered in turn');
  assert.equal(first.values[0], 'r140');
  assert.ok(first.inView.includes('r141'));
  assert.ok(first.scrollHeight > 100 * 27, 'the box scrolls over every row');
  await inRoot(page, (root) => { const box = root.getElementById('producer'); box.scrollTop = box.scrollHeight; });
  await page.waitForFunction(() => [...document.querySelector('highwater-playground').shadowRoot.querySelectorAll('#producer .rec-value')].some((v) => v.textContent === 'r239'));
  const last = await rows();
  assert.ok(last.count < 40);
  assert.equal(last.values.at(-1), 'r239');
  assert.equal(last.numbers.at(-1), 240);
  assert.ok(last.inView.includes('r239') && last.inView.includes('r235'), `in view: ${last.inView}`);
  assert.equal(last.numbers[0], 141 + 240 - 140 - last.count, 'the list is numbered from its first drawn row');
  assert.deepEqual(page.errors, []);
});

test('a step leaves what it did not change alone: the other brokers\' rows keep their nodes and see no mutation', async () => {
  const page = await open();
  const mark = (broker) => inRoot(page, (root, broker) => {
    window.__cells = [...root.querySelectorAll(`.broker-row[data-broker="${broker}"] .cell`)];
  }, broker);
  const kept = (broker) => inRoot(page, (root, broker) => {
    const now = [...root.querySelectorAll(`.broker-row[data-broker="${broker}"] .cell`)];
    return { count: now.length, kept: now.filter((c) => window.__cells.includes(c)).length };
  }, broker);
  // A produce: the leader's log gains a record and the window moves on by one; the cells still shown are the same nodes.
  await mark(1);
  await page.click('#btn-produce');
  await page.locator('#position').filter({ hasText: '349 / 349' }).waitFor();
  const leader = await kept(1);
  assert.equal(leader.kept, leader.count - 1, `the leader keeps ${leader.kept} of ${leader.count} cells`);
  // Broker 2 fetches: the leader and broker 2 change, broker 3 does not.
  await inRoot(page, (root) => {
    const row = root.querySelector('.broker-row[data-broker="3"]');
    window.__cells = [...row.querySelectorAll('.cell')];
    window.__mutations = [];
    window.__observer = new MutationObserver((m) => window.__mutations.push(...m));
    window.__observer.observe(row, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await page.locator('.broker-row[data-broker="2"] button[data-action="fetch"]').click();
  await page.locator('#position').filter({ hasText: '350 / 350' }).waitFor();
  const after = await inRoot(page, (root) => {
    window.__mutations.push(...window.__observer.takeRecords());
    const row = root.querySelector('.broker-row[data-broker="3"]');
    const now = [...row.querySelectorAll('.cell')];
    return {
      same: now.length > 0 && now.length === window.__cells.length && now.every((c, i) => c === window.__cells[i]),
      mutations: window.__mutations.map((m) => `${m.type} ${m.attributeName || ''} ${m.target.className || m.target.nodeName}`),
      leo2: root.querySelector('.broker-row[data-broker="2"] [data-stat="leo"]').textContent,
      leo3: row.querySelector('[data-stat="leo"]').textContent,
    };
  });
  assert.equal(after.leo2, '241', 'broker 2 fetched the new record');
  assert.equal(after.leo3, '240');
  assert.equal(after.same, true, 'broker 3 keeps its cells');
  assert.deepEqual(after.mutations, [], 'nothing in broker 3\'s row was touched');
  assert.deepEqual(page.errors, []);
});

test('the board stays where it is as the caption changes: stepping back and forth over steps with more and fewer notes moves it at most once', async () => {
  const page = await open();
  const read = () => inRoot(page, (root) => ({
    top: root.getElementById('cluster').getBoundingClientRect().top,
    lines: root.querySelectorAll('#caption .step-notes li').length + root.querySelectorAll('#caption .hint').length,
  }));
  const tops = [];
  const lines = new Set();
  // Back over five steps (fetches with a note and without, a produce with its hint), then forward again, twice.
  for (const [button, times] of [['#btn-back', 5], ['#btn-forward', 5], ['#btn-back', 5], ['#btn-forward', 5]]) {
    for (let i = 0; i < times; i++) {
      const before = await page.locator('#position').textContent();
      await page.click(button);
      await page.waitForFunction((b) => document.querySelector('highwater-playground').shadowRoot.getElementById('position').textContent !== b, before);
      const r = await read();
      tops.push(r.top);
      lines.add(r.lines);
    }
  }
  assert.ok(lines.size > 1, `the captions differ (lines of notes and hints: ${[...lines]})`);
  // After the first pass back, the board does not move again.
  const later = tops.slice(5);
  assert.deepEqual([...new Set(later)], [later[0]], `the board's top over the steps: ${tops}`);
  assert.deepEqual(page.errors, []);
});

test('a step\'s address is written after its frame, not in the click\'s own task, and is the step\'s', async () => {
  const page = await open();
  const r = await inRoot(page, (root) => {
    const before = location.hash;
    root.getElementById('btn-produce').click();
    return { before, during: location.hash };
  });
  assert.equal(r.during, r.before, 'the click\'s task leaves the address as it was');
  await page.waitForFunction((b) => location.hash !== b, r.before);
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /^#s=v1\.[^&]+&at=349$/);
  assert.deepEqual(page.errors, []);
});

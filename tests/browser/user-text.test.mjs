// A user's text drawn with its unseen characters written out: a right-to-left
// override (U+202E) in a scenario's name or a record's value does not reverse
// what the page shows ("gnp\u{202e}exe" cannot read "exe.png"), in the heading,
// the tab's title, the log cells, the producer list, the consumer's chips and
// the event log; U+0000 and U+001B in a value leave the SVG exports valid XML
// and the PNG exports working.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setup, openPage, loadCore, missingKeys } from './harness.mjs';

const RLO = '\u202e';
const SPOOF = `gnp${RLO}exe`;
const SHOWN = 'gnp\\u{202e}exe';

let env;
let link;
before(async () => {
  env = await setup();
  const core = await loadCore();
  const sim = core.Simulation.fromScenario({
    version: 1,
    name: `Report ${SPOOF}.png`,
    description: `Holds ${SPOOF} and a\u2066b`,
    config: { brokers: 2 },
    steps: [
      { produce: { value: SPOOF, acks: '1' } },
      { produce: { value: 'nul\u0000here', acks: '1' } },
      { produce: { value: 'esc\u001bhere', acks: '1' } },
      { fetch: 2 },
      { fetch: 2 },
      { consume: null },
    ],
  });
  link = sim.toLink();
  sim.free();
});
after(async () => env && env.close());

/** Nothing the page shows holds a bidi control, a C0 control or a zero-width format character. */
const UNSEEN = /[\u0000-\u0008\u000b-\u001f\u061c\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/u;

test('bidi and control characters in a scenario name and record values are written out wherever they are drawn', async () => {
  const page = await openPage(env, { hash: `#s=${link}`, viewport: { width: 1440, height: 1000 } });
  const heading = await page.locator('#scenario-name').textContent();
  assert.equal(heading, `Report ${SHOWN}.png`);
  assert.equal(await page.locator('#scenario-description').textContent(), 'Holds gnp\\u{202e}exe and a\\u{2066}b');
  assert.equal(await page.title(), `Report ${SHOWN}.png · Highwater`);
  const cells = await page.locator('.broker-row[data-broker="1"] .cell .cell-value').allTextContents();
  assert.deepEqual(cells, [SHOWN, 'nul\\0here', 'esc\\u{1b}here']);
  const cellTitle = await page.locator('.broker-row[data-broker="1"] .cell').first().getAttribute('title');
  assert.ok(cellTitle.includes(SHOWN) && !UNSEEN.test(cellTitle), cellTitle);
  assert.deepEqual(await page.locator('#producer .rec-value').allTextContents(), [SHOWN, 'nul\\0here', 'esc\\u{1b}here']);
  const chips = await page.locator('#consumer .chip').allTextContents();
  assert.ok(chips.some((c) => c === `0: ${SHOWN}`), chips.join(' | '));
  // The value is isolated from the row around it: the status after it keeps its place.
  assert.equal(await page.locator('#producer .record-row').first().locator('bdi.rec-value').count(), 1);
  const everything = await page.evaluate(() => {
    const root = document.querySelector('highwater-playground').shadowRoot;
    const texts = [];
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (n.nodeType === 3) texts.push(n.nodeValue);
      else for (const a of ['title', 'aria-label', 'aria-description']) if (n.hasAttribute(a)) texts.push(n.getAttribute(a));
    }
    return [...texts, document.title];
  });
  assert.deepEqual(everything.filter((s) => UNSEEN.test(s)), [], 'no unseen character anywhere in the element or the title');
  assert.ok((await page.locator('#event-log').textContent()).includes(SHOWN), 'the event log, as the trace writes it');
  // In another language the event log and the captions are the page's own lines, escaped the same way.
  await page.selectOption('#lang', 'zh-Hans');
  await page.locator('#scenario-name', { hasText: SHOWN }).waitFor();
  assert.ok((await page.locator('#event-log').textContent()).includes(SHOWN));
  assert.deepEqual(await missingKeys(page), []);
  assert.deepEqual(page.errors, []);
});

test('SVG exports of a run whose values hold U+0000 and U+001B parse as XML, and the PNG exports are PNGs', async () => {
  const page = await openPage(env, { hash: `#s=${link}`, viewport: { width: 1440, height: 1000 } });
  const save = async (kind) => {
    await page.click('#export-menu summary');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#export-menu button[data-export="${kind}"]`)]);
    return fs.readFileSync(await download.path());
  };
  for (const kind of ['moment_svg', 'diagram_svg']) {
    const svg = (await save(kind)).toString('utf8');
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      return { error: doc.querySelector('parsererror')?.textContent ?? null, text: doc.documentElement.textContent };
    }, svg);
    assert.equal(parsed.error, null, `${kind} parses`);
    assert.ok(!UNSEEN.test(svg), `${kind}: no control or bidi character`);
    if (kind === 'moment_svg') assert.ok(parsed.text.includes('nul\\0here') || parsed.text.includes('nul\\0h'), `${kind}: the value written out`);
  }
  for (const kind of ['moment_png', 'diagram_png']) {
    const png = await save(kind);
    assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], `${kind} is a PNG`);
  }
  assert.deepEqual(page.errors, []);
});

// Write a lesson: the author plays a run, marks stops, types captions and
// tasks, states values of the board as facts (a click on a broker's LEO or
// HW, or the list of what the board shows) or as a question, and the model
// checks the draft; the preview plays it as a learner takes it, and closing
// the preview gives the draft back; the draft survives a reload; the file it
// downloads is a tour file `highwater tour check` passes, and its link opens
// the same lesson.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { setup, openPage, cliBinary } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => env && env.close());

/** Records a two-stop lesson: the empty run, then m1 written and fetched by broker 2, with facts and a question. */
async function record(page) {
  await page.locator('#btn-write').click();
  await page.locator('#writer .writer-head').waitFor();
  await page.locator('#writer input[data-field="title"]').fill('My first lesson');
  await page.locator('#writer [data-writer="add"]').click();
  await page.locator('#writer textarea[data-field="caption"]').fill('Three brokers; nothing is written yet.');
  await page.locator('#writer select[data-field="value"]').selectOption('leader');
  await page.locator('#writer [data-writer="fact"]').click();
  await page.locator('#produce-value').fill('m1');
  await page.locator('#btn-produce').click();
  await page.locator('.broker-row[data-broker="2"] button[data-action="fetch"]').click();
  await page.locator('#writer [data-writer="add"]').click();
  await page.locator('#writer input[type="checkbox"][data-field="do"]').check();
  await page.locator('#writer textarea[data-field="task"]').fill('Let broker 2 fetch.');
  await page.locator('#writer textarea[data-field="caption"]').fill('Broker 2 now has m1; the HW is still 0.');
  // A click on the board's figure states it.
  await page.locator('.broker-row[data-broker="2"] [data-stat="leo"]').click();
  await page.locator('#writer select[data-field="value"]').selectOption('high_watermark');
  await page.locator('#writer [data-writer="fact"]').click();
  await page.locator('#writer select[data-field="value"]').selectOption('brokers.2.high_watermark');
  await page.locator('#writer [data-writer="predict"]').click();
}

test('an author records a lesson: stops, words, facts from the board and a question; the model checks it; the preview plays it; a reload keeps the draft', async () => {
  const page = await openPage(env, { viewport: { width: 1280, height: 900 } });
  await record(page);
  assert.deepEqual(await page.locator('#writer [data-testid="writer-fact"]').allTextContents(), ['broker 2\'s log end offset (LEO) = 1✕', 'the partition\'s high watermark = 0✕']);
  assert.equal(await page.locator('#writer [data-testid="writer-predict"]').textContent(), 'Asks: broker 2\'s high watermark✕');
  await page.locator('#writer [data-writer="check"]').click();
  await page.locator('#writer [data-testid="writer-status"]', { hasText: 'holds' }).waitFor();
  assert.equal(await page.locator('#writer [data-testid="writer-status"]').textContent(), 'Every fact of the 2 stop(s) holds in the model.');

  // The preview: the learner's view, the question before the board moves.
  await page.locator('#writer [data-writer="preview"]').click();
  const tour = page.locator('#tour');
  await tour.locator('[data-testid="tour-title"]').waitFor();
  assert.equal(await tour.locator('[data-testid="tour-title"]').textContent(), 'My first lesson');
  assert.equal(await page.locator('#writer').isHidden(), true);
  assert.equal(await tour.locator('[data-testid="tour-caption"]').textContent(), 'Three brokers; nothing is written yet.');
  await tour.locator('[data-tour="next"]').click();
  await tour.locator('[data-testid="tour-choices"] button').first().waitFor();
  assert.equal((await page.locator('#position').textContent()).trim(), '1 / 2');
  await tour.locator('button[data-tour="choice"][data-value="0"]').click();
  // A "do" stop with a question: the choice first, then the learner's step.
  assert.equal(await tour.locator('[data-testid="tour-task"]').textContent(), 'Let broker 2 fetch.');
  await tour.locator('[data-testid="task-control"]').click();
  await tour.locator('[data-testid="tour-verdict"]').waitFor();
  assert.equal(await tour.locator('[data-testid="tour-verdict"]').textContent(), 'Right: 0.');
  await tour.locator('[data-tour="close"]').first().click();
  await page.locator('#writer .writer-head').waitFor();

  // A reload: the draft and its run come back.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.locator('#btn-write').click();
  await page.locator('#writer .writer-head').waitFor();
  assert.deepEqual(await page.locator('#writer .writer-stops li').allTextContents(), ['Step 0: intro', 'Step 2: step-2 ? ✋']);
  assert.equal(await page.locator('#writer input[data-field="title"]').inputValue(), 'My first lesson');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the lesson exports as a file highwater tour check passes, as an element with the file inside, and as a link that opens it', async () => {
  const page = await openPage(env, { viewport: { width: 1280, height: 900 }, context: { permissions: ['clipboard-read', 'clipboard-write'] } });
  await record(page);
  const download = page.waitForEvent('download');
  await page.locator('#writer [data-writer="export"][data-kind="file"]').click();
  const file = await (await download).path();
  const text = fs.readFileSync(file, 'utf8');
  const tour = JSON.parse(text);
  assert.equal(tour.highwater_tour, 1);
  assert.deepEqual(tour.parts[0].stops.map((s) => [s.key, s.at, Boolean(s.do), s.predict ?? null]), [['intro', 0, false, null], ['step-2', 2, true, 'brokers.2.high_watermark']]);
  assert.deepEqual(tour.parts[0].stops[1].facts, { brokers: { 2: { log_end_offset: 1 } }, high_watermark: 0 });
  const out = execFileSync(cliBinary(), ['tour', 'check', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  assert.equal(out, '');

  await page.locator('#writer [data-writer="export"][data-kind="snippet"]').click();
  await page.locator('#writer [data-testid="writer-status"]', { hasText: 'Copied' }).waitFor();
  const snippet = await page.evaluate(() => navigator.clipboard.readText());
  const inside = /<script type="application\/json">\n([\s\S]*)\n<\/script><\/highwater-playground>/.exec(snippet);
  assert.ok(inside, snippet.slice(0, 200));
  assert.deepEqual(JSON.parse(inside[1]), tour, 'the element holds the same file');

  await page.locator('#writer [data-writer="export"][data-kind="link"]').click();
  await page.locator('#writer [data-testid="writer-status"]', { hasText: 'link of' }).waitFor();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(link, /\?step=1#t=v1\./);
  const other = await page.context().newPage();
  await other.goto(link);
  await other.waitForSelector('body[data-ready="true"]');
  await other.locator('#tour [data-testid="tour-title"]', { hasText: 'My first lesson' }).waitFor();
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('what the check refuses is said in the writer\'s words, in the author\'s language: a title to give, a caption to write', async () => {
  for (const [lang, words] of [
    ['en', { title: 'Give the lesson a title (above) before the model can check it.', caption: 'Stop 1 needs a caption: say what the board shows there.' }],
    ['zh-Hans', { title: '先在上方给课程起个标题，模型才能检查它。', caption: '第 1 站还没有说明文字：写下此刻页面上显示了什么。' }],
  ]) {
    const page = await openPage(env, { path: `?lang=${lang}`, viewport: { width: 1280, height: 900 } });
    const status = () => page.evaluate(() => document.querySelector('highwater-playground').shadowRoot.querySelector('#writer [data-testid="writer-status"]').textContent);
    await page.locator('#btn-write').click();
    await page.locator('#writer .writer-head').waitFor();
    // A stop, with no title and no caption yet.
    await page.locator('#writer [data-writer="add"]').click();
    await page.locator('#writer [data-writer="check"]').click();
    await page.waitForFunction((w) => document.querySelector('highwater-playground').shadowRoot.querySelector('#writer [data-testid="writer-status"]').textContent === w, words.title);
    await page.locator('#writer input[data-field="title"]').fill('A lesson');
    await page.locator('#writer [data-writer="check"]').click();
    await page.waitForFunction((w) => document.querySelector('highwater-playground').shadowRoot.querySelector('#writer [data-testid="writer-status"]').textContent === w, words.caption);
    assert.doesNotMatch(await status(), /language tag|parts\[/);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

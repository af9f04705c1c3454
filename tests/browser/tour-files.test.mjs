// A docs author's tour file in the page: written inside the element, fetched
// from `tour-src`, opened from the page's `?tour-src=` and from a `#t=` link
// that carries it. It plays as a built-in tour does (lesson mode, Back/Next,
// tasks, the address following the stop), in the page's language when the
// file has it; the model checks it as it loads (`data-tour-errors`, a note
// for the author at a stop whose fact does not hold); a prediction stop asks
// before the board moves and marks the model's answer (`highwater-answer`);
// a file that cannot be read is a message and the run shown stays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, ROOT, cliBinary } from './harness.mjs';
import { execFileSync } from 'node:child_process';

let env;
before(async () => { env = await setup(); });
after(async () => env && env.close());

const SAMPLE = fs.readFileSync(path.join(ROOT, 'examples', 'tours', 'acks-1-loss.json'), 'utf8');
const sample = () => JSON.parse(SAMPLE);
const stopsOf = (tour) => tour.parts.flatMap((p) => p.stops);

/** The model's word on a file, from the command line: predictions with their answers and choices. */
function cliCheck(text) {
  const file = path.join(ROOT, 'test-results', `tour-files-${process.pid}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  try {
    return JSON.parse(execFileSync(cliBinary(), ['tour', 'check', '--json', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch (err) {
    return JSON.parse(err.stdout);
  }
}

/** A host page with `body`; `files` are served at their paths beside it. */
async function hostPage(body, { files = {}, lang = 'en' } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  for (const [name, file] of Object.entries(files)) {
    await page.route(`${env.url}${name}`, (route) => route.fulfill(file));
  }
  const url = `${env.url}tour-files-host.html`;
  await page.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Docs</title><script type="module" src="./highwater-playground.js"></script></head><body>${body}</body></html>`,
  }));
  await page.addInitScript(() => {
    window.answers = [];
    document.addEventListener('highwater-answer', (e) => window.answers.push(e.detail));
  });
  await page.goto(url);
  return page;
}

const inside = (page, selector) => page.locator('#a').locator(selector);
const inline = (text) => `<highwater-playground id="a" controls="full"><script type="application/json">${text.replace(/</g, '\\u003c')}</script></highwater-playground>`;

async function position(page) {
  return Number((await inside(page, '#position').textContent()).split('/')[0].trim());
}

/** Next (or the task's control) until the stop with `key` of the sample is shown. */
async function nextUntil(page, key) {
  const keys = stopsOf(sample()).map((s) => s.key);
  for (let i = 0; i < 30; i++) {
    const [n] = (await inside(page, '[data-testid="tour-count"]').textContent()).match(/\d+/g).map(Number);
    if (keys[n - 1] === key) return;
    await inside(page, '.tour-buttons [data-tour="next"], .tour-buttons [data-tour="do"]').first().click();
  }
  throw new Error(`no stop ${key}`);
}

test('a tour file inside the element plays in the page\'s language: its title, its stops, its prediction asked before the board moves and the model\'s answer marked', async () => {
  const page = await hostPage(inline(SAMPLE));
  await page.waitForSelector('#a[data-ready="true"]');
  await page.waitForSelector('#a[data-tour-errors]');
  assert.equal(await page.locator('#a').getAttribute('data-tour-errors'), '0', 'every fact of the sample holds');
  assert.equal(await inside(page, '[data-testid="tour-title"]').textContent(), sample().title.en);
  assert.equal(await inside(page, '[data-testid="tour-caption"]').textContent(), stopsOf(sample())[0].caption.en);
  assert.match(await inside(page, '#scenario-name').textContent(), /Why acks=1 can lose a write/);
  assert.ok(await inside(page, '#root').evaluate((el) => el.classList.contains('lesson')), 'lesson mode');

  // The prediction: the board one step before its position, the caption (which tells) held back.
  const guess = stopsOf(sample()).find((s) => s.key === 'guess-hw');
  const model = cliCheck(SAMPLE).predictions.find((p) => p.stop === 'guess-hw');
  await nextUntil(page, 'guess-hw');
  const choices = inside(page, '[data-testid="tour-choices"] button[data-tour="choice"]');
  await choices.first().waitFor();
  assert.equal(await position(page), guess.at - 1, 'asked before the board moves there');
  assert.equal(await inside(page, '[data-testid="tour-caption"]').count(), 0, 'the caption waits for the answer');
  assert.match(await inside(page, '.tour-question').textContent(), /What will broker 1's high watermark be\?/);
  const values = await choices.evaluateAll((bs) => bs.map((b) => JSON.parse(b.dataset.value)));
  assert.deepEqual(values, model.choices, 'the choices are the model\'s, in its order');
  // A wrong choice: the board moves, the model's answer is marked, the caption explains.
  const wrong = values.find((v) => JSON.stringify(v) !== JSON.stringify(model.answer));
  await inside(page, `button[data-tour="choice"][data-value='${JSON.stringify(wrong)}']`).click();
  await inside(page, '[data-testid="tour-verdict"]').waitFor();
  assert.equal(await position(page), guess.at);
  // Answered, the choices are a list: the model's marked, the learner's too; none is a button any more.
  assert.equal(await inside(page, '[data-testid="tour-choices"] button').count(), 0);
  assert.equal(await inside(page, '[data-testid="tour-choices"] .correct').getAttribute('data-value'), JSON.stringify(model.answer));
  assert.equal(await inside(page, '[data-testid="tour-choices"] [data-chosen="true"]').getAttribute('data-value'), JSON.stringify(wrong));
  assert.equal(await inside(page, '[data-testid="tour-verdict"]').textContent(), `The model has ${model.answer}; you chose ${wrong}.`);
  assert.equal(await inside(page, '[data-testid="tour-caption"]').textContent(), guess.caption.en);
  // The board says what the caption says: broker 1's HW.
  assert.equal((await inside(page, '.broker-row[data-broker="1"] [data-stat="hw"]').textContent()).trim(), String(model.answer));
  assert.deepEqual(await page.evaluate(() => window.answers), [{ tour: 'acks-1-loss', stop: 'guess-hw', path: 'brokers.1.high_watermark', chosen: wrong, answer: model.answer, correct: false }]);
  // Back asks again; the right choice is said right.
  await inside(page, '.tour-buttons [data-tour="back"]').click();
  assert.equal(await position(page), guess.at - 1);
  await inside(page, `button[data-tour="choice"][data-value='${JSON.stringify(model.answer)}']`).click();
  assert.equal(await inside(page, '[data-testid="tour-verdict"]').textContent(), `Right: ${model.answer}.`);
  assert.equal((await page.evaluate(() => window.answers)).at(-1).correct, true);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('in 简体中文 the file\'s own words; a zh-Hant reader of a file with en and zh-Hans reads the zh-Hans, marked with its language', async () => {
  const page = await hostPage(inline(SAMPLE), { lang: 'zh-Hans' });
  await page.waitForSelector('#a[data-ready="true"]');
  await inside(page, '[data-testid="tour-title"]').waitFor();
  assert.equal(await inside(page, '[data-testid="tour-title"]').textContent(), sample().title['zh-Hans']);
  assert.equal(await inside(page, '[data-testid="tour-caption"]').textContent(), stopsOf(sample())[0].caption['zh-Hans']);
  await page.evaluate(() => document.getElementById('a').setAttribute('lang', 'zh-Hant'));
  await page.waitForFunction(() => document.getElementById('a').shadowRoot.querySelector('[data-testid="tour-caption"] span[lang]'));
  assert.equal(await inside(page, '[data-testid="tour-caption"] span[lang]').getAttribute('lang'), 'zh-Hans', 'Chinese in its other script before English');
  assert.equal(await inside(page, '[data-testid="tour-caption"]').textContent(), stopsOf(sample())[0].caption['zh-Hans']);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('tour-src: a fact the model does not bear out is counted in data-tour-errors and said at its stop, for the author; the tour still plays', async () => {
  const wrong = sample();
  const stop = wrong.parts[0].stops.find((s) => s.key === 'write-m1');
  stop.facts.brokers['1'].high_watermark = 1; // the author thinks the HW is already 1
  const page = await hostPage('<highwater-playground id="a" tour-src="lessons/wrong.json"></highwater-playground>', {
    files: { 'lessons/wrong.json': { contentType: 'application/json', body: JSON.stringify(wrong) } },
  });
  await page.waitForSelector('#a[data-tour-errors="1"]');
  assert.equal(await inside(page, '[data-testid="tour-findings"]').count(), 0, 'nothing to say at the first stop');
  await inside(page, '.tour-buttons [data-tour="next"]').click();
  const note = inside(page, '[data-testid="tour-findings"]');
  await note.waitFor();
  assert.equal(await note.textContent(), 'For the tour\'s author: this stop states brokers.1.high_watermark = 1; the model has 0.');
  assert.equal(await note.locator('code').textContent(), 'brokers.1.high_watermark');
  // It still plays: the task's control takes the step.
  await inside(page, '[data-testid="task-control"]').click();
  assert.equal(await position(page), 1);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a tour file that cannot be opened is a short message and the run shown stays: not found, not JSON, an unknown key, too big, not http', async () => {
  const unknown = { ...sample(), colour: 'blue' };
  const cases = [
    ['lessons/missing.json', { status: 404, body: 'no' }, /could not be fetched \(404\)/],
    ['lessons/not-json.json', { body: '<html>oops</html>' }, /tour is not valid JSON/],
    ['lessons/unknown.json', { body: JSON.stringify(unknown) }, /colour/],
    ['lessons/huge.json', { body: ' '.repeat((1 << 20) + 10) }, /larger than 1,048,576 bytes/],
    ['javascript:alert(1)', null, /not an http or https address/],
  ];
  for (const [src, file, message] of cases) {
    const page = await hostPage('<highwater-playground id="a" scenario="hw-is-min-isr-leo" step="3"></highwater-playground>', { files: file ? { [src]: file } : {} });
    await page.waitForSelector('#a[data-ready="true"]');
    const shown = await inside(page, '#position').textContent();
    await page.evaluate((s) => document.getElementById('a').setAttribute('tour-src', s), src);
    const note = inside(page, '#notices .notice-error');
    await note.waitFor();
    const text = await note.textContent();
    assert.match(text, /The tour could not be opened/, src);
    assert.match(text, message, src);
    assert.ok(text.length < 400, `${src}: a short message (${text.length})`);
    assert.equal(await inside(page, '#position').textContent(), shown, `${src}: the run kept`);
    assert.match(shown, /^3 \//);
    assert.equal(await inside(page, '#tour').isHidden(), true);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('author text is text: markup in a tour file\'s title and captions is shown as written, never made into elements', async () => {
  const hostile = sample();
  hostile.title.en = '<img src=x onerror="window.owned=1">Title';
  hostile.parts[0].stops[0].caption.en = '<script>window.owned=2</script><b>bold</b>';
  const page = await hostPage(inline(JSON.stringify(hostile)));
  await page.waitForSelector('#a[data-tour-errors]');
  assert.equal(await inside(page, '[data-testid="tour-title"]').textContent(), hostile.title.en);
  assert.equal(await inside(page, '[data-testid="tour-caption"]').textContent(), hostile.parts[0].stops[0].caption.en);
  assert.equal(await inside(page, '#tour img, #tour script, #tour b').count(), 0);
  assert.equal(await page.evaluate(() => window.owned), undefined);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the page: ?tour-src= opens the file and the address follows the stop; a #t= link carries the whole tour and replays it at its stop', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  await context.route(`${env.url}lessons/acks.json`, (route) => route.fulfill({ contentType: 'application/json', body: SAMPLE }));
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${env.url}?tour-src=lessons/acks.json&step=2`);
  await page.waitForSelector('body[data-ready="true"]');
  const panel = page.locator('highwater-playground').locator('#tour');
  await panel.locator('[data-testid="tour-count"]').waitFor();
  assert.match(await panel.locator('[data-testid="tour-count"]').textContent(), /^2 of \d+$/);
  await panel.locator('[data-testid="task-control"]').click();
  await panel.locator('[data-tour="next"]').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') === '3');
  assert.equal(new URL(page.url()).searchParams.get('tour-src'), 'lessons/acks.json');
  assert.equal(new URL(page.url()).searchParams.get('tour'), null);

  // A link made by the model, opened in a new page: the same tour, at its stop.
  const link = await page.evaluate(async (text) => (await import('./element/tour-check.js')).tourToLink(text), SAMPLE);
  assert.match(link, /^v1\./);
  const other = await context.newPage();
  other.errors = [];
  other.on('pageerror', (e) => other.errors.push(e.message));
  await other.goto(`${env.url}?step=3#t=${link}`);
  await other.waitForSelector('body[data-ready="true"]');
  const p2 = other.locator('highwater-playground').locator('#tour');
  await p2.locator('[data-testid="tour-choices"]').waitFor();
  assert.match(await p2.locator('[data-testid="tour-count"]').textContent(), /^3 of \d+$/);
  assert.equal(await p2.locator('[data-testid="tour-title"]').textContent(), sample().title.en);
  // The address keeps the tour's link (not the run's) as the stop moves.
  await p2.locator('.tour-buttons [data-tour="next"]').click(); // "Show me"
  await p2.locator('.tour-buttons [data-tour="next"]').click();
  await other.waitForFunction(() => new URL(location.href).searchParams.get('step') === '4');
  assert.ok(new URL(other.url()).hash.startsWith('#t=v1.'), other.url().slice(0, 120));
  // A corrupt link: a message, and a playground to use.
  const third = await context.newPage();
  await third.goto(`${env.url}#t=v1.AAAA`);
  await third.waitForSelector('body[data-ready="true"]');
  const note = third.locator('highwater-playground').locator('#notices .notice-error');
  await note.waitFor();
  assert.match(await note.textContent(), /The tour could not be opened/);
  assert.deepEqual([...page.errors, ...other.errors], []);
  await context.close();
});

test('the Tours dialog opens a tour file from the disk: checked and played as from tour-src; a file too big is a message', async () => {
  const page = await openPage(env, { viewport: { width: 1280, height: 900 } });
  await page.locator('#btn-tours').click();
  await page.locator('#tour-own-title').waitFor();
  await page.locator('#tour-file').setInputFiles({ name: 'acks-1-loss.json', mimeType: 'application/json', buffer: Buffer.from(SAMPLE) });
  await page.locator('#tour [data-testid="tour-title"]').waitFor();
  assert.equal(await page.locator('#tour [data-testid="tour-title"]').textContent(), sample().title.en);
  assert.equal(await page.locator('#dlg-tours').evaluate((d) => d.open), false);
  await page.waitForSelector('highwater-playground[data-tour-errors="0"]');
  await page.locator('#tour [data-tour="close"]').click();
  await page.locator('#btn-tours').click();
  await page.locator('#tour-file').setInputFiles({ name: 'huge.json', mimeType: 'application/json', buffer: Buffer.alloc((1 << 20) + 1, 32) });
  const note = page.locator('#notices .notice-error');
  await note.waitFor();
  assert.match(await note.textContent(), /The tour could not be opened: the tour file “huge\.json” is larger than 1,048,576 bytes/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("a tour file's words for a reader whose language it lacks: Chinese in its other script, then English, then the first given (marked with its tag)", async () => {
  const { pick } = await import('../../www/element/tour.js');
  assert.deepEqual(pick({ en: 'E', 'zh-Hans': 'S' }, 'zh-Hant'), { text: 'S', lang: 'zh-Hans' });
  assert.deepEqual(pick({ 'zh-Hant': 'T', en: 'E' }, 'zh-Hans'), { text: 'T', lang: 'zh-Hant' });
  assert.deepEqual(pick({ de: 'D', en: 'E' }, 'zh-Hant'), { text: 'E', lang: 'en' });
  assert.deepEqual(pick({ de: 'D', fr: 'F' }, 'en'), { text: 'D', lang: 'de' });
  assert.deepEqual(pick({ en: 'E', 'zh-Hant': 'T' }, 'zh-Hant'), { text: 'T' });
  assert.deepEqual(pick({}, 'en'), { text: '' });
});

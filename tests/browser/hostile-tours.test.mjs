// Tour files and links are hostile input too (issue 38): an author's words
// are drawn through the page's one function for a user's text (`visible`: a
// right-to-left override shown written out, never applied), a link's name
// never selects words that are not the link's, and a tour whose facts the
// model refuses by the thousand draws a bounded panel.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, ROOT, loadCore } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => env && env.close());

const SAMPLE = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'tours', 'acks-1-loss.json'), 'utf8'));

async function tourLink(tour) {
  const core = await loadCore();
  const pkg = await import(`${path.join(ROOT, 'www', 'pkg-fast', 'highwater.js')}?hostile-tours`);
  pkg.initSync({ module: fs.readFileSync(path.join(ROOT, 'www', 'pkg-fast', 'highwater_bg.wasm')) });
  assert.ok(core);
  return pkg.tourToLink(JSON.stringify(tour));
}

test('a bidi override in a tour\'s title or caption is shown written out, not applied', async () => {
  const tour = structuredClone(SAMPLE);
  tour.title = { en: 'Lesson \u202egnp.exe' };
  tour.parts[0].stops[0].caption = { en: 'Read \u202etxt.exe first\u2066.' };
  const page = await openPage(env, { hash: `#t=${await tourLink(tour)}` });
  const panel = page.locator('highwater-playground').locator('#tour');
  await panel.locator('[data-testid="tour-title"]').waitFor();
  const title = await panel.locator('[data-testid="tour-title"]').textContent();
  const caption = await panel.locator('[data-testid="tour-caption"]').textContent();
  assert.equal(title, 'Lesson \\u{202e}gnp.exe');
  assert.equal(caption, 'Read \\u{202e}txt.exe first\\u{2066}.');
  assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(await page.title()), await page.title());
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a link that takes a gallery scenario\'s name shows its own description, not the gallery\'s', async () => {
  const core = await loadCore();
  const gallery = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'gallery.json'), 'utf8'));
  const entry = gallery.entries.find((e) => e.id === 'unclean-election-loss');
  const own = { ...entry.scenario, description: 'My own notes: unclean election is off here.', config: { ...entry.scenario.config, unclean_leader_election: false } };
  for (const [scenario, expected] of [
    [own, own.description],
    // The gallery's own run (its link) keeps the gallery's words.
    [entry.scenario, entry.description],
    // The gallery's words with other settings: the words are not about this run.
    [{ ...entry.scenario, config: { ...entry.scenario.config, unclean_leader_election: false } }, entry.description],
  ]) {
    const sim = core.Simulation.fromScenario(scenario);
    const link = sim.toLink();
    sim.free();
    const page = await openPage(env, { hash: `#s=${link}` });
    const description = await page.locator('highwater-playground').locator('#scenario-description').textContent();
    assert.equal(description, expected, JSON.stringify(scenario.config));
    if (scenario === own) assert.ok(!description.includes('m2'), description);
    await page.context().close();
  }
});

test('a tour whose stop states every event type on a step of 50,002 events draws a bounded panel', async () => {
  const tour = structuredClone(SAMPLE);
  const hostile = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'hostile-tours', 'events-fact-explosion.json'), 'utf8'));
  tour.parts = hostile.parts;
  tour.parts[0].stops[0].facts = { events: ['produce_request', 'truncated', 'isr_shrunk', 'leader_elected', 'appended', 'crashed'], produce: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`m${i}`, 'acked'])) };
  const page = await openPage(env, { hash: `#t=${await tourLink(tour)}` });
  const host = page.locator('highwater-playground');
  await page.waitForSelector('highwater-playground[data-tour-errors]', { timeout: 30_000 });
  assert.equal(await host.getAttribute('data-tour-errors'), '501');
  const findings = host.locator('#tour [data-testid="tour-findings"] li');
  assert.equal(await findings.count(), 20);
  const box = await host.locator('#tour').boundingBox();
  assert.ok(box.height < 3000, `${box.height} px`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

/** Copy link, in the Tools group (lesson mode shows only the tour's controls until "Show all controls"). */
async function copyLink(page) {
  const host = page.locator('highwater-playground');
  const all = host.locator('#tour button[data-tour="all"]');
  if ((await all.getAttribute('aria-pressed')) !== 'true') await all.click();
  if ((await host.locator('#btn-tools').getAttribute('aria-expanded')) !== 'true') await host.locator('#btn-tools').click();
  await host.locator('#btn-copy-link').click();
}

test('?tour-src= of another origin: the title is labelled with that origin in the panel, the heading and the document\'s title', async () => {
  const tour = structuredClone(SAMPLE);
  tour.title = { en: 'Official Highwater notice: your session expired' };
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce', permissions: ['clipboard-read', 'clipboard-write'] });
  const other = new URL(env.url);
  other.hostname = 'localhost';
  const src = new URL('elsewhere/lesson.json', other).href;
  await context.route(src, (route) => route.fulfill({ contentType: 'application/json', headers: { 'access-control-allow-origin': '*' }, body: JSON.stringify(tour) }));
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${env.url}?tour-src=${encodeURIComponent(src)}`);
  await page.waitForSelector('body[data-ready="true"]');
  const panel = page.locator('highwater-playground').locator('#tour');
  await panel.locator('[data-testid="tour-title"]').waitFor();
  assert.equal(await panel.locator('[data-testid="tour-origin"]').textContent(), `from ${other.host}`);
  const labelled = `Official Highwater notice: your session expired (a tour from ${other.host})`;
  await page.waitForFunction((l) => document.title.startsWith(l), labelled);
  assert.equal(await page.locator('highwater-playground').locator('#scenario-name').textContent(), labelled);
  // Copy link keeps the tour where it is, and says whose it is.
  await copyLink(page);
  const notice = page.locator('highwater-playground').locator('.notice', { hasText: 'Link copied' });
  await notice.waitFor();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(new URL(copied).searchParams.get('tour-src'), src);
  assert.equal(await notice.locator('.notice-text').textContent(), `Link copied: it opens, at this stop, the tour from ${other.host} (another site).`);
  // The same file from the page's own origin is the page's own: no label.
  await context.route(`${env.url}lessons/mine.json`, (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify(tour) }));
  await page.goto(`${env.url}?tour-src=lessons/mine.json`);
  await panel.locator('[data-testid="tour-title"]').waitFor();
  assert.equal(await panel.locator('[data-testid="tour-origin"]').count(), 0);
  await page.waitForSelector('body[data-ready="true"]');
  await copyLink(page);
  await page.locator('highwater-playground').locator('.notice-text', { hasText: 'Link copied: it opens this run at this step.' }).waitFor();
  assert.deepEqual(page.errors, []);
  await context.close();
});

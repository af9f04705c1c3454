// Share links: a round trip replays exactly; corrupt, truncated, oversized or
// hostile links never break the page and never run their content.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, pageTrace, produce, brokerButton, brokerStat, loadCore, applySettings, ROOT, addressWritten } from './harness.mjs';

let env;
let core;
before(async () => {
  env = await setup();
  core = await loadCore();
});
after(async () => { await env?.close(); });

test('share link round trip: the trace and the position after opening the link equal those before', async () => {
  const page = await openPage(env);
  await produce(page, 'm1', 'all');
  await brokerButton(page, 2, 'fetch').click();
  await brokerButton(page, 2, 'fetch').click();
  await produce(page, 'm2', '1');
  await brokerButton(page, 1, 'crash').click();
  await page.click('#btn-session');
  await page.click('#btn-consume');
  // Share from the middle of the run: the link carries the position too.
  await page.click('#btn-back');
  await page.click('#btn-back');
  await addressWritten(page);
  const url = page.url();
  assert.match(url, /#s=v1\.[A-Za-z0-9_-]+&at=5$/);
  const trace = await pageTrace(page);
  const position = await page.locator('#position').textContent();
  assert.equal(position, '5 / 7');

  const other = await openPage(env, { hash: url.slice(url.indexOf('#')) });
  assert.equal(await other.locator('#position').textContent(), position);
  assert.equal(await pageTrace(other), trace);
  await other.click('#btn-forward');
  await other.click('#btn-forward');
  await page.click('#btn-forward');
  await page.click('#btn-forward');
  assert.equal(await pageTrace(other), await pageTrace(page));
  assert.deepEqual([...page.errors, ...other.errors], []);
});

test('a link opened in the same tab opens, even when the page draws between the navigation and its hashchange', async () => {
  const sim = core.Simulation.fromScenario(JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', 'kip101-loss-after-restart.json'), 'utf8')));
  const link = sim.toLink();
  const length = sim.length();
  sim.free();
  const page = await openPage(env);
  const before = page.url();
  // The fragment changes, and before its hashchange the page draws (as when a part
  // such as the diagram arrives then): the draw writes the old run's address back.
  await page.evaluate((hash) => {
    location.hash = hash;
    document.querySelector('highwater-playground').playground.draw();
  }, `#s=${link}&at=12`);
  await page.waitForFunction(() => /&at=12$/.test(location.hash) && document.querySelector('highwater-playground').playground.sim.position() === 12);
  assert.equal(await page.locator('#position').textContent(), `12 / ${length}`);
  assert.ok(page.url().includes(link) && page.url() !== before);
  assert.deepEqual(page.errors, []);
});

test('Copy link puts the current URL (scenario and position) on the clipboard', async () => {
  const page = await openPage(env, { context: { permissions: ['clipboard-read', 'clipboard-write'] } });
  await produce(page, 'copied', '1');
  await page.click('#btn-copy-link');
  await page.locator('.notice', { hasText: 'Link copied' }).waitFor();
  const text = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(text, page.url());
  assert.match(text, /&at=1$/);
});

test('a link whose messages hold HTML or script runs nothing and shows the text', async () => {
  const img = '<img src=x onerror="window.__pwned=1">';
  const script = '<script>window.__pwned=2</script>';
  const sim = core.Simulation.fromScenario({
    version: 1,
    name: `<img src=y onerror="window.__pwned=3">Name`,
    description: `<script>window.__pwned=4</script>`,
    config: { brokers: 2 },
    steps: [
      { produce: { value: img, acks: '1' } },
      { produce: { value: script, acks: 'all' } },
      { fetch: 2 },
      { fetch: 2 },
      { consume: null },
    ],
  });
  const link = sim.toLink();
  sim.free();
  const page = await openPage(env, { hash: `#s=${link}&at=5` });
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.locator('main img, main script, #banner img').count(), 0);
  // The literal text is on the page: in the producer list, the cells and the heading.
  await page.locator('#producer .rec-value', { hasText: img }).waitFor();
  await page.locator('#producer .rec-value', { hasText: script }).waitFor();
  assert.equal(await page.locator('.broker-row[data-broker="1"] .cell-value').first().textContent(), img);
  assert.equal(await page.locator('#scenario-name').textContent(), `<img src=y onerror="window.__pwned=3">Name`);
  assert.equal(await page.locator('#scenario-description').textContent(), '<script>window.__pwned=4</script>');
  assert.match(await page.locator('#event-log').textContent(), /onerror/);
  // Embed code escapes the name.
  await page.click('#btn-embed');
  await page.locator('#dlg-embed[open]').waitFor(); // sharing is loaded at its first use
  const code = await page.locator('#embed-code').inputValue();
  assert.ok(code.includes('&lt;img src=y onerror=&quot;window.__pwned=3&quot;&gt;Name'), code);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(page.errors, []);
});

test('corrupt, truncated, oversized and foreign links show an error and a usable page', async () => {
  const sim = core.Simulation.fromScenario({ version: 1, steps: [{ produce: { value: 'm1', acks: '1' } }, { fetch: 2 }] });
  const good = sim.toLink();
  sim.free();
  const cases = [
    ['corrupt', `#s=${good.slice(0, 10)}@@@${good.slice(13)}`],
    ['truncated', `#s=${good.slice(0, good.length - 9)}`],
    ['oversized', `#s=v1.${'A'.repeat(210000)}`],
    ['foreign', '#s=hello-world&at=3'],
    ['bad json', `#s=v1.${Buffer.from('{"version": 1, "config": {"brokers": 99}}').toString('base64url')}`],
  ];
  for (const [what, hash] of cases) {
    const page = await openPage(env, { hash });
    const alert = page.locator('.notice-error', { hasText: 'could not be opened' });
    await alert.waitFor();
    assert.match(await alert.textContent(), /link/, what);
    // A working default playground: produce works.
    assert.equal(await page.locator('.broker-row').count(), 3, what);
    await produce(page, `after ${what}`, '1');
    assert.equal(await brokerStat(page, 1, 'leo'), '1', what);
    assert.equal(await page.locator('#producer [data-result]').first().textContent(), 'acked', what);
    assert.deepEqual(page.errors, [], what);
    await page.context().close();
  }
  // A position that is not a number is reported; the run still opens (at its end).
  const page = await openPage(env, { hash: `#s=${good}&at=<b>` });
  await page.locator('.notice', { hasText: 'is not a step number' }).waitFor();
  assert.equal(await page.locator('#position').textContent(), '2 / 2');
});

test('a link past a work budget opens where the run stopped, says why, and the page stays usable', async () => {
  const scenario = {
    version: 1,
    config: { brokers: 7, auto_fetch: true, replica_fetch_wait_max_ms: 10 },
    steps: [{ produce: { value: 'm1', acks: '1' } }, { advance_ms: 3_500_000 }, { produce: { value: 'never', acks: '1' } }],
  };
  const sim = core.Simulation.fromScenario(scenario);
  const expected = sim.state().stopped;
  const link = sim.toLink();
  assert.equal(sim.length(), 2, 'the core leaves out the step after the stop');
  sim.free();
  const limit = core.limits().max_events_per_step.toLocaleString('en-US');
  assert.ok(expected.startsWith(`stopped: this step caused more than ${limit} events (limit MAX_EVENTS_PER_STEP)`), expected);

  const page = await openPage(env, { hash: `#s=${link}` });
  const banner = page.locator('[data-testid=stopped]');
  await banner.waitFor();
  assert.equal(await banner.locator('.violation-detail').textContent(), expected);
  assert.equal(await page.locator('#position').textContent(), '2 / 2');
  // The last trace line is the same words.
  const trace = await pageTrace(page);
  assert.ok(trace.trimEnd().endsWith(expected), trace.slice(-300));
  // Going on from the stop is refused with the limit named; nothing is lost.
  assert.equal(await page.locator('#btn-forward').isDisabled(), true, 'the end: nothing to step to');
  await page.click('button[data-advance="1000"]');
  await page.locator('.notice', { hasText: 'MAX_EVENTS_PER_STEP' }).waitFor();
  assert.equal(await page.locator('#position').textContent(), '2 / 2');
  // From an earlier step the run goes on.
  await page.click('#btn-back');
  assert.equal(await banner.count(), 0);
  await produce(page, 'm2', '1');
  assert.equal(await page.locator('#position').textContent(), '2 / 2');
  assert.equal(await brokerStat(page, 1, 'leo'), '2');
  assert.deepEqual(page.errors, []);
});

test('a long timed step animates at most 40 things, keeping the end of the step', async () => {
  const sim = core.Simulation.fromScenario({ version: 1, config: { auto_fetch: true }, steps: [{ produce: { value: 'm1', acks: 'all' } }, { advance_ms: 3_600_000 }] });
  const link = sim.toLink();
  const events = sim.stepEvents(2).length;
  sim.free();
  assert.ok(events > 1000, `${events} events in the long step`);
  const page = await openPage(env, { hash: `#s=${link}&at=1`, reducedMotion: 'no-preference' });
  await page.click('#btn-forward');
  assert.equal(await page.locator('#position').textContent(), '2 / 2');
  const moving = await page.evaluate(() => document.querySelector('highwater-playground').shadowRoot.getAnimations().length);
  assert.ok(moving > 0 && moving <= 40, `${moving} animations`);
  assert.match(await page.locator('#caption').textContent(), /This step caused [\d,]+ events; these notes read the last 2,000/);
  assert.deepEqual(page.errors, []);
});

test('notices: at most three, never over the timeline, user text only as a short excerpt', async () => {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const long = 'x'.repeat(1000);
    const page = await openPage(env, { path: `?tour=${long}`, viewport });
    const notice = page.locator('.notice-error');
    await notice.waitFor();
    const text = await notice.textContent();
    assert.ok(text.length < 160, `the notice quotes ${text.length} characters`);
    assert.match(text, /x…/);
    // A restarted broker waiting to register: each press on its Fetch says why; the stack stays short.
    await brokerButton(page, 2, 'crash').click();
    await brokerButton(page, 2, 'restart').click();
    for (let i = 0; i < 6; i++) await brokerButton(page, 2, 'fetch').click({ force: true });
    assert.ok(await page.locator('#notices .notice').count() <= 3);
    const overlap = await page.evaluate(() => {
      const a = document.querySelector('highwater-playground').shadowRoot.querySelector('.player').getBoundingClientRect();
      return [...document.querySelector('highwater-playground').shadowRoot.querySelectorAll('#notices .notice')].some((n) => {
        const b = n.getBoundingClientRect();
        return b.left < a.right && b.right > a.left && b.top < a.bottom && b.bottom > a.top;
      });
    });
    assert.equal(overlap, false, `${viewport.width} px: a notice covers the timeline`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('settings the core refuses are explained in the page\'s language, and change nothing', async () => {
  const page = await openPage(env, { path: '?lang=zh-Hans' });
  await applySettings(page, { brokers: 3, min_insync_replicas: 5 });
  const error = page.locator('#settings-error');
  await error.waitFor();
  assert.equal(await error.textContent(), 'config.min_insync_replicas：5 必须在 1 和 broker 数（3）之间。未做任何修改。');
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('.broker-row').count(), 3);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a broken link is explained in the page\'s language (the core\'s sentence through the phrase table)', async () => {
  const cases = [
    ['#s=v1.@@@', /无法打开此链接：link：不是有效的 base64url（.+），可能被截断了/],
    ['#s=hello', /link：不是以“v1\.”开头，不是 Highwater 的场景链接/],
    ['#s=v1.AAAA', /link：已损坏或被截断（无法解压）/],
    // A link that decompresses to a scenario the core refuses: the scenario's sentence, in Chinese too.
    [`#s=v1.${deflateRawSync(Buffer.from('{"version":1,"config":{"brokers":3,"min_insync_replicas":5}}')).toString('base64url')}`, /link：config\.min_insync_replicas：5 必须在 1 和 broker 数（3）之间/],
    [`#s=v1.${deflateRawSync(Buffer.from('{"version":1,"steps":[{"produce":{"value":"m1","acks":"2"}}]}')).toString('base64url')}`, /link：steps\[0\]\.produce\.acks：值无效：字符串 "2"，应为 "0"、"1" 或 "all"/],
  ];
  for (const [hash, expected] of cases) {
    const page = await openPage(env, { path: '?lang=zh-Hans', hash });
    const notice = page.locator('.notice-error');
    await notice.waitFor();
    assert.match(await notice.textContent(), expected, hash);
    assert.equal(await page.locator('.broker-row').count(), 3, 'a working playground');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('the Embed dialog\'s element snippet keeps what the iframe keeps (the tour, its stop, the language) and works pasted into a plain page', async () => {
  const page = await openPage(env, { path: '?tour=leo-and-hw&step=3&lang=zh-Hans' });
  await page.locator('#tour [data-testid="tour-caption"]').waitFor();
  await page.locator('#tour button[data-tour="all"]').click();
  await page.click('#btn-embed');
  await page.locator('#dlg-embed[open]').waitFor();
  const snippet = await page.locator('#embed-element').inputValue();
  const iframe = await page.locator('#embed-code').inputValue();
  assert.match(iframe, /[?;]tour=leo-and-hw&amp;step=3/);
  assert.match(iframe, /lang=zh-Hans/);
  // The module by its URL: no inline script, no bare specifier needing an import map.
  assert.equal(snippet.split('\n')[0], `<script type="module" src="${env.url}bundle/highwater-playground.js"></script>`);
  assert.match(snippet, /<highwater-playground tour="leo-and-hw" step="3" lang="zh-Hans" controls="compact"><\/highwater-playground>$/);
  assert.doesNotMatch(snippet, /import '/);
  // Pasted into a plain page of the same site: the element plays the tour at that stop, in that language.
  await page.context().route(`${env.url}plain-snippet.html`, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><html><head><meta charset="utf-8"><title>Plain</title></head><body><h1>Docs</h1>\n${snippet}\n</body></html>` }));
  await page.goto(`${env.url}plain-snippet.html`);
  const element = page.locator('highwater-playground');
  await page.waitForSelector('highwater-playground[data-ready]');
  await element.locator('#tour [data-testid="tour-caption"]').waitFor();
  assert.equal(await element.locator('#tour [data-testid="tour-caption"]').getAttribute('data-stop'), 'consume-nothing');
  assert.equal(await element.locator('#tour [data-testid="tour-count"]').textContent(), '3 / 6');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

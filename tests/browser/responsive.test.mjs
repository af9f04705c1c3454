// A page that never freezes: the crafted links of past reports (a one-hour
// clock step in timed mode, the fuzzer's slowest links, the worst-case
// reproducers) open to a page that answers a click within 2 s and shows the
// run's result or a message naming the work limit it reached; a bomb is
// refused with a message. And the timed-mode report: a 50 ms fetch interval
// and "+30 s lag" leaves the page answering.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, loadCore, ROOT } from './harness.mjs';

let env;
let core;
before(async () => {
  env = await setup();
  core = await loadCore();
});
after(async () => env && env.close());

const CLICK_ANSWERED_MS = 2000;

/** Link texts of the crafted inputs: every .link seed, and the worst-case files packed as links. */
function craftedLinks() {
  const seeds = path.join(ROOT, 'tests', 'fuzz-seeds');
  const out = fs.readdirSync(seeds).filter((f) => f.endsWith('.link')).sort().map((f) => [f, fs.readFileSync(path.join(seeds, f), 'utf8').trim()]);
  const worst = path.join(ROOT, 'tests', 'worst-case');
  for (const f of fs.readdirSync(worst).filter((x) => x.endsWith('.json')).sort()) {
    const sim = core.Simulation.fromScenario(JSON.parse(fs.readFileSync(path.join(worst, f), 'utf8')));
    out.push([f, sim.toLink()]);
    sim.free();
  }
  return out;
}

/** Clicks and returns how long until the position shows `expected` (ms). */
async function answered(page, selector, expected) {
  const t0 = Date.now();
  await page.click(selector, { timeout: 30_000 });
  await page.waitForFunction((e) => document.querySelector('highwater-playground').shadowRoot.getElementById('position').textContent.startsWith(e), expected, { timeout: 30_000 });
  return Date.now() - t0;
}

test('every crafted link opens to a page that answers a click within 2 s, with the result or the limit named', async (t) => {
  const links = craftedLinks();
  let slowest = [0, ''];
  assert.ok(links.length >= 15, `${links.length} inputs`);
  for (const [name, link] of links) {
    const page = await openPage(env, { hash: `#s=${encodeURIComponent(link)}` });
    let expectedEnd = null;
    try {
      const sim = core.Simulation.fromLink(link);
      expectedEnd = { length: sim.length(), stopped: sim.state().stopped || null };
      sim.free();
    } catch (err) {
      expectedEnd = { refused: err.message };
    }
    if (expectedEnd.refused) {
      const notice = page.locator('.notice-error', { hasText: 'could not be opened' });
      await notice.waitFor();
      assert.equal(await page.locator('.broker-row').count(), 3, `${name}: a working default playground`);
    } else {
      const position = await page.locator('#position').textContent();
      assert.equal(position, `${expectedEnd.length.toLocaleString('en-US')} / ${expectedEnd.length.toLocaleString('en-US')}`, name);
      if (expectedEnd.stopped) {
        assert.match(expectedEnd.stopped, /MAX_[A-Z_]+/, name);
        const banner = page.locator('[data-testid=stopped]');
        await banner.waitFor();
        assert.match(await banner.textContent(), /MAX_[A-Z_]+/, `${name}: the banner names the limit`);
      }
      if (expectedEnd.length > 0) {
        const ms = await answered(page, '#btn-start', '0 /');
        assert.ok(ms < CLICK_ANSWERED_MS, `${name}: a click answered in ${ms} ms`);
        const back = await answered(page, '#btn-forward', '1 /');
        assert.ok(back < CLICK_ANSWERED_MS, `${name}: the next click answered in ${back} ms`);
        if (Math.max(ms, back) > slowest[0]) slowest = [Math.max(ms, back), name];
      }
    }
    assert.deepEqual(page.errors, [], name);
    await page.context().close();
  }
  t.diagnostic(`slowest click answered in ${slowest[0]} ms (${slowest[1]})`);
});

test('timed mode, 50 ms fetch interval, "+30 s lag": the step is computed, animated in at most 40 things, and the page answers', async () => {
  const sim = core.Simulation.fromScenario({ version: 1, config: { auto_fetch: true, replica_fetch_wait_max_ms: 50, replica_fetch_backoff_ms: 50 }, steps: [{ produce: { value: 'm1', acks: 'all' } }] });
  const link = sim.toLink();
  sim.free();
  const page = await openPage(env, { hash: `#s=${link}`, reducedMotion: 'no-preference' });
  await page.click('#btn-lag');
  await page.waitForFunction(() => document.querySelector('highwater-playground').shadowRoot.getElementById('position').textContent.startsWith('2 /'));
  const moving = await page.evaluate(() => document.querySelector('highwater-playground').shadowRoot.getAnimations().length);
  assert.ok(moving <= 40, `${moving} animations queued`);
  const ms = await answered(page, '#btn-back', '1 /');
  assert.ok(ms < CLICK_ANSWERED_MS, `answered in ${ms} ms`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

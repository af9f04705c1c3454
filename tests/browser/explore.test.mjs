// "Find a way to lose data": the search runs in a worker, finds the 0.10
// flaw (truncation to the follower's own HW) and loads it; under 0.11 the
// same search finds nothing; a long search can be cancelled.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage, applySettings } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

async function search(page, depth) {
  await page.click('#btn-explore');
  await page.locator('#explore-form [name="acks"]').selectOption('all');
  await page.locator('#explore-form [name="depth"]').fill(String(depth));
  await page.click('#btn-explore-start');
}

test('0.10 settings: the search finds a way to lose data (past the diverged log 0.10 breaks first), loads the run, and says it once', async () => {
  const page = await openPage(env);
  // Unclean election off: what is found is 0.10's own flaw, not an unclean election.
  await applySettings(page, { brokers: 2, protocol: '0.10', unclean_leader_election: false });
  await page.click('#btn-explore');
  await page.locator('#explore-settings', { hasText: 'Kafka 0.10' }).waitFor();
  assert.match(await page.locator('#explore-settings').textContent(), /unclean leader election only if allowed below/);
  // 0.10's default turns unclean election on, but the search keeps it off unless asked.
  assert.equal(await page.locator('#explore-form [name="unclean"]').isChecked(), false);
  await page.keyboard.press('Escape');
  await page.locator('#dlg-explore[open]').waitFor({ state: 'detached' });
  await search(page, 8);
  const banner = page.locator('#banner .banner');
  await banner.waitFor({ timeout: 120000 });
  const text = await banner.textContent();
  assert.match(text, /Protocol violation/);
  // Asked for a lost write, it is one: an acknowledged record gone after a
  // follower truncated to its own HW and was then elected (KIP-101's loss),
  // not only the diverged log on the way, and named as the page names records.
  // The banner leads with the loss; the diverged log it went through is one more finding.
  const kinds = await banner.locator('.violation').evaluateAll((list) => list.map((v) => v.dataset.kind));
  assert.deepEqual(kinds, ['acked_write_lost', 'committed_divergence']);
  assert.match(text, /^Protocol violationData loss: “m1” at offset 0 was acknowledged \(acks=all\) and is gone/);
  assert.match(text, /truncated to HW \d+ \(pre-KIP-101 rule: truncate to own HW on becoming follower\)/);
  // Said once: the banner says what is lost; the notice and the description do not say it again.
  const notice = await page.locator('.notice-warn .notice-text').first().textContent();
  assert.match(notice, /^Found a way to lose data: its \d+ steps are loaded, and the banner says what is lost\.$/);
  assert.equal(await page.locator('#scenario-description').textContent(), 'The shortest run of at most 8 steps the explorer found, minimised.');
  // The found run is the timeline now: several steps, under 0.10, two of them elections.
  const [position, length] = (await page.locator('#position').textContent()).split(' / ').map(Number);
  assert.ok(length >= 3 && position === length, `${position} / ${length}`);
  assert.equal(await page.locator('[data-testid="version"]').textContent(), 'Kafka 0.10');
  const trace = await page.locator('#event-log').textContent();
  assert.ok((trace.match(/controller elected broker/g) || []).length >= 2, 'two leader moves');
  assert.deepEqual(page.errors, []);
});

test('the same search under 0.11 (leader epochs) finds nothing that short', async () => {
  const page = await openPage(env);
  await applySettings(page, { brokers: 2, protocol: '0.11', unclean_leader_election: false });
  await search(page, 6);
  const result = page.locator('#explore-result');
  await result.waitFor({ timeout: 120000 });
  assert.match(await result.textContent(), /Nothing found up to depth 6 in [\d,]+ states \(every run that short was tried\)/);
  assert.match(await result.textContent(), /Try a greater depth or more states, allowing power loss, allowing network faults, allowing controlled shutdowns, allowing unclean leader election, another Kafka version/);
  assert.equal(await page.locator('#banner .banner').count(), 0);
  assert.deepEqual(page.errors, []);
});

test('a long search under the default version can be cancelled', async () => {
  const page = await openPage(env);
  await page.click('#btn-explore');
  await page.locator('#explore-form [name="depth"]').fill('30');
  await page.locator('#explore-form [name="max_states"]').fill('10000000');
  await page.click('#btn-explore-start');
  // Progress arrives from the worker.
  await page.waitForFunction(() => /states/.test(document.querySelector('highwater-playground').shadowRoot.querySelector('#explore-status').textContent));
  assert.equal(await page.locator('#btn-explore-start').isDisabled(), true);
  await page.click('#btn-explore-cancel');
  await page.locator('#explore-result', { hasText: 'Cancelled' }).waitFor();
  assert.equal(await page.locator('#btn-explore-start').isDisabled(), false);
  const status = await page.locator('#explore-status').textContent();
  // The worker is gone: no progress comes after the cancel (checked after the page has drawn a few frames).
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 300)))));
  assert.equal(await page.locator('#explore-status').textContent(), status);
  // The page still works, and nothing was loaded.
  assert.equal(await page.locator('#position').textContent(), '0 / 0');
  assert.deepEqual(page.errors, []);
});

test('a search that finds nothing says so, with the depth and the states searched', async () => {
  const page = await openPage(env);
  await page.click('#btn-explore');
  await page.locator('#explore-form [name="depth"]').fill('3');
  await page.click('#btn-explore-start');
  const result = page.locator('#explore-result');
  await result.waitFor({ timeout: 60000 });
  assert.match(await result.textContent(), /Nothing found up to depth 3 in [\d,]+ states/);
});

test("with racks, a rack's faults are offered: a zone that loses power loses what its ISR held", async () => {
  const page = await openPage(env);
  // Without racks the box is not shown.
  await page.click('#btn-explore');
  // The dialog's module is loaded at its first opening: wait for it to open, and to close.
  await page.locator('#dlg-explore[open]').waitFor();
  assert.equal(await page.locator('#explore-form [name="rack_faults"]').isVisible(), false);
  await page.keyboard.press('Escape');
  await page.locator('#dlg-explore[open]').waitFor({ state: 'detached' });
  // Racks a, b, b: the ISR can shrink to [2, 3], all of it in rack b.
  await applySettings(page, { brokers: 3, protocol: '3.7', min_insync_replicas: 2, racks: 'a,b,b' });
  await page.click('#btn-explore');
  await page.locator('#explore-form [name="power_loss"]').setChecked(true);
  assert.equal(await page.locator('#explore-form [name="rack_faults"]').isChecked(), false);
  await page.locator('#explore-form [name="depth"]').fill('7');
  await page.click('#btn-explore-start');
  const result = page.locator('#explore-result');
  await result.waitFor({ timeout: 120000 });
  assert.match(await result.textContent(), /Nothing found up to depth 7 in [\d,]+ states \(every run that short was tried\)\. Try a greater depth or more states, allowing network faults, allowing controlled shutdowns, allowing a rack's faults, allowing unclean leader election/);
  // A broker at a time it takes 8 steps; the rack at once, 7.
  await page.locator('#explore-form [name="rack_faults"]').setChecked(true);
  await page.click('#btn-explore-start');
  const banner = page.locator('#banner .banner');
  await banner.waitFor({ timeout: 120000 });
  assert.match(await banner.textContent(), /^Protocol violationData loss: “m1” at offset 0 was acknowledged \(acks=all\) and is gone/);
  const steps = await page.evaluate(() => document.querySelector('highwater-playground').playground.currentScenario().steps);
  assert.equal(steps.length, 7);
  assert.ok(steps.some((s) => s.crash?.rack === 'b' && s.crash.lose_unflushed === 1), JSON.stringify(steps));
  assert.deepEqual(page.errors, []);
});

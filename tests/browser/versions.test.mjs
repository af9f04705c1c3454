// Kafka versions on the page: the settings' picker, the rules in force, the
// Eligible Leader Replicas of 4.1. What the page shows is checked against the
// core's own catalogue (versions()) and state, not against text kept here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, loadFromGallery, loadCore, missingKeys, ROOT } from './harness.mjs';

let env;
let core;
let catalogue;
before(async () => {
  env = await setup();
  core = await loadCore();
  catalogue = core.versions();
});
after(async () => { await env?.close(); });

const rule = (id) => catalogue.rules.find((r) => r.rule === id);
const version = (name) => catalogue.versions.find((v) => v.name === name);

function link(scenario) {
  const sim = core.Simulation.fromScenario(scenario);
  const text = sim.toLink();
  sim.free();
  return text;
}

const elrScenario = () => JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', 'eligible-leader-replicas.json'), 'utf8'));

test('the version picker labels each preset with what changed at it in plain words, its sources and aliases in the tooltip', async () => {
  const page = await openPage(env);
  await page.click('#btn-settings');
  const options = await page.locator('#settings-form [name="protocol"] option').evaluateAll((os) => os.map((o) => ({ value: o.value, text: o.textContent, title: o.title })));
  assert.deepEqual(options.map((o) => o.value), catalogue.versions.map((v) => v.name));
  for (const [i, o] of options.entries()) {
    const v = catalogue.versions[i];
    // "Kafka 3.7 (the HW waits while the ISR is below min.insync.replicas)": words, not changelog codes.
    assert.match(o.text, new RegExp(`^Kafka ${v.name.replace('.', '\\.')} \\([a-zA-Z][^)]*\\)+$`), o.text);
    assert.doesNotMatch(o.text, /KIP-|KAFKA-|[+−]/, o.text);
    for (const alias of v.aliases) assert.ok(o.title.includes(`“${alias}”`), `${o.title} names its alias ${alias}`);
    // Every rule introduced or retired at this version: its summary and its source in the tooltip.
    for (const id of [...v.introduced, ...v.retired]) {
      assert.ok(o.title.includes(rule(id).source), `${v.name}: tooltip names ${rule(id).source}`);
      assert.ok(o.title.toLowerCase().includes(rule(id).summary.toLowerCase()), `${v.name}: tooltip has "${rule(id).summary}"`);
    }
  }
  // Under the picker: what the chosen version changed, in full.
  const notes = page.locator('#settings-version-notes');
  await page.locator('#settings-form [name="protocol"]').selectOption('4.1');
  assert.match(await notes.textContent(), /What changed from 3\.7/);
  assert.match(await notes.textContent(), /KIP-966/);
  assert.ok((await notes.textContent()).toLowerCase().includes(rule('eligible_leader_replicas').summary.toLowerCase()));
  await page.locator('#settings-form [name="protocol"]').selectOption('2.8');
  const text = await notes.textContent();
  for (const id of version('2.8').retired) assert.match(text, new RegExp(`retired.*${rule(id).source}`, 's'));
  // Defaults that moved from 2.1 to 2.8 are named with both values.
  assert.match(text, /broker session timeout: 6 s → 18 s/);
  assert.match(text, /replica\.lag\.time\.max\.ms: 10 s → 30 s/);
  assert.deepEqual(page.errors, []);
});

test('rules in force: the version label opens them; KIP-966 is listed under 4.1 and not under 3.7', async () => {
  const page = await openPage(env);
  const button = page.locator('#caption [data-testid="version"]');
  assert.equal(await button.textContent(), 'Kafka 3.7');
  await button.click();
  const dialog = page.locator('#dlg-rules');
  await dialog.waitFor();
  assert.equal(await dialog.locator('[data-testid="rules-version"]').textContent(), 'Kafka 3.7 (“modern”)');
  const inForce = dialog.locator('[data-testid="rules-in-force"] [data-rule]');
  // Every rule in force under 3.7, each with its source, code location and Kafka release.
  assert.deepEqual(await inForce.evaluateAll((ls) => ls.map((l) => l.dataset.rule)), version('3.7').rules);
  for (const id of version('3.7').rules) {
    const item = dialog.locator(`[data-testid="rules-in-force"] [data-rule="${id}"]`);
    const text = await item.textContent();
    const r = rule(id);
    assert.ok(text.includes(r.source) && text.includes(r.code) && text.includes(`Kafka ${r.kafka_version}`), `${id}: ${text}`);
  }
  assert.equal(await dialog.locator('[data-testid="rules-in-force"]').getByText('KIP-966', { exact: true }).count(), 0);
  // What changed from 3.5: KAFKA-15583 new, KAFKA-15021 retired.
  const changed = dialog.locator('[data-testid="rules-changed"]');
  assert.match(await changed.textContent(), /What changed from 3\.5/);
  assert.match(await changed.locator('[data-rule="high_watermark_frozen_under_min_isr"]').textContent(), /^new.*KAFKA-15583/s);
  assert.match(await changed.locator('[data-rule="epoch_bump_on_every_isr_shrink"]').textContent(), /^retired.*KAFKA-15021/s);
  // The defaults of 3.7, as the core states them.
  assert.equal(await dialog.locator('[data-default="broker_session_timeout_ms"]').textContent(), '9 s');
  assert.equal(await dialog.locator('[data-default="unclean_leader_election"]').textContent(), 'off');
  await dialog.locator('button[data-close]').click();

  // A 4.1 run: KIP-966 is in force and is what changed from 3.7.
  const elr = await openPage(env, { hash: `#s=${link(elrScenario())}` });
  await elr.locator('#caption [data-testid="version"]').click();
  const d41 = elr.locator('#dlg-rules');
  assert.equal(await d41.locator('[data-testid="rules-version"]').textContent(), 'Kafka 4.1');
  const elrRule = d41.locator('[data-testid="rules-in-force"] [data-rule="eligible_leader_replicas"]');
  assert.match(await elrRule.textContent(), /KIP-966/);
  assert.match(await d41.locator('[data-testid="rules-changed"]').textContent(), /What changed from 3\.7.*KIP-966/s);
  // The run's own setting beside the default where they differ (min.insync.replicas is not version-dependent; none differ here).
  assert.equal(await d41.locator('[data-testid="rules-changed"] [data-rule]').count(), version('4.1').introduced.length + version('4.1').retired.length);
  // Browsing another version in the dialog does not change the run.
  await d41.locator('#rules-version').selectOption('0.10');
  assert.equal(await d41.locator('[data-testid="rules-version"]').textContent(), 'Kafka 0.10 (“legacy”)');
  assert.equal(await d41.locator('[data-testid="rules-in-force"] [data-rule="eligible_leader_replicas"]').count(), 0);
  assert.equal(await d41.locator('[data-testid="rules-in-force"] [data-rule="truncate_to_high_watermark"]').count(), 1);
  assert.equal(await d41.locator('[data-default="unclean_leader_election"]').textContent(), 'on');
  await d41.locator('button[data-close]').click();
  assert.equal(await elr.locator('#caption [data-testid="version"]').textContent(), 'Kafka 4.1');
  assert.deepEqual([...page.errors, ...elr.errors], []);
});

test('in Chinese the rules\' sentences come with their dialogs (locales/zh-Hans/rules.json, fetched when Settings or the rules in force first open)', async () => {
  const words = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'locales', 'zh-Hans', 'rules.json'), 'utf8'));
  const page = await openPage(env, { path: '?lang=zh-Hans' });
  const asked = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  await page.locator('#caption [data-testid="version"]').click();
  const dialog = page.locator('#dlg-rules[open]');
  await dialog.waitFor();
  // A sentence: its first letter capitalised (ruleSentence).
  for (const id of version('3.7').rules) {
    const text = await dialog.locator(`[data-testid="rules-in-force"] [data-rule="${id}"] .rule-summary`).textContent();
    assert.equal(text.toLowerCase(), words[id].toLowerCase(), id);
  }
  await dialog.locator('button[data-close]').click();
  await page.click('#btn-settings');
  await page.locator('#dlg-settings[open]').waitFor();
  const notes = (await page.locator('#settings-version-notes').textContent()).toLowerCase();
  for (const id of version('3.7').introduced) assert.ok(notes.includes(words[id].toLowerCase()), `${id} in the notes`);
  assert.deepEqual(asked.filter((p) => p.endsWith('/rules.json')).sort(), ['/locales/en/rules.json', '/locales/zh-Hans/rules.json'], 'fetched once');
  assert.deepEqual(await missingKeys(page), []);
  assert.deepEqual(page.errors, []);
});

test('the rules dialog shows the run\'s own value beside a default it overrides (a link naming 2.7, the 2.8 preset\'s old name)', async () => {
  const page = await openPage(env, { hash: `#s=${link({ version: 1, config: { protocol: '2.7', broker_session_timeout_ms: 4000 }, steps: [] })}` });
  await page.locator('#caption [data-testid="version"]').click();
  assert.equal(await page.locator('#dlg-rules [data-default="broker_session_timeout_ms"]').textContent(), '18 s (this run: 4 s)');
  assert.equal(await page.locator('#dlg-rules [data-default="replica_lag_time_max_ms"]').textContent(), '30 s');
});

test('ELR under 4.1: the mark appears on broker 2 at step 9, on brokers 1 and 2 at step 12, and broker 2 is elected from it at step 13', async () => {
  const scenario = elrScenario();
  const expected = {
    8: { partition: null, marks: [] },
    9: { partition: '{2}', marks: [2] },
    12: { partition: '{1, 2}', marks: [1, 2] },
    13: { partition: null, marks: null },
    15: { partition: null, marks: [] },
  };
  const sim = core.Simulation.fromScenario(scenario);
  for (const [at, want] of Object.entries(expected)) {
    const page = await openPage(env, { hash: `#s=${link(scenario)}&at=${at}` });
    // The page draws what the core's state says.
    sim.seek(Number(at));
    const state = sim.state();
    const marks = await page.locator('.broker-row:has([data-testid="elr"])').evaluateAll((rows) => rows.map((r) => Number(r.dataset.broker)));
    assert.deepEqual(marks, state.brokers.filter((b) => b.in_elr).map((b) => b.id), `step ${at}`);
    if (want.marks) assert.deepEqual(marks, want.marks, `step ${at}`);
    const summary = page.locator('[data-testid="partition-elr"]');
    if (state.partition.elr.length) assert.equal(await summary.textContent(), `{${state.partition.elr.join(', ')}}`, `step ${at}`);
    else assert.equal(await summary.count(), 0, `step ${at}`);
    if (want.partition) assert.equal(await summary.textContent(), want.partition, `step ${at}`);
    else if (want.marks && !want.marks.length) assert.equal(await summary.count(), 0, `step ${at}`);
    assert.deepEqual(page.errors, []);
    if (at === '9') {
      // Its name and tooltip say what it means.
      const mark = page.locator('.broker-row[data-broker="2"] [data-testid="elr"]');
      assert.equal(await mark.locator('[aria-hidden="true"]').textContent(), 'ELR');
      assert.ok((await mark.boundingBox()).width < 60, 'a small mark beside the ISR mark');
      assert.match(await mark.getAttribute('title'), /KIP-966.*left the ISR while the ISR was below min\.insync\.replicas.*holds every committed record.*may be elected/);
      assert.match(await mark.textContent(), /Eligible Leader Replica/);
      assert.match(await page.locator('#caption').textContent(), /Eligible Leader Replicas now \{2\}/);
    }
    if (at === '12') {
      assert.equal(await page.locator('[data-testid="partition-leader"]').textContent(), 'offline: no leader');
      assert.equal(await page.locator('[data-testid="partition-last-known-leader"]').textContent(), `broker ${state.partition.last_known_leader}`);
    }
    if (at === '13') {
      assert.equal(await page.locator('[data-testid="partition-leader"]').textContent(), 'broker 2');
      assert.match(await page.locator('#caption').textContent(), /elected from the Eligible Leader Replicas/);
    }
    await page.context().close();
  }
  sim.free();
});

test('ELR marks never appear before 4.1: the same scenario under 3.7', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, 'Eligible Leader Replicas: elected instead of offline', '3.7');
  await page.locator('#btn-start').click();
  for (let i = 0; i < 20; i++) {
    await page.click('#btn-forward');
    assert.equal(await page.locator('[data-testid="elr"], [data-testid="partition-elr"]').count(), 0, `step ${i + 1}`);
  }
  assert.deepEqual(page.errors, []);
});

test('the events new in this model are explained in plain words under the caption', async () => {
  // 2.1: the controller bumps the epoch on an ISR shrink (ZooKeeper era).
  const bump = { version: 1, config: { protocol: '2.1', brokers: 3 }, steps: [{ isolate: 3 }, { advance_ms: 7000 }] };
  const page = await openPage(env, { hash: `#s=${link(bump)}` });
  assert.match(await page.locator('#caption').textContent(), /The controller bumped the leader epoch to 1 for the ISR shrink; broker 1 stays leader/);
  assert.deepEqual(page.errors, []);
});

test('the producer list shows each record\'s result after the client\'s retries and its attempts, as the core has them', async () => {
  for (const [name, file] of [['Timed failover', 'timed-failover'], ['NOT_ENOUGH_REPLICAS', 'not-enough-replicas']]) {
    const page = await openPage(env);
    await loadFromGallery(page, name);
    await page.keyboard.press('End');
    const scenario = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', `${file}.json`), 'utf8'));
    const sim = core.Simulation.fromScenario(scenario);
    const expected = sim.state().producer;
    sim.free();
    const rows = await page.locator('#producer ol.records li').evaluateAll((lis) => lis.map((li) => ({
      result: li.querySelector('[data-result]').dataset.result,
      text: li.textContent,
    })));
    assert.equal(rows.length, expected.length, name);
    for (const [i, r] of expected.entries()) {
      assert.equal(rows[i].result, r.result, `${name}: ${r.value}`);
      if (r.attempts > 1) assert.ok(rows[i].text.includes(`${r.attempts.toLocaleString('en-US')} attempts`), `${name}: ${rows[i].text} shows ${r.attempts} attempts`);
    }
    assert.ok(expected.some((r) => r.attempts > 1), `${name}: a record was retried`);
    assert.deepEqual(page.errors, []);
  }
});

test('timed mode: the leader\'s view names each follower fetch it holds, and until when, as the core has it', async () => {
  const page = await openPage(env);
  await loadFromGallery(page, 'Timed failover');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const scenario = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', 'timed-failover.json'), 'utf8'));
  const sim = core.Simulation.fromScenario(scenario);
  sim.seek(2);
  const leader = sim.state().brokers.find((b) => b.role === 'leader');
  sim.free();
  const held = leader.remote.filter((r) => r.fetch_held_until_ms !== null);
  assert.ok(held.length > 0, 'at step 2 the leader holds a fetch');
  const shown = await page.locator('[data-held]').evaluateAll((els) => els.map((e) => ({ id: Number(e.dataset.held), text: e.textContent })));
  assert.deepEqual(shown.map((s) => s.id), held.map((r) => r.id));
  for (const [i, r] of held.entries()) {
    const ms = r.fetch_held_until_ms;
    // A point in the run's time, in seconds as the caption writes it: 1.219 s, 1.5 s.
    const time = ms % 100 === 0 ? `${(ms / 1000).toFixed(1)} s` : `${ms / 1000} s`;
    assert.ok(shown[i].text.endsWith(`fetch held until ${time}`), `${shown[i].text} names ${time}`);
  }
  assert.deepEqual(page.errors, []);
});

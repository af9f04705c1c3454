// The space-time diagram (diagram.js) and the exports (export.js), in the
// page: the diagram draws what the core's spaceTime reports, exported SVG is
// well-formed with user text as text, the PNG has the size asked for, and an
// exported scenario replays to the trace the command line prints.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setup, openPage, loadCore, cliTrace, pageTrace, loadFromGallery, missingKeys, ROOT, RESULTS } from './harness.mjs';

let env;
before(async () => {
  env = await setup();
  fs.mkdirSync(RESULTS, { recursive: true });
});
after(async () => { await env?.close(); });

const scenarioText = (name) => fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', `${name}.json`), 'utf8');

/** Draws the diagram of a scenario at a position into a box on the page; returns what the core and the drawing say. */
async function drawDiagram(page, scenario, position) {
  return page.evaluate(async ({ scenario, position }) => {
    const { core, ensureCore, needsQuorumCore } = await import('./core.js');
    const { renderDiagram } = await import('./draw/diagram.js');
    const { patch } = await import('./draw/dom.js');
    if (!document.querySelector('link[href="draw/diagram.css"]')) {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = 'draw/diagram.css';
      document.head.append(link);
      await new Promise((done) => { link.onload = done; });
    }
    let sim;
    try {
      sim = core().Simulation.fromScenario(scenario);
    } catch (err) {
      // A run with controllers: the core with the quorum runs it (the JS API's way).
      if (!needsQuorumCore(err)) throw err;
      sim = (await ensureCore({ quorum: true })).Simulation.fromScenario(scenario);
    }
    sim.seek(position ?? sim.length());
    const data = sim.spaceTime(1, sim.length());
    let box = document.getElementById('diagram-test');
    if (!box) {
      box = document.createElement('div');
      box.id = 'diagram-test';
      box.className = 'diagram-scroll';
      box.style.cssText = 'position:absolute;left:0;top:0;right:0;z-index:1000;background:#fff';
      document.body.append(box);
    }
    patch(box, renderDiagram(data, { width: box.clientWidth }));
    const svg = box.querySelector('svg');
    const current = [...svg.querySelectorAll('.dg-step.current')].map((g) => Number(g.dataset.step));
    return {
      data,
      drawnArrows: svg.querySelectorAll('g.dg-arrow').length,
      drawnMarks: svg.querySelectorAll('g.dg-mark').length,
      current,
      bandSteps: [...svg.querySelectorAll('g.dg-step')].map((g) => Number(g.dataset.step)),
      crashSteps: [...svg.querySelectorAll('g.dg-mark-crashed')].map((g) => Number(g.dataset.step)),
      droppedKinds: [...svg.querySelectorAll('g.dg-arrow[data-fate="dropped"]')].map((g) => `${g.dataset.step} ${g.dataset.kind}`),
      labels: [...svg.querySelectorAll('.dg-arrow-label')].map((e) => e.textContent),
      lanes: [...svg.querySelectorAll('.dg-lane text')].map((e) => e.textContent),
      violations: [...svg.querySelectorAll('g.dg-mark-violation text')].map((e) => `${e.closest('[data-step]').dataset.step} ${e.textContent}`),
      svgWidth: svg.getBoundingClientRect().width,
      boxWidth: box.clientWidth,
      scrollWidth: box.scrollWidth,
    };
  }, { scenario, position });
}

test('the diagram draws every arrow the core reports, marks the crash and highlights the current step', async () => {
  const page = await openPage(env, { source: true });
  const kip101 = scenarioText('kip101-loss-after-restart');
  const d = await drawDiagram(page, kip101, 14);
  assert.ok(d.data.arrows.length > 20, `${d.data.arrows.length} arrows`);
  assert.equal(d.drawnArrows, d.data.arrows.length);
  assert.equal(d.drawnMarks, d.data.marks.length);
  assert.equal(d.data.arrows_left_out, 0);
  assert.deepEqual(d.current, [14]);
  assert.deepEqual(d.bandSteps, Array.from({ length: 19 }, (_, i) => i + 1));
  // Broker 1 crashes at step 14, broker 2 at 16; the FetchResponse to broker 3 is lost on the cut link at step 13.
  assert.deepEqual(d.crashSteps, [14, 16]);
  assert.deepEqual(d.droppedKinds, ['13 FetchResponse']);
  assert.deepEqual(d.lanes, ['producer', 'broker 1', 'broker 2', 'broker 3', 'consumer', 'controller']);
  for (const kind of ['Fetch', 'FetchResponse', 'LeaderAndIsr', 'Produce']) assert.ok(d.labels.includes(kind), kind);
  // Under 0.10 the acknowledged m2 is lost when broker 3 leads without it (step 17).
  assert.deepEqual(d.violations, ['17 acknowledged write lost']);
  assert.deepEqual(d.data.marks.filter((m) => m.kind === 'violation').map((m) => [m.lane, m.violation]), [[3, 'acked_write_lost']]);

  // Another position moves the highlight only.
  const at3 = await drawDiagram(page, kip101, 3);
  assert.deepEqual(at3.current, [3]);
  assert.equal(at3.drawnArrows, d.drawnArrows);

  // A timed run: messages take time, some still on the wire at the end.
  const timed = await drawDiagram(page, scenarioText('timed-failover'));
  assert.equal(timed.drawnArrows, timed.data.arrows.length);
  assert.ok(timed.data.arrows.some((a) => a.received && a.received.time_ms > a.sent.time_ms));
  assert.deepEqual(await missingKeys(page), []);
  assert.deepEqual(page.errors, []);
});

test('a cap on arrows is reported and drawn as such', async () => {
  const page = await openPage(env, { source: true });
  const r = await page.evaluate(async (scenario) => {
    const { core } = await import('./core.js');
    const { renderDiagram } = await import('./draw/diagram.js');
    const sim = core().Simulation.fromScenario(scenario);
    const all = sim.spaceTime(1, sim.length());
    const capped = sim.spaceTime(2, 5, 5);
    const tree = renderDiagram(capped);
    const texts = [];
    const walk = (v) => { if (v.text !== undefined) texts.push(v.text); else v.children.forEach(walk); };
    walk(tree);
    return { all: all.arrows.length, capped: capped.arrows.length, leftOut: capped.arrows_left_out, from: capped.from_step, to: capped.to_step, steps: capped.steps.map((s) => s.step), texts };
  }, scenarioText('kip101-loss-after-restart'));
  assert.equal(r.capped, 5);
  assert.ok(r.leftOut > 0);
  assert.deepEqual([r.from, r.to, r.steps], [2, 5, [2, 3, 4, 5]]);
  assert.ok(r.texts.some((s) => s.includes(`${r.leftOut}`) && s.includes('not drawn')), r.texts.join(' | '));
});

test('exported SVG is well-formed, user text stays text, the PNG has the size asked for', async () => {
  const page = await openPage(env, { source: true });
  const hostile = '<b>&"x';
  const scenario = {
    version: 1,
    name: `<script>window.__pwned=1</script>"&`,
    config: { brokers: 3 },
    steps: [{ produce: { value: hostile, acks: 'all' } }, { fetch: 2 }, { fetch: 3 }, { fetch: 2 }, { crash: { broker: 3 } }],
  };
  const r = await page.evaluate(async ({ scenario, hostile }) => {
    const { core } = await import('./core.js');
    const ex = await import('./draw/export.js');
    const sim = core().Simulation.fromScenario(scenario);
    const moment = ex.momentSvg(sim.state());
    const data = sim.spaceTime(1, sim.length());
    const diagram = ex.diagramSvg(data, { title: scenario.name });
    const parse = (text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      return {
        error: doc.getElementsByTagName('parsererror').length,
        root: doc.documentElement.localName,
        ns: doc.documentElement.namespaceURI,
        scripts: doc.getElementsByTagName('script').length + doc.getElementsByTagName('b').length,
        texts: [...doc.getElementsByTagName('text')].map((e) => e.textContent),
        title: doc.getElementsByTagName('title')[0]?.textContent,
        arrows: doc.querySelectorAll('g.dg-arrow').length,
        width: Number(doc.documentElement.getAttribute('width')),
        height: Number(doc.documentElement.getAttribute('height')),
        style: doc.getElementsByTagName('style')[0]?.textContent || '',
      };
    };
    // What the moment states, broker by broker, against the core's state.
    const state = sim.state();
    const momentDoc = new DOMParser().parseFromString(moment, 'image/svg+xml');
    const brokers = [...momentDoc.querySelectorAll('g.mo-broker')].map((g) => ({
      id: Number(g.getAttribute('data-broker')),
      texts: [...g.querySelectorAll(':scope > text')].map((e) => e.textContent),
      records: [...g.querySelectorAll('g.mo-record')].map((r) => Number(r.getAttribute('data-offset'))),
    }));
    const expected = state.brokers.map((b) => ({ id: b.id, role: b.role, leo: b.log_end_offset, hw: b.high_watermark, epoch: b.leader_epoch, offsets: b.log.map((r) => r.offset) }));
    const png = await ex.svgToPng(moment, 2);
    const bitmap = await createImageBitmap(png);
    const diagramPng = await ex.svgToPng(diagram, 1);
    const toBase64 = async (blob) => btoa(String.fromCharCode(...new Uint8Array(await blob.arrayBuffer())));
    return {
      moment: parse(moment),
      diagram: parse(diagram),
      arrows: data.arrows.length,
      png: { type: png.type, size: png.size, width: bitmap.width, height: bitmap.height },
      diagramPngSize: diagramPng.size,
      pngBase64: await toBase64(png),
      pwned: window.__pwned ?? null,
      hostile,
      fileName: ex.fileName(scenario.name, 'svg'),
      brokers,
      expected,
    };
  }, { scenario, hostile });
  for (const doc of [r.moment, r.diagram]) {
    assert.equal(doc.error, 0);
    assert.equal(doc.root, 'svg');
    assert.equal(doc.ns, 'http://www.w3.org/2000/svg');
    assert.equal(doc.scripts, 0);
    assert.match(doc.style, /PingFang SC|Noto Sans CJK/);
  }
  assert.ok(r.moment.texts.includes(hostile), r.moment.texts.join(' | '));
  assert.equal(r.brokers.length, 3);
  for (const [i, b] of r.brokers.entries()) {
    const e = r.expected[i];
    assert.equal(b.id, e.id);
    assert.ok(b.texts.includes(`LEO ${e.leo} · HW ${e.hw} · epoch ${e.epoch}`), b.texts.join(' | '));
    assert.ok(b.texts.some((x) => x.startsWith(e.role)), `${e.role}: ${b.texts.join(' | ')}`);
    assert.deepEqual(b.records, e.offsets);
  }
  assert.equal(r.expected[2].role, 'down');
  assert.equal(r.diagram.title, scenario.name);
  assert.equal(r.diagram.arrows, r.arrows);
  assert.equal(r.pwned, null);
  assert.equal(r.png.type, 'image/png');
  assert.ok(r.png.size > 1000, `${r.png.size} bytes`);
  assert.deepEqual([r.png.width, r.png.height], [Math.ceil(r.moment.width * 2), Math.ceil(r.moment.height * 2)]);
  assert.ok(r.diagramPngSize > 1000);
  assert.equal(r.fileName, 'highwater-script-window-pwned-1-script.svg');
  fs.writeFileSync(path.join(RESULTS, 'moment-en.png'), Buffer.from(r.pngBase64, 'base64'));
});

test('the exported scenario replays to the trace highwater run prints, which is the page\'s trace', async () => {
  const page = await openPage(env, { source: true });
  const name = 'kip101-loss-after-restart';
  const scenario = JSON.parse(scenarioText(name));
  await loadFromGallery(page, scenario.name);
  const shown = await pageTrace(page);
  const r = await page.evaluate(async (text) => {
    const { core } = await import('./core.js');
    const ex = await import('./draw/export.js');
    const sim = core().Simulation.fromScenario(text);
    return { file: ex.scenarioFile(sim), trace: ex.traceFile(sim) };
  }, scenarioText(name));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-export-')), 'exported.json');
  fs.writeFileSync(file, r.file);
  const cli = cliTrace(file);
  assert.ok(cli.split('\n').length > 50);
  assert.equal(r.trace, cli);
  assert.equal(shown.trim(), cli.trim());
  const exported = JSON.parse(r.file);
  assert.equal(exported.name, scenario.name);
  assert.equal(exported.steps.length, scenario.steps.length);
});

for (const lang of ['en', 'zh-Hans']) {
  for (const width of [1440, 390]) {
    test(`screenshot of the diagram at ${width} px in ${lang}`, async () => {
      const page = await openPage(env, { path: `?lang=${lang}`, viewport: { width, height: 900 }, source: true });
      const d = await drawDiagram(page, scenarioText('kip101-loss-after-restart'), 14);
      assert.equal(d.drawnArrows, d.data.arrows.length);
      if (width === 390) assert.ok(d.scrollWidth > d.boxWidth, 'on a phone the lanes keep their width and the diagram scrolls');
      else assert.ok(d.svgWidth <= d.boxWidth, 'at 1440 px it fits');
      if (lang === 'zh-Hans') assert.ok(d.lanes.includes('生产者'));
      // The box as the screen shows it (on a phone: its scrolled-to-the-left part).
      await page.locator('#diagram-test').screenshot({ path: path.join(RESULTS, `diagram-${lang}-${width}.png`) });
      const timed = await drawDiagram(page, scenarioText('timed-failover'));
      assert.equal(timed.drawnArrows, timed.data.arrows.length);
      await page.locator('#diagram-test').screenshot({ path: path.join(RESULTS, `diagram-timed-${lang}-${width}.png`) });
      const moment = await page.evaluate(async (scenario) => {
        const { core } = await import('./core.js');
        const ex = await import('./draw/export.js');
        const sim = core().Simulation.fromScenario(scenario);
        sim.seek(14);
        const png = await ex.svgToPng(ex.momentSvg(sim.state()), 1);
        return btoa(String.fromCharCode(...new Uint8Array(await png.arrayBuffer())));
      }, scenarioText('kip101-loss-after-restart'));
      fs.writeFileSync(path.join(RESULTS, `moment-${lang}-${width}.png`), Buffer.from(moment, 'base64'));
      assert.deepEqual(await missingKeys(page), []);
      assert.deepEqual(page.errors, []);
    });
  }
}

test('the page: the diagram panel follows the timeline, a click on a step seeks there; the Export menu downloads files that replay and parse', async () => {
  const scenario = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'scenarios', 'kip101-loss-after-restart.json'), 'utf8'));
  const core = await loadCore();
  const sim = core.Simulation.fromScenario(scenario);
  const link = sim.toLink();
  const arrows = sim.spaceTime(1, sim.length()).arrows.length;
  sim.free();
  const page = await openPage(env, { hash: `#s=${link}&at=5`, viewport: { width: 1440, height: 1000 } });
  const panel = page.locator('#diagram > svg.diagram');
  await panel.waitFor();
  assert.equal(Number(await panel.getAttribute('data-arrows')), arrows);
  assert.equal(await page.locator('#diagram .dg-step.current').getAttribute('data-step'), '5');
  await page.locator('#diagram .dg-step[data-step="14"] .dg-band').click();
  assert.equal(await page.locator('#position').textContent(), '14 / 19');
  assert.equal(await page.locator('#diagram .dg-step.current').getAttribute('data-step'), '14');
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.locator('.diagram-panel').screenshot({ path: path.join(RESULTS, 'diagram-panel.png') });
  if (process.env.HIGHWATER_SCREENSHOTS) fs.copyFileSync(path.join(RESULTS, 'diagram-panel.png'), path.join(ROOT, 'docs', 'screenshot-diagram.png'));
  const save = async (kind) => {
    await page.click('#export-menu summary');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#export-menu button[data-export="${kind}"]`)]);
    const file = await download.path();
    return { name: download.suggestedFilename(), bytes: fs.readFileSync(file) };
  };
  const json = await save('scenario');
  assert.match(json.name, /\.json$/);
  assert.equal(cliTrace(JSON.parse(json.bytes.toString('utf8'))), cliTrace(scenario), 'the exported scenario replays to the same trace');
  for (const kind of ['diagram_svg', 'moment_svg']) {
    const svg = await save(kind);
    assert.match(svg.name, /\.svg$/);
    const ok = await page.evaluate((text) => !new DOMParser().parseFromString(text, 'image/svg+xml').querySelector('parsererror'), svg.bytes.toString('utf8'));
    assert.ok(ok, `${kind} parses`);
  }
  const png = await save('diagram_png');
  assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
  const trace = await save('trace');
  assert.equal(trace.bytes.toString('utf8'), await pageTrace(page), 'the trace up to step 14, as the Trace dialog shows it');
  assert.deepEqual(page.errors, []);
});

test('the KRaft quorum has a lane per controller: the election and the metadata fetches between them, a crash on its lane', async () => {
  const page = await openPage(env, { source: true });
  const d = await drawDiagram(page, scenarioText('controller-failover-during-broker-failure'));
  assert.deepEqual(d.lanes, ['producer', 'broker 1', 'broker 2', 'broker 3', 'controller', 'controller 1', 'controller 2', 'controller 3']);
  assert.equal(d.drawnArrows, d.data.arrows.length);
  for (const kind of ['Vote', 'VoteResponse', 'BeginQuorumEpoch', 'FetchResponse']) assert.ok(d.labels.includes(kind), kind);
  // Controller 1 crashes at step 5: marked on its lane; the votes sent to it are lost.
  const voterCrash = d.data.marks.find((m) => m.lane === 'c1' && m.kind === 'crashed');
  assert.equal(voterCrash?.at.step, 5);
  assert.ok(d.droppedKinds.some((k) => k.endsWith(' Vote')), d.droppedKinds.join(', '));
  // Each arrow's title names its lanes and fate in words (a lost Vote: "controller down").
  const titles = await page.evaluate(() => [...document.querySelectorAll('#diagram-test g.dg-arrow[data-kind="Vote"][data-fate="dropped"] title')].map((e) => e.textContent));
  assert.ok(titles.length && titles.every((x) => /controller \d/.test(x) && /controller down/.test(x) && !/diagram\./.test(x)), titles.join(' | '));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

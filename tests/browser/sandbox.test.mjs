// The embed in a sandboxed iframe (`sandbox="allow-scripts"`, no
// `allow-same-origin`), as docs/embedding.md ("A sandboxed iframe") states
// it: the frame's origin is opaque, so every file is a cross-origin request;
// served with `Access-Control-Allow-Origin: *` the run is drawn as it is
// unsandboxed, and without the header nothing loads, while the host page
// stays as it was.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setup, RESULTS, scenarioLink } from './harness.mjs';

let env;
let link;
const proxies = [];

/**
 * The project's server behind a proxy of our own, which adds
 * `Access-Control-Allow-Origin: *` to every answer when `cors` (the browser
 * driver's own routing cannot say this: it gives a routed answer CORS
 * headers itself), and serves the host page `host` at /sandbox-host.html.
 * Resolves with the proxy's base URL.
 */
function proxy(cors, host) {
  const upstream = new URL(env.url);
  const server = http.createServer((req, res) => {
    if (req.url === '/sandbox-host.html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      return res.end(host);
    }
    const forward = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      const headers = { ...answer.headers };
      if (cors) headers['access-control-allow-origin'] = '*';
      res.writeHead(answer.statusCode, headers);
      answer.pipe(res);
    });
    forward.on('error', () => { res.writeHead(502); res.end(); });
    req.pipe(forward);
  });
  proxies.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}/`)));
}

before(async () => {
  env = await setup();
  link = await scenarioLink('kip101-loss-after-restart');
});
after(async () => {
  for (const server of proxies) server.close();
  if (env) await env.close();
});

const AT = 8;

/** A host page with the embed in an iframe; `cors`: the files are served with Access-Control-Allow-Origin: *. */
async function hostPage({ sandbox, cors }) {
  const context = await env.browser.newContext({ viewport: { width: 1000, height: 700 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.errors = [];
  page.failed = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('requestfailed', (r) => page.failed.push(r.url()));
  // The frame's page is beside the host page: sandboxed, its origin is opaque all the same.
  const base = await proxy(cors, `<!doctype html><html lang="en"><title>Host</title><p id="host">The host's own text.</p>
<iframe ${sandbox ? 'sandbox="allow-scripts"' : ''} title="Highwater" width="800" height="500" src="./?embed&lang=en#s=${link}&at=${AT}"></iframe>`);
  await page.goto(`${base}sandbox-host.html`);
  return page;
}

/** What the frame's element drew: its position and, per broker, the record values and the HW and LEO figures. */
async function drawn(page) {
  const frame = page.frameLocator('iframe');
  await frame.locator('highwater-playground[data-ready="true"]').waitFor({ timeout: 20000 });
  return frame.locator('.cluster').evaluate((cluster) => ({
    origin: String(cluster.ownerDocument.defaultView.origin),
    brokers: [...cluster.querySelectorAll('.broker-row[data-broker]')].map((row) => ({
      broker: row.dataset.broker,
      values: [...row.querySelectorAll('.cell .cell-value')].map((el) => el.textContent),
      hw: row.querySelector('[data-stat="hw"]').textContent,
      leo: row.querySelector('[data-stat="leo"]').textContent,
    })),
  }));
}

test('in a sandboxed iframe with the files served with Access-Control-Allow-Origin: *, the run is drawn as it is unsandboxed', async () => {
  const open = await hostPage({ sandbox: false, cors: false });
  const plain = await drawn(open);
  const page = await hostPage({ sandbox: true, cors: true });
  const boxed = await drawn(page);
  assert.equal(boxed.origin, 'null', 'the sandboxed frame has an opaque origin');
  assert.notEqual(plain.origin, 'null');
  assert.equal(boxed.brokers.length, 3);
  assert.ok(boxed.brokers.some((b) => b.values.length > 0), JSON.stringify(boxed.brokers));
  assert.deepEqual(boxed.brokers, plain.brokers);
  // The timeline works in there too: a step forward moves the run.
  const frame = page.frameLocator('iframe');
  await frame.locator('#btn-forward').click();
  await frame.locator('highwater-playground').evaluate((el, at) => new Promise((resolve) => {
    const check = () => (el.playground.sim.position() === at + 1 ? resolve() : setTimeout(check, 20));
    check();
  }), AT);
  assert.deepEqual(page.errors, []);
  assert.equal(await page.locator('#host').textContent(), "The host's own text.");
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, 'embed-sandboxed-iframe.png') });
  await open.context().close();
  await page.context().close();
});

test('in a sandboxed iframe without the header nothing loads, and the host page is untouched', async () => {
  const page = await hostPage({ sandbox: true, cors: false });
  const frame = page.frame({ url: /\?embed/ });
  // The element's module is refused (CORS), so it never becomes a playground.
  await frame.waitForLoadState('load');
  await page.waitForTimeout(1500);
  const state = await frame.evaluate(() => ({
    defined: Boolean(customElements.get('highwater-playground')),
    ready: document.querySelector('highwater-playground')?.dataset.ready ?? null,
    origin: String(window.origin),
  }));
  assert.deepEqual(state, { defined: false, ready: null, origin: 'null' });
  assert.ok(page.failed.some((url) => /\.js(\?|$)/.test(url)), `the module's request is the one refused: ${page.failed.join(' ')}`);
  assert.deepEqual(page.errors, []);
  assert.equal(await page.locator('#host').textContent(), "The host's own text.");
  assert.equal(await page.evaluate(() => document.body.children.length), 2, 'the host page holds its paragraph and the frame, nothing more');
  await page.context().close();
});

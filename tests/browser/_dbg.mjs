import { setup } from './harness.mjs';
import http from 'node:http';
const env = await setup();
const upstream = new URL(env.url);
const server = http.createServer((req, res) => {
  if (req.url === '/sandbox-host.html') { res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }); return res.end(`<p id="host">x</p><iframe width=800 height=500 src="./?embed&lang=en"></iframe>`); }
  const forward = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode, { ...answer.headers }); answer.pipe(res);
  });
  req.pipe(forward);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const files = `http://127.0.0.1:${server.address().port}/`;
const context = await env.browser.newContext();
const page = await context.newPage();
page.on('console', (m) => console.log('console', m.text()));
page.on('requestfailed', (r) => console.log('failed', r.url(), r.failure()?.errorText));
await page.goto(files + 'sandbox-host.html');
await page.waitForTimeout(4000);
for (const f of page.frames()) console.log('frame', f.url(), await f.evaluate(() => document.querySelector('highwater-playground')?.dataset.ready ?? 'none').catch((e) => e.message));
await env.close(); server.close();

// scripts/serve.mjs sends text and wasm compressed when the request accepts
// it, brotli before gzip (Content-Encoding, Vary, the compressed length; HEAD
// the same headers, no body), gzip alone when told to, and as they are
// otherwise. The first load on a phone is measured through this server
// (scripts/bench-first-load.mjs), so what it sends is what a compressing
// host would.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, acceptsGzip, chooseEncoding } from '../../scripts/serve.mjs';

let dir;
let server;
let port;
let gzipServer;
const FILES = {
  // Repetitive enough that gzip must shrink both.
  'core.wasm': Buffer.concat([Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), Buffer.alloc(20000, 7)]),
  'app.js': Buffer.from('export const x = 1;\n'.repeat(500)),
  'icon.png': Buffer.alloc(3000, 1),
};

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-serve-'));
  for (const [name, body] of Object.entries(FILES)) fs.writeFileSync(path.join(dir, name), body);
  server = await serve({ port: 0, root: dir });
  port = server.address().port;
  gzipServer = await serve({ port: 0, root: dir, encodings: ['gzip'] });
});

after(() => {
  server.close();
  gzipServer.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One request; resolves with { status, headers, body } (the body as sent, not decoded). */
function request(file, { method = 'GET', encoding, to = server } = {}) {
  const headers = encoding === undefined ? {} : { 'Accept-Encoding': encoding };
  return new Promise((resolve, reject) => {
    http.request({ host: '127.0.0.1', port: to.address().port, path: `/${file}`, method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

for (const [file, type] of [['core.wasm', 'application/wasm'], ['app.js', 'text/javascript; charset=utf-8']]) {
  test(`${file}: brotli when accepted, the decoded body is the file`, async () => {
    const r = await request(file, { encoding: 'gzip, deflate, br, zstd' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], type);
    assert.equal(r.headers['content-encoding'], 'br');
    assert.equal(r.headers.vary, 'Accept-Encoding');
    assert.equal(Number(r.headers['content-length']), r.body.length);
    assert.ok(r.body.length < FILES[file].length / 4, `${r.body.length} bytes of ${FILES[file].length}`);
    assert.deepEqual(zlib.brotliDecompressSync(r.body), FILES[file]);
    assert.deepEqual((await request(file, { encoding: 'br' })).body, r.body);
  });

  test(`${file}: gzipped when brotli is not accepted or not offered, the gunzipped body is the file`, async () => {
    for (const [encoding, to] of [['gzip, deflate', server], ['br;q=0.5, gzip', server], ['gzip, deflate, br', gzipServer]]) {
      const r = await request(file, { encoding, to });
      assert.equal(r.headers['content-encoding'], 'gzip', encoding);
      assert.deepEqual(zlib.gunzipSync(r.body), FILES[file]);
    }
  });

  test(`${file}: gzipped when only gzip is accepted, the gunzipped body is the file`, async () => {
    const r = await request(file, { encoding: 'gzip' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], type);
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.equal(r.headers.vary, 'Accept-Encoding');
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(Number(r.headers['content-length']), r.body.length);
    assert.ok(r.body.length < FILES[file].length / 4, `${r.body.length} bytes gzipped of ${FILES[file].length}`);
    assert.deepEqual(zlib.gunzipSync(r.body), FILES[file]);
    // Asked again: the same bytes (compressed once, from the cache).
    assert.deepEqual((await request(file, { encoding: 'gzip' })).body, r.body);
  });

  test(`${file}: as it is without Accept-Encoding, or with both codings refused`, async () => {
    for (const [encoding, to] of [[undefined, server], ['identity', server], ['deflate', server], ['gzip;q=0, br;q=0', server], ['*;q=0', server], ['br', gzipServer]]) {
      const r = await request(file, { encoding, to });
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-encoding'], undefined, String(encoding));
      assert.equal(r.headers.vary, 'Accept-Encoding');
      assert.equal(Number(r.headers['content-length']), FILES[file].length);
      assert.deepEqual(r.body, FILES[file]);
    }
  });

  test(`${file}: HEAD has the GET's headers and no body`, async () => {
    for (const encoding of ['gzip', 'gzip, br']) {
      const get = await request(file, { encoding });
      const head = await request(file, { method: 'HEAD', encoding });
      assert.equal(head.status, 200);
      assert.equal(head.body.length, 0);
      for (const h of ['content-type', 'content-encoding', 'content-length', 'vary']) assert.equal(head.headers[h], get.headers[h], h);
    }
  });
}

test('a changed file is compressed again', async () => {
  const file = path.join(dir, 'app.js');
  const before = await request('app.js', { encoding: 'gzip' });
  const changed = Buffer.from('export const y = 2;\n'.repeat(700));
  fs.writeFileSync(file, changed);
  fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
  const r = await request('app.js', { encoding: 'gzip' });
  assert.notDeepEqual(r.body, before.body);
  assert.deepEqual(zlib.gunzipSync(r.body), changed);
  assert.deepEqual(zlib.brotliDecompressSync((await request('app.js', { encoding: 'br' })).body), changed);
  fs.writeFileSync(file, FILES['app.js']);
});

test('images are sent as they are, without Vary', async () => {
  const r = await request('icon.png', { encoding: 'gzip' });
  assert.equal(r.headers['content-encoding'], undefined);
  assert.equal(r.headers.vary, undefined);
  assert.deepEqual(r.body, FILES['icon.png']);
});

test('Accept-Encoding is read with its q-values', () => {
  assert.ok(acceptsGzip('gzip'));
  assert.ok(acceptsGzip('deflate, gzip;q=0.5'));
  assert.ok(acceptsGzip('*'));
  assert.ok(acceptsGzip('br, *;q=0.1'));
  assert.ok(!acceptsGzip(undefined));
  assert.ok(!acceptsGzip('identity'));
  assert.ok(!acceptsGzip('gzip;q=0, *'));
  assert.ok(!acceptsGzip('br, *;q=0'));
  assert.ok(acceptsGzip('x-gzip'));
  // The coding with the highest q, the server's order (brotli, gzip) among equals.
  assert.equal(chooseEncoding('gzip, deflate, br, zstd'), 'br');
  assert.equal(chooseEncoding('br;q=0.5, gzip'), 'gzip');
  assert.equal(chooseEncoding('br, gzip;q=0.9'), 'br');
  assert.equal(chooseEncoding('*'), 'br');
  assert.equal(chooseEncoding('br;q=0, *'), 'gzip');
  assert.equal(chooseEncoding('gzip, br', ['gzip']), 'gzip');
  assert.equal(chooseEncoding('br', ['gzip']), null);
  assert.equal(chooseEncoding('identity, deflate'), null);
  assert.equal(chooseEncoding(undefined), null);
});

test('with cache, the browser may keep what it was sent', async () => {
  const cached = await serve({ port: 0, root: dir, cache: true });
  try {
    const r = await new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: cached.address().port, path: '/core.wasm', headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res));
      }).on('error', reject);
    });
    assert.equal(r.headers['cache-control'], 'max-age=3600');
    assert.ok(r.headers['last-modified']);
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
  } finally {
    cached.close();
  }
});

test('the path checks still hold', async () => {
  assert.equal((await request('../etc/passwd', { encoding: 'gzip' })).status, 403);
  assert.equal((await request('missing.js', { encoding: 'gzip' })).status, 404);
});

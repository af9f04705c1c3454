#!/usr/bin/env node
// A tiny static file server for the web page: loopback only, correct MIME
// types (application/wasm for .wasm), no caching (unless --cache), no path
// traversal, gzip for text and wasm when the request accepts it.
//
//   node scripts/serve.mjs [--port 8080] [--root www] [--quiet] [--cache]
//
// --port 0 picks a free port. --cache lets the browser keep files for an hour
// (the default, no-store, is right while editing). Tests can import
// { createStaticServer } instead.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export const HOST = '127.0.0.1';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8', // wasm-pack's .d.ts files
};

// Sent gzipped when the request accepts it; the rest (images) as they are.
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.wasm', '.svg', '.txt']);

// Every response: always fresh, and the browser must not guess types.
const BASE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};
const CACHED = 'max-age=3600';

/** Whether an Accept-Encoding header allows gzip (`gzip`, or `*`, with a q above 0). */
export function acceptsGzip(header) {
  let gzip = null;
  let star = null;
  for (const part of String(header || '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';').map((x) => x.trim());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    if (name === 'gzip' || name === 'x-gzip') gzip = weight;
    else if (name === '*') star = weight;
  }
  return (gzip ?? star ?? 0) > 0;
}

export function createStaticServer({ root = 'www', log = () => {}, cache = false } = {}) {
  const base = fs.realpathSync(root);
  const inside = (p) => p === base || p.startsWith(base + path.sep);
  const cacheControl = cache ? { 'Cache-Control': CACHED } : {};
  // file -> { mtimeMs, size, body: Promise<Buffer> }: each file gzipped once, again when it changes.
  const gzipped = new Map();
  const gzipOf = (file, stat) => {
    const hit = gzipped.get(file);
    if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) return hit.body;
    const body = fs.promises.readFile(file).then((raw) => new Promise((resolve, reject) => {
      zlib.gzip(raw, { level: 9 }, (err, out) => (err ? reject(err) : resolve(out)));
    }));
    gzipped.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, body });
    body.catch(() => gzipped.delete(file));
    return body;
  };

  return http.createServer((req, res) => {
    const send = (status, body = `${status} ${http.STATUS_CODES[status]}\n`, headers = {}) => {
      res.writeHead(status, {
        ...BASE_HEADERS,
        'Content-Type': 'text/plain; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
        ...headers,
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      log(status, req);
    };

    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, undefined, { Allow: 'GET, HEAD' });

    // Decode the path ourselves (no URL normalisation) so that any ".." is seen.
    let rel;
    try {
      rel = decodeURIComponent(req.url.split(/[?#]/)[0]);
    } catch {
      return send(400);
    }
    if (!rel.startsWith('/') || rel.includes('\0') || rel.split(/[/\\]/).includes('..')) return send(403);

    let file = path.join(base, rel);
    let stat;
    try {
      file = fs.realpathSync(file); // a symlink must not lead out of the root either
      if (!inside(file)) return send(403);
      stat = fs.statSync(file);
      if (stat.isDirectory()) {
        // Redirect to the slashed path so relative links work ("//x" must not become a host).
        const dir = `/${req.url.split(/[?#]/)[0].replace(/^\/+/, '')}/`;
        if (!rel.endsWith('/')) return send(301, '', { Location: dir });
        file = path.join(file, 'index.html');
        stat = fs.statSync(file);
      }
      if (!stat.isFile()) return send(404);
    } catch {
      return send(404);
    }

    const ext = path.extname(file).toLowerCase();
    const headers = {
      ...BASE_HEADERS,
      ...cacheControl,
      'Content-Type': TYPES[ext] ?? 'application/octet-stream',
    };
    if (cache) headers['Last-Modified'] = stat.mtime.toUTCString();
    if (COMPRESSIBLE.has(ext)) {
      // The same URL has two bodies: caches must key on the request's Accept-Encoding.
      headers.Vary = 'Accept-Encoding';
      if (acceptsGzip(req.headers['accept-encoding'])) {
        gzipOf(file, stat).then((body) => {
          res.writeHead(200, { ...headers, 'Content-Encoding': 'gzip', 'Content-Length': body.length });
          res.end(req.method === 'HEAD' ? undefined : body);
          log(200, req);
        }, () => send(500));
        return;
      }
    }
    res.writeHead(200, { ...headers, 'Content-Length': stat.size });
    log(200, req);
    if (req.method === 'HEAD') return res.end();
    fs.createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  });
}

// Resolves with the server once it listens; its port is server.address().port.
export function serve({ port = 8080, root = 'www', log, cache = false } = {}) {
  const server = createStaticServer({ root, log, cache });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => resolve(server));
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      root: { type: 'string', default: 'www' },
      quiet: { type: 'boolean', default: false },
      cache: { type: 'boolean', default: false },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: bad --port ${values.port}`);
    process.exit(2);
  }
  const log = values.quiet ? undefined : (status, req) => console.log(`${status} ${req.method} ${req.url}`);
  let server;
  try {
    server = await serve({ port, root: values.root, log, cache: values.cache });
  } catch (err) {
    console.error(`serve: ${err.code === 'EADDRINUSE' ? `port ${port} is already in use` : err.message}`);
    process.exit(1);
  }
  console.log(`serving ${path.resolve(values.root)} at http://${HOST}:${server.address().port}/ (Ctrl-C to stop)`);
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();

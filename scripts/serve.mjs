#!/usr/bin/env node
// A tiny static file server for the web page: loopback only, correct MIME
// types (application/wasm for .wasm), no caching (unless --cache), no path
// traversal, text and wasm compressed when the request accepts it: brotli
// (quality 11, as a CDN or a host's precompressed files serve it; the page's
// core is a fifth smaller than gzipped), else gzip (level 9).
//
//   node scripts/serve.mjs [--port 8080] [--root www] [--quiet] [--cache] [--gzip]
//
// --port 0 picks a free port. --cache lets the browser keep files for an hour
// (the default, no-store, is right while editing). --gzip never sends brotli
// (as a host without brotli). Tests can import
// { createStaticServer } instead.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

// Sent compressed when the request accepts it; the rest (images) as they are.
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.wasm', '.svg', '.txt']);

// Every response: always fresh, and the browser must not guess types.
const BASE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};
const CACHED = 'max-age=3600';

/** Each coding an Accept-Encoding header names, with its q (1 when none); `x-gzip` is gzip. */
function weights(header) {
  const named = new Map();
  for (const part of String(header || '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';').map((x) => x.trim());
    if (!name) continue;
    const q = params.find((p) => p.startsWith('q='));
    named.set(name === 'x-gzip' ? 'gzip' : name, q ? Number(q.slice(2)) : 1);
  }
  return named;
}

/**
 * The coding to send, of those offered (in the server's order of preference),
 * that an Accept-Encoding header allows (named, or `*`, with a q above 0):
 * the one with the highest q, the server's order among equals; null for none.
 */
export function chooseEncoding(header, offered = ['br', 'gzip']) {
  const named = weights(header);
  let best = null;
  let bestQ = 0;
  for (const coding of offered) {
    const q = named.get(coding) ?? named.get('*') ?? 0;
    if (q > bestQ) [best, bestQ] = [coding, q];
  }
  return best;
}

/** Whether an Accept-Encoding header allows gzip (`gzip`, or `*`, with a q above 0). */
export function acceptsGzip(header) {
  return chooseEncoding(header, ['gzip']) === 'gzip';
}

/**
 * Where compressed bodies are kept between servers (each test file starts
 * one): brotli at quality 11 takes 1.5 s for the page's core, gzip 25 ms.
 */
const DISK_CACHE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'target', 'compressed');

/** Bodies not written for a day are dropped (an edited file leaves its old bodies behind). */
function pruneDiskCache() {
  const old = Date.now() - 24 * 3600 * 1000;
  fs.promises.readdir(DISK_CACHE).then((names) => Promise.all(names.map(async (name) => {
    const file = path.join(DISK_CACHE, name);
    if ((await fs.promises.stat(file)).mtimeMs < old) await fs.promises.rm(file, { force: true });
  }))).catch(() => {});
}

/** Each coding's compressor, at its smallest. */
const COMPRESS = {
  gzip: (raw, done) => zlib.gzip(raw, { level: 9 }, done),
  br: (raw, done) => zlib.brotliCompress(raw, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  }, done),
};

/**
 * `encodings`: the codings the server sends, in its order of preference
 * (brotli, then gzip; `['gzip']` for a host without brotli).
 */
export function createStaticServer({ root = 'www', log = () => {}, cache = false, encodings = ['br', 'gzip'] } = {}) {
  const base = fs.realpathSync(root);
  const inside = (p) => p === base || p.startsWith(base + path.sep);
  const cacheControl = cache ? { 'Cache-Control': CACHED } : {};
  pruneDiskCache();
  // "coding file" -> { mtimeMs, size, body: Promise<Buffer> }: each file compressed once per coding, again when it changes.
  const compressed = new Map();
  const compressedOf = (coding, file, stat) => {
    const key = `${coding} ${file}`;
    const hit = compressed.get(key);
    if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) return hit.body;
    const kept = path.join(DISK_CACHE, `${crypto.createHash('sha256').update(`${coding} ${file} ${stat.mtimeMs} ${stat.size}`).digest('hex').slice(0, 32)}.${coding}`);
    const body = fs.promises.readFile(kept).catch(() => fs.promises.readFile(file).then((raw) => new Promise((resolve, reject) => {
      COMPRESS[coding](raw, (err, out) => (err ? reject(err) : resolve(out)));
    })).then(async (out) => {
      // Written aside and renamed: another server reading it sees all of it or nothing.
      const aside = `${kept}.${process.pid}.${crypto.randomUUID()}`;
      try {
        await fs.promises.mkdir(DISK_CACHE, { recursive: true });
        await fs.promises.writeFile(aside, out);
        await fs.promises.rename(aside, kept);
      } catch {
        fs.promises.rm(aside, { force: true }).catch(() => {});
      }
      return out;
    }));
    compressed.set(key, { mtimeMs: stat.mtimeMs, size: stat.size, body });
    body.catch(() => compressed.delete(key));
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
      const coding = chooseEncoding(req.headers['accept-encoding'], encodings);
      if (coding) {
        compressedOf(coding, file, stat).then((body) => {
          res.writeHead(200, { ...headers, 'Content-Encoding': coding, 'Content-Length': body.length });
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
export function serve({ port = 8080, root = 'www', log, cache = false, encodings } = {}) {
  const server = createStaticServer({ root, log, cache, encodings });
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
      gzip: { type: 'boolean', default: false },
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
    server = await serve({ port, root: values.root, log, cache: values.cache, encodings: values.gzip ? ['gzip'] : undefined });
  } catch (err) {
    console.error(`serve: ${err.code === 'EADDRINUSE' ? `port ${port} is already in use` : err.message}`);
    process.exit(1);
  }
  console.log(`serving ${path.resolve(values.root)} at http://${HOST}:${server.address().port}/ (Ctrl-C to stop)`);
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();

#!/usr/bin/env node
// Serves the demo on 127.0.0.1 with the headers that threads need: Cross-Origin-Opener-Policy:
// same-origin + Cross-Origin-Embedder-Policy: require-corp make the page cross-origin isolated,
// which is what gives it SharedArrayBuffer and so the threaded wasm build.
//
//   npm run demo                       build dist/ if needed, serve on http://127.0.0.1:8080/
//   node scripts/serve.mjs --port 0    any free port
//   node scripts/serve.mjs --no-isolation   (or TFORMER_NO_ISOLATION=1) without COOP/COEP: the
//                                      page gets the single-threaded fallback
//   node scripts/serve.mjs --fixtures always   list the test models even when real ones exist
//
// What is served: web/ (the package sources, dist/ and the demo; not node_modules), the models
// (models/<name>/model.tfm, its variants such as model.int8.tfm, and README.md) and the test
// fixtures; web/demo/registry.json is made from the models present at start (scripts/registry.mjs).
import http from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRegistry, repoRoot } from './registry.mjs';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.md': 'text/markdown; charset=utf-8', '.txt': 'text/plain; charset=utf-8',
  '.tfm': 'application/octet-stream', '.webmanifest': 'application/manifest+json',
};

// Which paths may be served (relative to the repository root).
function allowed(rel) {
  const parts = rel.split('/');
  if (parts.some((p) => p.startsWith('.') || p === 'node_modules')) return false;
  if (parts[0] === 'web') return ['src', 'dist', 'demo', 'types'].includes(parts[1]) || rel === 'web/README.md';
  if (parts[0] === 'models') return parts.length === 3 && /^(model(\.[\w-]+)?\.tfm|README\.md)$/.test(parts[2]) && parts[1] !== 'work';
  if (parts[0] === 'tests') return parts[1] === 'fixtures';
  return false;
}

/**
 * @param {{port?: number, host?: string, isolation?: boolean, fixtures?: string, quiet?: boolean, modelsRoot?: string}} options
 *   modelsRoot: where models/ and tests/fixtures/ are read from (default: the repository; tests
 *   give a folder of their own)
 * @returns {Promise<{url: string, server: http.Server, requests: Map<string, number>, registry: object, close: () => Promise<void>}>}
 */
export async function startServer({ port = 8080, host = '127.0.0.1', isolation = true, fixtures = 'auto', quiet = false, modelsRoot = repoRoot } = {}) {
  // The registry's URLs are relative to web/demo/, which is served at the same place either way.
  const { registry, skipped } = buildRegistry({ root: modelsRoot, out: path.join(modelsRoot, 'web', 'demo', 'registry.json'), fixtures });
  const registryBody = JSON.stringify(registry, null, 2);
  const requests = new Map();  // path -> count, for tests (e.g. that a second visit downloads no model)

  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let rel = decodeURIComponent(url.pathname).replace(/^\/+/, '');
    requests.set(rel, (requests.get(rel) ?? 0) + 1);
    if (isolation) {
      res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    }
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    if (rel === '' || rel === 'web/demo') {
      res.writeHead(302, { Location: '/web/demo/' }).end();
      return;
    }
    if (rel.endsWith('/')) rel += 'index.html';
    // The demo's service worker covers /web/ (page, package sources, wasm), above its own folder.
    if (rel === 'web/demo/sw.js') res.setHeader('Service-Worker-Allowed', '/web/');
    if (rel === 'web/demo/registry.json') {
      res.writeHead(200, { 'Content-Type': TYPES['.json'] }).end(req.method === 'HEAD' ? undefined : registryBody);
      return;
    }
    const file = path.join(rel.startsWith('web/') ? repoRoot : modelsRoot, rel);
    let stat;
    if (path.normalize(rel) !== rel || !allowed(rel) || !(stat = statOrNull(file))?.isFile()) {
      res.writeHead(404, { 'Content-Type': TYPES['.txt'] }).end('not found\n');
      return;
    }
    const modified = new Date(Math.floor(stat.mtimeMs / 1000) * 1000);
    const since = Date.parse(req.headers['if-modified-since'] ?? '');
    if (!Number.isNaN(since) && since >= modified.getTime()) {
      res.writeHead(304).end();
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(rel)] ?? 'application/octet-stream',
      'Content-Length': stat.size,
      'Last-Modified': modified.toUTCString(),
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const url = `http://${host}:${address.port}/web/demo/`;
  if (!quiet) {
    console.log(`tformer-wasm demo: ${url}`);
    console.log(isolation ? '  COOP/COEP on: cross-origin isolated, threaded build'
      : '  COOP/COEP off (--no-isolation): single-threaded build');
    for (const m of registry.models) {
      console.log(`  model ${m.id} (${m.from} -> ${m.to}; ${m.variants.map((v) => `${v.weights} ${(v.size / 1048576).toFixed(1)} MiB${v.default ? ' default' : ''}`).join(', ')})` +
        (m.test ? ' [test model]' : ''));
    }
    for (const why of skipped) console.log(`  left out: ${why}`);
    if (registry.models.length === 0) console.log('  no models found (models/*/model.tfm or tests/fixtures/*/model.tfm)');
  }
  return {
    url, server, requests, registry,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

function statOrNull(file) {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
  const noIsolation = args.includes('--no-isolation') || ['1', 'true', 'yes'].includes(process.env.TFORMER_NO_ISOLATION ?? '');
  startServer({
    port: Number(opt('--port', process.env.PORT ?? 8080)),
    host: opt('--host', '127.0.0.1'),
    isolation: !noIsolation,
    fixtures: opt('--fixtures', 'auto'),
  }).catch((e) => {
    console.error(e.code === 'EADDRINUSE'
      ? `port in use: ${e.message} (npm run demo -- --port 0 serves on a free port; or --port N)` : e.message);
    process.exit(1);
  });
}

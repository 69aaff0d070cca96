// A small static http server for the scripts and tests that drive headless Chromium
// (tests/bench/web_browser.mjs, tests/bench/peers/chromium.mjs, tests/web/relaxed_simd.test.mjs):
// an empty page at /, files by route, COOP/COEP headers on cross-origin-isolated pages.
import http from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';

const MIME = { '.wasm': 'application/wasm', '.mjs': 'text/javascript', '.js': 'text/javascript', '.json': 'application/json',
  '.html': 'text/html; charset=utf-8' };

/**
 * @param {object} o
 * @param {Record<string, string>} o.routes  URL path -> file, or URL prefix ending in '/' -> folder
 * @param {(req: http.IncomingMessage) => boolean} [o.isolated]  whether to send COOP/COEP (default: always)
 * @param {(req: http.IncomingMessage, urlPath: string) => boolean} [o.hide]  answer 404 for this request
 * @returns {Promise<{server: http.Server, url: string, close: () => void}>} url: the page, http://127.0.0.1:PORT/
 */
export async function serveStatic({ routes, isolated = () => true, hide = () => false }) {
  const server = http.createServer((req, res) => {
    if (isolated(req)) {
      res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    }
    const p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (p === '/') return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>tformer</title>');
    let file = null;
    for (const [route, target] of Object.entries(routes)) {
      if (p === route) file = target;
      else if (route.endsWith('/') && p.startsWith(route) && !p.includes('..')) file = path.join(target, p.slice(route.length));
    }
    if (!file || hide(req, p) || !existsSync(file) || !statSync(file).isFile()) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream', 'Content-Length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

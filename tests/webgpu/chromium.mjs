// Headless Chromium with WebGPU (SwiftShader without a GPU) and a static server of the repository
// for the browser tests. Without a GPU, `--enable-unsafe-webgpu` in headless Chromium gives a
// SwiftShader adapter (exact, slow, no shader-f16); the other flags keep a fresh profile quiet.
import http from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CHROMIUM = '/usr/bin/chromium';
const root = fileURLToPath(new URL('../../', import.meta.url));

let chromium = null;
try {
  ({ chromium } = createRequire(new URL('../../web/package.json', import.meta.url))('playwright-core'));
} catch {}

// Why the browser tests cannot run here, or false.
export const browserSkip = !existsSync(CHROMIUM) ? `no ${CHROMIUM} (apt-get install chromium)` :
  !chromium ? 'npm playwright-core not found under web/node_modules' : false;

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

// Serves the repository read-only on 127.0.0.1. `isolated` adds the COOP/COEP headers that give a
// page SharedArrayBuffer (the threaded wasm module needs them). Resolves to { url, close }.
export async function serveRepository({ isolated = false } = {}) {
  const server = http.createServer(async (req, res) => {
    const file = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (isolated) {
      res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    }
    if (file === '/favicon.ico') {
      res.statusCode = 204;
      return res.end();
    }
    if (file === '/') {
      res.setHeader('content-type', 'text/html');
      return res.end('<!doctype html><title>tformer webgpu</title>');
    }
    try {
      if (file.split('/').includes('..')) throw new Error('outside the repository');
      const body = await readFile(path.join(root, file));
      res.setHeader('content-type', TYPES[path.extname(file)] ?? 'application/octet-stream');
      res.end(body);
    } catch {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

// Playwright gives each launch a fresh temporary profile (it refuses --user-data-dir here).
export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--enable-unsafe-webgpu', '--no-sandbox', '--headless=new', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

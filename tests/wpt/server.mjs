// The web-platform-tests of this folder served as WPT's own server (wptserve) serves them, with the
// polyfill (tformer-wasm/polyfill) installed in each test's global before its scripts run:
//
//   /<dir>/<name>.window.html      for <name>.window.js: a page that loads the test and its
//                                  "// META: script=" scripts after testharness.js and testharnessreport.js
//   /<dir>/<name>.any.html         for <name>.any.js, its window variant
//   /<dir>/<name>.any.worker.html  its dedicated-worker variant (fetch_tests_from_worker), whose
//   /<dir>/<name>.any.worker.js    worker imports testharness.js, then the polyfill, then the test
//   /web/...                       the package (src/, dist/), or the folder given as `webDir`
//   anything else                  the file under this folder (resources/, interfaces/, ai/, tformer/)
//
// The browser's own Translator and LanguageDetector (Chromium has them) are deleted, then the
// polyfill is installed with `force` (CreateMonitor too). The test files are served unmodified.
// Pages are cross-origin isolated (the threaded engine needs it). Files carry an ETag and
// "Cache-Control: no-cache", as a usual static server's do: the browser's HTTP cache keeps them and
// asks again with If-None-Match (a 304 without the body).
import http from 'node:http';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const wptRoot = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(wptRoot, '..', '..');

const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.idl': 'text/plain; charset=utf-8' };

/** The "// META:" lines at the top of a test file: { title, timeout, scripts: [absolute paths], globals: [...] }. */
export function testMeta(urlPath, source) {
  const meta = { title: path.posix.basename(urlPath), timeout: null, scripts: [], globals: ['window', 'dedicatedworker'] };
  for (const line of source.split('\n')) {
    const m = /^\/\/\s*META:\s*(\w+)=(.*)$/.exec(line.trim());
    if (!m) {
      if (line.trim() === '' || line.startsWith('//')) continue;
      break;
    }
    const [, key, value] = m;
    if (key === 'title') meta.title = value.trim();
    else if (key === 'timeout') meta.timeout = value.trim();
    else if (key === 'script') meta.scripts.push(new URL(value.trim(), `http://x${urlPath}`).pathname);
    else if (key === 'global') meta.globals = value.split(',').map((g) => g.trim());
  }
  return meta;
}

// Module code that replaces the environment's own APIs by the polyfill's, for a page or a worker.
function installCode(catalog) {
  return `const { install } = await import('/web/src/polyfill.js');
for (const name of ['Translator', 'LanguageDetector']) delete globalThis[name];
install({ catalog: ${JSON.stringify(catalog)}, force: true });`;
}

function windowPage(meta, testPath, catalog) {
  const scripts = JSON.stringify([...meta.scripts, testPath]);
  return `<!doctype html>
<meta charset=utf-8>
<title>${meta.title}</title>
${meta.timeout === 'long' ? '<meta name=timeout content=long>\n' : ''}<script src="/resources/testharness.js"></script>
<script src="/resources/testharnessreport.js"></script>
<script>setup({ explicit_done: true });</script>
<body>
<div id=log></div>
<script type=module>
try {
  ${installCode(catalog)}
  for (const src of ${scripts}) {
    await new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = src;
      script.onload = resolve;
      script.onerror = () => reject(new Error('could not load ' + src));
      document.head.append(script);
    });
  }
} catch (e) {
  test(() => { throw e; }, 'the test and the polyfill load');
}
done();
</script>
`;
}

function workerPage(meta, workerPath) {
  return `<!doctype html>
<meta charset=utf-8>
<title>${meta.title}</title>
${meta.timeout === 'long' ? '<meta name=timeout content=long>\n' : ''}<script src="/resources/testharness.js"></script>
<script src="/resources/testharnessreport.js"></script>
<div id=log></div>
<script>fetch_tests_from_worker(new Worker(${JSON.stringify(workerPath)}));</script>
`;
}

// A classic worker, as wptserve's: importScripts() of the harness and the test; the polyfill (a
// module) comes in between through import(), so the test's scripts are imported after it.
function workerScript(meta, testPath, catalog) {
  return `importScripts('/resources/testharness.js');
(async () => {
  try {
    ${installCode(catalog)}
    importScripts(...${JSON.stringify([...meta.scripts, testPath])});
  } catch (e) {
    test(() => { throw e; }, 'the test and the polyfill load');
  }
  done();
})();
`;
}

/**
 * Starts the server: { url (its origin, with a trailing /), requests: [paths asked for], close() }.
 * `catalog`: the polyfill's install({ catalog }); `webDir`: the package served at /web/ (default web/).
 */
export async function startWptServer({ catalog, webDir = path.join(repoRoot, 'web') }) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.push(urlPath);
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    const send = (status, type, body) => res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' }).end(body);
    if (urlPath.includes('..')) return send(404, 'text/plain', 'not found');
    if (urlPath === '/') return send(200, MIME['.html'], '<!doctype html><title>web-platform-tests</title><body>');

    // The generated pages and worker scripts.
    const generated = /^(.*)\.(window\.html|any\.html|any\.worker\.html|any\.worker\.js)$/.exec(urlPath);
    if (generated) {
      const [, base, kind] = generated;
      const testPath = `${base}.${kind.startsWith('window') ? 'window' : 'any'}.js`;
      const file = path.join(wptRoot, testPath);
      if (!existsSync(file)) return send(404, 'text/plain', `no ${testPath}`);
      const meta = testMeta(testPath, readFileSync(file, 'utf8'));
      if (kind === 'window.html' || kind === 'any.html') return send(200, MIME['.html'], windowPage(meta, testPath, catalog));
      if (kind === 'any.worker.html') return send(200, MIME['.html'], workerPage(meta, `${base}.any.worker.js`));
      return send(200, MIME['.js'], workerScript(meta, testPath, catalog));
    }

    const file = urlPath.startsWith('/web/') ? path.join(webDir, urlPath.slice('/web/'.length)) : path.join(wptRoot, urlPath);
    if (!existsSync(file) || !statSync(file).isFile()) return send(404, 'text/plain', 'not found');
    const stat = statSync(file);
    const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    const headers = { 'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream', ETag: etag, 'Cache-Control': 'no-cache' };
    if (req.headers['if-none-match'] === etag) return res.writeHead(304, headers).end();
    res.writeHead(200, { ...headers, 'Content-Length': stat.size });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

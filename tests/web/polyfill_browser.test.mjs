// tformer-wasm/polyfill in headless Chromium, against a local catalogue in Firefox's format
// (tests/catalog/local_catalog.mjs): the cases of standard_api_cases.mjs on a page (where Chromium
// defines Translator and LanguageDetector of its own, which install() leaves alone unless forced),
// in a dedicated Worker and in a module Service Worker (where it has neither; a Service Worker can
// start no Worker and refuses import(): tformer-wasm/polyfill/service-worker runs the engine in its
// thread), each in a fresh browser context (empty caches). The same cases run against the browser's
// own implementation, each API's where it can serve here; an API that cannot has its cases
// skipped, with the reason printed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { browserTestProblems, launchChromium, playwrightChromium, repoRoot, requireDist, webDir } from './helpers.mjs';
import { serveStatic } from '../static_server.mjs';
import { startLocalCatalog } from '../catalog/local_catalog.mjs';

const chromium = playwrightChromium();
const problems = browserTestProblems(chromium);

let catalogue = null;
let server = null;

before(async () => {
  if (problems.length) return;
  catalogue = await startLocalCatalog();
  // The package, these tests' files and the Service Worker's script, from one origin; cross-origin
  // isolated, so that pages and Workers get the threaded build.
  server = await serveStatic({ routes: {
    '/web/': webDir,
    '/tests/web/': path.join(repoRoot, 'tests', 'web'),
    '/polyfill-sw.js': path.join(repoRoot, 'tests', 'web', 'polyfill_service_worker.js'),
  } });
});

after(async () => {
  server?.close();
  await catalogue?.close();
});

// The environment of the cases for the polyfill installed in this scope (page, Worker, Service
// Worker): the catalogue's direct pairs, its pair through English (in a cache of its own, so that
// both of its models download) and its pair whose download fails (404).
// (Runs in the browser: a page, or a Worker made from a blob, whose base URL is blob:; every URL is absolute.)
async function runInScope({ origin, catalog }) {
  const { runCases } = await import(`${origin}/tests/web/standard_api_cases.mjs`);
  const { install } = await import(`${origin}/web/src/polyfill.js`);
  const ownOnes = ['Translator', 'LanguageDetector'].filter((name) => name in globalThis);
  const { installed } = install({ catalog, cache: 'polyfill-cases', force: true });
  const { Translator: Pivot } = install({ catalog, cache: 'polyfill-cases-pivot' });
  const results = await runCases({ Translator: globalThis.Translator, LanguageDetector: globalThis.LanguageDetector,
    pair: ['fr', 'en'], abortPair: ['en', 'de'], pivotPair: ['fr', 'de'], pivotTranslator: Pivot, brokenPair: ['xb', 'en'] });
  return { ownOnes, installed, results };
}

// The browser's own APIs: each one's cases run where its availability() is not "unavailable" and a
// model it must download arrives; otherwise they are skipped, with the reason.
async function runOwn({ origin, pair }) {
  const { runCases } = await import(`${origin}/tests/web/standard_api_cases.mjs`);
  const skip = {};
  const [sourceLanguage, targetLanguage] = pair;
  // Waits for a create() that needs a download: it resolves once the model is there. Offline it
  // never does (Chromium waits for the network), so the wait is bounded.
  const created = async (Api, options) => {
    const controller = new AbortController();
    let timer;
    const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), 30_000); });
    try {
      const made = await Promise.race([Api.create({ ...options, signal: controller.signal }), timeout]);
      if (made === 'timeout') {
        controller.abort();
        return 'its create() did not complete in 30 s: the model it needs could not be downloaded here';
      }
      made.destroy();
      return true;
    } catch (e) {
      return `its create() rejected (${e?.name}: ${e?.message})`;
    } finally {
      clearTimeout(timer);
    }
  };
  const check = async (name, options) => {
    const Api = globalThis[name];
    if (typeof Api !== 'function') return `this browser has no ${name} of its own`;
    let availability;
    try {
      availability = await Api.availability(options);
    } catch (e) {
      return `${name}.availability() rejected (${e?.name}: ${e?.message})`;
    }
    if (availability === 'unavailable') return `${name}.availability(${JSON.stringify(options)}) is "unavailable" here`;
    if (availability === 'available') return null;
    const done = await created(Api, options);
    return done === true ? null : `${name} is "${availability}" and ${done}`;
  };
  const translator = await check('Translator', { sourceLanguage, targetLanguage });
  if (translator) skip.Translator = translator;
  const detector = await check('LanguageDetector', {});
  if (detector) skip.LanguageDetector = detector;
  return { skip, results: await runCases({ Translator: globalThis.Translator, LanguageDetector: globalThis.LanguageDetector, own: true, pair, skip }) };
}

async function inWorker(page, run, options) {
  return page.evaluate(`new Promise((resolve, reject) => {
    const source = ${JSON.stringify(`const run = ${run};\nself.onmessage = async (e) => { try { self.postMessage(await run(e.data)); } catch (error) { self.postMessage({ error: String(error && error.stack || error) }); } };`)};
    const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })), { type: 'module' });
    worker.onmessage = (e) => resolve(e.data);
    worker.onerror = (e) => reject(new Error('worker: ' + e.message));
    worker.postMessage(${JSON.stringify(options)});
  })`);
}

// The Service Worker (polyfill_service_worker.js) registered by the page, asked to run the cases.
async function inServiceWorker(page, options) {
  return page.evaluate(async (o) => {
    const registration = await navigator.serviceWorker.register('/polyfill-sw.js', { type: 'module' });
    const worker = registration.installing ?? registration.waiting ?? registration.active;
    if (worker.state !== 'activated') {
      await new Promise((resolve, reject) => worker.addEventListener('statechange', () => {
        if (worker.state === 'activated') resolve();
        if (worker.state === 'redundant') reject(new Error('the Service Worker did not install'));
      }));
    }
    const channel = new MessageChannel();
    const answer = new Promise((resolve) => { channel.port1.onmessage = (e) => resolve(e.data); });
    worker.postMessage(o, [channel.port2]);
    return answer;
  }, options);
}

function report(where, outcome) {
  assert.equal(outcome.error, undefined, outcome.error);
  for (const r of outcome.results) {
    console.log(`${where}: ${r.ok ? (r.skipped ? 'skip' : 'ok  ') : 'FAIL'} ${r.name}${r.skipped ? ` (${r.skipped})` : ''}${r.error ? `\n${r.error}` : ''}`);
  }
  assert.deepEqual(outcome.results.filter((r) => !r.ok).map((r) => r.name), []);
}

async function withPage(run) {
  const browser = await launchChromium(chromium);
  try {
    const page = await (await browser.newContext()).newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url);
    const outcome = await run(page);
    assert.deepEqual(errors, []);
    return outcome;
  } finally {
    await browser.close();
  }
}

const SCOPES = { page: 'a page', worker: 'a dedicated Worker', 'service-worker': 'a module Service Worker' };

for (const [scope, where] of Object.entries(SCOPES)) {
  test(`the polyfill in Chromium, in ${where}: every standard API case, with a catalogue in Firefox's format`, { timeout: 600_000 }, async () => {
    assert.deepEqual(problems, [], problems.join('; '));
    requireDist();
    const options = { origin: new URL(server.url).origin, catalog: catalogue.url };
    const outcome = await withPage((page) => (scope === 'page' ? page.evaluate(`(${runInScope})(${JSON.stringify(options)})`)
      : scope === 'worker' ? inWorker(page, runInScope, options) : inServiceWorker(page, options)));
    assert.equal(outcome.error, undefined, outcome.error);
    console.log(`${scope}: the browser's own: ${outcome.ownOnes.join(', ') || 'none'}`);
    if (scope !== 'page') assert.deepEqual(outcome.ownOnes, [], `Chromium exposes neither API in ${where}`);
    assert.deepEqual(outcome.installed, ['Translator', 'LanguageDetector']);
    if (scope === 'service-worker') {
      // What a Service Worker is: no Worker to start, import() refused; the engine ran in its thread.
      assert.deepEqual(outcome.scope, { worker: false, importRefused: true, variant: 'single', engineWorker: null }, JSON.stringify(outcome.scope));
    }
    report(scope, outcome);
    assert.equal(outcome.results.filter((r) => r.skipped).length, 0);
  });
}

test('the same cases against the browser\'s own Translator and LanguageDetector, where they can serve here', { timeout: 600_000 }, async (t) => {
  assert.deepEqual(problems, [], problems.join('; '));
  const outcome = await withPage((page) => page.evaluate(`(${runOwn})(${JSON.stringify({ origin: new URL(server.url).origin, pair: ['de', 'en'] })})`));
  for (const [api, reason] of Object.entries(outcome.skip)) console.log(`the browser's own ${api}: its cases are skipped: ${reason}`);
  report('own', outcome);
  if (outcome.skip.Translator && outcome.skip.LanguageDetector) t.skip(`the browser's own APIs cannot serve here: ${Object.values(outcome.skip).join('; ')}`);
});

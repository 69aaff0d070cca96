// tformer-wasm/polyfill in the browser engines of the run (tests/web/helpers.mjs launchBrowser),
// against a local catalogue in Firefox's format (tests/catalog/local_catalog.mjs): the cases of
// standard_api_cases.mjs on a page (where Chromium defines Translator and LanguageDetector of its
// own, which install() leaves alone unless forced) and in a dedicated Worker, in every engine; in
// Chromium also in a module Service Worker (where it has neither; a Service Worker can start no
// Worker and refuses import(): tformer-wasm/polyfill/service-worker runs the engine in its thread).
// Each scope runs in a fresh browser context (empty caches). The same cases run against Chromium's
// own implementation, each API's where it can serve here; an API that cannot has its cases
// skipped, with the reason printed. On a page, each case that downloads is preceded by a real
// click (create() needs transient user activation there; Workers have none to need). And the
// permissions policy: a frame that may not use the APIs finds them "unavailable".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ENGINES, closeSharedBrowsers, engineSkip, repoRoot, requireDist, sharedBrowser, testedEngines, webDir } from './helpers.mjs';
import { serveStatic } from '../static_server.mjs';
import { startLocalCatalog } from '../catalog/local_catalog.mjs';

let catalogue = null;
let server = null;

before(async () => {
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
  await closeSharedBrowsers();
  server?.close();
  await catalogue?.close();
});

// The environment of the cases for the polyfill installed in this scope (page, Worker, Service
// Worker): the catalogue's direct pairs, its pair through English (in a cache of its own, so that
// both of its models download) and its pair whose download fails (404).
// (Runs in the browser: a page, or a Worker made from a blob, whose base URL is blob:; every URL is absolute.)
// On a page (`page`), the cases are only prepared: inPage() runs them one by one.
async function runInScope({ origin, catalog, page = false }) {
  const { cases, runCase, runCases } = await import(`${origin}/tests/web/standard_api_cases.mjs`);
  const { install } = await import(`${origin}/web/src/polyfill.js`);
  const ownOnes = ['Translator', 'LanguageDetector'].filter((name) => name in globalThis);
  const { installed } = install({ catalog, cache: 'polyfill-cases', force: true });
  const { Translator: Pivot } = install({ catalog, cache: 'polyfill-cases-pivot' });
  const env = { Translator: globalThis.Translator, LanguageDetector: globalThis.LanguageDetector,
    pair: ['fr', 'en'], abortPair: ['en', 'de'], pivotPair: ['fr', 'de'], pivotTranslator: Pivot, brokenPair: ['xb', 'en'] };
  if (!page) return { ownOnes, installed, results: await runCases(env) };
  const list = cases(env);
  globalThis.tformerRunCase = (i) => runCase(list[i]);
  const button = document.createElement('button');
  button.id = 'tformer-activate';
  button.textContent = 'activate';
  button.style.cssText = 'position: fixed; left: 0; top: 0; width: 120px; height: 40px; z-index: 2147483647';
  document.body.append(button);
  return { ownOnes, installed, cases: list.map((c) => ({ name: c.name, activates: c.activates && !c.skip })) };
}

// The cases on a page, each in an evaluate of its own; before a case that downloads, a real click
// on the page's button, which gives the page the transient user activation its create() needs.
async function inPage(page, options) {
  const prepared = await page.evaluate(`(${runInScope})(${JSON.stringify({ ...options, page: true })})`);
  const results = [];
  for (const [i, c] of prepared.cases.entries()) {
    if (c.activates) await page.click('#tformer-activate');
    results.push(await page.evaluate(`globalThis.tformerRunCase(${i})`));
  }
  return { ownOnes: prepared.ownOnes, installed: prepared.installed, results };
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

// A page of the server in a fresh context of `kind`'s browser (empty caches), given to `run`.
async function withPage(kind, run) {
  const browser = await sharedBrowser(kind);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(server.url);
    const outcome = await run(page);
    // Uncaught errors only: a case's expected failures (a 404 of the broken pair) are its own to check.
    assert.deepEqual((await page.errors()).filter((e) => !/^HTTP |Failed to load resource/.test(e)), []);
    return outcome;
  } finally {
    await context.close();
  }
}

const SCOPES = { page: 'a page', worker: 'a dedicated Worker', 'service-worker': 'a module Service Worker' };

for (const kind of testedEngines()) for (const [scope, where] of Object.entries(SCOPES)) {
  if (scope === 'service-worker' && kind !== 'chromium') continue;  // the same code as the page's, in Chromium's module Service Worker
  test(`the polyfill in ${ENGINES[kind].label}, in ${where}: every standard API case, with a catalogue in Firefox's format`,
    { skip: engineSkip(kind), timeout: 600_000 }, async () => {
    requireDist();
    const options = { origin: new URL(server.url).origin, catalog: catalogue.url };
    const outcome = await withPage(kind, (page) => (scope === 'page' ? inPage(page, options)
      : scope === 'worker' ? inWorker(page, runInScope, options) : inServiceWorker(page, options)));
    assert.equal(outcome.error, undefined, outcome.error);
    console.log(`${kind} ${scope}: the browser's own: ${outcome.ownOnes.join(', ') || 'none'}`);
    if (scope !== 'page') assert.deepEqual(outcome.ownOnes, [], `${ENGINES[kind].label} exposes neither API in ${where}`);
    assert.deepEqual(outcome.installed, ['Translator', 'LanguageDetector', 'CreateMonitor']);
    if (scope === 'service-worker') {
      // What a Service Worker is: no Worker to start, import() refused; the engine ran in its thread.
      assert.deepEqual(outcome.scope, { worker: false, importRefused: true, variant: 'single', engineWorker: null }, JSON.stringify(outcome.scope));
    }
    report(`${kind} ${scope}`, outcome);
    assert.equal(outcome.results.filter((r) => r.skipped).length, 0);
  });
}

for (const kind of testedEngines(['chromium'])) test('the same cases against the browser\'s own Translator and LanguageDetector, where they can serve here', { skip: engineSkip(kind), timeout: 600_000 }, async (t) => {
  const outcome = await withPage(kind, (page) => page.evaluate(`(${runOwn})(${JSON.stringify({ origin: new URL(server.url).origin, pair: ['de', 'en'] })})`));
  for (const [api, reason] of Object.entries(outcome.skip)) console.log(`the browser's own ${api}: its cases are skipped: ${reason}`);
  report('own', outcome);
  if (outcome.skip.Translator && outcome.skip.LanguageDetector) t.skip(`the browser's own APIs cannot serve here: ${Object.values(outcome.skip).join('; ')}`);
});

// Two frames of one page, each with the polyfill: one that the permissions policy lets use neither
// API (allow="translator 'none'; language-detector 'none'"), one with the default policy ('self').
// What each reports: availability, and create() for what needs no download (the identity arc; an
// undetectable language, which the default frame refuses as unsupported).
async function framesUnderPolicy({ origin, catalog }) {
  const frame = (allow) => new Promise((resolve) => {
    const iframe = document.createElement('iframe');
    if (allow) iframe.allow = allow;
    addEventListener('message', function answer(e) {
      if (e.source !== iframe.contentWindow) return;
      removeEventListener('message', answer);
      resolve(e.data);
    });
    iframe.srcdoc = `<script type=module>
      const settled = (promise) => promise.then(() => 'created', (e) => e.name);
      try {
        const { install } = await import(${JSON.stringify(`${origin}/web/src/polyfill.js`)});
        const { Translator, LanguageDetector } = install({ catalog: ${JSON.stringify(catalog)}, force: true });
        const features = document.featurePolicy?.features?.() ?? [];
        parent.postMessage({
          readable: features.includes('translator') && features.includes('language-detector'),
          translator: await Translator.availability({ sourceLanguage: 'fr', targetLanguage: 'en' }),
          detector: await LanguageDetector.availability(),
          createTranslator: await settled(Translator.create({ sourceLanguage: 'fr', targetLanguage: 'fr' })),
          createDetector: await settled(LanguageDetector.create({ expectedInputLanguages: ['tlh-Piqd'] })),
        }, '*');
      } catch (e) {
        parent.postMessage({ error: String(e && e.stack || e) }, '*');
      }
    <\/script>`;
    document.body.append(iframe);
  });
  return { denied: await frame("translator 'none'; language-detector 'none'"), allowed: await frame(null) };
}

for (const kind of testedEngines(['chromium'])) test('the permissions policy: a frame not allowed "translator" and "language-detector" finds both "unavailable" and create() NotAllowedError', { skip: engineSkip(kind), timeout: 120_000 }, async (t) => {
  requireDist();
  const outcome = await withPage(kind, (page) => page.evaluate(`(${framesUnderPolicy})(${JSON.stringify({ origin: new URL(server.url).origin, catalog: catalogue.url })})`));
  for (const [name, frame] of Object.entries(outcome)) assert.equal(frame.error, undefined, `${name}: ${frame.error}`);
  console.log(`permissions policy: ${JSON.stringify(outcome)}`);
  if (!outcome.denied.readable) return t.skip('this browser does not let a script read the policy of "translator" and "language-detector"');
  assert.deepEqual(outcome.denied, { readable: true, translator: 'unavailable', detector: 'unavailable', createTranslator: 'NotAllowedError', createDetector: 'NotAllowedError' });
  assert.equal(outcome.allowed.translator, 'downloadable');
  assert.notEqual(outcome.allowed.detector, 'unavailable');
  assert.equal(outcome.allowed.createTranslator, 'created');
  assert.equal(outcome.allowed.createDetector, 'NotSupportedError');
});

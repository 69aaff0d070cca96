// The module Service Worker of polyfill_browser.test.mjs: tformer-wasm/polyfill/service-worker
// installed here, and the cases of standard_api_cases.mjs run when a page asks (a message with a
// port: {origin, catalog}; the answer: what runInScope answers in a page, and what this scope is).
// Static imports only: a Service Worker refuses import().
import { install } from '/web/src/polyfill-service-worker.js';
import { Translator as PackageTranslator } from '/web/src/index.js';
import { runCases } from '/tests/web/standard_api_cases.mjs';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

// What the package has to do without: a Worker to start, and import().
async function scope(catalog) {
  let importRefused;
  try {
    await import('/tests/web/standard_api_cases.mjs');
    importRefused = false;
  } catch {
    importRefused = true;
  }
  const translator = await PackageTranslator.create({ from: 'fr', to: 'en', catalog, cache: 'service-worker-scope' });
  const { variant, worker } = translator.info;
  translator.dispose();
  return { worker: typeof Worker === 'function', importRefused, variant, engineWorker: worker };
}

self.addEventListener('message', (event) => {
  const [port] = event.ports;
  const { catalog } = event.data;
  event.waitUntil((async () => {
    try {
      const ownOnes = ['Translator', 'LanguageDetector'].filter((name) => name in globalThis);
      const { installed } = install({ catalog, cache: 'polyfill-cases', force: true });
      const { Translator: Pivot } = install({ catalog, cache: 'polyfill-cases-pivot' });
      const results = await runCases({ Translator: globalThis.Translator, LanguageDetector: globalThis.LanguageDetector,
        pair: ['fr', 'en'], abortPair: ['en', 'de'], pivotPair: ['fr', 'de'], pivotTranslator: Pivot, brokenPair: ['xb', 'en'] });
      port.postMessage({ ownOnes, installed, results, scope: await scope(catalog) });
    } catch (e) {
      port.postMessage({ error: String(e?.stack ?? e) });
    }
  })());
});

// tformer-wasm/polyfill in headless Chromium, against the local catalogue server: the cases of
// standard_api_cases.mjs on a page (where Chromium 138+ defines Translator and LanguageDetector of
// its own, which install() leaves alone unless forced) and in a dedicated Worker (where it has
// none), each in a fresh browser context (empty caches). The same cases run against the browser's
// own implementation where it has one that can serve here (skipped where it has none, or where it
// would have to download its models: the machine is offline).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserTestProblems, launchChromium, playwrightChromium, requireDist } from './helpers.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

const casesSource = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'standard_api_cases.mjs'), 'utf8');
const chromium = playwrightChromium();
const problems = browserTestProblems(chromium);

// Runs in the page or the Worker: the polyfill installed (or the browser's own classes), the cases run.
// (A Worker made from a blob has a blob: base URL: every URL here is absolute.)
async function runInScope({ casesUrl, own, origin }) {
  const { runCases } = await import(casesUrl);
  const { install } = await import(`${origin}/web/src/polyfill.js`);
  const native = { Translator: globalThis.Translator, LanguageDetector: globalThis.LanguageDetector };
  if (own) {
    if (!native.Translator || !native.LanguageDetector) return { absent: 'this browser has no Translator or LanguageDetector of its own' };
    const translator = await native.Translator.availability({ sourceLanguage: 'de', targetLanguage: 'en' });
    const detector = await native.LanguageDetector.availability();
    if (translator !== 'available' || detector !== 'available') {
      return { absent: `its own are not ready here (Translator de -> en: ${translator}, LanguageDetector: ${detector})` };
    }
    return { results: await runCases({ ...native, own: true, pair: ['de', 'en'] }) };
  }
  const ownOnes = ['Translator', 'LanguageDetector'].filter((name) => name in globalThis);
  const { installed } = install({ catalog: `${origin}/web/demo/registry.json`, force: true });
  const { Translator: Broken } = install({ catalog: { models: [{ id: 'missing', from: 'fr', to: 'de',
    url: `${origin}/models/missing/model.tfm`, sha256: '0'.repeat(64), size: 1000 }] } });
  const results = await runCases({ Translator: globalThis.Translator, LanguageDetector: globalThis.LanguageDetector,
    pair: ['de', 'en'], abortPair: ['en', 'de'], brokenTranslator: Broken, brokenPair: ['fr', 'de'] });
  return { ownOnes, installed, results };
}

async function inPage(page, options) {
  return page.evaluate(`(${runInScope})(${JSON.stringify(options)})`);
}

async function inWorker(page, options) {
  return page.evaluate(`new Promise((resolve, reject) => {
    const source = ${JSON.stringify(`const run = ${runInScope};\nself.onmessage = async (e) => { try { self.postMessage(await run(e.data)); } catch (error) { self.postMessage({ error: String(error && error.stack || error) }); } };`)};
    const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })), { type: 'module' });
    worker.onmessage = (e) => resolve(e.data);
    worker.onerror = (e) => reject(new Error('worker: ' + e.message));
    worker.postMessage(${JSON.stringify(options)});
  })`);
}

function report(where, outcome) {
  assert.equal(outcome.error, undefined, outcome.error);
  for (const r of outcome.results) console.log(`${where}: ${r.ok ? (r.skipped ? 'skip' : 'ok  ') : 'FAIL'} ${r.name}${r.error ? `\n${r.error}` : ''}`);
  assert.deepEqual(outcome.results.filter((r) => !r.ok).map((r) => r.name), []);
}

for (const scope of ['page', 'worker']) {
  test(`the polyfill in Chromium, in a ${scope === 'page' ? 'page' : 'dedicated Worker'}: every standard API case`, { timeout: 600_000 }, async () => {
    assert.deepEqual(problems, [], problems.join('; '));
    requireDist();
    const server = await startServer({ port: 0, isolation: true, quiet: true });
    const browser = await launchChromium(chromium);
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      // A document of the server's origin for the modules to load from.
      await page.goto(new URL('registry.json', server.url).href);
      const casesUrl = await page.evaluate((src) => URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), casesSource);
      const origin = new URL(server.url).origin;
      const outcome = scope === 'page' ? await inPage(page, { casesUrl, own: false, origin }) : await inWorker(page, { casesUrl, own: false, origin });
      console.log(`${scope}: the browser's own: ${outcome.ownOnes?.join(', ') || 'none'}`);
      if (scope === 'worker') assert.deepEqual(outcome.ownOnes, [], 'Chromium exposes neither API in Workers');
      assert.deepEqual(outcome.installed, ['Translator', 'LanguageDetector']);
      report(scope, outcome);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await server.close();
    }
  });
}

test('the same cases against the browser\'s own Translator and LanguageDetector', { timeout: 600_000 }, async (t) => {
  assert.deepEqual(problems, [], problems.join('; '));
  const server = await startServer({ port: 0, isolation: true, quiet: true });
  const browser = await launchChromium(chromium);
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(new URL('registry.json', server.url).href);
    const casesUrl = await page.evaluate((src) => URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), casesSource);
    const outcome = await inPage(page, { casesUrl, own: true, origin: new URL(server.url).origin });
    if (outcome.absent) {
      t.skip(outcome.absent);
      return;
    }
    report('own', outcome);
  } finally {
    await browser.close();
    await server.close();
  }
});

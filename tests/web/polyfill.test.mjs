// tformer-wasm/polyfill in Node: install() defines Translator and LanguageDetector only where
// absent (force: true replaces), and every case of standard_api_cases.mjs passes (availability,
// progress, abort before and during a download, destroy mid-translation, the identity arc, the
// quota, NetworkError for a failed download, and the LanguageDetector's) with the models of
//   a local catalogue in Firefox's format (tests/catalog/local_catalog.mjs): its direct pairs and
//     one through English (one progress total), a failing download the catalogue's own (a 404);
//   a model registry (web/scripts/serve.mjs: the repository's models).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireDist, webDir } from './helpers.mjs';
import { runCases } from './standard_api_cases.mjs';
import { startServer } from '../../web/scripts/serve.mjs';
import { startLocalCatalog } from '../catalog/local_catalog.mjs';

requireDist();
const { install } = await import(`${webDir}/src/polyfill.js`);

test('install() defines the globals only where absent; force: true replaces them', () => {
  const saved = { Translator: globalThis.Translator, LanguageDetector: globalThis.LanguageDetector };
  try {
    delete globalThis.Translator;
    delete globalThis.LanguageDetector;
    const first = install();
    assert.deepEqual(first.installed, ['Translator', 'LanguageDetector']);
    assert.equal(globalThis.Translator, first.Translator);
    assert.equal(Object.getOwnPropertyDescriptor(globalThis, 'Translator').enumerable, false);
    const own = class Translator {};
    globalThis.Translator = own;
    const second = install();
    assert.deepEqual(second.installed, [], 'both exist now');
    assert.equal(globalThis.Translator, own, 'an existing Translator stays');
    const forced = install({ force: true });
    assert.deepEqual(forced.installed, ['Translator', 'LanguageDetector']);
    assert.equal(globalThis.Translator, forced.Translator);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete globalThis[k];
      else globalThis[k] = v;
    }
  }
});

function report(results) {
  for (const r of results) console.log(`${r.ok ? (r.skipped ? 'skip' : 'ok  ') : 'FAIL'} ${r.name}${r.skipped ? ` (${r.skipped})` : ''}${r.error ? `\n${r.error}` : ''}`);
  assert.deepEqual(results.filter((r) => !r.ok).map((r) => r.name), []);
}

test('the standard API cases, on the polyfill in Node, with a local catalogue in Firefox\'s format', { timeout: 600_000 }, async () => {
  const catalogue = await startLocalCatalog();
  try {
    const cache = `${catalogue.work}/cache`;
    const { Translator, LanguageDetector } = install({ catalog: catalogue.url, cache, force: true });
    // The pair through English downloads into a cache of its own: both of its models are new to it.
    const { Translator: Pivot } = install({ catalog: catalogue.url, cache: `${catalogue.work}/pivot-cache` });
    const results = await runCases({ Translator, LanguageDetector, pair: ['fr', 'en'], abortPair: ['en', 'de'],
      pivotPair: ['fr', 'de'], pivotTranslator: Pivot, brokenPair: ['xb', 'en'] });
    report(results);
    assert.equal(results.filter((r) => r.skipped).length, 0);
    // Every pair of the catalogue is an arc; a direct one is found after create() in the CLI's cache.
    assert.equal(await Translator.availability({ sourceLanguage: 'xa', targetLanguage: 'de' }), 'downloadable');
    assert.equal(await Translator.availability({ sourceLanguage: 'de', targetLanguage: 'fr' }), 'unavailable');
    const { Translator: Again } = install({ catalog: catalogue.url, cache });
    assert.equal(await Again.availability({ sourceLanguage: 'fr', targetLanguage: 'en' }), 'available', 'cached by the first');
  } finally {
    await catalogue.close();
  }
});

test('install() refuses a catalog it cannot read, and null means none', async () => {
  assert.throws(() => install({ catalog: 42 }), TypeError);
  const { Translator } = install({ catalog: null });
  assert.equal(await Translator.availability({ sourceLanguage: 'de', targetLanguage: 'en' }), 'unavailable');
  assert.equal(await Translator.availability({ sourceLanguage: 'de', targetLanguage: 'de' }), 'available');
});

test('the standard API cases, on the polyfill in Node, with a model registry', { timeout: 600_000 }, async () => {
  const server = await startServer({ port: 0, isolation: false, quiet: true });
  try {
    const catalog = new URL('registry.json', server.url).href;
    const { Translator, LanguageDetector } = install({ catalog, force: true });
    // A catalogue whose one model cannot be downloaded (no such file on the server).
    const { Translator: Broken } = install({ catalog: { models: [{ id: 'missing', from: 'fr', to: 'de',
      url: new URL('/models/missing/model.tfm', server.url).href, sha256: '0'.repeat(64), size: 1000 }] } });
    const results = await runCases({ Translator, LanguageDetector, pair: ['de', 'en'], abortPair: ['en', 'de'],
      brokenTranslator: Broken, brokenPair: ['fr', 'de'] });
    report(results);
    assert.ok(results.length >= 12);
  } finally {
    await server.close();
  }
});

// tformer-wasm/polyfill in Node, against a local catalogue server (web/scripts/serve.mjs: the
// repository's models in a registry): install() defines Translator and LanguageDetector only where
// absent (force: true replaces), and every case of standard_api_cases.mjs passes: availability,
// progress, abort before and during a download, destroy mid-translation, the identity arc, the
// quota, NetworkError for a failed download, and the LanguageDetector's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireDist, webDir } from './helpers.mjs';
import { runCases } from './standard_api_cases.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

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

test('the standard API cases, on the polyfill in Node, with models from a local catalogue', { timeout: 600_000 }, async () => {
  const server = await startServer({ port: 0, isolation: false, quiet: true });
  try {
    const catalog = new URL('registry.json', server.url).href;
    const { Translator, LanguageDetector } = install({ catalog, force: true });
    // A catalogue whose one model cannot be downloaded (no such file on the server).
    const { Translator: Broken } = install({ catalog: { models: [{ id: 'missing', from: 'fr', to: 'de',
      url: new URL('/models/missing/model.tfm', server.url).href, sha256: '0'.repeat(64), size: 1000 }] } });
    const results = await runCases({ Translator, LanguageDetector, pair: ['de', 'en'], abortPair: ['en', 'de'],
      brokenTranslator: Broken, brokenPair: ['fr', 'de'] });
    const failed = results.filter((r) => !r.ok);
    for (const r of results) console.log(`${r.ok ? (r.skipped ? 'skip' : 'ok  ') : 'FAIL'} ${r.name}${r.error ? `\n${r.error}` : ''}`);
    assert.deepEqual(failed.map((r) => r.name), []);
    assert.ok(results.length >= 11);
  } finally {
    await server.close();
  }
});

// servingApi (tformer-wasm/polyfill): where the environment has its own Translator or
// LanguageDetector, the browser's serves a request only when its availability() answers
// "available"; otherwise (unavailable, downloadable, an error, or no such API) the package's.
// (The same rule in the page demo, in Chromium as it is: demo_page_apis.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { install, servingApi } from '../../web/src/polyfill.js';

const native = (answer) => ({ async availability() { if (answer instanceof Error) throw answer; return answer; } });

test('servingApi: the browser\'s API only where its availability() answers "available"', async () => {
  const { Translator } = install({ catalog: null });
  for (const [answer, which] of [['available', 'browser'], ['downloadable', 'package'], ['downloading', 'package'],
    ['unavailable', 'package'], [new Error('Model not available'), 'package']]) {
    const browser = native(answer);
    const choice = await servingApi(browser, Translator, { sourceLanguage: 'de', targetLanguage: 'en' });
    assert.equal(choice.which, which, String(answer));
    assert.equal(choice.api, which === 'browser' ? browser : Translator);
  }
  assert.deepEqual(await servingApi(undefined, Translator), { api: Translator, which: 'package', answer: null });
  assert.equal((await servingApi(native('available'), Translator, {}, { force: true })).which, 'package');
});

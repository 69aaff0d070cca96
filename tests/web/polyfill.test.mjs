// tformer-wasm/polyfill in Node: install() defines Translator and LanguageDetector only where
// absent (force: true replaces), and every case of standard_api_cases.mjs passes (availability,
// progress, abort before and during a download, destroy mid-translation, the identity arc, the
// quota, NetworkError for a failed download, and the LanguageDetector's) with the models of
//   a local catalogue in Firefox's format (tests/catalog/local_catalog.mjs): its direct pairs and
//     one through English (one progress total), a failing download the catalogue's own (a 404);
//   a model registry (web/scripts/serve.mjs: the repository's models);
// and what the polyfill shares: the translators of a pair one download and one engine, a
// catalogue's list one read a day.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireDist, webDir } from './helpers.mjs';
import { runCases } from './standard_api_cases.mjs';
import { startServer } from '../../web/scripts/serve.mjs';
import { startLocalCatalog } from '../catalog/local_catalog.mjs';

// FLORES-200 dev, sentence 3 (fra_Latn).
const FRENCH = 'Le JAS 39C Gripen s’est écrasé sur une piste autour de 9 h 30 heure locale (0230 UTC) et a explosé, provoquant la fermeture de l’aéroport aux vols commerciaux.';

requireDist();
const { install } = await import(`${webDir}/src/polyfill.js`);

test('install() defines the globals only where absent; force: true replaces them', () => {
  const saved = { Translator: globalThis.Translator, LanguageDetector: globalThis.LanguageDetector, CreateMonitor: globalThis.CreateMonitor };
  try {
    delete globalThis.Translator;
    delete globalThis.LanguageDetector;
    delete globalThis.CreateMonitor;
    const first = install();
    assert.deepEqual(first.installed, ['Translator', 'LanguageDetector', 'CreateMonitor']);
    assert.equal(globalThis.CreateMonitor, first.CreateMonitor);
    assert.equal(globalThis.Translator, first.Translator);
    assert.equal(Object.getOwnPropertyDescriptor(globalThis, 'Translator').enumerable, false);
    const own = class Translator {};
    globalThis.Translator = own;
    const second = install();
    assert.deepEqual(second.installed, [], 'both exist now');
    assert.equal(globalThis.Translator, own, 'an existing Translator stays');
    const forced = install({ force: true });
    assert.deepEqual(forced.installed, ['Translator', 'LanguageDetector', 'CreateMonitor']);
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

// Each request the polyfill makes in this process while `run` runs, by kind: the catalogue's
// documents (its server's root and its records) and its attachments (model files).
async function requests(run) {
  const original = globalThis.fetch;
  const asked = { documents: [], attachments: [] };
  globalThis.fetch = (input, init) => {
    const url = String(input?.url ?? input);
    if (url.includes('/attachments/')) asked.attachments.push(url);
    else if (url.includes('/v1')) asked.documents.push(url);
    return original(input, init);
  };
  try {
    await run();
  } finally {
    globalThis.fetch = original;
  }
  return asked;
}

function checkProgress(events) {
  assert.ok(events.length >= 2 && events[0] === 0 && events.at(-1) === 1, `progress from 0 to 1: ${events.join(', ')}`);
  for (let i = 1; i < events.length; ++i) assert.ok(events[i] > events[i - 1], `progress goes up: ${events.join(', ')}`);
}

test('20 create() at once of one pair: the requests of one create(), a progress of its own for each, one engine, freed with the last translator', { timeout: 600_000 }, async () => {
  const catalogue = await startLocalCatalog();
  try {
    const options = { sourceLanguage: 'fr', targetLanguage: 'en' };
    // One create() in a realm of its own (its own cache): what a pair costs.
    const { Translator: One } = install({ catalog: catalogue.url, cache: `${catalogue.work}/one` });
    let one;
    const single = await requests(async () => { one = await One.create(options); });
    const reference = await one.translate(FRENCH);
    one.destroy();
    assert.ok(single.attachments.length > 0, 'the pair was downloaded');

    const { Translator } = install({ catalog: catalogue.url, cache: `${catalogue.work}/many` });
    const progress = Array.from({ length: 20 }, () => []);
    let translators;
    const many = await requests(async () => {
      translators = await Promise.all(progress.map((events) => Translator.create({ ...options,
        monitor(m) { m.addEventListener('downloadprogress', (e) => events.push(e.loaded)); } })));
    });
    assert.equal(many.attachments.length, single.attachments.length, `each file once: ${many.attachments.join(', ')}`);
    assert.equal(new Set(many.attachments).size, many.attachments.length);
    assert.equal(many.documents.length, single.documents.length, 'the catalogue read as often as for one create()');
    for (const events of progress) checkProgress(events);

    // One engine: a translator more starts none (no request at all), and all translate alike.
    let extra;
    const shared = await requests(async () => { extra = await Translator.create(options); });
    assert.deepEqual(shared, { documents: [], attachments: [] });
    for (const text of await Promise.all([...translators, extra].map((t) => t.translate(FRENCH)))) assert.equal(text, reference);
    // Destroying all but one leaves it translating; destroying it too frees the engine: the next
    // create() starts one again (the package's engine reads the catalogue's records when it starts).
    for (const t of translators) t.destroy();
    assert.equal(await extra.translate(FRENCH), reference);
    extra.destroy();
    let again;
    const restarted = await requests(async () => { again = await Translator.create(options); });
    assert.ok(restarted.documents.length > 0, 'a new engine after the last translator was destroyed');
    assert.deepEqual(restarted.attachments, [], 'its files come from the cache');
    assert.equal(await again.translate(FRENCH), reference);
    again.destroy();
  } finally {
    await catalogue.close();
  }
});

test('a catalogue\'s list is read once, and again a day later (Firefox\'s Remote Settings sync interval)', { timeout: 300_000 }, async () => {
  const { catalogueList, catalogueSource, CATALOGUE_REFRESH_MS } = await import(`${webDir}/src/standard/catalogue.js`);
  assert.equal(CATALOGUE_REFRESH_MS, 86_400_000);
  const catalogue = await startLocalCatalog();
  try {
    const source = catalogueSource(catalogue.url);
    const settings = { cache: `${catalogue.work}/list` };
    let clock = 1_000_000;
    const now = () => clock;
    const first = await requests(async () => { await catalogueList(source, settings, { now }); });
    assert.ok(first.documents.length > 0);
    clock += CATALOGUE_REFRESH_MS - 1;
    const again = await requests(async () => {
      await Promise.all([catalogueList(source, settings, { now }), catalogueList(source, { ...settings }, { now })]);
    });
    assert.deepEqual(again.documents, [], 'within a day: no request');
    clock += 1;
    const later = await requests(async () => { await catalogueList(source, settings, { now }); });
    assert.deepEqual(later.documents, first.documents, 'a day after: read again');
  } finally {
    await catalogue.close();
  }
});

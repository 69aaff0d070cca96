// Each failure class of the package has its own exported error type, with the file or the input
// position where one applies (types/index.d.ts): ModelLoadError (missing, unreachable, wrong hash),
// ModelFormatError (not a .tfm, truncated), InvalidTextError (not valid Unicode),
// TranslatorDisposedError (after dispose()). And CommonJS code can load the package: require()
// where Node loads ES modules that way (no top-level await in the package's graph), await import()
// everywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PLAIN, fixturePath, golden, importPackage, webDir } from './helpers.mjs';

const pkg = await importPackage();
const { Translator, ModelLoadError, ModelFormatError, InvalidTextError, TranslatorDisposedError } = pkg;
const scratch = mkdtempSync(path.join(tmpdir(), 'tformer-errors-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

test('a download that fails offline: ModelLoadError with offline: true (callers need not read the message)', async () => {
  const { loadModel } = await import('../../web/src/model-loader.js');
  const { detectEnvironment } = await import('../../web/src/environment.js');
  const env = detectEnvironment();
  const saved = { fetch: globalThis.fetch, navigator: Object.getOwnPropertyDescriptor(globalThis, 'navigator') };
  globalThis.fetch = async () => { throw new TypeError('Failed to fetch'); };
  const url = 'https://models.example/none.tfm';
  try {
    for (const onLine of [false, true]) {
      Object.defineProperty(globalThis, 'navigator', { value: { onLine }, configurable: true, writable: true });
      await assert.rejects(loadModel({ model: url, cache: false }, env), (e) => {
        assert.ok(e instanceof ModelLoadError);
        assert.equal(e.offline, !onLine);
        assert.equal(e.model, url);
        assert.match(e.message, onLine ? /Failed to fetch/ : /offline: this model is not in the cache yet/);
        return true;
      });
    }
  } finally {
    globalThis.fetch = saved.fetch;
    if (saved.navigator) Object.defineProperty(globalThis, 'navigator', saved.navigator);
    else delete globalThis.navigator;
  }
});

test('a missing file: ModelLoadError naming it, with the OS reason', async () => {
  const missing = path.join(scratch, 'none.tfm');
  await assert.rejects(Translator.create({ model: missing }), (e) => {
    assert.ok(e instanceof ModelLoadError);
    assert.equal(e.name, 'ModelLoadError');
    assert.equal(e.model, missing);
    assert.match(e.message, /could not read the model file .*none\.tfm: ENOENT: no such file or directory/);
    return true;
  });
});

test('a file that is not a .tfm, and a truncated one: ModelFormatError naming the file', async () => {
  const text = path.join(scratch, 'notes.txt');
  writeFileSync(text, 'these are not weights, only a few words of text in a file\n');
  await assert.rejects(Translator.create({ model: text }), (e) => {
    assert.ok(e instanceof ModelFormatError && e instanceof ModelLoadError);
    assert.equal(e.name, 'ModelFormatError');
    assert.equal(e.model, text);
    assert.match(e.message, /^the model .*notes\.txt is not a \.tfm model file \(bad magic: .*it starts with "these ar"\)$/);
    return true;
  });
  const whole = readFileSync(fixturePath('marian'));
  const cut = path.join(scratch, 'cut.tfm');
  writeFileSync(cut, whole.subarray(0, whole.length - 1000));
  await assert.rejects(Translator.create({ model: cut, variant: 'single' }), (e) => {
    assert.equal(e.name, 'ModelFormatError');
    assert.equal(e.model, cut);
    assert.match(e.message, /^the model .*cut\.tfm could not be read: .*truncated/);
    assert.doesNotMatch(e.message, /Translator\(\)|could not read the model/, "the engine's words once, without the wasm call's name");
    return true;
  });
  await assert.rejects(Translator.create({ model: new Uint8Array(64) }),
    { name: 'ModelFormatError', model: 'the model bytes given', message: /^the model given as bytes is not a \.tfm model file/ });
  await assert.rejects(Translator.create({ model: new Uint8Array(3) }),
    { name: 'ModelFormatError', message: 'the model given as bytes is too small for a .tfm model file (3 bytes)' });
});

test('invalid text: InvalidTextError with the input and the position; the translator goes on', async () => {
  const t = await Translator.create({ model: fixturePath('marian'), variant: 'single' });
  try {
    await assert.rejects(t.translate('ab\uD800c'), (e) => {
      assert.ok(e instanceof InvalidTextError);
      assert.deepEqual([e.name, e.input, e.position], ['InvalidTextError', 0, 2]);
      assert.equal(e.message, 'input text 1 is not valid Unicode: lone UTF-16 surrogate at index 2');
      return true;
    });
    await assert.rejects(t.translate(['fine', 'x\uDC00']), { name: 'InvalidTextError', input: 1, position: 1 });
    // A surrogate pair (an emoji) is valid.
    const g = golden('marian').sentences[0];
    assert.equal((await t.translate(g.text, PLAIN)).text, g.greedy.text);
    await t.translate('\u{1F600}');
  } finally {
    t.dispose();
  }
});

test('use after dispose(): TranslatorDisposedError, also for what was queued or running', async () => {
  const t = await Translator.create({ model: fixturePath('marian'), variant: 'single' });
  const running = t.translate('Hund Katze spielen im Schnee. '.repeat(200));
  const queued = t.translate('x');
  t.dispose();
  for (const p of [running, queued, t.translate('x')]) {
    await assert.rejects(p, (e) => e instanceof TranslatorDisposedError && e.name === 'TranslatorDisposedError' &&
      e.message === 'this Translator was disposed');
  }
});

test('CommonJS: require() and await import() both load the package and translate', () => {
  const g = golden('marian').sentences[0];
  const main = path.join(scratch, 'main.cjs');
  writeFileSync(main, `
    const entry = ${JSON.stringify(path.join(webDir, 'src', 'index.js'))};
    (async () => {
      const viaImport = await import(entry);
      let viaRequire = viaImport;
      try {
        viaRequire = require(entry);  // Node 20.19+ / 22.12+: an ES module graph without top-level await
        if (viaRequire.Translator !== viaImport.Translator) throw new Error('two copies of the package');
      } catch (e) {
        // Older Node cannot require() ES modules at all (ERR_REQUIRE_ESM); ERR_REQUIRE_ASYNC_MODULE
        // (a top-level await in the package) is the failure this test is about.
        if (e.code !== 'ERR_REQUIRE_ESM') throw e;
      }
      const t = await viaRequire.Translator.create({ model: ${JSON.stringify(fixturePath('marian'))} });
      console.log((await t.translate(${JSON.stringify(g.text)}, ${JSON.stringify(PLAIN)})).text);
      t.dispose();
    })().catch((e) => { console.error(e); process.exit(1); });
  `);
  assert.equal(execFileSync('node', [main], { encoding: 'utf8' }).trim(), g.greedy.text);
});

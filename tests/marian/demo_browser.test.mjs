// node --test tests/marian/demo_browser.test.mjs
//
// The demo's "Use your own model" in headless Chromium: the files of a Firefox-style Marian folder
// (gzip copies, decompressed by the page with DecompressionStream) are picked in the file input;
// the page imports them (the package in its Worker), shows the model's name and shape, and
// translates; greedy translations of the plan's sentences at the matched length cap equal the
// PyTorch reference and Bergamot's wasm in Chromium on the same files (tests/marian/parity.mjs) and
// the package in Node on the .tfm the native CLI's importer writes from the same files. A truncated
// model file gives the page's error banner with the importer's words, and the page recovers.
// The page's controls describe the loaded model: the folder's language pair where its file or
// folder names give it, else "Source"/"Target" with inputs to set them.
// Models: package_models.mjs.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';

import { ROOT } from './bergamot.mjs';
import { loadModels, openBrowser } from './parity.mjs';
import { MODELS, PACKAGE_MODELS, cannotMakeModels, ensurePackageModels } from './package_models.mjs';
import { CHROMIUM, launchChromium, playwrightChromium } from '../web/helpers.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

const NAME = 'd64-ssru-post-swish';
const chromium = playwrightChromium();

function missing() {
  if (!existsSync(CHROMIUM)) return `no ${CHROMIUM} (apt-get install chromium)`;
  if (!chromium) return 'npm playwright-core is not installed in web/node_modules';
  return cannotMakeModels();
}
const reason = missing();

let server;
let browser;
let work;
before(async () => {
  if (reason) return;
  ensurePackageModels();
  work = mkdtempSync(path.join(os.tmpdir(), 'tformer-marian-demo-'));
  server = await startServer({ port: 0, quiet: true });
  browser = await launchChromium(chromium);
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function openDemo() {
  const page = await browser.newPage();
  const failures = [];
  page.on('pageerror', (e) => failures.push(e.message));
  await page.goto(`${server.url}?sw=off&plain`);
  // 'ready', then 'translating' and 'done' with the example sentence.
  await page.waitForFunction(() => ['ready', 'done'].includes(document.body.dataset.state), null, { timeout: 120e3 });
  return { page, failures };
}

test('demo, "Use your own model": a Firefox-style folder (.gz) translates as PyTorch/Bergamot and the natively converted .tfm',
  { skip: reason || false, timeout: 600e3 }, async () => {
    const m = loadModels(MODELS).find((x) => x.name === NAME);
    const folder = path.join(m.folder, 'marian');
    // As Firefox Translations ships them: gzip copies, the language pair in the names.
    const files = [['model.bin', 'model.deen.bin.gz'], ['vocab.spm', 'vocab.deen.spm.gz']].map(([from, to]) => {
      writeFileSync(path.join(work, to), gzipSync(readFileSync(path.join(folder, from))));
      return path.join(work, to);
    });
    const sentences = m.plan.sentences.slice(0, 24);
    const { page, failures } = await openDemo();
    await page.locator('#own-model summary').click();
    await page.setInputFiles('#own-files', files);
    await page.waitForFunction(() => /^translating with the model from your files/.test(document.getElementById('own-status').textContent) ||
      document.body.dataset.state === 'error', null, { timeout: 120e3 });
    assert.notEqual(await page.evaluate(() => document.body.dataset.state), 'error', await page.locator('#error').textContent());
    const shown = await page.locator('#own-details').textContent();
    assert.match(shown, /d_model 64, 2 encoder \+ 2 decoder layers, 4 heads, feed-forward 256/);
    assert.match(shown, /SSRU|ssru/i);
    assert.match(shown, /model\.deen\.bin \(gz\)/);
    assert.match(await page.locator('#engine').textContent(), /model model\.deen\.bin .*imported from your files/);
    const got = await page.evaluate(async (items) => {
      const out = [];
      for (const s of items) {
        const r = await window.demoTranslator.translate(s.text, { maxLength: s.matched_max_length, splitSentences: false,
          passthrough: false, repetitionGuard: false });
        out.push({ text: r.text, tokens: Array.from(r.tokens) });
      }
      return { out, variant: window.translatorInfo.variant, from: window.demoEntry?.from };
    }, sentences.map((s) => ({ text: s.text, matched_max_length: s.matched_max_length })));
    assert.equal(got.from, 'de');
    assert.deepEqual(got.out.map((r) => r.text), sentences.map((s) => s.matched.text), 'Chromium (the demo) vs PyTorch');
    // Bergamot's wasm in Chromium on the same (uncompressed) files, at the same cap (parity.mjs).
    const bergamot = await openBrowser(MODELS);
    try {
      const b = await bergamot.run({ ...m, plan: { ...m.plan, sentences } }, 'model.bin', 'float32', 1.5);
      assert.deepEqual(got.out.map((r) => r.text), b.texts, "Chromium: the demo vs Bergamot's wasm");
    } finally {
      await bergamot.close();
    }

    // The same sentences in Node on the natively converted .tfm of the same files: token-identical.
    const pkg = await import(path.join(ROOT, 'web', 'src', 'index.js'));
    const t = await pkg.Translator.create({ model: path.join(PACKAGE_MODELS, `${NAME}.f32.tfm`), threads: 1 });
    try {
      for (let i = 0; i < sentences.length; i++) {
        const r = await t.translate(sentences[i].text, { maxLength: sentences[i].matched_max_length, splitSentences: false,
          passthrough: false, repetitionGuard: false });
        assert.deepEqual(got.out[i].tokens, Array.from(r.tokens), `sentence ${i}: Chromium on the folder vs Node on the converted .tfm`);
      }
    } finally {
      t.dispose();
    }

    // A truncated model: the page says what the importer said and keeps the model it had, then a
    // good folder works again.
    const bin = readFileSync(path.join(folder, 'model.bin'));
    writeFileSync(path.join(work, 'model.bin'), bin.subarray(0, bin.length >> 1));
    await page.setInputFiles('#own-files', [path.join(work, 'model.bin'), path.join(folder, 'vocab.spm')]);
    await page.waitForFunction(() => /could not be used/.test(document.getElementById('own-status').textContent), null, { timeout: 60e3 });
    assert.match(await page.locator('#error').textContent(), /could not be read: model\.bin: .*truncated.*The page still translates with/);
    await page.setInputFiles('#own-files', files);
    await page.waitForFunction(() => document.body.dataset.state !== 'error' &&
      /^translating with the model from your files/.test(document.getElementById('own-status').textContent), null, { timeout: 120e3 });
    assert.deepEqual(failures, []);
    await page.close();
  });

test('demo, "Use your own model": the controls describe the loaded model; languages from the names, else set by hand',
  { skip: reason || false, timeout: 600e3 }, async () => {
    const m = loadModels(MODELS).find((x) => x.name === NAME);
    const folder = path.join(m.folder, 'marian');
    const { page, failures } = await openDemo();
    await page.locator('#own-model summary').click();
    const read = () => page.evaluate(() => ({
      source: document.getElementById('source-label').textContent, target: document.getElementById('target-label').textContent,
      sourceLang: document.getElementById('source').getAttribute('lang'), outputLang: document.getElementById('output').getAttribute('lang'),
      direction: document.getElementById('direction').selectedOptions[0].textContent,
      weights: [...document.getElementById('weights').options].map((o) => o.textContent),
      status: document.getElementById('own-status').textContent, engine: document.getElementById('engine').textContent,
      from: document.getElementById('own-from').value, to: document.getElementById('own-to').value,
    }));
    const loaded = () => page.waitForFunction(() => /^translating with the model from your files/.test(document.getElementById('own-status').textContent) &&
      document.body.dataset.state !== 'loading', null, { timeout: 120e3 });

    // Names that say nothing of the languages (model.bin, vocab.spm): "Source" and "Target".
    await page.setInputFiles('#own-files', [path.join(folder, 'model.bin'), path.join(folder, 'vocab.spm')]);
    await loaded();
    let shown = await read();
    assert.equal(shown.source, 'Source');
    assert.equal(shown.target, 'Target');
    assert.equal(shown.sourceLang, null);
    assert.equal(shown.direction, 'Your model: model.bin (languages not set)');
    assert.deepEqual(shown.weights.length, 1);
    assert.match(shown.weights[0], /^(f32|int8), [\d.]+ MiB of files$/);
    assert.doesNotMatch(JSON.stringify(shown), /tiny\.|root|your model model|f16, 25/);
    assert.equal(shown.status, 'translating with the model from your files: model.bin, languages not set');
    // Set by hand: the labels, the text boxes' languages and the direction follow.
    await page.fill('#own-from', 'de');
    await page.fill('#own-to', 'en');
    await page.locator('#own-to').dispatchEvent('change');
    await page.locator('#own-from').dispatchEvent('change');
    shown = await read();
    assert.deepEqual([shown.source, shown.target, shown.sourceLang, shown.outputLang], ['German', 'English', 'de', 'en']);
    assert.equal(shown.direction, 'Your model: model.bin (German \u2192 English)');
    // A code that is no language is not taken.
    await page.fill('#own-to', 'not a language');
    await page.locator('#own-to').dispatchEvent('change');
    shown = await read();
    assert.equal(shown.target, 'Target');
    await page.screenshot({ path: path.join(ROOT, 'build-web', 'screenshots', 'own-model-languages.png'), fullPage: true });

    // The pair in a folder's name (OPUS-MT style: opus-mt-en-de/...), picked as a folder.
    const named = path.join(work, 'opus-mt-en-de');
    mkdirSync(named, { recursive: true });
    for (const f of ['model.bin', 'vocab.spm']) writeFileSync(path.join(named, f), readFileSync(path.join(folder, f)));
    await page.setInputFiles('#own-folder', named);
    await loaded();
    shown = await read();
    assert.deepEqual([shown.source, shown.target, shown.from, shown.to], ['English', 'German', 'en', 'de']);
    assert.equal(shown.direction, 'Your model: model.bin (English \u2192 German)');
    // Back to a shipped model: its own controls again.
    const first = await page.evaluate(() => document.querySelector('#direction option').value);
    await page.selectOption('#direction', first);
    await page.waitForFunction(() => ['ready', 'done'].includes(document.body.dataset.state) && !window.demoEntry.own, null, { timeout: 120e3 });
    shown = await read();
    assert.equal(await page.locator('#direction option[value="own"]').count(), 0);
    assert.doesNotMatch(shown.weights.join(), /of files/);
    assert.deepEqual(failures, []);
    await page.close();
  });

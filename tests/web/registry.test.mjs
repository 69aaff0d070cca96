// scripts/registry.mjs: the registry lists the trained models of models/*/model.tfm with their
// languages (from the model's metadata), size, sha256 and README; the test fixtures only while
// no trained model exists (or when asked). The listed model loads and its hash checks out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fixturePath, importPackage, webDir, withMetadata } from './helpers.mjs';

const { buildRegistry, readTfmHeader } = await import(path.join(webDir, 'scripts', 'registry.mjs'));

test('registry: trained models first-class, fixtures only as a stand-in', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'tformer-registry-'));
  try {
    for (const name of ['marian', 'tutorial']) {
      mkdirSync(path.join(root, 'tests', 'fixtures', name), { recursive: true });
      copyFileSync(fixturePath(name), path.join(root, 'tests', 'fixtures', name, 'model.tfm'));
    }
    const out = path.join(root, 'web', 'demo', 'registry.json');
    let r = buildRegistry({ root, out }).registry;
    assert.deepEqual(r.models.map((m) => [m.id, m.from, m.to, m.test, m.url]), [
      ['fixture-marian', 'de', 'en', true, '../../tests/fixtures/marian/model.tfm'],
      ['fixture-tutorial', 'de', 'en', true, '../../tests/fixtures/tutorial/model.tfm'],
    ]);

    // A trained model lands: it is listed, the fixtures are not (unless asked for).
    const dir = path.join(root, 'models', 'tiny.deen');
    mkdirSync(dir, { recursive: true });
    const model = withMetadata(readFileSync(fixturePath('marian')), { name: 'tiny.deen', source_language: 'de', target_language: 'en' });
    writeFileSync(path.join(dir, 'model.tfm'), model);
    writeFileSync(path.join(dir, 'README.md'), '# tiny.deen\n');
    mkdirSync(path.join(root, 'models', 'work', 'x'), { recursive: true });  // no model.tfm: ignored
    r = buildRegistry({ root, out }).registry;
    assert.equal(r.models.length, 1);
    const [m] = r.models;
    assert.deepEqual([m.id, m.from, m.to, m.test, m.url, m.readme], ['tiny.deen', 'de', 'en', false, '../../models/tiny.deen/model.tfm', '../../models/tiny.deen/README.md']);
    assert.equal(m.size, model.length);
    assert.equal(m.sha256, createHash('sha256').update(model).digest('hex'));
    assert.equal(m.config.d_model, 32);
    assert.equal(readTfmHeader(path.join(dir, 'model.tfm')).metadata.source_language, 'de');
    assert.equal(buildRegistry({ root, out, fixtures: 'always' }).registry.models.length, 3);
    assert.throws(() => buildRegistry({ root, out, fixtures: 'sometimes' }), /--fixtures must be auto, always or never/);

    // The entry is usable as is: the package checks its hash and the engine loads the model.
    const pkg = await importPackage();
    const parsed = pkg.parseRegistry(r, `file://${out}`);
    const t = await pkg.Translator.create({ model: parsed.models[0], variant: 'single' });
    assert.equal(t.info.model.name, 'tiny.deen');
    assert.equal(t.info.model.sourceLanguage, 'de');
    assert.equal(t.info.model.sha256, m.sha256);
    t.dispose();

    // A model without languages in its metadata, or not a model at all, is left out with the
    // reason; the others are still listed (here: the fixtures stand in again).
    writeFileSync(path.join(dir, 'model.tfm'), readFileSync(fixturePath('marian')));
    mkdirSync(path.join(root, 'models', 'broken'));
    writeFileSync(path.join(root, 'models', 'broken', 'model.tfm'), 'not a model');
    const { registry: left, skipped } = buildRegistry({ root, out });
    assert.deepEqual(left.models.map((x) => x.id), ['fixture-marian', 'fixture-tutorial']);
    assert.equal(skipped.length, 2);
    assert.match(skipped[0], /broken\/model\.tfm is not a \.tfm model \(bad magic\)/);
    assert.match(skipped[1], /tiny\.deen\/model\.tfm: the metadata names no source_language\/target_language/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

// A model folder with an int8 file beside model.tfm: one entry (the folder's name), two variants
// with their sizes and hashes, and the default chosen by the rule on eval.json's greedy BLEU
// (int8 when within 0.5 of the full model on every set measured for both). The figures here are
// made up for the rule; the shipped models' own figures are not assumed.
test('registry: variants of a model folder, int8 the default only within 0.5 BLEU', async () => {
  const { chooseDefault, INT8_MAX_BLEU_LOSS } = await import(path.join(webDir, 'scripts', 'registry.mjs'));
  assert.equal(INT8_MAX_BLEU_LOSS, 0.5);
  const root = mkdtempSync(path.join(tmpdir(), 'tformer-registry-'));
  try {
    const dir = path.join(root, 'models', 'tiny.deen');
    mkdirSync(dir, { recursive: true });
    const meta = { name: 'gpu2.deen', source_language: 'de', target_language: 'en' };
    const full = withMetadata(readFileSync(fixturePath('marian')), meta);
    const int8 = withMetadata(readFileSync(fixturePath('marian-int8')), meta);
    writeFileSync(path.join(dir, 'model.tfm'), full);
    const out = path.join(root, 'web', 'demo', 'registry.json');
    const listed = () => buildRegistry({ root, out }).registry.models;

    // Only model.tfm (no int8, no eval.json): one variant, the default; the id is the folder's.
    let [m] = listed();
    assert.equal(m.id, 'tiny.deen', 'the folder name, not the metadata name');
    assert.deepEqual(m.variants.map((v) => [v.file, v.weights, v.default]), [['model.tfm', 'f16', true]]);
    assert.equal(m.weights, 'f16');

    // int8 beside it, not measured: model.tfm stays the default, both are offered.
    writeFileSync(path.join(dir, 'model.int8.tfm'), int8);
    [m] = listed();
    assert.deepEqual(m.variants.map((v) => [v.file, v.weights, v.default]), [['model.tfm', 'f16', true], ['model.int8.tfm', 'int8', false]]);
    assert.match(m.defaultReason, /no greedy BLEU of both model\.int8\.tfm and model\.tfm/);
    const v8 = m.variants[1];
    assert.deepEqual([v8.url, v8.size, v8.sha256], ['../../models/tiny.deen/model.int8.tfm', int8.length,
      createHash('sha256').update(int8).digest('hex')]);

    const evaluate = (rows) => writeFileSync(path.join(dir, 'eval.json'), JSON.stringify({ rows }));
    const row = (file, set, bleu, search = 'greedy') => ({ file, weights: file === 'model.tfm' ? 'f16' : 'int8', set, search, bleu, chrf: 40 });
    // Within 0.5 on both sets (beam rows and a set measured for one file only do not count): int8.
    evaluate([row('model.tfm', 'a', 20.0), row('model.int8.tfm', 'a', 19.5), row('model.tfm', 'b', 2.0), row('model.int8.tfm', 'b', 2.3),
      row('model.int8.tfm', 'a', 5.0, 'beam4'), row('model.int8.tfm', 'c', 0.1)]);
    [m] = listed();
    assert.deepEqual(m.variants.map((v) => [v.weights, v.default]), [['int8', true], ['f16', false]]);
    assert.deepEqual([m.url, m.size, m.sha256, m.weights], [v8.url, v8.size, v8.sha256, 'int8'], 'the entry is its default variant');
    assert.deepEqual(m.variants[0].bleu, { a: 19.5, b: 2.3, c: 0.1 });
    assert.match(m.defaultReason, /int8 is within 0\.5 BLEU of f16 on every test set \(greedy: a 19\.5 vs 20, b 2\.3 vs 2\)/);
    // More than 0.5 lower on one set: f16.
    evaluate([row('model.tfm', 'a', 20.0), row('model.int8.tfm', 'a', 19.49), row('model.tfm', 'b', 2.0), row('model.int8.tfm', 'b', 2.3)]);
    [m] = listed();
    assert.deepEqual(m.variants.map((v) => [v.weights, v.default]), [['f16', true], ['int8', false]]);
    assert.match(m.defaultReason, /int8 loses more than 0\.5 BLEU on a/);
    assert.equal(chooseDefault([{ file: 'model.tfm', weights: 'f32', bleu: {} }]).file, 'model.tfm');

    // The page's side: the entry loads as is (its default), withVariant picks the other one, and
    // a registry whose entry does not match its default variant is refused.
    evaluate([row('model.tfm', 'a', 20.0), row('model.int8.tfm', 'a', 20.0)]);
    const pkg = await importPackage();
    const r = pkg.parseRegistry(buildRegistry({ root, out }).registry, `file://${out}`);
    const entry = r.models[0];
    assert.equal(entry.weights, 'int8');
    assert.ok(entry.variants.every((v) => v.url.startsWith('file:///')));
    const small = await pkg.Translator.create({ model: entry, variant: 'single' });
    assert.equal(small.info.model.sha256, v8.sha256);
    assert.equal(small.info.load.bytes, int8.length);
    small.dispose();
    const f16 = pkg.withVariant(entry, 'f16');
    assert.deepEqual([f16.weights, f16.size], ['f16', full.length]);
    const big = await pkg.Translator.create({ model: f16, variant: 'single' });
    assert.equal(big.info.model.sha256, createHash('sha256').update(full).digest('hex'));
    big.dispose();
    assert.equal(pkg.withVariant(entry).weights, 'int8');
    assert.throws(() => pkg.withVariant(entry, 'f32'), { name: 'RangeError', message: "model tiny.deen has no 'f32' variant (it has: int8, f16)" });
    const json = buildRegistry({ root, out }).registry;
    json.models[0].sha256 = json.models[0].variants[1].sha256;
    assert.throws(() => pkg.parseRegistry(json, `file://${out}`), /model tiny\.deen: its url and sha256 must be those of its default variant/);
    json.models[0].variants[1].default = true;
    assert.throws(() => pkg.parseRegistry(json, `file://${out}`), /exactly one variant must be the default/);
    // An older registry without variants: the entry is its own single variant.
    const plain = pkg.parseRegistry({ format: 'tformer-registry', version: 1, models: [{ id: 'x', from: 'de', to: 'en', url: 'x.tfm', size: 4, sha256: 'a'.repeat(64) }] }, 'http://h/r.json');
    assert.deepEqual(plain.models[0].variants, [{ weights: null, url: 'http://h/x.tfm', size: 4, sha256: 'a'.repeat(64), default: true }]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

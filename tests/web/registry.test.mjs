// scripts/registry.mjs: the registry lists the trained models of models/*/model.tfm with their
// languages (from the model's metadata), size, sha256 and README; the test fixtures only while
// no trained model exists (or when asked). The listed model loads and its hash checks out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fixturePath, importPackage, webDir } from './helpers.mjs';

const { buildRegistry, readTfmHeader } = await import(path.join(webDir, 'scripts', 'registry.mjs'));

// A .tfm file with other metadata: the header is rewritten and the data section re-aligned to
// 64 bytes (models/FORMAT.md); tensor offsets are relative to the data section, so they hold.
function withMetadata(bytes, metadata) {
  const view = Buffer.from(bytes);
  const length = Number(view.readBigUInt64LE(16));
  const header = JSON.parse(view.toString('utf8', 24, 24 + length));
  const data = view.subarray(Math.ceil((24 + length) / 64) * 64);
  const json = Buffer.from(JSON.stringify({ ...header, metadata }));
  const start = Math.ceil((24 + json.length) / 64) * 64;
  const out = Buffer.alloc(start + data.length);
  view.copy(out, 0, 0, 16);
  out.writeBigUInt64LE(BigInt(json.length), 16);
  json.copy(out, 24);
  data.copy(out, start);
  return out;
}

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

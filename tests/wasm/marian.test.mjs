// Module.importMarian (wasm/bindings/marian_import.cc) in both variants: a Marian folder's files in, and every
// refusal leaves the bindings one way, an Error named importMarian() with the engine's words apart
// (`call`, `detail`). Folders that convert, through this binding and the npm package, are
// tests/marian/package.test.mjs (they need the Python tools to make them).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { loadVariant, fixture } from './load_module.mjs';

const modules = {};
after(() => { for (const m of Object.values(modules)) m.PThread?.terminateAllThreads(); });

const named = (detail) => (e) => {
  assert.ok(e instanceof Error);
  assert.equal(e.call, 'importMarian');
  if (typeof detail === 'string') assert.equal(e.detail, detail);
  else assert.match(e.detail, detail);
  assert.equal(e.message, `importMarian(): ${e.detail}`);
  return true;
};

// The SentencePiece model of the Marian fixture: a real vocabulary file, with no model beside it.
function fixtureSpm() {
  const bytes = readFileSync(fixture('marian', 'model.tfm'));
  const header = JSON.parse(bytes.toString('utf8', 24, 24 + Number(bytes.readBigUInt64LE(16))));
  const t = header.tensors.find((x) => x.name === header.tokenizer.source);
  const start = Math.ceil((24 + Number(bytes.readBigUInt64LE(16))) / 64) * 64 + t.offset;  // docs/FORMAT.md
  return new Uint8Array(bytes.subarray(start, start + t.nbytes));
}

for (const variant of ['st', 'mt']) {
  test(`${variant}: importMarian refuses bad arguments and files with an Error named importMarian()`, async () => {
    const M = (modules[variant] ??= await loadVariant(variant));
    const bin = (n, fill = 7) => new Uint8Array(n).fill(fill);
    assert.throws(() => M.importMarian('model.bin', {}), named('takes an array of {name, bytes} files'));
    assert.throws(() => M.importMarian([{ name: 'model.bin', bytes: [1, 2] }], {}), named('file 0 is not a {name: string, bytes: Uint8Array} object'));
    assert.throws(() => M.importMarian([null], {}), named('file 0 is not a {name: string, bytes: Uint8Array} object'));
    assert.throws(() => M.importMarian([], { weights: 8 }), named("option 'weights' must be a string"));
    assert.throws(() => M.importMarian([], { vocabs: 'vocab.spm' }), named("option 'vocabs' must be an array of strings"));
    assert.throws(() => M.importMarian([], { maxPositions: '512' }), named("option 'maxPositions' must be a number"));
    assert.throws(() => M.importMarian([], {}), named(/^the folder holds no /));
    // With a real vocabulary beside them, broken model files are named.
    const vocab = { name: 'vocab.spm', bytes: fixtureSpm() };
    assert.throws(() => M.importMarian([{ name: 'model.bin', bytes: bin(4096) }, vocab], {}), named(/^model\.bin: /));
    assert.throws(() => M.importMarian([{ name: 'model.bin.gz', bytes: bin(100) }, vocab], {}), named(/model\.bin\.gz/));
    assert.throws(() => M.importMarian([{ name: 'model.bin.gz', bytes: gzipSync(bin(4096)).subarray(0, 30) }, vocab], {}), named(/model\.bin\.gz/));
    assert.throws(() => M.importMarian([{ name: 'model.npz', bytes: bin(4096, 0x50) }, vocab], {}), named(/^model\.npz: /));
    assert.throws(() => M.importMarian([vocab], {}), named(/no Marian model/));
    // The module stays usable after every refusal.
    assert.throws(() => M.importMarian([{ name: 'model.bin', bytes: bin(16, 0) }, vocab], {}), named(/^model\.bin: /));
  });
}

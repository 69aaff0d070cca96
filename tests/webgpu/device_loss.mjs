// A device lost mid-translation, through the npm package's public API: the wasm result, a
// warning, onFallback once, wasm afterwards. Run by package.test.mjs as
//   TFORMER_WEBGPU_FAULT=lose-device:3 node --import tests/webgpu/faults.mjs tests/webgpu/device_loss.mjs
// (the fault is test code, faults.mjs, loaded into the engine's Worker). Exits non-zero on a failed
// assertion; prints the fallback message.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { fixtureFile, lines, repoRoot } from './models.mjs';

assert.match(process.env.TFORMER_WEBGPU_FAULT ?? '', /^lose-device:\d+$/, 'run with TFORMER_WEBGPU_FAULT=lose-device:N');
assert.ok(process.execArgv.some((a) => a.includes('faults.mjs')), 'run with --import tests/webgpu/faults.mjs');
const pkg = await import(path.join(repoRoot, 'web', 'src', 'index.js'));
const tokensOf = (results) => results.map((r) => r.sentences.map((s) => Array.from(s.tokens)));
const modelBytes = (file) => new Uint8Array(readFileSync(file));

const texts = lines(fixtureFile('marian', 'input.txt'));
const bytes = modelBytes(fixtureFile('marian', 'model.tfm'));
const wasm = await pkg.Translator.create({ threads: 2, model: bytes, backend: 'wasm' });
const fallbacks = [];
const gpu = await pkg.Translator.create({ threads: 2, model: bytes, backend: 'webgpu', onFallback: (e) => fallbacks.push(e) });
try {
  const expected = await wasm.translate(texts, { beam: 4, nbest: 2 });
  assert.equal(gpu.info.backend, 'webgpu');
  const got = await gpu.translate(texts, { beam: 4, nbest: 2 });
  assert.deepEqual(tokensOf(got), tokensOf(expected), 'the translation is the wasm one');
  assert.deepEqual(got.map((r) => r.sentences.map((s) => s.nbest.map((h) => Array.from(h.tokens)))),
    expected.map((r) => r.sentences.map((s) => s.nbest.map((h) => Array.from(h.tokens)))), 'n-best too');
  assert.equal(got[0].timings.backend, 'wasm', 'finished on wasm');
  assert.ok(got[0].timings.gpu.projections >= 2, 'the GPU answered some steps first');
  assert.equal(fallbacks.length, 1, 'reported once');
  assert.deepEqual([fallbacks[0].from, fallbacks[0].to], ['webgpu', 'wasm']);
  assert.match(fallbacks[0].message, /WebGPU failed, translating on wasm from now on: .*(lost|destroyed|abort|fail)/i);
  const info = gpu.info;
  assert.equal(info.backend, 'wasm');
  assert.match(info.backendReason, /fell back after a GPU failure/);
  assert.deepEqual(info.warnings, [fallbacks[0].message]);
  assert.equal(info.memory.gpuWeightBytes, 0);
  const again = await gpu.translate(texts);
  assert.equal(again[0].timings.backend, 'wasm');
  assert.equal(again[0].timings.gpu, null);
  assert.deepEqual(tokensOf(again), tokensOf(await wasm.translate(texts)));
  assert.equal(fallbacks.length, 1);
  console.log(fallbacks[0].message);
} finally {
  wasm.dispose();
  gpu.dispose();
}

// A catalogue pair through English on WebGPU in Node (npm `webgpu`, Dawn; SwiftShader without a GPU,
// VK_ICD_FILENAMES set here), through the package's public API: with backend 'webgpu' both models
// run on the GPU (one device), each step's requests answered by its own model's weights: the pair
// gives the tokens of its two folders on WebGPU one after the other (sentence by sentence), the
// GPU counters show both models' encoders at work, and a stream hands out the same sentences.
// Skipped, with the reason, without web/dist, npm webgpu or an adapter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { SWIFTSHADER_ICD, nodeRuntime } from '../webgpu/node_gpu.mjs';
import { PLAIN } from '../web/helpers.mjs';
import { startLocalCatalog } from './local_catalog.mjs';

// Before any Worker starts: Dawn in the engine's Worker reads the process environment.
if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let skip = existsSync(path.join(ROOT, 'web', 'dist', 'tformer-mt.wasm')) ? false : 'no web/dist (npm run build in web/)';
if (!skip) {
  const { runtime, reason } = await nodeRuntime({ f16Weights: false });
  if (runtime) runtime.destroy();
  else skip = reason;
}
if (skip) console.log(`# SKIP catalogue WebGPU tests: ${skip}`);

// Short sentences: SwiftShader runs the GPU's work on the CPU (random weights write to the length limit).
const SENTENCES = ['Pourquoi? Merci.', 'Oui.'];
let Translator, catalog, work, made, url;
const open = [];

before(async () => {
  if (skip) return;
  ({ Translator } = await import(path.join(ROOT, 'web', 'src', 'index.js')));
  catalog = await startLocalCatalog();
  ({ work, made, url } = catalog);
});

after(async () => {
  for (const t of open) t.dispose();
  await catalog?.close();
});

async function create(options) {
  const t = await Translator.create({ threads: 1, ...options });
  open.push(t);
  return t;
}

const folder = (name) => ({ files: readdirSync(path.join(made, 'folders', name)).map((f) => path.join(made, 'folders', name, f)) });
const tokens = (sentences) => sentences.map((s) => [...s.tokens]);

test("a pivot pair with backend 'webgpu': both models on the GPU, the tokens of its two folders there", { skip, timeout: 1_800_000 }, async () => {
  const pair = await create({ from: 'fr', to: 'de', catalog: url, cache: path.join(work, 'cache'), backend: 'webgpu' });
  assert.equal(pair.info.backend, 'webgpu', `${pair.info.backendReason}; ${pair.info.warnings.join('; ')}`);
  assert.equal(pair.info.model.catalog.pivot, true);
  assert.ok(pair.info.memory.gpuWeightBytes > 0);
  assert.deepEqual(pair.info.warnings.filter((w) => /webgpu|wasm/i.test(w)), []);

  // The reference: the two folders on WebGPU, each sentence of the first through the second alone.
  const fr = await create({ model: folder('fren'), backend: 'webgpu' });
  const en = await create({ model: folder('ende'), backend: 'webgpu' });
  assert.equal(fr.info.backend, 'webgpu');
  assert.equal(en.info.backend, 'webgpu');
  const got = await pair.translate(SENTENCES, PLAIN);
  const first = await fr.translate(SENTENCES, PLAIN);
  for (const [i, r] of first.entries()) {
    const second = await en.translate(r.sentences.map((s) => s.text), { ...PLAIN, splitSentences: false });
    assert.deepEqual(tokens(got[i].sentences), second.map((x) => [...x.sentences[0].tokens]));
  }
  // Both models' encoders ran on the GPU (one encode request per step and batch at least).
  const timings = got[0].timings;
  assert.equal(timings.backend, 'webgpu');
  assert.ok(timings.gpu.encodes >= 2, JSON.stringify(timings.gpu));
  assert.ok(timings.gpu.projections > 0, JSON.stringify(timings.gpu));

  // A stream on the GPU: the same sentences, in order.
  const streamed = [];
  for await (const s of pair.translateStream(SENTENCES, PLAIN)) streamed.push(s);
  assert.deepEqual(tokens(streamed), tokens(got.flatMap((r) => r.sentences)));
  assert.equal(pair.info.backend, 'webgpu');
});

// End to end in node: the wasm module (build-wasm/wasm/tformer-st) drives a translation whose
// encoder and output projection run on WebGPU (npm `webgpu`, SwiftShader without a GPU), through
// TranslationSession + WebGpuBackend + runSession:
// - the fixtures give the PyTorch reference's greedy texts and the wasm tokens, token for token,
//   and beam search's n-best lists (steps read back full logits, or each row's best candidates);
// - the session loop on wasm alone is translate() exactly (scores included);
// - one GPU submission and one readback per encoder batch and per decoder step;
// - a device lost or memory exhausted mid-translation still gives the wasm translation;
// - the larger random model (16k vocabulary) agrees with wasm token for token.
// Skipped, with the reason, without the wasm build or a WebGPU adapter.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { nodeRuntime } from './node_gpu.mjs';
import { translateOnBothBackends } from './session_check.mjs';
import { encoderPlan } from './cpu_reference.mjs';
import { FIXTURES, INT8_FIXTURES, fixtureFile, lines, largeModel, germanSentences } from './models.mjs';
import { loadVariant, wasmDir, options } from '../wasm/load_module.mjs';
import { acquireGpu, GpuOutOfMemoryError } from '../../web/src/webgpu/runtime.js';
import { WebGpuBackend } from '../../web/src/webgpu/backend.js';

const SCORE_TOLERANCE = 1e-4; // GPU and wasm agree to f32 rounding, not bit for bit

const built = existsSync(path.join(wasmDir, 'tformer-st.mjs'));
const { runtime, reason } = built ? await nodeRuntime({ f16Weights: false }) : { reason: `no wasm build in ${wasmDir}` };
const skip = runtime ? false : reason;
if (skip) console.log(`# SKIP WebGPU session tests: ${skip}`);
const Module = runtime ? await loadVariant('st') : null;

after(() => runtime?.destroy());

function assertSameTokens(a, b, what) {
  assert.equal(a.length, b.length, `${what}: paragraphs`);
  a.forEach((p, i) => {
    assert.equal(p.sentences.length, b[i].sentences.length, `${what}: sentences of paragraph ${i}`);
    p.sentences.forEach((s, j) => {
      assert.deepEqual(s.tokens, b[i].sentences[j].tokens, `${what}: tokens of paragraph ${i}, sentence ${j}`);
      assert.ok(Math.abs(s.score - b[i].sentences[j].score) < SCORE_TOLERANCE, `${what}: score ${s.score} vs ${b[i].sentences[j].score}`);
      assert.deepEqual(s.nbest, b[i].sentences[j].nbest, `${what}: n-best of paragraph ${i}, sentence ${j}`);
    });
    assert.equal(p.text, b[i].text, `${what}: text of paragraph ${i}`);
  });
}

function checkCounters(r, t) {
  const c = r.counters;
  assert.ok(r.usable, `the backend stayed usable (failure: ${r.failure})`);
  assert.deepEqual(r.fallbacks, []);
  assert.equal(r.uncapturedErrors, 0, 'uncaptured WebGPU errors');
  assert.ok(c.encodes >= 1 && c.projections >= 1);
  assert.equal(c.submissions, c.encodes + c.projections, 'one submission per request');
  assert.equal(c.readbacks, c.encodes + c.projections, 'one readback per request');
  const sentences = r.webgpu.reduce((n, p) => n + p.sentences.length, 0);
  t.diagnostic(`${sentences} sentences: ${c.encodes} encoder batches + ${c.projections} steps = ` +
    `${(c.submissions / sentences).toFixed(1)} submissions and readbacks per sentence, ` +
    `${(c.readBytes / 1024).toFixed(0)} KiB read back; webgpu ${r.ms.webgpu.toFixed(0)} ms, wasm ${r.ms.wasm.toFixed(0)} ms`);
}

const modelBytes = (file) => new Uint8Array(readFileSync(file));

// The plan GpuEncoder runs comes from the engine alone; here it is held against the tests' own
// reading of docs/FORMAT.md (encoderPlan) and every tensor it names must be readable.
for (const name of [...FIXTURES, ...INT8_FIXTURES]) {
  test(`fixture ${name}: the engine's plan names the file's tensors as docs/FORMAT.md says`, { skip: built ? false : skip }, async () => {
    const wasm = Module ?? (await loadVariant('st'));
    const translator = new wasm.Translator(modelBytes(fixtureFile(name, 'model.tfm')), 1);
    try {
      const { config, tensors } = translator.info();
      const plan = translator.plan();
      assert.deepEqual(plan, encoderPlan(config));
      const names = new Set(tensors.map((t) => t.name));
      const used = [plan.sourceEmbedding];
      const linear = (p) => p && used.push(...p.weights, ...p.biases);
      const norm = (p) => p && used.push(p.weight, p.bias);
      for (const l of plan.encoderLayers) {
        [l.qkv, l.q, l.kv, l.o, l.ffnW1, l.ffnW2].forEach(linear);
        [l.selfAttentionNorm, l.ffnNorm].forEach(norm);
      }
      norm(plan.encoderFinalNorm);
      linear(plan.output);
      for (const n of used) {
        assert.ok(names.has(n), `the plan names ${n}, which the file lacks`);
        assert.ok(translator.tensorView(n).length > 0, n);
      }
      assert.equal(plan.encoderLayers.length, config.encoder_layers);
    } finally {
      translator.delete();
    }
  });
}

for (const name of FIXTURES) {
  test(`fixture ${name}: WebGPU gives the reference's greedy texts and wasm's tokens; beam 4 too`, { skip }, async (t) => {
    const texts = lines(fixtureFile(name, 'input.txt'));
    const bytes = modelBytes(fixtureFile(name, 'model.tfm'));
    // Greedy reads back full logits, beam search each row's best candidates (the default).
    const greedy = await translateOnBothBackends(Module, bytes, texts, options(), { runtime, candidates: false });
    assert.deepEqual(greedy.webgpu.map((p) => p.text), lines(fixtureFile(name, 'expected.greedy.txt')));
    assert.deepEqual(greedy.loop, greedy.wasm, 'the session loop on wasm is translate() exactly');
    assertSameTokens(greedy.webgpu, greedy.wasm, 'greedy');
    checkCounters(greedy, t);

    const beam = await translateOnBothBackends(Module, bytes, texts, options({ beam: 4, nbest: 4 }), { runtime });
    assert.deepEqual(beam.webgpu.map((p) => p.text), lines(fixtureFile(name, 'expected.beam4.txt')));
    assert.deepEqual(beam.loop, beam.wasm);
    assertSameTokens(beam.webgpu, beam.wasm, 'beam 4');
    checkCounters(beam, t);
  });
}

// How far an int8 model's scores may move between the engine's int8 arithmetic and WebGPU's f32
// over dequantised weights: the bound tests/core/fixtures.h sets for the int8 engine against its
// reference (a quantisation step rounding the other way moves scores up to about 0.12 there).
const INT8_SCORE_TOLERANCE = 0.5;

// Per sentence: the same tokens, or a near tie (both best hypotheses' scores within the bound).
function assertInt8Agrees(gpu, wasm, what) {
  assert.equal(gpu.length, wasm.length, `${what}: paragraphs`);
  let same = 0, sentences = 0;
  gpu.forEach((p, i) => {
    assert.equal(p.sentences.length, wasm[i].sentences.length, `${what}: sentences of paragraph ${i}`);
    p.sentences.forEach((s, j) => {
      const w = wasm[i].sentences[j];
      sentences += 1;
      assert.ok(Math.abs(s.score - w.score) < INT8_SCORE_TOLERANCE, `${what}: paragraph ${i}, sentence ${j}: score ${s.score} vs ${w.score}`);
      if (JSON.stringify(s.tokens) === JSON.stringify(w.tokens)) same += 1;
    });
  });
  return { same, sentences };
}

for (const name of INT8_FIXTURES) {
  test(`fixture ${name} (int8): WebGPU runs it from dequantised weights, within the int8 bounds of wasm; beam 4 too`, { skip }, async (t) => {
    const texts = lines(fixtureFile(name, 'input.txt'));
    const bytes = modelBytes(fixtureFile(name, 'model.tfm'));
    const greedy = await translateOnBothBackends(Module, bytes, texts, options(), { runtime, candidates: false });
    assert.deepEqual(greedy.loop, greedy.wasm, 'the session loop on wasm is translate() exactly');
    assert.deepEqual(greedy.wasm.map((p) => p.text), lines(fixtureFile(name, 'expected.greedy.txt')), 'wasm: the reference');
    const g = assertInt8Agrees(greedy.webgpu, greedy.wasm, 'greedy');
    checkCounters(greedy, t);
    const beam = await translateOnBothBackends(Module, bytes, texts, options({ beam: 4, nbest: 4 }), { runtime });
    assert.deepEqual(beam.loop, beam.wasm);
    const b = assertInt8Agrees(beam.webgpu, beam.wasm, 'beam 4');
    checkCounters(beam, t);
    t.diagnostic(`same tokens as wasm: greedy ${g.same} of ${g.sentences} sentences, beam 4 ${b.same} of ${b.sentences}`);
  });
}

// A fresh device for each: the failure destroys it.
for (const fault of ['lose-device', 'oom']) {
  test(`a GPU failure mid-translation (${fault}) falls back to wasm and the translation is right`, { skip }, async (t) => {
    const { runtime: own } = await nodeRuntime({ f16Weights: false });
    const texts = lines(fixtureFile('marian', 'input.txt'));
    const r = await translateOnBothBackends(Module, modelBytes(fixtureFile('marian', 'model.tfm')), texts,
      options({ beam: 4, nbest: 2 }), { runtime: own, fault });
    // Tokens and texts; the scores of the steps answered by the GPU differ in f32 rounding.
    assertSameTokens(r.webgpu, r.wasm, 'the translation is the wasm one');
    assert.equal(r.usable, false);
    assert.equal(r.fallbacks.length, 1, 'reported once');
    assert.match(r.fallbacks[0], fault === 'oom' ? /out of memory while allocating projection scratch/ : /lost|destroyed|abort|fail/i);
    assert.ok(r.counters.projections >= 1, 'the GPU answered some steps before failing');
    t.diagnostic(`${fault}: GPU answered ${r.counters.encodes} encodes and ${r.counters.projections} steps, then: ${r.fallbacks[0]}`);
    if (!own.isLost) own.destroy();
  });
}

// Fakes of the WebGPU API's objects, enough for acquisition to fail at each of its steps.
const fakeGpu = {
  noAdapter: { requestAdapter: async () => null },
  adapterThrows: { requestAdapter: async () => { throw new Error('blocked by policy'); } },
  noDevice: { requestAdapter: async () => ({ features: new Set(), limits: {}, requestDevice: async () => null }) },
  deviceThrows: { requestAdapter: async () => ({ features: new Set(), limits: {}, requestDevice: async () => { throw new Error('limits too high'); } }) },
};

test('acquireGpu and WebGpuBackend.create resolve to a value or to the reason there is none', async () => {
  const reasons = {
    noAdapter: 'no WebGPU adapter',
    adapterThrows: 'no WebGPU adapter: requestAdapter failed: blocked by policy',
    noDevice: 'no WebGPU device',
    deviceThrows: 'no WebGPU device: requestDevice failed: limits too high',
  };
  for (const [name, reason] of Object.entries(reasons)) {
    assert.deepEqual(await acquireGpu({ gpu: fakeGpu[name] }), { reason }, name);
    // The translator is not looked at before there is a device.
    assert.deepEqual(await WebGpuBackend.create(null, { gpu: fakeGpu[name] }), { reason }, name);
  }
  assert.deepEqual(await acquireGpu({ gpu: null }), { reason: 'no WebGPU (no GPU object such as navigator.gpu)' });
  assert.equal('lastRefusal' in WebGpuBackend, false, 'no static state tells why');
});

test('WebGpuBackend.create: { backend } with a device, { reason } when the weights do not fit', { skip }, async () => {
  const translator = new Module.Translator(modelBytes(fixtureFile('marian', 'model.tfm')), 1);
  const guard = runtime.guardMemory;
  try {
    const made = await WebGpuBackend.create(translator, { runtime });
    assert.deepEqual(Object.keys(made), ['backend']);
    assert.ok(made.backend instanceof WebGpuBackend && made.backend.usable);
    made.backend.destroy();
    runtime.guardMemory = async (what) => { throw new GpuOutOfMemoryError(`GPU out of memory while allocating ${what} (simulated)`); };
    assert.deepEqual(await WebGpuBackend.create(translator, { runtime }),
      { reason: 'GPU out of memory while allocating encoder weights (simulated)' });
  } finally {
    runtime.guardMemory = guard;
    translator.delete();
  }
  assert.equal(runtime.isLost, false, 'a runtime given is not destroyed by a refusal');
});

test('larger random model (d 256, 16k vocabulary, 6 + 2 layers): WebGPU and wasm agree token for token', { skip, timeout: 1_200_000 }, async (t) => {
  // Greedy with candidates: one (logit, id) per row read back instead of 16k logits.
  const model = largeModel();
  if (!model.file) return t.skip(model.reason);
  const texts = germanSentences(4, { maxWords: 10 });
  const r = await translateOnBothBackends(Module, modelBytes(model.file), texts, options({ maxLength: 10 }), { runtime });
  assertSameTokens(r.webgpu, r.wasm, 'greedy');
  checkCounters(r, t);
});

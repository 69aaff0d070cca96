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
import { FIXTURES, fixtureFile, lines, largeModel, germanSentences } from './models.mjs';
import { loadVariant, wasmDir, options } from '../wasm/load_module.mjs';

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

test('larger random model (d 256, 16k vocabulary, 6 + 2 layers): WebGPU and wasm agree token for token', { skip, timeout: 1_200_000 }, async (t) => {
  // Greedy with candidates: one (logit, id) per row read back instead of 16k logits.
  const model = largeModel();
  if (!model.file) return t.skip(model.reason);
  const texts = germanSentences(4, { maxWords: 10 });
  const r = await translateOnBothBackends(Module, modelBytes(model.file), texts, options({ maxLength: 10 }), { runtime });
  assertSameTokens(r.webgpu, r.wasm, 'greedy');
  checkCounters(r, t);
});

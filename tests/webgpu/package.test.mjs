// The npm package on WebGPU in node: Translator.create({ backend: 'webgpu' }) runs its engine
// Worker (worker_threads) on npm `webgpu` (Dawn; SwiftShader without a GPU, VK_ICD_FILENAMES set
// here), through the public API only:
// - greedy output token for token the same as backend 'wasm' on the fixtures (and the reference's
//   texts), and on the larger random model when it exists; GPU round trips per request;
// - a device lost mid-translation: the translation completes with the wasm result, a warning in
//   info.warnings, onFallback called once, later requests on wasm (device_loss.mjs, in a process
//   of its own with the fault injected by test code, faults.mjs); without faults.mjs, no fault
//   (the fixture tests ask for one in the environment);
// - aborting or disposing during a WebGPU translation (the engine stops between steps: node aborts
//   when a Worker is terminated inside a Dawn call);
// - 'auto' in node stays on wasm although an adapter exists;
// - the memory held both ways (diagnostics).
// Skipped, with the reason, without web/dist, npm webgpu or an adapter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

import { SWIFTSHADER_ICD, nodeRuntime } from './node_gpu.mjs';
import { FIXTURES, fixtureFile, lines, repoRoot, germanSentences } from './models.mjs';
import { PLAIN, packageUnderTest } from '../web/helpers.mjs';

// Before any Worker starts: Dawn in the engine's Worker reads the process environment.
if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;

const dist = path.join(repoRoot, 'web', 'dist', 'tformer-mt.wasm');
let skip = existsSync(dist) ? false : 'no web/dist (npm run build in web/)';
if (!skip) {
  const { runtime, reason } = await nodeRuntime({ f16Weights: false });
  if (runtime) runtime.destroy();
  else skip = reason;
}
if (skip) console.log(`# SKIP package WebGPU tests: ${skip}`);

const { create } = skip ? {} : await packageUnderTest({ threads: 2 });

const run = promisify(execFile);
const tokensOf = (results) => results.map((r) => r.sentences.map((s) => Array.from(s.tokens)));
const modelBytes = (file) => new Uint8Array(readFileSync(file));

for (const name of FIXTURES) {
  test(`fixture ${name}: backend 'webgpu' gives wasm's greedy tokens (and the reference's texts)`, { skip }, async (t) => {
    const texts = lines(fixtureFile(name, 'input.txt'));
    const bytes = modelBytes(fixtureFile(name, 'model.tfm'));
    const wasm = await create({ model: bytes, backend: 'wasm' });
    // The shipped engine has no test hook: a fault asked for in the environment changes nothing
    // without the test code that injects it (faults.mjs, not loaded in this process).
    process.env.TFORMER_WEBGPU_FAULT = 'lose-device:1';
    let gpu;
    try {
      gpu = await create({ model: bytes, backend: 'webgpu' });
    } finally {
      delete process.env.TFORMER_WEBGPU_FAULT;
    }
    assert.equal(gpu.info.backend, 'webgpu', gpu.info.backendReason);
    assert.equal(gpu.info.requestedBackend, 'webgpu');
    assert.match(gpu.info.adapter, /swiftshader|./i);
    assert.deepEqual(gpu.info.warnings, []);
    assert.ok(gpu.info.gpu.uploadedBytes > 0);
    // The plain model, as the references compute it (passthrough and the guard are on by default).
    const a = await wasm.translate(texts, PLAIN);
    const b = await gpu.translate(texts, PLAIN);
    assert.deepEqual(tokensOf(b), tokensOf(a), 'token for token');
    assert.deepEqual(b.map((r) => r.text), lines(fixtureFile(name, 'expected.greedy.txt')));
    const c = b[0].timings.gpu;
    assert.equal(b[0].timings.backend, 'webgpu');
    assert.ok(c.encodes >= 1 && c.projections >= 1);
    assert.equal(c.submissions, c.encodes + c.projections, 'one submission per request of the session');
    assert.equal(c.readbacks, c.encodes + c.projections, 'one readback per request of the session');
    const sentences = b.reduce((n, r) => n + r.sentences.length, 0);
    t.diagnostic(`${sentences} sentences: ${(c.submissions / sentences).toFixed(2)} submissions and readbacks per sentence, ` +
      `${(c.readBytes / sentences / 1024).toFixed(1)} KiB read back per sentence; adapter ${gpu.info.adapter}`);
    wasm.dispose();
    gpu.dispose();
  });
}

test('a device lost mid-translation: the wasm result, a warning, onFallback once, wasm afterwards', { skip }, async (t) => {
  // The fault is test code (faults.mjs), loaded into the engine's Worker by --import, which a
  // worker_threads Worker inherits from its process: so the scenario (device_loss.mjs, with the
  // assertions) runs in a process of its own. The device is destroyed in the 3rd projection.
  const here = path.join(repoRoot, 'tests', 'webgpu');
  const { stdout } = await run(process.execPath, ['--import', pathToFileURL(path.join(here, 'faults.mjs')).href,
    path.join(here, 'device_loss.mjs')], { env: { ...process.env, TFORMER_WEBGPU_FAULT: 'lose-device:3' } });
  t.diagnostic(stdout.trim());
});

test('aborting a running WebGPU translation, and disposing during one, leave the process alive and the engine right', { skip }, async () => {
  // Terminating a Worker inside a Dawn call would abort node: the engine stops between steps instead.
  // The work must outlast the 300 ms before the abort and the dispose: 8 paragraphs took under 300 ms
  // on an H100 (the test failed there), so 400 (2,400 sentences at beam 4: seconds on any GPU).
  const bytes = modelBytes(fixtureFile('marian', 'model.tfm'));
  const texts = lines(fixtureFile('marian', 'input.txt'));
  const gpu = await create({ model: bytes, backend: 'webgpu' });
  const controller = new AbortController();
  const long = gpu.translate(Array(400).fill(texts.join(' ')), { beam: 4, signal: controller.signal });
  setTimeout(() => controller.abort(), 300);
  await assert.rejects(long, { name: 'AbortError' });
  const wasm = await create({ model: bytes, backend: 'wasm' });
  const after = await gpu.translate(texts);
  assert.equal(after[0].timings.backend, 'webgpu', 'the same engine goes on, on the GPU');
  assert.deepEqual(tokensOf(after), tokensOf(await wasm.translate(texts)));
  const running = gpu.translate(Array(400).fill(texts.join(' ')), { beam: 4 });
  setTimeout(() => gpu.dispose(), 300);
  await assert.rejects(running, /disposed/);
  assert.equal((await wasm.translate(texts[0])).text, after[0].text, 'node is alive');
});

test('translateStream on WebGPU: the sentences of translate() in order, and an abort midway stops it', { skip }, async () => {
  const bytes = modelBytes(fixtureFile('marian', 'model.tfm'));
  const texts = lines(fixtureFile('marian', 'input.txt'));
  const gpu = await create({ model: bytes, backend: 'webgpu' });
  assert.equal(gpu.info.backend, 'webgpu', gpu.info.backendReason);
  const paragraphs = [texts.slice(0, 3).join(' '), texts.slice(3).join('\n')];
  const expected = await gpu.translate(paragraphs);
  const items = [];
  for await (const s of gpu.translateStream(paragraphs)) items.push(s);
  assert.deepEqual(items.map((s) => [s.paragraph, s.index, Array.from(s.tokens), s.text]),
    expected.flatMap((r, p) => r.sentences.map((s, i) => [p, i, Array.from(s.tokens), s.text])));
  // Abort after the first sentences: the engine stops between GPU steps and goes on.
  const controller = new AbortController();
  let seen = 0;
  await assert.rejects(async () => {
    for await (const s of gpu.translateStream(Array(8).fill(texts.join(' ')), { beam: 4, signal: controller.signal })) {
      assert.ok(s.text !== undefined);
      if (++seen === 2) controller.abort();
    }
  }, { name: 'AbortError' });
  assert.equal(seen, 2);
  const after = await gpu.translate(paragraphs);
  assert.equal(after[0].timings.backend, 'webgpu', 'the same engine goes on, on the GPU');
  assert.deepEqual(tokensOf(after), tokensOf(expected));
});

test("'auto' in node stays on wasm, adapter or not; 'wasm' never looks for one", { skip }, async () => {
  const bytes = modelBytes(fixtureFile('tutorial', 'model.tfm'));
  const auto = await create({ model: bytes });
  assert.equal(auto.info.backend, 'wasm');
  assert.match(auto.info.backendReason, /auto in Node is wasm/);
  assert.equal(auto.info.adapter, null);
  assert.equal(auto.info.load.gpuMs, null);
  auto.dispose();
});

test('memory held, wasm and webgpu (diagnostics): the same wasm heap, the GPU weights on top', { skip }, async (t) => {
  // The engine's wasm Translator keeps its weights and the model file either way (the session falls
  // back on it without a rebuild); the page keeps the model bytes for engine restarts either way.
  const model = process.env.TFORMER_LARGE_MODEL || path.join(repoRoot, 'build', 'webgpu-models', 'tiny-random.tfm');
  const file = existsSync(model) ? model : fixtureFile('marian', 'model.tfm');
  const bytes = modelBytes(file);
  for (const backend of ['wasm', 'webgpu']) {
    const tr = await create({ model: bytes, backend });
    const m = tr.info.memory;
    assert.equal(tr.info.backend, backend);
    assert.equal(m.keptModelBytes, bytes.byteLength);
    if (backend === 'webgpu') assert.ok(m.gpuWeightBytes > 0);
    t.diagnostic(`${path.basename(path.dirname(file))}/${path.basename(file)} on ${backend}: wasm heap ${(m.wasmBytes / 2 ** 20).toFixed(1)} MiB, ` +
      `GPU weights ${(m.gpuWeightBytes / 2 ** 20).toFixed(1)} MiB, model bytes kept by the page ${(m.keptModelBytes / 2 ** 20).toFixed(1)} MiB, ` +
      `start ${tr.info.load.totalMs} ms (GPU ${tr.info.load.gpuMs ?? '-'} ms)`);
    tr.dispose();
  }
});

test('larger random model (d 256, 16k vocabulary): webgpu and wasm agree token for token', { skip, timeout: 900_000 }, async (t) => {
  const model = process.env.TFORMER_LARGE_MODEL || path.join(repoRoot, 'build', 'webgpu-models', 'tiny-random.tfm');
  if (!existsSync(model)) return t.skip(`no ${model} (tests/webgpu/session.test.mjs writes it)`);
  const bytes = modelBytes(model);
  const texts = germanSentences(2, { maxWords: 8 });
  const wasm = await create({ model: bytes, backend: 'wasm' });
  const gpu = await create({ model: bytes, backend: 'webgpu' });
  const a = await wasm.translate(texts, { maxLength: 8 });
  const b = await gpu.translate(texts, { maxLength: 8 });
  assert.equal(b[0].timings.backend, 'webgpu');
  assert.deepEqual(tokensOf(b), tokensOf(a));
  t.diagnostic(`${texts.length} sentences: wasm ${a[0].timings.translateMs} ms, webgpu (SwiftShader) ${b[0].timings.translateMs} ms`);
  wasm.dispose();
  gpu.dispose();
});

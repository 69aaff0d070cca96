// WGSL kernels against plain JS CPU references (the test-backend-ops idea of llama.cpp): every
// kernel on many shapes, odd ones included, with an error threshold on the normalised mean squared
// error; then whole encoder layers (post-norm, pre-norm, raw-kv pre-norm, f16 weights, token ids)
// against a CPU encoder. Prints a table of errors and timings per kernel, and the submissions and
// readbacks an encoder batch costs.
//
// Run from the repository root:   node --test tests/webgpu/
// Needs npm `webgpu` in web/node_modules and a Vulkan adapter; without a GPU, Debian's chromium
// and libvulkan1 packages give SwiftShader, selected automatically (VK_ICD_FILENAMES). Every test
// is skipped, with the reason, when there is no adapter.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';

import { nodeRuntime, nullDevice } from './node_gpu.mjs';
import * as cpu from './cpu_reference.mjs';
import {
  GpuLinear, GpuEncoder, linear, logSoftmaxTopK, attention, attentionScores, attentionValues, softmaxRows, layerNorm, activate, addInPlace,
  embed, f32ToF16Bits, f16BitsToF32, GpuValidationError, GpuDeviceLostError,
} from '../../web/src/webgpu/index.js';
import { matmulKernel, matmulWorkgroups, matmulFewRowsKernel } from '../../web/src/webgpu/kernels/matmul.js';
import { attentionScoresKernel, attentionValuesKernel } from '../../web/src/webgpu/kernels/attention.js';
import { softmaxKernel } from '../../web/src/webgpu/kernels/softmax.js';
import { layerNormKernel } from '../../web/src/webgpu/kernels/layer_norm.js';
import { activationKernel, addKernel, embedKernel } from '../../web/src/webgpu/kernels/elementwise.js';
import { logSoftmaxTopKKernel } from '../../web/src/webgpu/kernels/top_k.js';
import { MASKED_SCORE } from '../../web/src/webgpu/kernels/attention.js';

// test-backend-ops' default bound; f16 weights are measured against f16-rounded CPU weights with
// the same bound, and against f32 weights with a looser one.
const MAX_NMSE = 1e-7;
const MAX_NMSE_F16_VS_F32 = 1e-5;
const MAX_NMSE_ENCODER = 1e-6;
const TIMING_REPS = 3;

const { runtime, reason } = await nodeRuntime({ f16Weights: false });
const skip = runtime ? false : reason;
if (!runtime) console.log(`# SKIP WebGPU kernel tests: ${reason}`);
const table = [];

after(() => {
  if (!runtime) return;
  const info = runtime.adapter.info ?? {};
  console.log(`\nWebGPU kernels vs CPU on ${info.vendor || '?'} ${info.architecture || ''} ${info.description || info.device || ''}` +
    ` (shader-f16: ${runtime.hasShaderF16})`);
  const cols = ['kernel', 'shape', 'nmse', 'max |err|', 'ms', 'GFLOP/s'];
  const rows = table.map((r) => [r.kernel, r.shape, r.nmse.toExponential(1), r.maxAbs.toExponential(1),
    r.ms === undefined ? '' : r.ms.toFixed(2), r.flops && r.ms ? (r.flops / r.ms / 1e6).toFixed(2) : '']);
  const widths = cols.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i].length)));
  const line = (r) => r.map((v, i) => (i < 2 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  console.log(line(cols));
  for (const r of rows) console.log(line(r));
  runtime.destroy();
});

function record(entry) {
  table.push(entry);
  assert.ok(entry.nonFinite === 0, `${entry.kernel} ${entry.shape}: non-finite outputs`);
}

function assertClose(what, result, bound) {
  assert.ok(result.nmse <= bound, `${what}: nmse ${result.nmse.toExponential(2)} > ${bound} (max |err| ${result.maxAbs})`);
}

// Runs `recordWork(rec)` once to read `out` back (one submission, one readback: asserted), then
// TIMING_REPS more times in one submission for the time per run.
async function runAndTime(recordWork, out, length = out.length) {
  const before = { ...runtime.counters };
  const rec = runtime.recorder('test');
  recordWork(rec);
  const result = await rec.submit({ readback: out, length });
  assert.equal(runtime.counters.submissions - before.submissions, 1);
  assert.equal(runtime.counters.readbacks - before.readbacks, 1);
  const timed = runtime.recorder('timing');
  const t0 = performance.now();
  for (let i = 0; i < TIMING_REPS; ++i) recordWork(timed);
  await timed.submit({ wait: true });
  const ms = (performance.now() - t0) / TIMING_REPS;
  assert.deepEqual(runtime.errors, [], 'uncaptured WebGPU errors');
  return { result, ms };
}

function freeAll(...tensors) {
  for (const t of tensors) t.destroy();
}

const rand = cpu.rng(1234);

test('f16 conversion rounds to nearest even and keeps subnormals', () => {
  const cases = [[0, 0], [-0, 0x8000], [1, 0x3c00], [-2, 0xc000], [65504, 0x7bff], [65520, 0x7c00], [1e6, 0x7c00],
    [2 ** -24, 0x0001], [2 ** -25, 0x0000], [3 * 2 ** -26, 0x0001], [2 ** -14, 0x0400], [1 + 2 ** -11, 0x3c00],
    [1 + 3 * 2 ** -11, 0x3c02], [Infinity, 0x7c00], [-Infinity, 0xfc00]];
  for (const [value, bits] of cases) assert.equal(f32ToF16Bits(value), bits, `f16(${value})`);
  assert.ok(Number.isNaN(f16BitsToF32(f32ToF16Bits(NaN))));
  for (let h = 0; h < 0x7c00; h += 37) assert.equal(f32ToF16Bits(f16BitsToF32(h)), h);
});

test('a refused submission throws instead of reading back zeros; a lost device refuses work', { skip }, async () => {
  const [x, w] = [runtime.tensor(4), runtime.tensor(4)];
  const rec = runtime.recorder();
  // x bound both as input and as output: WebGPU rejects the command buffer.
  rec.dispatch(matmulKernel({ bias: false }), [2, 2, 2, 2], [x, w, x], matmulWorkgroups(2, 2));
  await assert.rejects(rec.submit({ readback: x }), GpuValidationError);
  freeAll(x, w);
  runtime.errors.length = 0;

  const other = (await nodeRuntime()).runtime;
  other.device.destroy();
  const info = await other.device.lost;
  assert.equal(info.reason, 'destroyed');
  assert.ok(other.isLost);
  assert.throws(() => other.recorder(), GpuDeviceLostError);
});

test('destroy() resolves once the loss is delivered, and a deliberate destroy is not reported as a failure', { skip }, async () => {
  // engine.js awaits this before its Worker is terminated: Dawn's lost callback on a terminating
  // Worker thread aborts node.
  const other = (await nodeRuntime()).runtime;
  const reported = [];
  other.onLost = (info) => reported.push(info);
  await other.destroy();
  assert.ok(other.isLost, 'the loss was delivered before destroy() resolved');
  assert.equal(other.lostInfo.reason, 'destroyed');
  assert.deepEqual(reported, []);
});

test('every kernel variant compiles, the shader-f16 ones included (Dawn null backend)', async (t) => {
  const nul = await nullDevice().catch(() => null);
  if (!nul) return t.skip('no Dawn null backend');
  const kernels = [attentionScoresKernel(), attentionValuesKernel(), softmaxKernel(), layerNormKernel(),
    activationKernel('relu'), activationKernel('swish'), addKernel(), embedKernel(), logSoftmaxTopKKernel()];
  for (const weights of nul.hasShaderF16 ? ['f32', 'f16', 'f16-unpacked'] : ['f32', 'f16-unpacked'])
    for (const activation of ['none', 'relu', 'swish'])
      for (const bias of [true, false])
        for (const residual of [true, false]) {
          kernels.push(matmulKernel({ weights, activation, bias, residual }));
          kernels.push(matmulFewRowsKernel({ weights, activation, bias, residual }));
        }
  for (const k of kernels) {
    nul.device.pushErrorScope('validation');
    const module = nul.device.createShaderModule({ code: k.code });
    nul.device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    const messages = (await module.getCompilationInfo()).messages.filter((m) => m.type === 'error');
    const error = await nul.device.popErrorScope();
    assert.deepEqual(messages.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`), [], k.key);
    assert.equal(error, null, `${k.key}: ${error?.message}`);
  }
  t.diagnostic(`${kernels.length} kernel variants compiled; shader-f16 on the null backend: ${nul.hasShaderF16}`);
  nul.device.destroy();
});

const MATMUL_SHAPES = [
  // [rows M, in K, out N]
  [1, 1, 1], [1, 7, 5], [7, 13, 29], [65, 257, 33], [3, 64, 130], [64, 64, 64], [17, 100, 257], [130, 31, 70],
  [64, 256, 512],
];

test('matmul with bias, activation and residual (f32 weights)', { skip }, async () => {
  const variants = [{}, { activation: 'relu' }, { activation: 'swish' }, { residual: true }, { bias: false }];
  for (const [i, [M, K, N]] of MATMUL_SHAPES.entries()) {
    const v = variants[i % variants.length];
    const x = rand.uniform(M * K);
    const w = rand.uniform(N * K);
    const b = v.bias === false ? null : rand.uniform(N);
    const r = v.residual ? rand.uniform(M * N) : null;
    const lin = new GpuLinear(runtime, w, b, K, N, { f16: false });
    const [gx, gy] = [runtime.upload(x), runtime.tensor(M * N)];
    const gr = r ? runtime.upload(r) : null;
    const opts = { activation: v.activation ?? 'none', residual: gr, kernel: 'tiled' };
    const { result, ms } = await runAndTime((rec) => linear(rec, lin, gx, M, gy, opts), gy);
    const expected = cpu.linear(x, M, w, b, K, N, { activation: opts.activation, residual: r });
    const cmp = cpu.compare(result, expected);
    const name = `matmul f32${v.activation ? '+' + v.activation : ''}${v.residual ? '+residual' : ''}${b ? '' : ' nobias'}`;
    record({ kernel: name, shape: `${M}x${K}x${N}`, ...cmp, ms, flops: 2 * M * K * N });
    assertClose(`matmul ${M}x${K}x${N}`, cmp, MAX_NMSE);
    lin.destroy();
    freeAll(gx, gy, ...(gr ? [gr] : []));
  }
});

test('matmul with f16 weights (unpack2x16float without shader-f16)', { skip }, async () => {
  for (const [M, K, N] of MATMUL_SHAPES) {
    const x = rand.uniform(M * K);
    const w = rand.uniform(N * K);
    const b = rand.uniform(N);
    const lin = new GpuLinear(runtime, w, b, K, N, { f16: true });
    assert.equal(lin.weights, runtime.hasShaderF16 ? 'f16' : 'f16-unpacked');
    const [gx, gy] = [runtime.upload(x), runtime.tensor(M * N)];
    const { result, ms } = await runAndTime((rec) => linear(rec, lin, gx, M, gy, { kernel: 'tiled' }), gy);
    const wHalf = Float32Array.from(w, (value) => f16BitsToF32(f32ToF16Bits(value)));
    const cmp = cpu.compare(result, cpu.linear(x, M, wHalf, b, K, N));
    const vsF32 = cpu.compare(result, cpu.linear(x, M, w, b, K, N));
    record({ kernel: `matmul ${lin.weights}`, shape: `${M}x${K}x${N}`, ...cmp, ms, flops: 2 * M * K * N });
    assertClose(`matmul f16 ${M}x${K}x${N} vs f16-rounded weights`, cmp, MAX_NMSE);
    assertClose(`matmul f16 ${M}x${K}x${N} vs f32 weights`, vsF32, MAX_NMSE_F16_VS_F32);
    lin.destroy();
    freeAll(gx, gy);
  }
});

// The few-rows kernel (the decoder's output projection): rows around its 8-row blocks, odd K
// (the pair reads past K), odd N (the 32-column groups), every weight storage and epilogue.
const FEW_ROWS_SHAPES = [
  // [rows M, in K, out N]
  [1, 1, 1], [1, 7, 5], [2, 33, 70], [7, 13, 29], [8, 64, 130], [9, 31, 33], [16, 256, 257], [17, 100, 64], [3, 512, 1000],
];

test('few-rows matmul (output projection) against the CPU, all weight storages', { skip }, async () => {
  const variants = [{}, { activation: 'relu' }, { activation: 'swish' }, { residual: true }, { bias: false }];
  for (const [i, [M, K, N]] of FEW_ROWS_SHAPES.entries()) {
    const v = variants[i % variants.length];
    const x = rand.uniform(M * K);
    const w = rand.uniform(N * K);
    const b = v.bias === false ? null : rand.uniform(N);
    const r = v.residual ? rand.uniform(M * N) : null;
    const expected = cpu.linear(x, M, w, b, K, N, { activation: v.activation ?? 'none', residual: r });
    const wHalf = Float32Array.from(w, (value) => f16BitsToF32(f32ToF16Bits(value)));
    const expectedHalf = cpu.linear(x, M, wHalf, b, K, N, { activation: v.activation ?? 'none', residual: r });
    for (const f16 of [false, true]) {
      const lin = new GpuLinear(runtime, w, b, K, N, { f16 });
      const [gx, gy] = [runtime.upload(x), runtime.tensor(M * N)];
      const gr = r ? runtime.upload(r) : null;
      const opts = { activation: v.activation ?? 'none', residual: gr, kernel: 'few-rows' };
      const { result, ms } = await runAndTime((rec) => linear(rec, lin, gx, M, gy, opts), gy);
      const cmp = cpu.compare(result, f16 ? expectedHalf : expected);
      const name = `matmul few-rows ${lin.weights}${v.activation ? '+' + v.activation : ''}${v.residual ? '+residual' : ''}${b ? '' : ' nobias'}`;
      record({ kernel: name, shape: `${M}x${K}x${N}`, ...cmp, ms, flops: 2 * M * K * N });
      assertClose(`${name} ${M}x${K}x${N}`, cmp, MAX_NMSE);
      lin.destroy();
      freeAll(gx, gy, ...(gr ? [gr] : []));
    }
  }
});

test('logSoftmaxTopK: max, log-sum-exp, EOS logit and the k best ids, ties and -inf included', { skip }, async () => {
  // [rows, n, k, exclude (-1: none), eos, distinct values (ties when few), share of -inf]
  const cases = [[1, 1, 1, -1, 0, 0, 0], [3, 7, 3, 2, 1, 0, 0], [5, 300, 8, 1, 0, 5, 0], [4, 1000, 1, -1, 3, 0, 0.3],
    [2, 16000, 8, 1, 0, 0, 0.01], [3, 513, 128, 7, 2, 40, 0], [1, 4, 4, 0, 1, 0, 0]];
  for (const [rows, n, k, exclude, eos, levels, negInf] of cases) {
    const x = Float32Array.from(rand.uniform(rows * n, -8, 8), (v) => {
      if (rand.next() < negInf) return -Infinity;
      return levels ? Math.round((v + 8) / 16 * levels) : v;
    });
    const [gx, gout] = [runtime.upload(x), runtime.tensor(rows * (3 + 2 * k))];
    const { result, ms } = await runAndTime((rec) => logSoftmaxTopK(rec, gx, rows, n, k, { exclude, eos }, gout), gout);
    const expected = cpu.logSoftmaxTopK(x, rows, n, k, exclude, eos);
    const label = `${rows}x${n} k${k}${levels ? ` ${levels} levels` : ''}${negInf ? ` ${negInf * 100}% -inf` : ''}`;
    const stride = 3 + 2 * k;
    for (let r = 0; r < rows; ++r) {
      const at = r * stride;
      assert.equal(result[at], expected[at], `${label}: row ${r} max`);
      assert.ok(Math.abs(result[at + 1] - expected[at + 1]) <= 1e-5 * Math.max(1, Math.abs(expected[at + 1])), `${label}: row ${r} log-sum-exp ${result[at + 1]} vs ${expected[at + 1]}`);
      assert.equal(result[at + 2], expected[at + 2], `${label}: row ${r} EOS logit`);
      for (let j = 0; j < k; ++j) {
        assert.equal(result[at + 4 + 2 * j], Math.fround(expected[at + 4 + 2 * j]), `${label}: row ${r} candidate ${j} id`);
        assert.equal(result[at + 3 + 2 * j], expected[at + 3 + 2 * j], `${label}: row ${r} candidate ${j} value`);
      }
    }
    const lse = (a) => a.filter((_, i) => i % stride === 1);
    record({ kernel: 'logSoftmaxTopK', shape: label, ...cpu.compare(lse(result), lse(expected)), ms });
    freeAll(gx, gout);
  }
});

test('softmax rows, masked entries and fully masked rows', { skip }, async () => {
  // [rows, n, masked fraction]
  for (const [rows, n, maskedFraction] of [[1, 1, 0], [7, 13, 0.3], [65, 257, 0.5], [3, 5, 1], [200, 64, 0.1]]) {
    const s = Float32Array.from(rand.uniform(rows * n, -8, 8), (v) => (rand.next() < maskedFraction ? MASKED_SCORE : v));
    const gs = runtime.upload(s);
    // In place: the readback is of the first run; the timing is redone below on fresh rows.
    const { result } = await runAndTime((rec) => softmaxRows(rec, gs, rows, n), gs);
    const cmp = cpu.compare(result, cpu.softmaxRows(s, rows, n));
    runtime.write(gs, s);
    const rec = runtime.recorder();
    const t0 = performance.now();
    softmaxRows(rec, gs, rows, n);
    await rec.submit({ wait: true });
    record({ kernel: 'softmax', shape: `${rows}x${n}${maskedFraction ? ` ${maskedFraction * 100}% masked` : ''}`, ...cmp, ms: performance.now() - t0 });
    assertClose(`softmax ${rows}x${n}`, cmp, MAX_NMSE);
    gs.destroy();
  }
});

test('layer norm (two-pass, large offsets, odd widths)', { skip }, async () => {
  for (const [rows, d, offset] of [[1, 1, 0], [1, 7, 0], [7, 13, 0], [65, 257, 0], [33, 512, 0], [9, 256, 1000]]) {
    const x = Float32Array.from(rand.uniform(rows * d), (v) => v + offset);
    const gamma = rand.uniform(d, 0.5, 1.5);
    const beta = rand.uniform(d, -0.5, 0.5);
    const eps = offset ? 1e-6 : 1e-5;
    const [gx, gg, gb, gy] = [runtime.upload(x), runtime.upload(gamma), runtime.upload(beta), runtime.tensor(rows * d)];
    const { result, ms } = await runAndTime((rec) => layerNorm(rec, gx, rows, d, gg, gb, eps, gy), gy);
    const cmp = cpu.compare(result, cpu.layerNorm(x, rows, d, gamma, beta, eps));
    record({ kernel: 'layer norm', shape: `${rows}x${d}${offset ? ` mean ${offset}` : ''}`, ...cmp, ms });
    assertClose(`layer norm ${rows}x${d}`, cmp, MAX_NMSE);
    freeAll(gx, gg, gb, gy);
  }
});

test('relu, swish and residual add', { skip }, async () => {
  for (const n of [1, 7, 1000, 65537]) {
    const x = rand.uniform(n, -6, 6);
    const y = rand.uniform(n);
    for (const kind of ['relu', 'swish', 'add']) {
      const gx = runtime.upload(x);
      const gy = runtime.upload(y);
      const work = kind === 'add' ? (rec) => addInPlace(rec, gx, gy, n) : (rec) => activate(rec, gx, n, kind);
      const { result } = await runAndTime(work, gx);
      const expected = kind === 'add' ? cpu.add(x, y) : cpu[kind](x);
      const cmp = cpu.compare(result, expected);
      runtime.write(gx, x);
      const rec = runtime.recorder();
      const t0 = performance.now();
      work(rec);
      await rec.submit({ wait: true });
      record({ kernel: kind, shape: `${n}`, ...cmp, ms: performance.now() - t0 });
      assertClose(`${kind} ${n}`, cmp, MAX_NMSE);
      freeAll(gx, gy);
    }
  }
});

test('embedding scale + positions, padding and zero (id < 0) embeddings', { skip }, async () => {
  for (const [batch, length, d, vocab, lengths] of [[1, 1, 2, 3, [1]], [3, 6, 10, 20, [6, 2, 4]], [5, 17, 64, 101, [17, 1, 9, 16, 3]]]) {
    const ids = Int32Array.from({ length: batch * length }, () => rand.int(vocab + 1) - 1);
    const table = rand.uniform(vocab * d);
    const pe = rand.uniform(length * d);
    const scale = Math.sqrt(d);
    const t = [runtime.upload(ids), runtime.upload(Uint32Array.from(lengths)), runtime.upload(table), runtime.upload(pe),
      runtime.tensor(batch * length * d)];
    const { result, ms } = await runAndTime((rec) => embed(rec, t[0], t[1], batch, length, t[2], t[3], d, scale, t[4]), t[4]);
    const cmp = cpu.compare(result, cpu.embed(ids, lengths, batch, length, table, pe, d, scale));
    record({ kernel: 'embed', shape: `${batch}x${length}x${d}`, ...cmp, ms });
    assertClose(`embed ${batch}x${length}x${d}`, cmp, MAX_NMSE);
    freeAll(...t);
  }
});

// Dispatches past maxComputeWorkgroupsPerDimension (65535) fold into 2-D grids. Tens of thousands
// of workgroups take minutes on SwiftShader, so the limit is lowered here to fold small ones.
test('2-D folded dispatches of row and element-wise kernels', { skip }, async () => {
  const saved = runtime.maxWorkgroupsPerDimension;
  runtime.maxWorkgroupsPerDimension = 7;
  try {
    const [rows, n] = [50, 13];
    assert.deepEqual(runtime.grid(rows), [7, 8, 1]);
    const x = rand.uniform(rows * n, -3, 3);
    const gamma = rand.uniform(n, 0.5, 1.5);
    const beta = rand.uniform(n);
    const t = { x: runtime.upload(x), g: runtime.upload(gamma), b: runtime.upload(beta), y: runtime.tensor(rows * n) };
    const check = async (name, work, out, expected) => {
      const rec = runtime.recorder();
      work(rec);
      const cmp = cpu.compare(await rec.submit({ readback: out }), expected);
      record({ kernel: `${name} (2-D grid)`, shape: `${rows}x${n}`, ...cmp });
      assertClose(`${name} folded`, cmp, MAX_NMSE);
    };
    await check('layer norm', (rec) => layerNorm(rec, t.x, rows, n, t.g, t.b, 1e-5, t.y), t.y, cpu.layerNorm(x, rows, n, gamma, beta, 1e-5));
    await check('softmax', (rec) => softmaxRows(rec, t.x, rows, n), t.x, cpu.softmaxRows(x, rows, n));
    const z = rand.uniform(256 * 7 * 3 + 5, -6, 6); // 22 groups of 256 -> [7, 4]
    t.z = runtime.upload(z);
    await check('swish', (rec) => activate(rec, t.z, z.length, 'swish'), t.z, cpu.swish(z));
    freeAll(...Object.values(t));
  } finally {
    runtime.maxWorkgroupsPerDimension = saved;
  }
});

const ATTENTION_CASES = [
  // batch, heads, headDim, queries, keys, key lengths
  [1, 1, 1, 1, 1, [1]],
  [2, 3, 5, 7, 7, [7, 3]],
  [3, 4, 16, 17, 17, [17, 1, 9]],
  [2, 2, 33, 20, 20, [20, 13]],
  [2, 4, 8, 5, 13, [13, 6]], // cross-attention: queries and keys of different lengths
  [4, 8, 32, 40, 40, [40, 31, 17, 5]],
];

test('attention: masked scores, values, and the three together', { skip }, async () => {
  for (const [batch, heads, headDim, queries, keys, lengths] of ATTENTION_CASES) {
    const shape = { batch, heads, headDim, queries, keys };
    const d = heads * headDim;
    const label = `B${batch} H${heads} dh${headDim} ${queries}x${keys}`;
    // q in its own [B*Sq, d] buffer; k and v side by side in one [B*Sk, 2d] buffer, as the fused
    // key/value projection leaves them.
    const qData = rand.uniform(batch * queries * d, -2, 2);
    const kvData = rand.uniform(batch * keys * 2 * d, -2, 2);
    const q = { data: qData, stride: d, offset: 0 };
    const k = { data: kvData, stride: 2 * d, offset: 0 };
    const v = { data: kvData, stride: 2 * d, offset: d };
    const gq = runtime.upload(qData);
    const gkv = runtime.upload(kvData);
    const gl = runtime.upload(Uint32Array.from(lengths));
    const gs = runtime.tensor(batch * heads * queries * keys);
    const go = runtime.tensor(batch * queries * d);
    const gt = (t, view) => ({ tensor: t, stride: view.stride, offset: view.offset });
    const flops = 2 * batch * heads * queries * keys * headDim;

    // Scores: masked entries must hold MASKED_SCORE exactly; the rest are compared.
    const scores = await runAndTime((rec) => attentionScores(rec, shape, gt(gq, q), gt(gkv, k), gl, gs), gs);
    const expectedScores = cpu.attentionScores(shape, q, k, lengths, MASKED_SCORE);
    const masked = (a) => Float64Array.from(a, (x) => (x === MASKED_SCORE ? 0 : x));
    for (let i = 0; i < expectedScores.length; ++i)
      if (expectedScores[i] === MASKED_SCORE) assert.equal(scores.result[i], MASKED_SCORE, `${label}: score ${i} not masked`);
    const scoreCmp = cpu.compare(masked(scores.result), masked(expectedScores));
    record({ kernel: 'attention scores', shape: label, ...scoreCmp, ms: scores.ms, flops });
    assertClose(`attention scores ${label}`, scoreCmp, MAX_NMSE);

    // Values from given probabilities.
    const probs = Float32Array.from(cpu.softmaxRows(expectedScores, batch * heads * queries, keys));
    const gp = runtime.upload(probs);
    const values = await runAndTime((rec) => attentionValues(rec, shape, gp, gt(gkv, v), gl, { tensor: go, stride: d, offset: 0 }), go);
    const valuesCmp = cpu.compare(values.result, cpu.attentionValues(shape, probs, v, lengths));
    record({ kernel: 'attention values', shape: label, ...valuesCmp, ms: values.ms, flops });
    assertClose(`attention values ${label}`, valuesCmp, MAX_NMSE);

    // All three in one recording, against the CPU from scratch.
    const full = await runAndTime((rec) => attention(rec, shape, gt(gq, q), gt(gkv, k), gt(gkv, v), gl, gs, { tensor: go, stride: d, offset: 0 }), go);
    const expected = cpu.attentionValues(shape, cpu.softmaxRows(cpu.attentionScores(shape, q, k, lengths, -Infinity), batch * heads * queries, keys, -Infinity), v, lengths);
    const fullCmp = cpu.compare(full.result, expected);
    record({ kernel: 'attention (3 kernels)', shape: label, ...fullCmp, ms: full.ms, flops: 2 * flops });
    assertClose(`attention ${label}`, fullCmp, MAX_NMSE);
    freeAll(gq, gkv, gl, gs, go, gp);
  }
});

// Encoder configurations: snake_case keys as in models/tformer/config.py.
const base = { heads: 4, d_model: 32, ffn_dim: 72, encoder_layers: 2, norm: 'post', prenorm_raw_self_kv: false, activation: 'relu', layer_norm_eps: 1e-5 };
const ENCODER_CASES = [
  { name: 'post-norm relu', cfg: base },
  { name: 'post-norm relu, unfused add/relu kernels', cfg: base, options: { fused: false } },
  { name: 'pre-norm swish', cfg: { ...base, norm: 'pre', activation: 'swish', d_model: 36, heads: 6, ffn_dim: 50, layer_norm_eps: 1e-6 } },
  { name: 'pre-norm swish, unfused', cfg: { ...base, norm: 'pre', activation: 'swish', d_model: 36, heads: 6, ffn_dim: 50 }, options: { fused: false } },
  { name: 'pre-norm raw self kv (Marian)', cfg: { ...base, norm: 'pre', prenorm_raw_self_kv: true, layer_norm_eps: 1e-6 } },
  { name: 'post-norm f16 weights', cfg: base, options: { f16: true }, bound: MAX_NMSE_F16_VS_F32 },
];

async function checkEncoder({ name, cfg, options = {}, bound = MAX_NMSE_ENCODER }, batch, length, lengths, layers) {
  const tensor = cpu.randomEncoderWeights(cfg, 99);
  const d = cfg.d_model;
  const encoder = await GpuEncoder.create(runtime, cpu.encoderPlan(cfg), tensor, options);
  const x = rand.uniform(batch * length * d);
  const valid = (row) => row % length < lengths[Math.floor(row / length)];
  const before = { ...runtime.counters };
  const out = await encoder.encode(x, lengths, batch, length, { layers });
  const submissions = runtime.counters.submissions - before.submissions;
  const readbacks = runtime.counters.readbacks - before.readbacks;
  const dispatches = runtime.counters.dispatches - before.dispatches;
  assert.equal(submissions, 1, 'one submission per encoder batch');
  assert.equal(readbacks, 1, 'one readback per encoder batch');
  const expected = layers === 1 ? cpu.encoderLayer(cfg, tensor, 0, x, lengths, batch, length) : cpu.encoder(cfg, tensor, x, lengths, batch, length);
  const cmp = cpu.compare(out, expected, { width: d, rowsMask: valid });
  const t0 = performance.now();
  await encoder.encode(x, lengths, batch, length, { layers });
  const ms = performance.now() - t0;
  assert.deepEqual(runtime.errors, [], 'uncaptured WebGPU errors');
  encoder.destroy();
  return { cmp, ms, submissions, readbacks, dispatches };
}

test('encoder layer and encoder against the CPU encoder', { skip }, async () => {
  const batch = 3;
  const length = 9;
  const lengths = [9, 4, 1];
  for (const c of ENCODER_CASES) {
    for (const layers of [1, c.cfg.encoder_layers]) {
      const { cmp, ms, dispatches } = await checkEncoder(c, batch, length, lengths, layers);
      const what = layers === 1 ? 'encoder layer' : `encoder x${layers}`;
      record({ kernel: `${what}: ${c.name}`, shape: `${batch}x${length}x${c.cfg.d_model} ${dispatches} dispatches`, ...cmp, ms });
      assertClose(`${what} ${c.name}`, cmp, c.bound ?? MAX_NMSE_ENCODER);
    }
  }
});

test('encoder from token ids (embedding on the GPU) matches embedding on the CPU', { skip }, async () => {
  const cfg = { ...base, d_model: 40, heads: 5 };
  const tensor = cpu.randomEncoderWeights(cfg, 7);
  const [batch, length, vocab] = [2, 7, 50];
  const lengths = [7, 3];
  const table = rand.uniform(vocab * cfg.d_model, -0.2, 0.2);
  const positions = rand.uniform(16 * cfg.d_model);
  const encoder = await GpuEncoder.create(runtime, cpu.encoderPlan(cfg), tensor, { embedding: table, positions });
  const ids = Int32Array.from({ length: batch * length }, () => rand.int(vocab));
  const out = await encoder.encode(ids, lengths, batch, length);
  const x = cpu.embed(ids, lengths, batch, length, table, positions, cfg.d_model, Math.sqrt(cfg.d_model));
  const cmp = cpu.compare(out, cpu.encoder(cfg, tensor, x, lengths, batch, length),
    { width: cfg.d_model, rowsMask: (row) => row % length < lengths[Math.floor(row / length)] });
  record({ kernel: 'encoder x2 from ids', shape: `${batch}x${length}x${cfg.d_model}`, ...cmp });
  assertClose('encoder from ids', cmp, MAX_NMSE_ENCODER);
  encoder.destroy();
});

test('a translation-sized encoder layer: timing, submissions and readbacks per sentence', { skip }, async () => {
  const cfg = { ...base, d_model: 256, heads: 8, ffn_dim: 1024, encoder_layers: 1 };
  const [batch, length] = [8, 24];
  const lengths = [24, 23, 20, 18, 15, 11, 7, 3];
  const { cmp, ms, submissions, readbacks, dispatches } = await checkEncoder({ cfg }, batch, length, lengths);
  const rows = batch * length;
  const flops = 2 * rows * (4 * 256 * 256 + 2 * 256 * 1024) + 4 * batch * 8 * length * length * 32;
  record({ kernel: 'encoder layer d256 h8 ffn1024', shape: `${batch}x${length}`, ...cmp, ms, flops });
  console.log(`# encoder batch of ${batch}: ${submissions} submission, ${readbacks} readback, ${dispatches} dispatches per layer ` +
    `=> ${(submissions / batch).toFixed(3)} submissions and ${(readbacks / batch).toFixed(3)} readbacks per sentence`);
  assertClose('encoder layer d256', cmp, MAX_NMSE_ENCODER);
});

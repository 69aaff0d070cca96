// One function per operation: checks shapes, picks the kernel variant and records a dispatch on
// a Recorder. The encoder (and later the bridge to the C++ core) is written in terms of these.
import { toF16Rows } from './half.js';
import { matmulKernel, matmulWorkgroups, matmulFewRowsKernel, matmulFewRowsWorkgroups } from './kernels/matmul.js';
import {
  attentionScoresKernel, attentionScoresWorkgroups, attentionValuesKernel, attentionValuesWorkgroups,
} from './kernels/attention.js';
import { softmaxKernel } from './kernels/softmax.js';
import { logSoftmaxTopKKernel, NO_TOKEN } from './kernels/top_k.js';
import { layerNormKernel } from './kernels/layer_norm.js';
import { activationKernel, addKernel, embedKernel, ELEMENTWISE_THREADS } from './kernels/elementwise.js';

// Kernel objects (WGSL text) are built once per variant; the runtime caches pipelines by key.
// Keyed by the builder function itself, not its name, which a minifier may change.
const kernelCache = new Map();
function kernel(build, ...args) {
  let variants = kernelCache.get(build);
  if (!variants) kernelCache.set(build, (variants = new Map()));
  const key = JSON.stringify(args);
  let k = variants.get(key);
  if (!k) variants.set(key, (k = build(...args)));
  return k;
}

function expectLength(name, tensor, needed) {
  if (!tensor || tensor.length < needed)
    throw new Error(`${name}: needs ${needed} elements, tensor ${tensor?.label ?? '(none)'} has ${tensor?.length ?? 0}`);
}

// Weights of y = x W^T + b uploaded once: the GPU side of the C++ `Backend::pack_linear`.
// W is row-major [out, in]; bias may be null. `f16` stores W as f16 (default: the runtime's policy,
// i.e. only where the adapter has `shader-f16`).
export class GpuLinear {
  constructor(runtime, w, bias, inFeatures, outFeatures, { f16 = runtime.useF16Weights, label = 'linear' } = {}) {
    if (w.length !== inFeatures * outFeatures)
      throw new Error(`${label}: weight has ${w.length} floats, expected ${outFeatures} x ${inFeatures}`);
    if (bias && bias.length !== outFeatures)
      throw new Error(`${label}: bias has ${bias.length} floats, expected ${outFeatures}`);
    this.in = inFeatures;
    this.out = outFeatures;
    if (f16) {
      const { halves, pairsPerRow } = toF16Rows(w, outFeatures, inFeatures);
      this.weights = runtime.hasShaderF16 ? 'f16' : 'f16-unpacked';
      this.weight = runtime.upload(halves, `${label}.weight(f16)`);
      this.stride = pairsPerRow;
    } else {
      this.weights = 'f32';
      this.weight = runtime.upload(w instanceof Float32Array ? w : Float32Array.from(w), `${label}.weight`);
      this.stride = inFeatures;
    }
    this.bias = bias ? runtime.upload(bias instanceof Float32Array ? bias : Float32Array.from(bias), `${label}.bias`) : null;
  }

  get bytes() { return this.weight.bytes + (this.bias ? this.bias.bytes : 0); }

  destroy() {
    this.weight.destroy();
    if (this.bias) this.bias.destroy();
  }
}

// Up to this many rows, linear() uses the few-rows kernel (no 64-row tile of mostly padding):
// the decoder's output projection, one row per live hypothesis. Measured on SwiftShader only.
export const FEW_ROWS_LIMIT = 16;

// y[rows, out] = act(x[rows, in] W^T + b) + residual
// kernel: 'auto' (few-rows up to FEW_ROWS_LIMIT rows, else tiled), 'tiled' or 'few-rows'.
export function linear(rec, lin, x, rows, y, { activation = 'none', residual = null, kernel: variant = 'auto' } = {}) {
  expectLength('linear x', x, rows * lin.in);
  expectLength('linear y', y, rows * lin.out);
  if (residual) expectLength('linear residual', residual, rows * lin.out);
  if (y === x || y === residual) throw new Error('linear: y must not be x or the residual');
  const fewRows = variant === 'few-rows' || (variant === 'auto' && rows <= FEW_ROWS_LIMIT);
  const options = { weights: lin.weights, bias: !!lin.bias, activation, residual: !!residual };
  const k = fewRows ? kernel(matmulFewRowsKernel, options) : kernel(matmulKernel, options);
  const groups = fewRows ? matmulFewRowsWorkgroups(rows, lin.out) : matmulWorkgroups(rows, lin.out);
  if (groups[0] > rec.runtime.maxWorkgroupsPerDimension || groups[1] > rec.runtime.maxWorkgroupsPerDimension)
    throw new Error(`linear: ${rows} x ${lin.out} outputs need ${groups[0]} x ${groups[1]} workgroups, more than the device allows`);
  const tensors = [x, lin.weight, y];
  if (lin.bias) tensors.push(lin.bias);
  if (residual) tensors.push(residual);
  rec.dispatch(k, [rows, lin.out, lin.in, lin.stride], tensors, groups);
}

// Attention of a padded batch. `shape`: { batch, heads, headDim, queries (Sq), keys (Sk) }.
// q/k/v: { tensor, stride, offset } in floats; lengths: u32 tensor [batch] of key lengths;
// scores: scratch [batch, heads, Sq, Sk]; out: { tensor, stride, offset } receiving the heads.
export function attention(rec, shape, q, k, v, lengths, scores, out) {
  const { batch, heads, headDim, queries, keys } = shape;
  const d = heads * headDim;
  expectLength('attention q', q.tensor, (batch * queries - 1) * q.stride + q.offset + d);
  expectLength('attention k', k.tensor, (batch * keys - 1) * k.stride + k.offset + d);
  expectLength('attention v', v.tensor, (batch * keys - 1) * v.stride + v.offset + d);
  expectLength('attention lengths', lengths, batch);
  expectLength('attention scores', scores, batch * heads * queries * keys);
  expectLength('attention out', out.tensor, (batch * queries - 1) * out.stride + out.offset + d);
  if ([q.tensor, k.tensor, v.tensor, lengths].includes(out.tensor) || [q.tensor, k.tensor, v.tensor, out.tensor].includes(scores))
    throw new Error('attention: out and scores must be tensors of their own');
  attentionScores(rec, shape, q, k, lengths, scores);
  softmaxRows(rec, scores, batch * heads * queries, keys);
  attentionValues(rec, shape, scores, v, lengths, out);
}

export function attentionScores(rec, { batch, heads, headDim, queries, keys }, q, k, lengths, scores) {
  rec.dispatch(kernel(attentionScoresKernel),
    [queries, keys, heads, headDim, q.stride, q.offset, k.stride, k.offset, 1 / Math.sqrt(headDim)],
    [q.tensor, k.tensor, lengths, scores], attentionScoresWorkgroups(batch, heads, queries, keys));
}

export function attentionValues(rec, { batch, heads, headDim, queries, keys }, probs, v, lengths, out) {
  rec.dispatch(kernel(attentionValuesKernel),
    [queries, keys, heads, headDim, v.stride, v.offset, out.stride, out.offset],
    [probs, v.tensor, lengths, out.tensor], attentionValuesWorkgroups(batch, heads, queries, headDim));
}

export function softmaxRows(rec, s, rows, n) {
  expectLength('softmax', s, rows * n);
  rec.dispatch(kernel(softmaxKernel), [rows, n], [s], rec.runtime.grid(rows));
}

// out[rows, 3 + 2k] = per row of logits [rows, n]: max, log-sum-exp, logit of `eos`, then the k
// largest (logit, id) pairs, leaving out `exclude` (-1: none). See kernels/top_k.js.
export function logSoftmaxTopK(rec, logits, rows, n, k, { exclude = -1, eos }, out) {
  expectLength('logSoftmaxTopK logits', logits, rows * n);
  expectLength('logSoftmaxTopK out', out, rows * (3 + 2 * k));
  if (!(k >= 1 && k <= n)) throw new Error(`logSoftmaxTopK: k ${k} outside [1, ${n}]`);
  if (!(eos >= 0 && eos < n)) throw new Error(`logSoftmaxTopK: eos ${eos} outside [0, ${n})`);
  if (out === logits) throw new Error('logSoftmaxTopK: out must not be the logits');
  rec.dispatch(kernel(logSoftmaxTopKKernel), [rows, n, k, exclude >= 0 ? exclude : NO_TOKEN, eos], [logits, out],
    rec.runtime.grid(rows));
}

// y = LN(x) with gamma/beta tensors of d floats.
export function layerNorm(rec, x, rows, d, gamma, beta, eps, y) {
  expectLength('layer norm x', x, rows * d);
  expectLength('layer norm y', y, rows * d);
  if (x === y) throw new Error('layer norm: x and y must be different tensors');
  rec.dispatch(kernel(layerNormKernel), [rows, d, eps], [x, gamma, beta, y], rec.runtime.grid(rows));
}

export function activate(rec, x, n, kind) {
  expectLength(kind, x, n);
  rec.dispatch(kernel(activationKernel, kind), [n], [x], rec.runtime.grid(n, ELEMENTWISE_THREADS));
}

// a += b over n elements.
export function addInPlace(rec, a, b, n) {
  expectLength('add a', a, n);
  expectLength('add b', b, n);
  if (a === b) throw new Error('add: a and b must be different tensors');
  rec.dispatch(kernel(addKernel), [n], [a, b], rec.runtime.grid(n, ELEMENTWISE_THREADS));
}

// x[B*S, d] = table[ids] * scale + pe[t] on valid positions, 0 on padding.
export function embed(rec, ids, lengths, batch, length, table, positions, d, scale, x) {
  expectLength('embed ids', ids, batch * length);
  expectLength('embed positions', positions, length * d);
  expectLength('embed x', x, batch * length * d);
  rec.dispatch(kernel(embedKernel), [batch * length, length, d, scale], [ids, lengths, table, positions, x],
    rec.runtime.grid(batch * length * d, ELEMENTWISE_THREADS));
}

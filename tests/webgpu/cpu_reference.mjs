// Plain JS CPU references for the WebGPU kernels, written as directly as the formulas of
// models/tformer/model.py, in float64 (JS numbers) so that the GPU's f32 error is what is measured.
// Test code only: the engine computes the model in C++ (native/wasm) or in WGSL.

export function linear(x, rows, w, b, inF, outF, { activation = 'none', residual = null } = {}) {
  const y = new Float64Array(rows * outF);
  for (let r = 0; r < rows; ++r)
    for (let o = 0; o < outF; ++o) {
      let acc = b ? b[o] : 0;
      for (let i = 0; i < inF; ++i) acc += x[r * inF + i] * w[o * inF + i];
      if (activation === 'relu') acc = Math.max(acc, 0);
      else if (activation === 'swish') acc = acc / (1 + Math.exp(-acc));
      if (residual) acc += residual[r * outF + o];
      y[r * outF + o] = acc;
    }
  return y;
}

export const relu = (x) => Float64Array.from(x, (v) => Math.max(v, 0));
export const swish = (x) => Float64Array.from(x, (v) => v / (1 + Math.exp(-v)));
export const add = (a, b) => Float64Array.from(a, (v, i) => v + b[i]);

// Softmax over rows of n, where entries <= `masked` count as -inf; all-masked rows become zeros.
export function softmaxRows(s, rows, n, masked = -1e38) {
  const out = new Float64Array(rows * n);
  for (let r = 0; r < rows; ++r) {
    let m = -Infinity;
    for (let j = 0; j < n; ++j) if (s[r * n + j] > masked) m = Math.max(m, s[r * n + j]);
    if (m === -Infinity) continue;
    let sum = 0;
    for (let j = 0; j < n; ++j) if (s[r * n + j] > masked) sum += Math.exp(s[r * n + j] - m);
    for (let j = 0; j < n; ++j) out[r * n + j] = s[r * n + j] > masked ? Math.exp(s[r * n + j] - m) / sum : 0;
  }
  return out;
}

// Per row: max, log(sum(exp(x - max))), x[eos], then the k largest (value, id), largest first,
// ties by lower id, without `exclude`; ids past the candidates are 0xffffffff.
export function logSoftmaxTopK(x, rows, n, k, exclude, eos) {
  const out = [];
  for (let r = 0; r < rows; ++r) {
    const row = x.subarray(r * n, (r + 1) * n);
    const m = row.reduce((a, b) => Math.max(a, b), -3.4028234663852886e38); // -FLT_MAX, as the kernel
    let sum = 0;
    for (const v of row) sum += Math.exp(v - m);
    const order = [...row.keys()].filter((i) => i !== exclude && !Number.isNaN(row[i]))
      .sort((a, b) => row[b] - row[a] || a - b);
    out.push(m, Math.log(sum), row[eos]);
    for (let j = 0; j < k; ++j) out.push(j < order.length ? row[order[j]] : 0, j < order.length ? order[j] : 0xffffffff);
  }
  return out;
}

export function layerNorm(x, rows, d, gamma, beta, eps) {
  const y = new Float64Array(rows * d);
  for (let r = 0; r < rows; ++r) {
    let mean = 0;
    for (let i = 0; i < d; ++i) mean += x[r * d + i];
    mean /= d;
    let v = 0;
    for (let i = 0; i < d; ++i) v += (x[r * d + i] - mean) ** 2;
    const inv = 1 / Math.sqrt(v / d + eps);
    for (let i = 0; i < d; ++i) y[r * d + i] = (x[r * d + i] - mean) * inv * gamma[i] + beta[i];
  }
  return y;
}

// Scaled dot-product scores [B, H, Sq, Sk] with key padding masks (masked = `maskedValue`).
export function attentionScores({ batch, heads, headDim, queries, keys }, q, k, lengths, maskedValue) {
  const s = new Float64Array(batch * heads * queries * keys);
  const scale = 1 / Math.sqrt(headDim);
  for (let b = 0; b < batch; ++b)
    for (let h = 0; h < heads; ++h)
      for (let i = 0; i < queries; ++i)
        for (let j = 0; j < keys; ++j) {
          let acc = 0;
          for (let c = 0; c < headDim; ++c)
            acc += q.data[(b * queries + i) * q.stride + q.offset + h * headDim + c] *
              k.data[(b * keys + j) * k.stride + k.offset + h * headDim + c];
          s[((b * heads + h) * queries + i) * keys + j] = j < lengths[b] ? acc * scale : maskedValue;
        }
  return s;
}

// Weighted sums of values: out [B * Sq, H * headDim] (heads concatenated).
export function attentionValues({ batch, heads, headDim, queries, keys }, probs, v, lengths) {
  const d = heads * headDim;
  const out = new Float64Array(batch * queries * d);
  for (let b = 0; b < batch; ++b)
    for (let h = 0; h < heads; ++h)
      for (let i = 0; i < queries; ++i)
        for (let c = 0; c < headDim; ++c) {
          let acc = 0;
          for (let j = 0; j < Math.min(keys, lengths[b]); ++j)
            acc += probs[((b * heads + h) * queries + i) * keys + j] * v.data[(b * keys + j) * v.stride + v.offset + h * headDim + c];
          out[(b * queries + i) * d + h * headDim + c] = acc;
        }
  return out;
}

export function embed(ids, lengths, batch, length, table, pe, d, scale) {
  const x = new Float64Array(batch * length * d);
  for (let b = 0; b < batch; ++b)
    for (let t = 0; t < lengths[b]; ++t) {
      const id = ids[b * length + t];
      for (let c = 0; c < d; ++c)
        x[(b * length + t) * d + c] = (id >= 0 ? table[id * d + c] * scale : 0) + pe[t * d + c];
    }
  return x;
}

// Self-attention sublayer: MultiHeadAttention(query_in, kv_in) of model.py with its o projection.
function selfAttention(tensor, prefix, queryIn, kvIn, lengths, batch, length, d, heads) {
  const rows = batch * length;
  const w = (n) => tensor(`${prefix}.${n}.weight`);
  const b = (n) => tensor(`${prefix}.${n}.bias`);
  const q = linear(queryIn, rows, w('q'), b('q'), d, d);
  const k = linear(kvIn, rows, w('k'), b('k'), d, d);
  const v = linear(kvIn, rows, w('v'), b('v'), d, d);
  const shape = { batch, heads, headDim: d / heads, queries: length, keys: length };
  const view = (data) => ({ data, stride: d, offset: 0 });
  const probs = softmaxRows(attentionScores(shape, view(q), view(k), lengths, -Infinity), batch * heads * length, length, -Infinity);
  return linear(attentionValues(shape, probs, view(v), lengths), rows, w('o'), b('o'), d, d);
}

function feedForward(tensor, prefix, x, rows, d, ffn, activation) {
  const h = linear(x, rows, tensor(`${prefix}.w1.weight`), tensor(`${prefix}.w1.bias`), d, ffn, { activation });
  return linear(h, rows, tensor(`${prefix}.w2.weight`), tensor(`${prefix}.w2.bias`), ffn, d);
}

// EncoderLayer.forward of model.py (post- or pre-norm) over a padded batch x [B*S, d].
export function encoderLayer(cfg, tensor, index, x, lengths, batch, length) {
  const d = cfg.d_model;
  const rows = batch * length;
  const p = `encoder.layers.${index}`;
  const ln = (name, v) => layerNorm(v, rows, d, tensor(`${p}.${name}.weight`), tensor(`${p}.${name}.bias`), cfg.layer_norm_eps);
  const attn = (qIn, kvIn) => selfAttention(tensor, `${p}.self_attn`, qIn, kvIn, lengths, batch, length, d, cfg.heads);
  const ffn = (v) => feedForward(tensor, `${p}.ffn`, v, rows, d, cfg.ffn_dim, cfg.activation);
  if (cfg.norm === 'pre') {
    const n1 = ln('self_attn_norm', x);
    x = add(x, attn(n1, cfg.prenorm_raw_self_kv ? x : n1));
    return add(x, ffn(ln('ffn_norm', x)));
  }
  x = ln('self_attn_norm', add(x, attn(x, x)));
  return ln('ffn_norm', add(x, ffn(x)));
}

export function encoder(cfg, tensor, x, lengths, batch, length) {
  for (let i = 0; i < cfg.encoder_layers; ++i) x = encoderLayer(cfg, tensor, i, x, lengths, batch, length);
  if (cfg.norm === 'pre')
    x = layerNorm(x, batch * length, cfg.d_model, tensor('encoder.final_norm.weight'), tensor('encoder.final_norm.bias'), cfg.layer_norm_eps);
  return x;
}

// Error measures of test-backend-ops: normalised mean squared error, plus the largest absolute
// difference. `rowsMask(r)` (optional, with `width`) limits the comparison to some rows.
export function compare(actual, expected, { width = 1, rowsMask = null } = {}) {
  let num = 0;
  let den = 0;
  let maxAbs = 0;
  let bad = 0;
  for (let i = 0; i < expected.length; ++i) {
    if (rowsMask && !rowsMask(Math.floor(i / width))) continue;
    const a = actual[i];
    const e = expected[i];
    if (!Number.isFinite(a)) { bad += 1; continue; }
    num += (a - e) ** 2;
    den += e * e;
    maxAbs = Math.max(maxAbs, Math.abs(a - e));
  }
  return { nmse: bad ? Infinity : num / Math.max(den, 1e-30), maxAbs, nonFinite: bad };
}

// Deterministic pseudo-random numbers (mulberry32).
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    uniform: (n, lo = -1, hi = 1) => Float32Array.from({ length: n }, () => lo + (hi - lo) * next()),
    int: (n) => Math.floor(next() * n),
  };
}

// Random weights for an encoder with the tensor names of docs/FORMAT.md, scaled like
// model.py's initialisation (xavier-uniform matrices, small biases, LN near identity).
export function randomEncoderWeights(cfg, seed) {
  const r = rng(seed);
  const d = cfg.d_model;
  const tensors = new Map();
  const matrix = (name, out, inF) => {
    const a = Math.sqrt(6 / (inF + out));
    tensors.set(`${name}.weight`, r.uniform(out * inF, -a, a));
    tensors.set(`${name}.bias`, r.uniform(out, -0.1, 0.1));
  };
  const norm = (name) => {
    tensors.set(`${name}.weight`, r.uniform(d, 0.8, 1.2));
    tensors.set(`${name}.bias`, r.uniform(d, -0.1, 0.1));
  };
  for (let i = 0; i < cfg.encoder_layers; ++i) {
    const p = `encoder.layers.${i}`;
    for (const n of ['q', 'k', 'v', 'o']) matrix(`${p}.self_attn.${n}`, d, d);
    norm(`${p}.self_attn_norm`);
    matrix(`${p}.ffn.w1`, cfg.ffn_dim, d);
    matrix(`${p}.ffn.w2`, d, cfg.ffn_dim);
    norm(`${p}.ffn_norm`);
  }
  if (cfg.norm === 'pre') norm('encoder.final_norm');
  return (name) => {
    const t = tensors.get(name);
    if (!t) throw new Error(`no tensor ${name}`);
    return t;
  };
}

// The plan the engine exports (Translator.plan(), core/include/tformer/model_plan.h) for an encoder
// of randomEncoderWeights(cfg): the tests' own statement of docs/FORMAT.md's tensor names, so that
// GpuEncoder can run configurations no model file has. session.test.mjs checks that it equals the
// engine's plan for every fixture.
export function encoderPlan(cfg) {
  const d = cfg.d_model;
  const eps = Math.fround(cfg.layer_norm_eps);
  const linear = (names, inF, outF) => ({
    weights: names.map((n) => `${n}.weight`), biases: names.map((n) => `${n}.bias`), in: inF, out: outF,
  });
  const norm = (name) => ({ weight: `${name}.weight`, bias: `${name}.bias`, eps });
  const rawSelfKv = cfg.norm === 'pre' && Boolean(cfg.prenorm_raw_self_kv);
  const encoderLayers = [];
  for (let i = 0; i < cfg.encoder_layers; ++i) {
    const p = `encoder.layers.${i}`;
    const a = (n) => `${p}.self_attn.${n}`;
    encoderLayers.push({
      norm: cfg.norm === 'pre' ? 'pre' : 'post',
      rawSelfKv,
      qkv: rawSelfKv ? null : linear([a('q'), a('k'), a('v')], d, 3 * d),
      q: rawSelfKv ? linear([a('q')], d, d) : null,
      kv: rawSelfKv ? linear([a('k'), a('v')], d, 2 * d) : null,
      o: linear([a('o')], d, d),
      selfAttentionNorm: norm(`${p}.self_attn_norm`),
      ffnW1: linear([`${p}.ffn.w1`], d, cfg.ffn_dim),
      ffnW2: linear([`${p}.ffn.w2`], cfg.ffn_dim, d),
      activation: cfg.activation,
      ffnNorm: norm(`${p}.ffn_norm`),
    });
  }
  const tied = cfg.tied_embeddings;
  return {
    dModel: d,
    heads: cfg.heads,
    ffnDim: cfg.ffn_dim,
    sourceEmbedding: tied === 'all' ? 'embedding.weight' : 'source_embedding.weight',
    embeddingScale: Math.fround(Math.sqrt(d)),
    encoderLayers,
    encoderFinalNorm: cfg.norm === 'pre' ? norm('encoder.final_norm') : null,
    output: {
      weights: [tied === 'none' ? 'output.weight' : tied === 'all' ? 'embedding.weight' : 'target_embedding.weight'],
      biases: cfg.output_bias ? ['output_bias'] : [],
      in: d,
      out: cfg.vocab_size,
    },
  };
}

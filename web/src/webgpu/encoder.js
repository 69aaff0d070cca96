// The Transformer encoder as a GPU schedule: weights uploaded once, activations kept on the GPU
// from the embedding to the last layer, the whole stack recorded into ONE submission with ONE
// readback. The math is the PyTorch reference's (models/tformer/model.py, EncoderLayer):
//   post-norm: x = LN(x + SelfAttn(x));           x = LN(x + FFN(x))
//   pre-norm:  x = x + SelfAttn(LN(x)) [keys/values from raw x when prenorm_raw_self_kv];
//              x = x + FFN(LN(x)); a final LN after the last layer.
// This file only orders kernel dispatches; it computes nothing itself.
import { GpuLinear, linear, attention, layerNorm, activate, addInPlace, embed } from './ops.js';

function stackRows(...matrices) {
  const out = new Float32Array(matrices.reduce((n, m) => n + m.length, 0));
  let at = 0;
  for (const m of matrices) {
    out.set(m, at);
    at += m.length;
  }
  return out;
}

// `config`: the model's config object as in the .tfm header (snake_case keys of
// models/tformer/config.py). `tensor(name)`: returns the named weight as a Float32Array
// (names as in models/FORMAT.md, e.g. "encoder.layers.0.self_attn.q.weight").
export class GpuEncoder {
  static async create(runtime, config, tensor, options = {}) {
    return runtime.guardMemory('encoder weights', () => new GpuEncoder(runtime, config, tensor, options));
  }

  // options.embedding: Float32Array [vocab, d] and options.positions: Float32Array [max_positions, d]
  // let `encode` take token ids (the embedding runs on the GPU too); without them it takes
  // embedded inputs. options.fused = false runs residual adds and activations as their own
  // kernels (slower; used by tests to check those kernels inside a layer).
  constructor(runtime, config, tensor, { embedding = null, positions = null, fused = true, f16 } = {}) {
    const d = config.d_model;
    if (d % config.heads !== 0) throw new Error(`d_model ${d} is not a multiple of heads ${config.heads}`);
    this.runtime = runtime;
    this.config = config;
    this.d = d;
    this.heads = config.heads;
    this.ffn = config.ffn_dim;
    this.pre = config.norm === 'pre';
    this.rawKv = this.pre && Boolean(config.prenorm_raw_self_kv);
    this.eps = config.layer_norm_eps;
    this.activation = config.activation;
    this.fused = fused;
    const upload = (name) => runtime.upload(tensor(name), name);
    const lin = (w, b, inF, outF, label) => new GpuLinear(runtime, w, b, inF, outF, { f16, label });
    this.layers = [];
    for (let i = 0; i < config.encoder_layers; ++i) {
      const p = `encoder.layers.${i}`;
      const a = `${p}.self_attn`;
      const w = (n) => tensor(`${a}.${n}.weight`);
      const b = (n) => tensor(`${a}.${n}.bias`);
      const layer = {
        o: lin(w('o'), b('o'), d, d, `${a}.o`),
        norm1: { gamma: upload(`${p}.self_attn_norm.weight`), beta: upload(`${p}.self_attn_norm.bias`) },
        w1: lin(tensor(`${p}.ffn.w1.weight`), tensor(`${p}.ffn.w1.bias`), d, this.ffn, `${p}.ffn.w1`),
        w2: lin(tensor(`${p}.ffn.w2.weight`), tensor(`${p}.ffn.w2.bias`), this.ffn, d, `${p}.ffn.w2`),
        norm2: { gamma: upload(`${p}.ffn_norm.weight`), beta: upload(`${p}.ffn_norm.bias`) },
      };
      // One product for q, k and v (or k and v) instead of three: fewer dispatches, one read of x.
      if (this.rawKv) {
        layer.q = lin(w('q'), b('q'), d, d, `${a}.q`);
        layer.kv = lin(stackRows(w('k'), w('v')), stackRows(b('k'), b('v')), d, 2 * d, `${a}.kv`);
      } else {
        layer.qkv = lin(stackRows(w('q'), w('k'), w('v')), stackRows(b('q'), b('k'), b('v')), d, 3 * d, `${a}.qkv`);
      }
      this.layers.push(layer);
    }
    if (this.pre)
      this.finalNorm = { gamma: upload('encoder.final_norm.weight'), beta: upload('encoder.final_norm.bias') };
    if (embedding) {
      if (!positions) throw new Error('GpuEncoder: an embedding table needs the positional table too');
      this.embedding = runtime.upload(embedding, 'source_embedding');
      this.positions = runtime.upload(positions, 'positions');
      this.maxPositions = positions.length / d;
    }
    this.capacity = { rows: 0, scores: 0, batch: 0 };
    this.scratch = null;
  }

  // Whether the scratch tensors already hold a [batch, length] batch (else encoding allocates).
  fits(batch, length) {
    const cap = this.capacity;
    return batch * length <= cap.rows && batch * this.heads * length * length <= cap.scores && batch <= cap.batch;
  }

  // Scratch tensors for a batch; grown (never shrunk) so that a run of batches reuses them.
  ensureCapacity(batch, length) {
    if (this.fits(batch, length)) return;
    const rows = batch * length;
    const scores = batch * this.heads * length * length;
    const cap = this.capacity;
    if (this.scratch) for (const t of Object.values(this.scratch)) t.destroy();
    cap.rows = Math.max(rows, cap.rows);
    cap.scores = Math.max(scores, cap.scores);
    cap.batch = Math.max(batch, cap.batch);
    const rt = this.runtime;
    const d = this.d;
    this.scratch = {
      x: rt.tensor(cap.rows * d, 'encoder.x'),
      h: rt.tensor(cap.rows * d, 'encoder.h'),
      normed: rt.tensor(cap.rows * d, 'encoder.normed'),
      qkv: rt.tensor(cap.rows * 3 * d, 'encoder.qkv'),
      q: rt.tensor(this.rawKv ? cap.rows * d : 1, 'encoder.q'),
      context: rt.tensor(cap.rows * d, 'encoder.context'),
      hidden: rt.tensor(cap.rows * this.ffn, 'encoder.hidden'),
      scores: rt.tensor(cap.scores, 'encoder.scores'),
      lengths: rt.tensor(cap.batch, 'encoder.lengths'),
      ids: rt.tensor(cap.rows, 'encoder.ids'),
    };
  }

  // Records the layers over scratch.x (already holding the embedded batch) and returns the
  // tensor that holds the output after the recorded work runs. The pre-norm final LN is applied
  // only when every layer runs.
  recordLayers(rec, batch, length, layers = this.layers) {
    const s = this.scratch;
    const rows = batch * length;
    const d = this.d;
    const shape = { batch, heads: this.heads, headDim: d / this.heads, queries: length, keys: length };
    let x = s.x;
    let h = s.h;
    const residualLinear = (lin, input, out, residual) => {
      if (this.fused) return linear(rec, lin, input, rows, out, { residual });
      linear(rec, lin, input, rows, out);
      addInPlace(rec, out, residual, rows * d);
    };
    const feedForward = (layer, input, out, residual) => {
      if (this.fused) {
        linear(rec, layer.w1, input, rows, s.hidden, { activation: this.activation });
      } else {
        linear(rec, layer.w1, input, rows, s.hidden);
        activate(rec, s.hidden, rows * this.ffn, this.activation);
      }
      residualLinear(layer.w2, s.hidden, out, residual);
    };
    const selfAttention = (layer, queryIn, kvIn) => {
      let q, k, v;
      if (this.rawKv) {
        linear(rec, layer.q, queryIn, rows, s.q);
        linear(rec, layer.kv, kvIn, rows, s.qkv);
        q = { tensor: s.q, stride: d, offset: 0 };
        k = { tensor: s.qkv, stride: 2 * d, offset: 0 };
        v = { tensor: s.qkv, stride: 2 * d, offset: d };
      } else {
        linear(rec, layer.qkv, queryIn, rows, s.qkv);
        q = { tensor: s.qkv, stride: 3 * d, offset: 0 };
        k = { tensor: s.qkv, stride: 3 * d, offset: d };
        v = { tensor: s.qkv, stride: 3 * d, offset: 2 * d };
      }
      attention(rec, shape, q, k, v, s.lengths, s.scores, { tensor: s.context, stride: d, offset: 0 });
    };
    for (const layer of layers) {
      if (this.pre) {
        layerNorm(rec, x, rows, d, layer.norm1.gamma, layer.norm1.beta, this.eps, s.normed);
        selfAttention(layer, s.normed, this.rawKv ? x : s.normed);
        residualLinear(layer.o, s.context, h, x);
        [x, h] = [h, x];
        layerNorm(rec, x, rows, d, layer.norm2.gamma, layer.norm2.beta, this.eps, s.normed);
        feedForward(layer, s.normed, h, x);
        [x, h] = [h, x];
      } else {
        selfAttention(layer, x, x);
        residualLinear(layer.o, s.context, h, x);
        layerNorm(rec, h, rows, d, layer.norm1.gamma, layer.norm1.beta, this.eps, x);
        feedForward(layer, x, h, x);
        layerNorm(rec, h, rows, d, layer.norm2.gamma, layer.norm2.beta, this.eps, x);
      }
    }
    if (this.pre && layers.length === this.layers.length) {
      layerNorm(rec, x, rows, d, this.finalNorm.gamma, this.finalNorm.beta, this.eps, h);
      [x, h] = [h, x];
    }
    return x;
  }

  // Encodes a padded batch [batch, length] with one submission and one readback.
  //   input: Float32Array [batch * length * d] of embedded inputs, or Int32Array [batch * length]
  //          of token ids (needs the embedding options);
  //   lengths: the sentences' lengths (<= length);
  //   layers: run only the first `layers` layers (tests).
  // Resolves to Float32Array [batch * length * d]; rows past a sentence's length are unspecified.
  async encode(input, lengths, batch, length, { layers } = {}) {
    const rec = this.record(input, lengths, batch, length, { layers });
    return rec.recorder.submit({ readback: rec.output, length: batch * length * this.d });
  }

  // Writes the inputs and records the whole encoder without submitting: lets a caller add more
  // work (e.g. the decoder's cross-attention keys/values) to the same submission.
  record(input, lengths, batch, length, { layers } = {}) {
    if (lengths.length !== batch) throw new Error(`encode: ${lengths.length} lengths for a batch of ${batch}`);
    for (const n of lengths)
      if (!(n >= 1 && n <= length)) throw new Error(`encode: sentence length ${n} outside [1, ${length}]`);
    this.ensureCapacity(batch, length);
    const rt = this.runtime;
    const s = this.scratch;
    rt.write(s.lengths, Uint32Array.from(lengths));
    const rec = rt.recorder('encoder');
    if (input instanceof Int32Array) {
      if (!this.embedding) throw new Error('encode: token ids need an encoder built with an embedding table');
      if (length > this.maxPositions) throw new Error(`encode: length ${length} exceeds ${this.maxPositions} positions`);
      if (input.length !== batch * length) throw new Error(`encode: ${input.length} ids for ${batch} x ${length}`);
      rt.write(s.ids, input);
      embed(rec, s.ids, s.lengths, batch, length, this.embedding, this.positions, this.d, Math.sqrt(this.d), s.x);
    } else {
      if (input.length !== batch * length * this.d)
        throw new Error(`encode: ${input.length} floats for ${batch} x ${length} x ${this.d}`);
      rt.write(s.x, input);
    }
    const output = this.recordLayers(rec, batch, length, layers ? this.layers.slice(0, layers) : this.layers);
    return { recorder: rec, output };
  }

  get weightBytes() {
    let n = 0;
    for (const layer of this.layers)
      for (const part of Object.values(layer))
        n += part.bytes ?? (part.gamma.bytes + part.beta.bytes);
    return n;
  }

  destroy() {
    for (const layer of this.layers)
      for (const part of Object.values(layer)) {
        if (part.destroy) part.destroy();
        else { part.gamma.destroy(); part.beta.destroy(); }
      }
    if (this.finalNorm) { this.finalNorm.gamma.destroy(); this.finalNorm.beta.destroy(); }
    if (this.embedding) { this.embedding.destroy(); this.positions.destroy(); }
    if (this.scratch) for (const t of Object.values(this.scratch)) t.destroy();
  }
}

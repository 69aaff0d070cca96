// The Transformer encoder as a GPU schedule: weights uploaded once, activations kept on the GPU
// from the embedding to the last layer, the whole stack recorded into ONE submission with ONE
// readback. What to compute comes from the engine: the plan (Translator.plan(), filled by the C++
// core from the layers it built; core/include/tformer/model_plan.h) names each product's tensors
// (q, k, v stacked or not), each norm's place and eps, the activation and the embedding scale.
// Each sublayer is residualSublayer():
//   post-norm: x = LN(x + f(x));  pre-norm: x = x + f(LN(x)) [keys/values from raw x when rawSelfKv]
// This file only orders kernel dispatches; it computes nothing itself and knows no tensor name.
import { GpuLinear, linear, attention, layerNorm, activate, addInPlace, embed } from './ops.js';

function stackRows(matrices) {
  const out = new Float32Array(matrices.reduce((n, m) => n + m.length, 0));
  let at = 0;
  for (const m of matrices) {
    out.set(m, at);
    at += m.length;
  }
  return out;
}

// `plan`: the engine's plan (Translator.plan()). `tensor(name)`: returns the named weight as a
// Float32Array.
export class GpuEncoder {
  static async create(runtime, plan, tensor, options = {}) {
    return runtime.guardMemory('encoder weights', () => new GpuEncoder(runtime, plan, tensor, options));
  }

  // options.embedding: Float32Array [vocab, d] and options.positions: Float32Array [max_positions, d]
  // let `encode` take token ids (the embedding runs on the GPU too); without them it takes
  // embedded inputs. options.fused = false runs residual adds and activations as their own
  // kernels (slower; used by tests to check those kernels inside a layer).
  constructor(runtime, plan, tensor, { embedding = null, positions = null, fused = true, f16 } = {}) {
    const d = plan.dModel;
    if (d % plan.heads !== 0) throw new Error(`d_model ${d} is not a multiple of heads ${plan.heads}`);
    this.runtime = runtime;
    this.d = d;
    this.heads = plan.heads;
    this.ffn = plan.ffnDim;
    this.embeddingScale = plan.embeddingScale;
    this.fused = fused;
    // A product of the plan: its weights (several stacked into one product: fewer dispatches, one
    // read of x) uploaded as one matrix.
    const lin = (p) => p && new GpuLinear(runtime, stackRows(p.weights.map(tensor)),
      p.biases.length ? stackRows(p.biases.map(tensor)) : null, p.in, p.out, { f16, label: p.weights.join('+') });
    const norm = (p) => p && { gamma: runtime.upload(tensor(p.weight), p.weight), beta: runtime.upload(tensor(p.bias), p.bias), eps: p.eps };
    this.layers = plan.encoderLayers.map((p) => ({
      pre: p.norm === 'pre',
      rawKv: p.rawSelfKv,
      activation: p.activation,
      weights: Object.fromEntries(Object.entries({
        qkv: lin(p.qkv), q: lin(p.q), kv: lin(p.kv), o: lin(p.o), norm1: norm(p.selfAttentionNorm),
        w1: lin(p.ffnW1), w2: lin(p.ffnW2), norm2: norm(p.ffnNorm),
      }).filter(([, part]) => part)),
    }));
    this.rawKv = this.layers.some((layer) => layer.rawKv);
    this.finalNorm = norm(plan.encoderFinalNorm);
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
    // f's last product writes `out` with the residual added (fused into the product, or a kernel
    // of its own).
    const residualLinear = (lin, input, out, residual) => {
      if (this.fused) return linear(rec, lin, input, rows, out, { residual });
      linear(rec, lin, input, rows, out);
      addInPlace(rec, out, residual, rows * d);
    };
    // The one residual sublayer of the C++ core's layers/residual.h, with x and h swapped as
    // buffers: f(input, raw, out, residual) records the sublayer, its last product adding `residual`.
    const residualSublayer = (pre, norm, f) => {
      if (pre) {
        layerNorm(rec, x, rows, d, norm.gamma, norm.beta, norm.eps, s.normed);
        f(s.normed, x, h, x);
        [x, h] = [h, x];
      } else {
        f(x, x, h, x);
        layerNorm(rec, h, rows, d, norm.gamma, norm.beta, norm.eps, x);
      }
    };
    const selfAttention = (layer) => (input, raw, out, residual) => {
      const w = layer.weights;
      let q, k, v;
      if (layer.rawKv) {
        linear(rec, w.q, input, rows, s.q);
        linear(rec, w.kv, raw, rows, s.qkv);
        q = { tensor: s.q, stride: d, offset: 0 };
        k = { tensor: s.qkv, stride: 2 * d, offset: 0 };
        v = { tensor: s.qkv, stride: 2 * d, offset: d };
      } else {
        linear(rec, w.qkv, input, rows, s.qkv);
        q = { tensor: s.qkv, stride: 3 * d, offset: 0 };
        k = { tensor: s.qkv, stride: 3 * d, offset: d };
        v = { tensor: s.qkv, stride: 3 * d, offset: 2 * d };
      }
      attention(rec, shape, q, k, v, s.lengths, s.scores, { tensor: s.context, stride: d, offset: 0 });
      residualLinear(w.o, s.context, out, residual);
    };
    const feedForward = (layer) => (input, raw, out, residual) => {
      const w = layer.weights;
      if (this.fused) {
        linear(rec, w.w1, input, rows, s.hidden, { activation: layer.activation });
      } else {
        linear(rec, w.w1, input, rows, s.hidden);
        activate(rec, s.hidden, rows * this.ffn, layer.activation);
      }
      residualLinear(w.w2, s.hidden, out, residual);
    };
    for (const layer of layers) {
      residualSublayer(layer.pre, layer.weights.norm1, selfAttention(layer));
      residualSublayer(layer.pre, layer.weights.norm2, feedForward(layer));
    }
    if (this.finalNorm && layers.length === this.layers.length) {
      layerNorm(rec, x, rows, d, this.finalNorm.gamma, this.finalNorm.beta, this.finalNorm.eps, h);
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
      embed(rec, s.ids, s.lengths, batch, length, this.embedding, this.positions, this.d, this.embeddingScale, s.x);
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
      for (const part of Object.values(layer.weights))
        n += part.bytes ?? (part.gamma.bytes + part.beta.bytes);
    return n;
  }

  destroy() {
    for (const layer of this.layers)
      for (const part of Object.values(layer.weights)) {
        if (part.destroy) part.destroy();
        else { part.gamma.destroy(); part.beta.destroy(); }
      }
    if (this.finalNorm) { this.finalNorm.gamma.destroy(); this.finalNorm.beta.destroy(); }
    if (this.embedding) { this.embedding.destroy(); this.positions.destroy(); }
    if (this.scratch) for (const t of Object.values(this.scratch)) t.destroy();
  }
}

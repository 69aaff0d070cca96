// The WebGPU backend of a translation: it answers the requests of the engine's step-wise
// TranslationSession (BRIDGE.md) that carry the matmul-heavy work, the encoder over a batch and
// the decoder's output projection of a step, each with ONE submission and ONE readback. A step
// reads back each row's best candidates (max, log-sum-exp, the best k logits and ids), not the
// full logits. The wasm engine keeps everything else (tokenizing, decoder layers, search rules).
//
//   const { backend, reason } = await WebGpuBackend.create(translator);  // no backend: wasm, `reason` says why
//   const results = await runSession(translator.begin(texts, options), backend);
//
// Weights go up once, here: they come from the wasm module (Translator.tensorView, the engine's
// own f32 view or dequantised copy of the model file) and positions from Translator.positionsView,
// named by the engine's plan (Translator.plan: which tensors, stacked how, norms where), so
// nothing about the model is computed or derived in JS. A failure of the GPU (lost device, out of memory,
// a refused submission) disables the backend: the pending request and every later one run on
// wasm (runSession does that), and the translation completes.
import { acquireGpu, GpuDeviceLostError, GpuOutOfMemoryError } from './runtime.js';
import { GpuEncoder } from './encoder.js';
import { GpuLinear, linear, logSoftmaxTopK } from './ops.js';

export class WebGpuBackend {
  // translator: a wasm Module.Translator. Options:
  //   gpu         a GPU object (default navigator.gpu; node: the npm `webgpu` package's create([]))
  //   runtime     an existing GpuRuntime instead (it is then not destroyed with the backend)
  //   f16Weights  'auto' (f16 where the adapter has shader-f16), true or false: see acquireGpu
  //   onFallback  called with the error when the GPU fails and wasm takes over (default: console.warn)
  //   candidates  true (default): a step reads back each row's best candidates (logSoftmaxTopK),
  //               false: full logits (rows x vocabulary floats)
  // Resolves to { backend }, or to { reason } where there is no WebGPU adapter or device or the
  // weights do not fit in GPU memory: the caller then translates on wasm and can say why.
  static async create(translator, { gpu, runtime = null, f16Weights = 'auto', onFallback = null, candidates = true } = {}) {
    const ownsRuntime = !runtime;
    if (ownsRuntime) {
      const acquired = await acquireGpu({ gpu, f16Weights });
      if (!acquired.runtime) return { reason: acquired.reason };
      runtime = acquired.runtime;
    }
    const { config } = translator.info();
    // What to compute, tensor names included, as the engine built it (C++ owns the model's structure).
    const plan = translator.plan();
    // Views of wasm memory are valid until the next call into the module: each is copied at once.
    const tensor = (name) => translator.tensorView(name).slice();
    let encoder = null;
    let projection = null;
    try {
      encoder = await GpuEncoder.create(runtime, plan, tensor, {
        embedding: tensor(plan.sourceEmbedding),
        positions: translator.positionsView().slice(),
      });
      const out = plan.output; // one weight [vocab, d]: nn.Linear's [out, in]
      projection = await runtime.guardMemory('the output projection', () => new GpuLinear(runtime,
        tensor(out.weights[0]), out.biases.length ? tensor(out.biases[0]) : null, out.in, out.out, { label: 'output' }));
    } catch (error) {
      if (!(error instanceof GpuOutOfMemoryError) && !(error instanceof GpuDeviceLostError)) throw error;
      encoder?.destroy();
      if (ownsRuntime) runtime.destroy();
      return { reason: error.message };
    }
    return { backend: new WebGpuBackend(runtime, config, encoder, projection, { ownsRuntime, onFallback, candidates }) };
  }

  constructor(runtime, config, encoder, projection, { ownsRuntime = false, onFallback = null, candidates = true } = {}) {
    this.runtime = runtime;
    this.encoder = encoder;
    this.projection = projection;
    this.d = config.d_model;
    this.vocab = config.vocab_size;
    // Whether projections answer with candidates (projectCandidates) rather than logits (project).
    this.candidates = candidates;
    // The ids the candidate selection needs; the rules that use them are the engine's.
    this.eos = config.eos_id;
    this.exclude = config.suppress_unk && config.unk_id >= 0 ? config.unk_id : -1;
    this.ownsRuntime = ownsRuntime;
    this.onFallback = onFallback ?? ((error) => console.warn(`tformer: WebGPU disabled, translating on wasm: ${error.message}`));
    this.failure = null; // the error that disabled the backend
    this.requests = { encode: 0, project: 0 };
    this.rows = 0; // capacity of the projection's scratch tensors (rows, and k candidates)
    this.k = 0;
    this.hidden = null;
    this.logits = null;
    this.best = null;
    // A runtime may serve several backends (the two models of a pair through English): its loss
    // disables each.
    const earlier = runtime.onLost;
    runtime.onLost = (info) => {
      earlier?.(info);
      this.disable(new GpuDeviceLostError(`WebGPU device lost: ${info.message || info.reason}`));
    };
  }

  // False once the GPU failed (or the backend was destroyed): requests then go to wasm.
  get usable() { return this.failure === null; }

  // What one translation cost the GPU: submissions and readbacks (each a CPU<->GPU round trip),
  // bytes each way, dispatches, and the requests answered.
  get counters() {
    return { ...this.runtime.counters, encodes: this.requests.encode, projections: this.requests.project };
  }

  resetCounters() {
    this.runtime.resetCounters();
    this.requests = { encode: 0, project: 0 };
  }

  // Answers an encode request ({batch, length, ids, lengths} of TranslationSession.next()):
  // resolves to the encoder output, Float32Array [batch * length * d].
  async encode({ batch, length, ids, lengths }) {
    this.checkUsable();
    // Copies before the first await: the request's arrays alias wasm memory.
    ids = Int32Array.from(ids);
    lengths = Array.from(lengths);
    if (!this.encoder.fits(batch, length))
      await this.runtime.guardMemory('encoder scratch', () => this.encoder.ensureCapacity(batch, length));
    const out = await this.encoder.encode(ids, lengths, batch, length);
    this.requests.encode += 1;
    return out;
  }

  // Answers a projection request: hidden [rows * d] -> logits, Float32Array [rows * vocab].
  async project(hidden, rows) {
    const rec = await this.recordProjection(hidden, rows, 0);
    const logits = await rec.submit({ readback: this.logits, length: rows * this.vocab });
    this.requests.project += 1;
    return logits;
  }

  // The same, read back as each row's best k candidates (TranslationSession.provideCandidates):
  // Float32Array [rows * (3 + 2k)], k = the request's `candidates`.
  async projectCandidates(hidden, rows, k) {
    const rec = await this.recordProjection(hidden, rows, k);
    logSoftmaxTopK(rec, this.logits, rows, this.vocab, k, { exclude: this.exclude, eos: this.eos }, this.best);
    const best = await rec.submit({ readback: this.best, length: rows * (3 + 2 * k) });
    this.requests.project += 1;
    return best;
  }

  async recordProjection(hidden, rows, k) {
    this.checkUsable();
    if (hidden.length !== rows * this.d) throw new Error(`project: ${hidden.length} hidden values for ${rows} rows of ${this.d}`);
    hidden = hidden.slice(); // aliases wasm memory
    if (rows > this.rows || rows * (3 + 2 * k) > (this.best?.length ?? 0))
      await this.runtime.guardMemory('projection scratch', () => this.grow(rows, k));
    this.runtime.write(this.hidden, hidden);
    const rec = this.runtime.recorder('projection');
    linear(rec, this.projection, this.hidden, rows, this.logits);
    return rec;
  }

  grow(rows, k) {
    for (const t of [this.hidden, this.logits, this.best]) t?.destroy();
    this.rows = Math.max(rows, 2 * this.rows);
    this.k = Math.max(k, this.k);
    this.hidden = this.runtime.tensor(this.rows * this.d, 'projection.hidden');
    this.logits = this.runtime.tensor(this.rows * this.vocab, 'projection.logits');
    this.best = this.runtime.tensor(this.rows * (3 + 2 * this.k), 'projection.candidates');
  }

  checkUsable() {
    if (this.failure) throw new Error(`the WebGPU backend is disabled: ${this.failure.message}`);
  }

  // Stops using the GPU after a failure: later requests go to wasm. Reports once.
  disable(error) {
    if (this.failure) return;
    this.failure = error;
    this.release();
    try {
      this.onFallback(error);
    } catch {}
  }

  // Resolves when the GPU device is gone (see GpuRuntime.destroy), at once if it is not ours.
  destroy() {
    if (!this.failure) this.failure = new Error('destroyed');
    return this.release();
  }

  release() {
    this.encoder?.destroy();
    this.projection?.destroy();
    this.hidden?.destroy();
    this.logits?.destroy();
    this.best?.destroy();
    this.encoder = this.projection = this.hidden = this.logits = this.best = null;
    this.rows = this.k = 0;
    if (this.ownsRuntime && !this.runtime.isLost) return this.runtime.destroy();
    return Promise.resolve();
  }
}

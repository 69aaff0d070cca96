// The engine: one instance of a wasm build and the Embind Translator made from one model, and,
// where the GPU is used, a WebGpuBackend answering the engine's step-wise TranslationSession
// (src/webgpu/, BRIDGE.md). It runs where the computing happens (the package's Worker).
// Results leave in the package's shape (types/index.d.ts: Translation).
//
// A GPU failure during a translation (device lost, out of memory, a refused submission) disables
// the backend; runSession answers the pending request and every later one on wasm with the same
// Translator, which keeps its own weights: no rebuild, no second copy of the model, and the
// translation completes. `onFallback` (set by the Worker) reports it once.
import { decideBackend, adapterName } from './select.js';
import { isNode } from './environment.js';
import { paragraphAlignment } from './alignment.js';
import { WebGpuBackend } from './webgpu/backend.js';
import { runSession } from './webgpu/run_session.js';

// The start of the message of a start that failed because the engine could not read the model
// (Translator.create turns it into a ModelFormatError naming the file).
export const MODEL_REFUSED = 'the engine could not read the model: ';

// How long dispose() waits for Dawn to report a destroyed device gone.
const GPU_RELEASE_WAIT_MS = 2000;

export class Engine {
  /**
   * @param {{glueUrl: string, wasmModule: WebAssembly.Module, model: Uint8Array, threads: number, variant: string,
   *          backend: 'wasm'|'webgpu', backendReason?: string, requestedBackend?: string}} init
   *   backend 'webgpu': a GPU may be used, decided here (select.js: decideBackend)
   */
  static async create({ glueUrl, wasmModule, model, threads, variant, backend, backendReason = null, requestedBackend = backend }) {
    if (backend !== 'wasm' && backend !== 'webgpu') throw new Error(`Engine: unknown backend '${backend}'`);
    const t0 = performance.now();
    const { default: createModule } = await import(/* webpackIgnore: true */ /* @vite-ignore */ glueUrl);
    let instantiationFailed;
    const failure = new Promise((_, reject) => { instantiationFailed = reject; });
    const module = await Promise.race([failure, createModule({
      // The module was compiled once by the page (wasm-files.js); instantiate it here.
      instantiateWasm(imports, receiveInstance) {
        WebAssembly.instantiate(wasmModule, imports).then(
          (instance) => receiveInstance(instance, wasmModule), instantiationFailed);
        return {};
      },
      print: (line) => console.log(line),
      printErr: (line) => console.warn(line),
    })]);
    const t1 = performance.now();
    let translator;
    try {
      translator = new module.Translator(model, threads);
    } catch (e) {
      module.PThread?.terminateAllThreads();
      throw new Error(MODEL_REFUSED + messageOf(e), { cause: e });
    }
    const t2 = performance.now();
    const engine = new Engine(module, translator, variant, { instantiateMs: t1 - t0, modelMs: t2 - t1 });
    engine.backendReason = backendReason ?? 'asked for';
    if (backend === 'webgpu') {
      try {
        await engine.startGpu(requestedBackend === 'webgpu' ? 'webgpu' : 'auto');
      } catch (e) {
        engine.useWasm(`the WebGPU backend could not start: ${messageOf(e)}`, requestedBackend === 'webgpu');
      }
      engine.startTimings.gpuMs = performance.now() - t2;
    }
    return engine;
  }

  constructor(module, translator, variant, timings) {
    this.module = module;
    this.translator = translator;
    this.variant = variant;
    this.startTimings = timings;
    this.backend = null;        // a WebGpuBackend while the GPU is used
    this.backendName = 'wasm';
    this.backendReason = 'asked for';
    this.adapter = null;        // describeAdapter() summary of the adapter looked at, if any
    this.gpu = null;            // the GPU object (kept referenced: npm webgpu frees Dawn with it)
    this.gpuInfo = null;        // { uploadedBytes, f16Weights } of the upload
    this.warnings = [];
    this.onFallback = null;     // (message) => void, set by the Worker
  }

  // Looks for an adapter, applies the rule (decideBackend) and uploads the weights.
  async startGpu(requested) {
    const node = isNode();
    const { gpu, reason } = await openGpu(node);
    this.gpu = gpu;
    let adapter = null;
    if (gpu) {
      try {
        adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
      } catch { /* none */ }
    }
    const config = this.translator.info().config;
    const decision = decideBackend({ requested, node, adapter, config });
    this.adapter = decision.adapter;
    if (decision.backend === 'wasm') {
      return this.useWasm(gpu || requested !== 'webgpu' ? decision.reason : `${decision.reason} (${reason})`, requested === 'webgpu');
    }
    // The adapter already looked at is the one used (an adapter gives one device).
    const backend = await WebGpuBackend.create(this.translator, {
      gpu: { requestAdapter: async () => adapter },
      onFallback: (error) => this.fellBack(error),
    });
    if (!backend) return this.useWasm(`WebGPU refused: ${WebGpuBackend.lastRefusal}`, requested === 'webgpu');
    injectFault(backend);
    this.backend = backend;
    this.backendName = 'webgpu';
    this.backendReason = decision.reason;
    this.gpuInfo = { uploadedBytes: backend.runtime.counters.uploadedBytes, f16Weights: backend.runtime.useF16Weights };
  }

  useWasm(reason, warn) {
    this.backendName = 'wasm';
    this.backendReason = reason;
    // decideBackend's reasons may already say what was asked for: do not say it twice.
    if (warn) this.warnings.push(`backend 'webgpu' was asked for, using 'wasm' instead: ${reason.replace(/^webgpu was asked for, but /, '')}`);
  }

  // The backend disabled itself after a GPU failure: wasm from now on.
  fellBack(error) {
    const message = `WebGPU failed, translating on wasm from now on: ${messageOf(error)}`;
    this.backendName = 'wasm';
    this.backendReason = `fell back after a GPU failure: ${messageOf(error)}`;
    this.warnings.push(message);
    try {
      this.onFallback?.(message);
    } catch { /* reporting must not break a translation */ }
  }

  info() {
    const i = this.translator.info();
    return {
      variant: this.variant,
      threads: i.threads,
      engine: i.backend,
      backend: this.backendName,
      backendReason: this.backendReason,
      adapter: adapterName(this.adapter),
      gpu: this.gpuInfo,
      warnings: [...this.warnings],
      // The engine's own limits (wasm/bindings.cc limits()), which translate() checks up front.
      limits: this.module.limits(),
      memory: {
        // wasm memory (model file, packed weights, caches); GPU memory of the uploaded weights
        wasmBytes: this.module.HEAPU8?.buffer.byteLength ?? null,
        gpuWeightBytes: this.gpuInfo?.uploadedBytes ?? 0,
      },
      model: {
        name: i.metadata?.name ?? null,
        sourceLanguage: i.metadata?.source_language ?? null,
        targetLanguage: i.metadata?.target_language ?? null,
        metadata: i.metadata,
        config: i.config,
        parameters: i.parameters,
        fileBytes: i.fileBytes,
      },
      startTimings: this.startTimings,
    };
  }

  /**
   * @returns {Promise<{results: object[], translateMs: number, backend: 'wasm'|'webgpu', gpu: object|null}>}
   *   backend: what finished the translation; gpu: the GPU's counters for it (null on wasm).
   *   signal: stops a translation on WebGPU before its next step (on wasm it runs to the end)
   */
  async translate(texts, options, signal = undefined) {
    const t0 = performance.now();
    if (this.backend && !this.backend.usable) this.dropGpu();  // lost while idle
    // Pass-through and the repetition guard are engine settings for the requests that follow.
    this.translator.setTextHandling(options.passthrough === true, options.repetitionGuard === true);
    let raw;
    let gpu = null;
    const backend = this.backend;
    if (backend?.usable) {
      backend.resetCounters();
      raw = await runSession(this.translator.begin(texts, options), backend, { signal });
      const c = backend.counters;
      gpu = { submissions: c.submissions, readbacks: c.readbacks, readBytes: c.readBytes, encodes: c.encodes, projections: c.projections };
      if (!backend.usable) this.dropGpu();
    } else {
      raw = this.translator.translate(texts, options);
    }
    const translateMs = performance.now() - t0;
    return {
      results: raw.map((r) => shapeTranslation(r, options.returnAlignment)),
      translateMs,
      backend: this.backend ? 'webgpu' : 'wasm',
      gpu,
    };
  }

  // Resolves when the GPU device is gone.
  dropGpu() {
    const freed = this.backend?.destroy() ?? Promise.resolve();
    this.backend = null;
    this.gpuInfo = null;
    return freed;
  }

  // Resolves when the Worker may be terminated: the GPU device's loss delivered (bounded wait, in
  // case a Dawn build never delivers it).
  async dispose() {
    const gpuFreed = this.dropGpu();
    if (this.translator && !this.translator.isDeleted()) this.translator.delete();
    this.module.PThread?.terminateAllThreads();
    this.translator = null;
    let timer;
    await Promise.race([gpuFreed, new Promise((resolve) => { timer = setTimeout(resolve, GPU_RELEASE_WAIT_MS); })]);
    clearTimeout(timer);
  }
}

function messageOf(e) {
  return e instanceof Error ? e.message : String(e);
}

// The GPU object: navigator.gpu (browsers, also in Workers), or in Node the optional npm package
// `webgpu` (Dawn; without a GPU it needs VK_ICD_FILENAMES pointing at a Vulkan ICD such as
// Chromium's SwiftShader). Resolves to { gpu } or { gpu: null, reason }.
async function openGpu(node) {
  if (!node) {
    const gpu = globalThis.navigator?.gpu;
    return gpu ? { gpu } : { gpu: null, reason: 'no navigator.gpu in the Worker' };
  }
  try {
    const webgpu = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'webgpu');
    Object.assign(globalThis, webgpu.globals);
    return { gpu: webgpu.create([]) };
  } catch (e) {
    return { gpu: null, reason: `in Node, WebGPU needs the npm package 'webgpu': ${messageOf(e).split('\n')[0]}` };
  }
}

// Tests only (Node): TFORMER_WEBGPU_FAULT=lose-device:N destroys the GPU device during the N-th
// projection of the engine's life, as a real device loss would (the pending readback fails).
function injectFault(backend) {
  const spec = isNode() ? globalThis.process.env.TFORMER_WEBGPU_FAULT : undefined;
  const match = /^lose-device:(\d+)$/.exec(spec ?? '');
  if (!match) return;
  let calls = 0;
  for (const name of ['project', 'projectCandidates']) {
    const method = backend[name].bind(backend);
    backend[name] = (...args) => {
      const answer = method(...args);
      if (++calls === Number(match[1])) backend.runtime.device.destroy();
      return answer;
    };
  }
}

function concatInt32(arrays) {
  const out = new Int32Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) { out.set(a, at); at += a.length; }
  return out;
}

function alignmentOf(s) {
  return {
    sourcePieces: s.sourcePieces,
    targetPieces: s.targetPieces,
    weights: s.alignment,  // Float32Array, row-major [targetPieces.length x sourcePieces.length]
  };
}

function shapeTranslation(raw, withAlignment) {
  const sentences = raw.sentences.map((s) => {
    const sentence = {
      source: s.source,
      text: s.text,
      tokens: s.tokens,
      score: s.score,
      sourceTokens: s.sourceTokens,
      sourcePieces: s.sourcePieces,
      targetPieces: s.targetPieces,
    };
    if (withAlignment) sentence.alignment = alignmentOf(s);
    if (s.nbest) sentence.nbest = s.nbest;
    return sentence;
  });
  const result = {
    text: raw.text,
    tokens: concatInt32(sentences.map((s) => s.tokens)),
    // One number per input: the mean of its sentences' (length-normalised) scores.
    score: sentences.length ? sentences.reduce((sum, s) => sum + s.score, 0) / sentences.length : 0,
    sentences,
  };
  if (withAlignment) {
    result.alignment = sentences.length ? paragraphAlignment(sentences)
      : { sourcePieces: [], targetPieces: [], weights: new Float32Array(0) };
  }
  return result;
}

// The engine: one instance of a wasm build and the Embind Translator made from one model, and,
// where the GPU is used, a WebGpuBackend answering the engine's step-wise TranslationSession
// (src/webgpu/, BRIDGE.md). It runs where the computing happens (the package's Worker).
// Results leave in the package's shape (results.js; types/index.d.ts: Translation).
//
// A GPU failure during a translation (device lost, out of memory, a refused submission) disables
// the backend; runSession answers the pending request and every later one on wasm with the same
// Translator, which keeps its own weights: no rebuild, no second copy of the model, and the
// translation completes. `onFallback` (set by the Worker) reports it once.
import { decideBackend, adapterName } from './select.js';
import { isNode } from './environment.js';
import { completeTranslation, completeSentence } from './results.js';
import { WebGpuBackend } from './webgpu/backend.js';
import { runSession } from './run-session.js';
import { TranslationError } from './errors.js';
import { glueFactory } from './glue.js';
import { EngineMemory } from './memory.js';
import { TextMemory } from './text-memory.js';

// A start that failed because the engine could not read the model: `refusal` is what the engine
// said (Translator.create turns it into a ModelFormatError naming the file).
export class ModelRefusedError extends Error {
  constructor(refusal, options) {
    super(`the engine could not read the model: ${refusal}`, options);
    this.name = 'ModelRefusedError';
    this.refusal = refusal;
  }
}

// The wasm instance trapped (a WebAssembly.RuntimeError) during a translation: the engine is
// unusable, and the host replaces it (EngineStoppedError for the caller).
export class EngineTrapError extends Error {
  constructor(trap) {
    super(`the engine trapped (${messageOf(trap)})`, { cause: trap });
    this.name = 'EngineTrapError';
  }
}

// How long dispose() waits for Dawn to report a destroyed device gone.
const GPU_RELEASE_WAIT_MS = 2000;

// The npm package that gives Node WebGPU (Dawn), when installed beside this one.
const WEBGPU_PACKAGE = 'webgpu';

// The start of the warning when 'webgpu' was asked for and wasm is used.
const WEBGPU_INSTEAD = "backend 'webgpu' was asked for, using 'wasm' instead: ";

export class Engine {
  /**
   * @param {{glueUrl: string, wasmModule: WebAssembly.Module, model: Uint8Array|null, threads: number, variant: string,
   *          backend: 'wasm'|'webgpu', backendReason?: string, requestedBackend?: string,
   *          marian?: {files: {name: string, bytes: Uint8Array}[], options: object}|null}} init
   *   marian: a Marian model folder, imported to a .tfm here (then `model` is not used); the .tfm
   *   is kept in `importedTfm` for the host (later starts load it directly)
   *   backend 'webgpu': a GPU may be used, decided here (select.js: decideBackend)
   *   memory: the translation memory's settings (memory.js: memorySettings), or null for none
   */
  static async create({ glueUrl, wasmModule, model, marian = null, second = null, secondMarian = null, threads, variant, backend,
    backendReason = null, requestedBackend = backend, memory = null }) {
    if (backend !== 'wasm' && backend !== 'webgpu') throw new Error(`Engine: unknown backend '${backend}'`);
    const t0 = performance.now();
    const createModule = await glueFactory(variant, glueUrl);
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
    let imported = null;
    let importedSecond = null;
    let secondTranslator = null;
    try {
      if (marian) {
        imported = module.importMarian(marian.files, marian.options ?? {});
        model = imported.tfm;
      }
      translator = new module.Translator(model, threads);
      // A pair through English: the second model (en->target), translating each sentence of the first.
      if (secondMarian) {
        importedSecond = module.importMarian(secondMarian.files, secondMarian.options ?? {});
        second = importedSecond.tfm;
      }
      if (second) secondTranslator = new module.Translator(second, threads);
    } catch (e) {
      translator?.delete();
      module.PThread?.terminateAllThreads();
      throw new ModelRefusedError(engineMessage(e), { cause: e });
    }
    const t2 = performance.now();
    const engine = new Engine(module, translator, variant, { instantiateMs: t1 - t0, modelMs: t2 - t1 });
    engine.second = secondTranslator;
    if (importedSecond) {
      engine.importedSecondTfm = importedSecond.tfm;
      engine.warnings.push(...importedSecond.warnings.map((w) => `model import (en->target): ${w}`));
    }
    if (imported) {
      engine.importedTfm = imported.tfm;
      engine.marian = { name: imported.name, modelFile: imported.modelFile, summary: imported.summary, warnings: imported.warnings };
      engine.warnings.push(...imported.warnings.map((w) => `model import: ${w}`));
    }
    engine.backendReason = backendReason ?? 'asked for';
    if (memory) engine.memory = await EngineMemory.create(module, [translator, secondTranslator].filter(Boolean), memory, engine.warnings);
    if (backend === 'webgpu') {
      const requested = requestedBackend === 'webgpu' ? 'webgpu' : 'auto';
      try {
        await engine.startGpu(requested);
      } catch (e) {
        engine.refuseGpu(`the WebGPU backend could not start: ${messageOf(e)}`, requested);
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
    this.webgpu = null;         // the WebGpuBackend while the GPU is used
    this.secondWebgpu = null;   // and that of the en->target model of a pair through English (same device)
    this.backend = 'wasm';      // 'wasm' | 'webgpu': where translations run (info.backend)
    this.backendReason = 'asked for';
    this.adapter = null;        // describeAdapter() summary of the adapter looked at, if any
    this.gpu = null;            // the GPU object (kept referenced: npm webgpu frees Dawn with it)
    this.gpuInfo = null;        // { uploadedBytes, f16Weights } of the upload
    this.warnings = [];
    this.onFallback = null;     // (message) => void, set by the Worker
    this.marian = null;         // what the importer said of a Marian folder: {name, modelFile, summary, warnings}
    this.importedTfm = null;    // the .tfm it made, until the Worker hands it to the host
    this.second = null;         // the en->target Translator of a pair through English
    this.importedSecondTfm = null;
    this.trap = null;           // the EngineTrapError after a trap: the instance is unusable
    this.memory = null;         // the EngineMemory (memory.js) when create() was given `memory`
  }

  // Looks for an adapter, applies the rule (decideBackend) and uploads the weights.
  async startGpu(requested) {
    const node = isNode();
    const opened = await openAdapter(node);
    this.gpu = opened.gpu ?? null;
    const config = this.translator.info().config;
    const decision = decideBackend({ requested, node, adapter: opened.adapter ?? null, config });
    this.adapter = decision.adapter;
    if (decision.backend === 'wasm') {
      // 'webgpu' asked for goes to wasm only without an adapter, and then `opened` says why.
      return requested === 'webgpu' ? this.noAdapter(opened.reason) : this.useWasm(decision.reason);
    }
    // The adapter already looked at is the one used (an adapter gives one device).
    const made = await WebGpuBackend.create(this.translator, {
      gpu: { requestAdapter: async () => opened.adapter },
      onFallback: (error) => this.fellBack(error),
    });
    if (!made.backend) return this.refuseGpu(`WebGPU refused: ${made.reason}`, requested);
    if (this.second) {
      // A pair through English: the second model's weights on the same device, each step's
      // requests answered by its model's backend; both run on the GPU or neither does.
      const second = await WebGpuBackend.create(this.second, { runtime: made.backend.runtime, onFallback: (error) => this.fellBack(error) });
      if (!second.backend) {
        await made.backend.destroy();
        return this.refuseGpu(`WebGPU refused the second model of the pair (en->target): ${second.reason}`, requested);
      }
      this.secondWebgpu = second.backend;
    }
    this.webgpu = made.backend;
    this.backend = 'webgpu';
    this.backendReason = decision.reason;
    this.gpuInfo = { uploadedBytes: made.backend.runtime.counters.uploadedBytes, f16Weights: made.backend.runtime.useF16Weights };
  }

  // wasm, for `reason` (info.backendReason); `warning`, if any, goes to info.warnings.
  useWasm(reason, warning = null) {
    this.backend = 'wasm';
    this.backendReason = reason;
    if (warning) this.warnings.push(warning);
  }

  // 'webgpu' was asked for, but there is no adapter (`why`): wasm, with a warning that says once
  // what was asked for.
  noAdapter(why) {
    this.useWasm(`webgpu was asked for, but ${why}`, `${WEBGPU_INSTEAD}${why}`);
  }

  // The GPU could not be used (`reason`): wasm, with a warning where 'webgpu' was asked for.
  refuseGpu(reason, requested) {
    this.useWasm(reason, requested === 'webgpu' ? `${WEBGPU_INSTEAD}${reason}` : null);
  }

  // The backend disabled itself after a GPU failure: wasm from now on.
  fellBack(error) {
    if (this.backend === 'wasm') return;  // the other model of a pair through English failed first
    const message = `WebGPU failed, translating on wasm from now on: ${messageOf(error)}`;
    this.backend = 'wasm';
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
      kernels: i.kernels,
      backend: this.backend,
      backendReason: this.backendReason,
      adapter: adapterName(this.adapter),
      gpu: this.gpuInfo,
      warnings: [...this.warnings],
      // The engine's own bounds (the bindings' limits()), which translate() checks up front.
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
      marian: this.marian,
    };
  }

  /**
   * @returns {Promise<{results: object[], translateMs: number, backend: 'wasm'|'webgpu', gpu: object|null, memoryHits: number}>}
   *   backend: what finished the translation; gpu: the GPU's counters for it (null on wasm);
   *   memoryHits: its sentences answered by the translation memory (each step's, through English).
   *   signal: stops a translation on WebGPU before its next step (on wasm it runs to the end)
   *   onSentences: streaming: ([{segment, paragraph, index, separator, sentence}]) => void, called
   *   as sentences end (the session hands them out; on wasm it is then stepped here too)
   *   pause: () => Promise, awaited between the steps of a translation on wasm, which is then
   *   stepped here (a pair through English too); `signal` stops it before its next step
   */
  async translate(texts, options, signal = undefined, onSentences = null, pause = null) {
    if (this.trap) throw this.trap;
    // Whole texts answered before (text-memory.js) are not computed again. Not for streaming
    // (its sentences leave as they end), nor where word confidence is asked for (the memory keeps
    // no log-probabilities, as the engine's does not).
    const textMemory = this.memory && !onSentences && !pause && options.confidence !== true ? this.memory.texts : null;
    if (!textMemory) return this.compute(texts, options, signal, onSentences, pause);
    const t0 = performance.now();
    const optionsKey = TextMemory.optionsKey(options);
    const known = texts.map((text) => textMemory.get(optionsKey, text));
    const missing = known.flatMap((result, i) => (result ? [] : [i]));
    const knownHits = known.reduce((n, result) => n + (result ? result.sentences.length : 0), 0);
    if (missing.length === 0) {
      return { results: known, translateMs: performance.now() - t0, backend: this.webgpu ? 'webgpu' : 'wasm', gpu: null,
        memoryHits: knownHits };
    }
    // A text that comes more than once (a page's repeated button) is computed once; its other
    // places get copies, counted as answered from the memory.
    const unique = [...new Set(missing.map((i) => texts[i]))];
    const computed = await this.compute(unique, options, signal, null, null);
    const fresh = new Map(unique.map((text, j) => [text, computed.results[j]]));
    for (const [text, result] of fresh) textMemory.set(optionsKey, text, result);
    const given = new Set();
    let repeatHits = 0;
    for (const i of missing) {
      const result = fresh.get(texts[i]);
      if (given.has(texts[i])) {
        known[i] = textMemory.get(optionsKey, texts[i]) ?? structuredClone(result);  // (one too large to keep)
        repeatHits += result.sentences.length;
      } else {
        known[i] = result;
        given.add(texts[i]);
      }
    }
    this.memory.translated(0);  // new whole texts: stored soon
    return { ...computed, results: known, translateMs: performance.now() - t0,
      memoryHits: computed.memoryHits + knownHits + repeatHits };
  }

  // translate() without the memory of whole texts.
  async compute(texts, options, signal, onSentences, pause) {
    const t0 = performance.now();
    const memoryBefore = this.memory?.stats();
    if (this.webgpu && !this.gpuUsable()) this.dropGpu();  // lost while idle
    let raw;
    let gpu = null;
    const webgpu = this.webgpu;
    const onCompleted = onSentences && ((completed) => {
      for (const c of completed) completeSentence(c.sentence, options.returnAlignment === true);
      onSentences(completed);
    });
    try {
      if (webgpu) {
        webgpu.resetCounters();
        this.secondWebgpu?.resetCounters();
        // A pair through English: each step's requests on its model's backend (need.step).
        const backends = this.second ? [webgpu, this.secondWebgpu] : webgpu;
        raw = await runSession(this.begin(texts, options, onCompleted !== null), backends, { signal, onCompleted });
        const c = webgpu.counters;
        const more = this.secondWebgpu?.counters ?? { encodes: 0, projections: 0 };
        gpu = { submissions: c.submissions, readbacks: c.readbacks, readBytes: c.readBytes, encodes: c.encodes + more.encodes,
          projections: c.projections + more.projections };
        if (!this.gpuUsable()) this.dropGpu();
      } else if (onSentences || pause) {
        // The same work as translate() (which is this loop in C++), stepped from here so that
        // each sentence can leave as it ends (through English: when its second step ends), and
        // the thread can do other work between steps.
        raw = await runSession(this.begin(texts, options, onSentences !== null), null, { signal, onCompleted, pause });
      } else if (this.second) {
        // Through English, sentence by sentence in the core (tformer/pivot.h).
        raw = this.translator.translateThrough(this.second, texts, options);
      } else {
        raw = this.translator.translate(texts, options);
      }
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) {
        // A trap (an out-of-bounds access, an `unreachable`, abort()): the instance's memory and
        // stacks are in no known state, so it runs nothing more (the Worker is replaced).
        this.trap = new EngineTrapError(e);
        throw this.trap;
      }
      throw refusal(e);
    }
    const translateMs = performance.now() - t0;
    let memoryHits = 0;
    if (this.memory) {
      const after = this.memory.stats();
      memoryHits = after.hits - memoryBefore.hits;
      this.memory.translated(after.misses - memoryBefore.misses);
    }
    return {
      results: raw.map((r) => completeTranslation(r, options.returnAlignment === true)),
      translateMs,
      backend: this.webgpu ? 'webgpu' : 'wasm',
      gpu,
      memoryHits,
    };
  }

  // A session of this engine's model, or of its pair through English (tformer/pivot.h); with
  // `stream`, each sentence goes through the second model as soon as the first one ended it.
  begin(texts, options, stream) {
    return this.second ? this.translator.beginThrough(this.second, texts, options, stream) : this.translator.begin(texts, options);
  }

  gpuUsable() {
    return Boolean(this.webgpu?.usable && (this.secondWebgpu?.usable ?? true));
  }

  // Resolves when the GPU device is gone (the second model's backend shares the first's device).
  dropGpu() {
    this.secondWebgpu?.destroy();
    this.secondWebgpu = null;
    const freed = this.webgpu?.destroy() ?? Promise.resolve();
    this.webgpu = null;
    this.gpuInfo = null;
    return freed;
  }

  // Resolves when the Worker may be terminated: the GPU device's loss delivered (bounded wait, in
  // case a Dawn build never delivers it).
  async dispose() {
    const gpuFreed = this.dropGpu();
    await this.memory?.save().catch(() => {});
    this.memory?.dispose();
    this.memory = null;
    if (this.translator && !this.translator.isDeleted()) this.translator.delete();
    if (this.second && !this.second.isDeleted()) this.second.delete();
    this.second = null;
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

// The wasm calls a request of the package's translate() makes itself; a session's steps are the
// package's own doing (run-session.js), so an error in one of them names the step.
const REQUEST_CALLS = ['translate', 'begin', 'translateThrough', 'beginThrough'];

// The engine's error (a JS Error from the bindings with code, phase, detail and input:
// wasm/bindings/error.h) in the package's words: its caller called the package's translate(), not a
// wasm call, so the message is what the engine said of the request, an input text named by its
// place. Anything else (a bug, an error outside the engine) passes as it is.
export function refusal(e) {
  if (typeof e?.code !== 'string' || typeof e?.detail !== 'string') return e;
  const input = Number.isInteger(e.input) ? e.input : null;
  const message = !REQUEST_CALLS.includes(e.call) ? e.message
    : input !== null ? `input text ${input + 1} ${e.detail}` : e.detail;
  return new TranslationError(message, { code: e.code, input, cause: e });
}

// What the engine said of a model it could not read (the bindings' `detail`), else the message.
function engineMessage(e) {
  return typeof e?.detail === 'string' ? e.detail : messageOf(e);
}

// The GPU object and its adapter: navigator.gpu (browsers, also in Workers), or in Node the
// optional npm package `webgpu` (Dawn; without a GPU it needs VK_ICD_FILENAMES pointing at a Vulkan
// ICD such as Chromium's SwiftShader). Resolves to { gpu, adapter }, or to { gpu, reason } without
// an adapter (gpu null where there is no GPU object at all).
async function openAdapter(node) {
  let gpu;
  if (!node) {
    gpu = globalThis.navigator?.gpu;
    if (!gpu) return { gpu: null, reason: 'there is no WebGPU adapter (no navigator.gpu in the Worker)' };
  } else {
    try {
      // Optional: named by a variable, so that bundlers and Vite's dev server do not look for it.
      const webgpu = await import(/* webpackIgnore: true */ /* @vite-ignore */ WEBGPU_PACKAGE);
      Object.assign(globalThis, webgpu.globals);
      gpu = webgpu.create([]);
    } catch (e) {
      return { gpu: null, reason: `there is no WebGPU adapter (in Node, WebGPU needs the npm package 'webgpu': ${messageOf(e).split('\n')[0]})` };
    }
  }
  try {
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    return adapter ? { gpu, adapter } : { gpu, reason: 'there is no WebGPU adapter' };
  } catch (e) {
    return { gpu, reason: `there is no WebGPU adapter (requestAdapter failed: ${messageOf(e)})` };
  }
}

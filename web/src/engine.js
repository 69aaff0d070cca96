// The engine: one instance of a wasm build and the Embind Translator made from one model. It runs
// where the computing happens (the package's Worker); everything here is synchronous once created.
// Results leave in the package's shape (types/index.d.ts: Translation).

export class Engine {
  /**
   * @param {{glueUrl: string, wasmModule: WebAssembly.Module, model: Uint8Array, threads: number, variant: string, backend: string}} init
   */
  static async create({ glueUrl, wasmModule, model, threads, variant, backend }) {
    // select.js resolves the backend; 'wasm' is the only one this engine has so far. A WebGPU
    // engine (issue 8) starts here, on the same Worker and messages.
    if (backend !== 'wasm') throw new Error(`Engine: backend '${backend}' is not implemented`);
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
      throw e;
    }
    const t2 = performance.now();
    return new Engine(module, translator, variant, { instantiateMs: t1 - t0, modelMs: t2 - t1 });
  }

  constructor(module, translator, variant, timings) {
    this.module = module;
    this.translator = translator;
    this.variant = variant;
    this.startTimings = timings;
  }

  info() {
    const i = this.translator.info();
    return {
      variant: this.variant,
      threads: i.threads,
      engine: i.backend,
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

  /** @returns {{results: object[], translateMs: number}} */
  translate(texts, options) {
    const t0 = performance.now();
    const raw = this.translator.translate(texts, options);
    const translateMs = performance.now() - t0;
    return { results: raw.map((r) => shapeTranslation(r, options.returnAlignment)), translateMs };
  }

  dispose() {
    if (this.translator && !this.translator.isDeleted()) this.translator.delete();
    this.module.PThread?.terminateAllThreads();
    this.translator = null;
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

// A paragraph's alignment: its sentences' matrices on the diagonal of one matrix, so that a whole
// input can be drawn at once (weights between different sentences are 0).
function paragraphAlignment(sentences) {
  if (sentences.length === 1) return sentences[0].alignment;
  const sourcePieces = sentences.flatMap((s) => s.alignment.sourcePieces);
  const targetPieces = sentences.flatMap((s) => s.alignment.targetPieces);
  const weights = new Float32Array(sourcePieces.length * targetPieces.length);
  let row0 = 0, col0 = 0;
  for (const { alignment: a } of sentences) {
    const rows = a.targetPieces.length, cols = a.sourcePieces.length;
    for (let r = 0; r < rows; r++) weights.set(a.weights.subarray(r * cols, (r + 1) * cols), (row0 + r) * sourcePieces.length + col0);
    row0 += rows;
    col0 += cols;
  }
  return { sourcePieces, targetPieces, weights };
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

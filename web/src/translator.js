// The public Translator: loads a model, starts the engine in a Worker (engine-host.js; where no
// Worker can be started, a Service Worker, in this thread: in-thread-host.js), queues translations
// (request-queue.js) and returns results with timings.
import { detectEnvironment } from './environment.js';
import { chooseEngine } from './select.js';
import { checkCreateOptions, checkPairsOptions, checkSignal, checkTexts, checkScheduling, engineOptions } from './options.js';
import { fetchPair, catalogPairs, FIREFOX_CATALOG } from './catalog.js';
import { loadModel } from './model-loader.js';
import { isModelFolder, checkModelFolder, loadModelFolder } from './model-folder.js';
import { variantFiles, compileWasm } from './wasm-files.js';
import { EngineHost } from './engine-host.js';
import { InThreadHost } from './in-thread-host.js';
import { RequestQueue, abortReason } from './request-queue.js';
import { ModelFormatError, SupersededError, TranslatorDisposedError, checkUnicode } from './errors.js';
import { chunksOf } from './chunks.js';
import { streamCalls, streamSchedule } from './stream-schedule.js';
import { joinTranslations } from './results.js';
import { primeEnvironment } from './environment.js';
import { memorySettings } from './memory.js';
import { canonicalTag } from './standard/language-tags.js';

// The first bytes of every .tfm file (docs/FORMAT.md).
const TFM_MAGIC = 'TFMODEL\0';

// Where a model came from, for messages: its path (Node files), its URL, or 'the model bytes given'.
function modelName(model) {
  if (model.source === 'memory') return 'the model bytes given';
  if (model.url?.startsWith('file:')) return decodeURIComponent(new URL(model.url).pathname);
  return model.url;
}

// A catalogue pair's languages as the web's Translator API takes them: canonical here ('DE' is
// 'de'), matched to the catalogue's by best fit in the engine ('de-AT' is its 'de').
function canonicalPair(o) {
  if (o.from === undefined) return o;
  const tag = (key) => {
    try {
      return canonicalTag(o[key]);
    } catch {
      throw new RangeError(`Translator.create: option '${key}' is not a language tag (BCP 47, such as 'fr' or 'pt-BR'): ${JSON.stringify(o[key])}`);
    }
  };
  return { ...o, from: tag('from'), to: tag('to') };
}

// The largest call of a keyed stream, in sentences (a superseded stream stops at the end of its
// call; CHUNK_CHARS holds about as many).
const KEYED_CALL_SENTENCES = 8;

export class Translator {
  /**
   * Loads a model and starts a translation engine. See types/index.d.ts for every option.
   * @param {import('../types/index.js').CreateOptions} options
   * @returns {Promise<Translator>}
   */
  static async create(options) {
    const started = performance.now();
    const o = canonicalPair(checkCreateOptions(options));
    // A Marian model folder ({files: [...]}): the engine imports it (model-folder.js).
    const importOptions = isModelFolder(o.model) ? checkModelFolder('Translator.create', o.model) : null;
    if (importOptions && (o.sha256 !== undefined || o.size !== undefined)) {
      throw new TypeError("Translator.create: a model folder takes 'sha256' and 'size' per file ({url, sha256, size}), not for the whole");
    }
    await primeEnvironment();
    const env = detectEnvironment();
    const choice = chooseEngine(o, env);
    let files = variantFiles(choice.variant, o.wasmBase);
    if (o.signal?.aborted) throw abortReason(o.signal);

    let compiling = compileWasm(files.wasm);
    if (choice.variant === 'relaxed') {
      // A package built without the relaxed-SIMD variant (or a server without its files): the
      // threaded build does the same work with SIMD128 kernels.
      compiling = compiling.catch((e) => {
        choice.warnings.push(`the relaxed-SIMD build could not be loaded (${e.message}); using the threaded build`);
        choice.variant = 'threaded';
        files = variantFiles('threaded', o.wasmBase);
        return compileWasm(files.wasm);
      });
    }
    compiling.catch(() => {});
    // The compiled module and the files of the variant it is (after any fallback above).
    const compiled = compiling.then((wasmModule) => ({ wasmModule, files }));
    compiled.catch(() => {});
    if (importOptions) return Translator.createFromFolder(o, importOptions, env, choice, compiled, started);
    if (o.from !== undefined) return Translator.createFromCatalog(o, env, choice, compiled, started);
    const model = await loadModel({ ...o }, env);
    const name = modelName(model);
    const what = model.source === 'memory' ? 'the model given as bytes' : `the model ${name}`;
    // The engine checks everything; these two cases are told here, with the file's name.
    if (model.bytes.byteLength < 24) {
      throw new ModelFormatError(`${what} is too small for a .tfm model file (${model.bytes.byteLength} bytes)`, { model: name });
    }
    const magic = String.fromCharCode(...model.bytes.subarray(0, 8));
    if (magic !== TFM_MAGIC) {
      throw new ModelFormatError(`${what} is not a .tfm model file (bad magic: this is not a .tfm model file; ` +
        `it starts with ${JSON.stringify(magic)})`, { model: name });
    }
    // Each engine start copies these bytes into its Worker, so they are kept for restarts: a
    // private copy of bytes the caller gave (which the caller may change or transfer later), and
    // exactly the model, not a larger buffer it may be a view of.
    const whole = model.bytes.byteOffset === 0 && model.bytes.byteLength === model.bytes.buffer.byteLength;
    const bytes = model.source === 'memory' || !whole ? model.bytes.slice() : model.bytes;
    return Translator.start({ o, env, choice, compiled, started, model, name, what, bytes, marian: null });
  }

  /** @private A Marian folder: its files are loaded here and imported by the engine in its Worker. */
  static async createFromFolder(o, importOptions, env, choice, compiled, started) {
    const folder = await loadModelFolder({ ...o }, env);
    const names = folder.files.map((f) => f.name);
    const listed = names.length > 6 ? `${names.slice(0, 6).join(', ')}, ...` : names.join(', ');
    const model = { source: 'files', url: null, sha256: null, warnings: folder.warnings, ms: folder.ms, fromCache: folder.fromCache, files: folder.sources };
    return Translator.start({ o, env, choice, compiled, started, model, name: `the model folder (${listed})`,
      what: `the model folder (${listed})`, bytes: null, marian: { files: folder.files, options: importOptions } });
  }

  /**
   * The language pairs of a model catalogue (default Firefox's), direct or through English:
   * [{from, to, pivot, architecture, downloadBytes}]. Only the catalogue's list is fetched.
   */
  static async pairs(options = {}) {
    const o = checkPairsOptions(options);
    return catalogPairs({ ...o, catalog: o.catalog === undefined ? FIREFOX_CATALOG : String(o.catalog) });
  }

  /** @private A pair of a model catalogue: its files fetched (or cached), checked and imported in the Worker. */
  static async createFromCatalog(o, env, choice, compiled, started) {
    const t0 = performance.now();
    const server = o.catalog === undefined ? FIREFOX_CATALOG : String(o.catalog);
    const pair = await fetchPair(o.from, o.to, { catalog: server, channel: o.channel, architecture: o.architecture, cache: o.cache,
      wasmBase: o.wasmBase, signal: o.signal, onProgress: o.onProgress }).catch((e) => {
      // A pair the catalogue lacks: the engine names the nearest pairs; all of them are a call away.
      if (e?.cause?.code === 'invalid_catalog' && / cannot translate /.test(e.message)) e.message += '; Translator.pairs() lists them all';
      throw e;
    });
    const [first, second] = pair.steps;
    const route = pair.plan.steps.map((s) => `${s.source}->${s.target}`).join(', ');
    const name = `the catalogue's ${route} model${second ? 's' : ''} (${server})`;
    const model = { source: 'catalog', url: server, sha256: null, warnings: [], ms: performance.now() - t0, fromCache: pair.fromCache,
      files: pair.steps.flatMap((s) => s.files.map((f) => ({ name: f.name, source: pair.fromCache ? 'cache' : 'network', url: null,
        sha256: null, bytes: f.bytes.byteLength, gzip: false }))),
      catalog: { from: pair.plan.source, to: pair.plan.target, pivot: pair.plan.pivot, architecture: pair.plan.architecture, downloadBytes: pair.plan.downloadBytes,
        steps: pair.plan.steps.map((s) => ({ from: s.source, to: s.target, architecture: s.architecture, version: s.version })) } };
    return Translator.start({ o, env, choice, compiled, started, model, name, what: name, bytes: null,
      marian: { files: first.files, options: {} }, secondMarian: second ? { files: second.files, options: {} } : null });
  }

  /** @private Starts the engine on a .tfm (`bytes`) or a Marian folder (`marian`; with `secondMarian`, a pair through English). */
  static async start({ o, env, choice, compiled, started, model, name, what, bytes, marian, secondMarian = null }) {
    const progress = o.onProgress ?? (() => {});
    const { wasmModule, files } = await compiled;
    const loadedMs = performance.now() - started;
    progress({ phase: 'starting', variant: choice.variant, threads: choice.threads });
    // The host keeps `bytes` for engine restarts whatever the backend: a GPU failure needs no
    // rebuild (the engine's wasm Translator keeps its own weights and finishes the translation).
    let translator = null;
    const early = [];  // fallbacks reported before the Translator exists
    const onFallback = (message) => (translator ? translator.fellBack(message) : early.push(message));
    const start = { glueUrl: files.glue, wasmModule, model: bytes, marian, secondMarian, threads: choice.threads, variant: choice.variant,
      backend: choice.backend, backendReason: choice.backendReason, requestedBackend: choice.requestedBackend,
      memory: memorySettings('Translator.create', o.memory, String) };
    const host = env.worker ? new EngineHost(start, env.worker, { onFallback }) : new InThreadHost(start, { onFallback });
    let abortStart;
    const aborted = new Promise((_, reject) => {
      abortStart = () => {
        host.dispose(abortReason(o.signal));
        reject(abortReason(o.signal));
      };
    });
    o.signal?.addEventListener('abort', abortStart, { once: true });
    let engine;
    try {
      engine = await Promise.race([host.start(), aborted]);
    } catch (e) {
      host.dispose(e);
      // The engine's own reading of the file failed (truncated, unsupported): name the file.
      if (typeof e?.modelRefusal === 'string') {
        throw new ModelFormatError(`${what} could not be read: ${e.modelRefusal}`, { model: name, cause: e });
      }
      throw e;
    } finally {
      o.signal?.removeEventListener('abort', abortStart);
    }
    const readyMs = performance.now() - started;
    progress({ phase: 'ready' });
    if (marian) bytes = host.startMessage.model;  // the imported .tfm, which restarts load

    const info = {
      variant: choice.variant,
      threads: engine.threads,
      backend: engine.backend,
      backendReason: engine.backendReason,
      requestedBackend: choice.requestedBackend,
      adapter: engine.adapter,
      kernels: engine.kernels,
      // Deprecated: the old name of `kernels`, kept for callers that read it.
      engine: engine.kernels,
      crossOriginIsolated: env.crossOriginIsolated,
      worker: env.worker,
      warnings: [...choice.warnings, ...engine.warnings, ...model.warnings],
      memory: {
        ...engine.memory,
        // the model bytes the page keeps to restart the engine (after an abort)
        keptModelBytes: bytes.byteLength + (host.startMessage.second?.byteLength ?? 0),
      },
      gpu: engine.gpu,
      model: {
        ...engine.model,
        url: model.url,
        sha256: model.sha256,
        source: model.source,
        // A Marian folder: what the importer read and said, and each file's origin.
        ...(marian ? { marian: engine.marian, files: model.files } : {}),
        // A catalogue pair: the route (one model, or two through English), versions, architecture.
        ...(model.catalog ? { catalog: model.catalog } : {}),
      },
      load: {
        // model bytes (download, cache or file) and wasm compilation run side by side
        modelMs: round(model.ms),
        fromCache: model.fromCache,
        bytes: bytes.byteLength,
        instantiateMs: round(engine.startTimings.instantiateMs),
        engineMs: round(engine.startTimings.modelMs),
        gpuMs: engine.startTimings.gpuMs === undefined ? null : round(engine.startTimings.gpuMs),
        beforeStartMs: round(loadedMs),
        totalMs: round(readyMs),
      },
      files,
    };
    translator = new Translator(host, info, o.onFallback, engine.limits, o.glossary);
    for (const message of early) translator.fellBack(message);
    return translator;
  }

  /** @private use Translator.create */
  constructor(host, info, onFallback, limits, glossary) {
    this.host = host;
    this.glossary = glossary ?? null;  // create()'s, for the requests that give none
    this.limits = limits;  // the engine's (options.js checks against them)
    this.queue = new RequestQueue();
    this.disposed = false;
    this.details = info;
    this.onFallback = onFallback ?? null;
    // The translation memory (create({ memory })), or null.
    this.memory = host.startMessage.memory ? new MemoryHandle(this) : null;
  }

  /** @private a request's engine options with create()'s glossary where the request gives none */
  withGlossary(engine) {
    return engine.glossary === undefined && this.glossary ? { ...engine, glossary: this.glossary } : engine;
  }

  /** @private the engine's GPU failed: wasm from now on (the translation in progress completes). */
  fellBack(message) {
    this.details.warnings.push(message);
    this.details.backend = 'wasm';
    this.details.backendReason = `fell back after a GPU failure (${message})`;
    this.details.gpu = null;
    if (this.details.memory) this.details.memory.gpuWeightBytes = 0;
    try {
      this.onFallback?.({ from: 'webgpu', to: 'wasm', message });
    } catch (e) {
      console.error(e);  // a throwing callback must not break the translation
    }
  }

  /** What runs: variant, threads, backend, warnings, the model, load timings. */
  get info() {
    return { ...this.details, warnings: [...this.details.warnings], restarts: this.host.restarts, queued: this.queue.size };
  }

  /**
   * Translates a string (resolves to one Translation) or an array of strings (resolves to an
   * array of them, in order). Requests queue; `signal` cancels a queued or running one. A request
   * with a `key` runs in chunks of whole sentences (chunks.js); one with `supersede: true` also
   * rejects the earlier requests with its key (SupersededError), which stop at their next chunk.
   */
  translate(text, options = {}) {
    try {
      if (this.disposed) throw new TranslatorDisposedError();
      const { list, single } = checkTexts(text);
      checkUnicode(list);
      const signal = checkSignal('translate', options?.signal);
      const { key, supersede } = checkScheduling('translate', options);
      const engine = this.withGlossary(engineOptions(options, this.limits));
      if (supersede) this.queue.supersede(key, new SupersededError(key));
      const run = async ({ queuedMs, enqueued, abandoned }) => {
        const { results, translateMs, backend, gpu, memoryHits } = await this.work(list, engine, { key, abandoned });
        const totalMs = performance.now() - enqueued;
        const targetTokens = results.reduce((n, r) => n + r.tokens.length, 0);
        const timings = {
          queueMs: round(queuedMs),
          translateMs: round(translateMs),
          totalMs: round(totalMs),
          targetTokens,
          tokensPerSecond: translateMs > 0 ? round(targetTokens / (translateMs / 1000)) : null,
          backend,  // what finished this request: 'webgpu', or 'wasm' (also after a fallback in it)
          gpu: gpu ?? null,  // GPU round trips and bytes read back for this request (WebGPU only)
          memoryHits: memoryHits ?? 0,  // sentences answered by the translation memory
        };
        for (const r of results) r.timings = timings;
        return single ? results[0] : results;
      };
      return this.queue.push(run, (reason) => this.host.interrupt(reason), signal, key);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * @private One request's engine work: one call of the engine, or, for a request with a key,
   * one call per chunk of each text, joined as one call would give them, and none after the
   * request was abandoned (superseded, aborted: nobody waits for the rest). A stream
   * (`onSentences`: as EngineHost.translate) is scheduled by streamWork.
   */
  async work(list, engine, { key = null, abandoned = () => false, onSentences = null } = {}) {
    if (onSentences) return this.streamWork(list, engine, { keyed: key !== null, abandoned, onSentences });
    if (key === null) return this.host.translate(list, engine);
    const withAlignment = engine.returnAlignment === true;
    const out = { results: [], translateMs: 0, backend: this.details.backend, gpu: null, memoryHits: 0 };
    for (const text of list) {
      const chunks = chunksOf(text, this.details.model.sourceLanguage ?? undefined);
      const parts = [];
      for (const chunk of chunks) {
        if (abandoned()) return out;
        const r = await this.host.translate([chunk.text], engine);
        parts.push(r.results[0]);
        out.translateMs += r.translateMs;
        out.memoryHits += r.memoryHits ?? 0;
        out.backend = r.backend;
        out.gpu = r.gpu && Object.fromEntries(Object.entries(r.gpu).map(([k, v]) => [k, v + (out.gpu?.[k] ?? 0)]));
      }
      out.results.push(joinTranslations(parts, chunks.map((c) => c.separator), withAlignment, chunks.map((c) => c.start)));
    }
    return out;
  }

  /**
   * @private A stream's engine work (stream-schedule.js): the first sentences in small calls, so
   * that the first comes early, the rest in large ones (how small and how large depends on the
   * engine's threads); each call's sentences numbered on as
   * sentences of the whole request, and each text's pieces joined as one call would give them.
   * A keyed stream keeps its calls small (KEYED_CALL_SENTENCES), as keyed requests keep their
   * chunks: a superseded one stops at the end of its call.
   */
  async streamWork(list, engine, { keyed, abandoned, onSentences }) {
    const withAlignment = engine.returnAlignment === true;
    const schedule = streamSchedule(this.details.threads);
    const calls = streamCalls(list, this.details.model.sourceLanguage ?? undefined,
      keyed ? { ...schedule, large: KEYED_CALL_SENTENCES } : schedule);
    const out = { results: [], translateMs: 0, backend: this.details.backend, gpu: null, memoryHits: 0 };
    const parts = list.map(() => []);       // per text: the translations of its pieces
    const separators = list.map(() => []);  // per text: what follows each piece but the last
    const starts = list.map(() => []);      // per text: where each piece begins in it
    const sentences = list.map(() => 0);    // per text: sentences of its pieces in earlier calls
    let segments = 0;                       // sentences of the request in earlier calls
    for (const call of calls) {
      if (abandoned()) return out;
      const first = segments;
      const numbered = (ended) => onSentences(ended.map((s) => {
        const piece = call[s.paragraph];
        return { ...s, segment: first + s.segment, paragraph: piece.paragraph, index: sentences[piece.paragraph] + s.index,
          separator: s.index === 0 ? piece.separator : s.separator };
      }));
      const r = await this.host.translate(call.map((piece) => piece.text), engine, numbered);
      call.forEach((piece, i) => {
        const done = r.results[i];
        if (parts[piece.paragraph].length) separators[piece.paragraph].push(piece.separator);
        parts[piece.paragraph].push(done);
        starts[piece.paragraph].push(piece.start);
        sentences[piece.paragraph] += done.sentences.length;
        segments += done.sentences.length;
      });
      out.translateMs += r.translateMs;
      out.memoryHits += r.memoryHits ?? 0;
      out.backend = r.backend;
      out.gpu = r.gpu && Object.fromEntries(Object.entries(r.gpu).map(([k, v]) => [k, v + (out.gpu?.[k] ?? 0)]));
    }
    out.results = parts.map((p, i) => joinTranslations(p, separators[i], withAlignment, starts[i]));
    return out;
  }

  /**
   * Translates like translate() and yields each sentence as soon as it is done, in input order:
   * `for await (const s of translator.translateStream(text, options))`. Each item is that
   * sentence as translate() gives it (`sentences[index]` of input `paragraph`), with `paragraph`,
   * `index` and `separator` (what the input's `text` has before it: '', ' ' or line breaks). The
   * request queues as translate()'s do; `signal` aborts it (the iterator throws the signal's
   * reason, an AbortError by default, and the engine stops working on it); leaving the loop early
   * stops it too. A bad argument throws here, before anything is queued. Not with `html: true`.
   * `key` and `supersede` as translate(): a superseded stream throws SupersededError.
   */
  translateStream(text, options = {}) {
    if (this.disposed) throw new TranslatorDisposedError();
    const { list } = checkTexts(text);
    checkUnicode(list);
    const signal = checkSignal('translateStream', options?.signal);
    const { key, supersede } = checkScheduling('translateStream', options);
    if (options?.html) {
      throw new TypeError("translateStream: option 'html' is not supported: a text's markup is placed once all its " +
        'sentences are done (use translate())');
    }
    const engine = this.withGlossary(engineOptions(options, this.limits, 'translateStream'));
    if (supersede) this.queue.supersede(key, new SupersededError(key));
    return this.stream(list, engine, signal, key);
  }

  /** @private the iterator of translateStream() */
  async *stream(list, engine, signal, key) {
    if (signal?.aborted) throw abortReason(signal);
    // The request's own signal: the caller's, or the caller leaving the loop before the end.
    const stop = new AbortController();
    const onAbort = () => stop.abort(abortReason(signal));
    signal?.addEventListener('abort', onAbort, { once: true });
    const ended = new Map();  // segment -> sentence, until its turn comes
    let turn = 0;             // the segment to yield next (segments are the sentences in input order)
    let outcome = null;       // {ok, error} once the request settled
    let wake = null;
    const notify = () => {
      const w = wake;
      wake = null;
      w?.();
    };
    const onSentences = (sentences) => {
      for (const s of sentences) ended.set(s.segment, s);
      notify();
    };
    const request = this.queue.push(({ abandoned }) => this.work(list, engine, { key, abandoned, onSentences }),
      (reason) => this.host.interrupt(reason), stop.signal, key);
    request.then(() => { outcome = { ok: true }; notify(); }, (error) => { outcome = { ok: false, error }; notify(); });
    try {
      for (;;) {
        // An abort counts at once, before the request's rejection arrives (a microtask later).
        if (stop.signal.aborted) throw stop.signal.reason;
        if (outcome && !outcome.ok) throw outcome.error;
        if (ended.has(turn)) {
          const { paragraph, index, separator, sentence } = ended.get(turn);
          ended.delete(turn++);
          yield Object.assign(sentence, { paragraph, index, separator });
        } else if (outcome) {
          return;
        } else {
          await new Promise((resolve) => { wake = resolve; });
        }
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (!outcome) stop.abort(new DOMException('The stream was closed before its end.', 'AbortError'));
    }
  }

  /** Stops the engine and rejects what is queued or running. The Translator is unusable after. */
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    const reason = new TranslatorDisposedError();
    this.queue.clear(reason);
    this.host.dispose(reason);
  }
}

// Translator.memory: the translation memory in the engine's Worker (memory.js).
class MemoryHandle {
  constructor(translator) {
    this.translator = translator;
  }

  /** {entries, bytes, hits, misses, database, saved} */
  stats() {
    return this.call('stats');
  }

  /** Writes the memory to IndexedDB now (with `persist`; it is also written shortly after each translation). */
  save() {
    return this.call('save');
  }

  /** Empties the memory and removes its stored copy. */
  clear() {
    return this.call('clear');
  }

  call(action) {
    if (this.translator.disposed) return Promise.reject(new TranslatorDisposedError());
    return this.translator.host.memory(action);
  }
}

function round(ms) {
  return Math.round(ms * 10) / 10;
}

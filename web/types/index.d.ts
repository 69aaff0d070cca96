// Type declarations of tformer-wasm: neural machine translation in the browser and Node,
// computed by a C++ Transformer engine compiled to WebAssembly. See README.md.

/**
 * Where a model comes from: a .tfm as a URL (or, in Node, a file path), its bytes, or a registry
 * entry; or a Marian model folder (Firefox Translations, OPUS-MT) as downloaded: MarianFolder.
 */
export type ModelSource = string | URL | ArrayBuffer | ArrayBufferView | RegistryEntry | MarianFolder;

/**
 * One file of a Marian model folder. Its name in the folder (which the importer goes by) is the
 * last component of a URL's or path's path, File.name, or `name`. A name ending in `.gz` is
 * decompressed (DecompressionStream('gzip')) and known without the `.gz`.
 */
export type MarianFile =
  | string
  | URL
  /** A download, checked like a .tfm: a sha256 or size mismatch is refused (ModelLoadError). */
  | { url: string | URL; name?: string; sha256?: string; size?: number }
  /** A File of a file picker or a drop (its name is File.name). */
  | File
  | { name: string; data: ArrayBuffer | ArrayBufferView | Blob };

/**
 * A Marian model folder: the engine converts it to .tfm in its Worker (no Python needed), with the
 * rules of `models/tfm import-marian` (models/MARIAN-IMPORT.md): what converts, what is refused
 * (a ModelFormatError naming the option, file or parameter), what draws a warning. Files it does
 * not read (README, LICENSE...) are ignored.
 */
export interface MarianFolder {
  /** The model (.bin float32 or intgemm8, or .npz), the vocabularies (.spm, or .yml tables with source.spm/target.spm), decoder.yml, lex.*.s2t.bin. */
  files: MarianFile[];
  /** The model file when the folder holds several (e.g. 'model.deen.intgemm.alphas.bin'). */
  modelFile?: string;
  /** Source and target vocabularies (one name: both). */
  vocabs?: string | [string] | [string, string];
  /** SentencePiece models for .yml vocabularies (default source.spm, target.spm). */
  spms?: string | [string] | [string, string];
  /** Marian options (a training config.yml) for a model without special:model.yml. */
  config?: string;
  /** How matrices are kept: 'keep' (default: float32 stays f32, intgemm8 becomes int8), or all as 'f32', 'f16', 'int8'. */
  weights?: 'keep' | 'f32' | 'f16' | 'int8';
  /** The model's name (default: the model file's name without its extension). */
  name?: string;
  /** Longest sequence handled in one piece (default 512). */
  maxPositions?: number;
}

/**
 * The compute backend. 'wasm': the engine in WebAssembly. 'webgpu': the encoder and the output
 * projection on WebGPU, the rest in wasm (any adapter, software ones included; in Node it needs the
 * optional npm package `webgpu`); without an adapter it runs on wasm with a warning. 'auto'
 * (default): WebGPU only on a hardware adapter (never a fallback/software one) with a model of
 * d_model x vocab_size >= 2^23 (AUTO_MIN_PROJECTION), else wasm; always wasm in Node.
 */
export type Backend = 'auto' | 'wasm' | 'webgpu';

/** 'threaded': SIMD + threads (needs SharedArrayBuffer: a cross-origin-isolated page, or Node). 'single': SIMD, one thread. */
export type Variant = 'relaxed' | 'threaded' | 'single';

/** A Cache API cache, or anything with the same three methods. */
export interface CacheLike {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
  delete(request: string): Promise<boolean>;
}

export type ProgressEvent =
  /** Downloading: `total` is 0 when neither the server nor the registry says the size. */
  | { phase: 'download'; loaded: number; total: number; url: string; file?: number; files?: number; name?: string;
      /** A catalogue pair: its models ('fr->en, en->de'); `total` counts all of their files not cached. */
      pair?: string }
  /**
   * The model bytes are here (from the network, the cache, a file or memory). For a Marian folder
   * the download and loaded events are per file: `file` is its index in `files`, `name` its name.
   */
  | { phase: 'loaded'; loaded: number; total: number; fromCache: boolean; file?: number; files?: number; name?: string }
  /** The cached copy failed its sha256 check; it was deleted and is downloaded again. */
  | { phase: 'refetch'; reason: string }
  /** The engine is starting in its Worker. */
  | { phase: 'starting'; variant: Variant; threads: number }
  | { phase: 'ready' };

/** The GPU failed and wasm took over (CreateOptions.onFallback). */
export interface FallbackEvent {
  from: 'webgpu';
  to: 'wasm';
  /** What failed, as also added to `info.warnings`. */
  message: string;
}

/** What the GPU did for one request (Timings.gpu): each submission and readback is a CPU<->GPU round trip. */
export interface GpuCounters {
  submissions: number;
  readbacks: number;
  /** Bytes read back from the GPU. */
  readBytes: number;
  /** Encoder batches and decoder steps answered by the GPU. */
  encodes: number;
  projections: number;
}

export interface CreateOptions {
  /** The .tfm model: URL, path (Node), bytes, or a registry entry (which brings its sha256 and size). */
  model: ModelSource;
  /** Expected SHA-256 of the model file (64 hex digits). A mismatch is refused (ModelLoadError). */
  sha256?: string;
  /** Expected size in bytes (also the progress total when the server sends no Content-Length). */
  size?: number;
  /** Threads for the threaded build (default: min(cores, 4)). The single-threaded build always uses 1. */
  threads?: number;
  /** Default 'auto'. */
  backend?: Backend;
  /**
   * Default 'auto': 'relaxed' (the threaded build with relaxed-SIMD kernels) when SharedArrayBuffer
   * is usable and the browser validates relaxed SIMD, else 'threaded' when SharedArrayBuffer is
   * usable, else 'single'.
   */
  variant?: 'auto' | Variant;
  /** Download progress and load phases. */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Called once when the GPU fails (device lost, out of memory, a kernel error) and wasm takes over;
   * the translation in progress completes on wasm, and so do later ones. Also in `info.warnings`.
   */
  onFallback?: (event: FallbackEvent) => void;
  /**
   * Where downloaded models are kept: true (default: the Cache API cache 'tformer-models-v1' when
   * the runtime has one), false (never), a cache name, or a cache object. For a catalogue pair:
   * in Node the folder the CLI uses ($XDG_CACHE_HOME/tformer or ~/.cache/tformer; a string is that
   * folder), in browsers the Cache API cache 'tformer-catalog-v1' (a string is its name).
   */
  cache?: boolean | string | CacheLike;
  /** Cancels the download and the engine start. */
  signal?: AbortSignal;
  /** The folder holding the wasm builds (default: the package's dist/). */
  wasmBase?: string | URL;
  /**
   * A translation memory (default false): sentences translated before with the same model file and
   * the same options are answered from it, not computed again. true: in memory, for the
   * Translator's lifetime; an object for its limits and to keep it in IndexedDB. See Translator.memory.
   */
  memory?: boolean | MemoryOptions;
  /** The glossary of every translate() call that gives none of its own (see TranslateOptions.glossary). */
  glossary?: GlossaryEntry[];
}

export interface MemoryOptions {
  /**
   * Keep the memory in IndexedDB (browsers): true for the database 'tformer-memory-v1'
   * (DEFAULT_MEMORY_DATABASE), or a database name. One image per model file; a damaged one is
   * refused with a warning (info.warnings) and replaced. Default false.
   */
  persist?: boolean | string;
  /** Most sentences kept (the least recently used go first). Default: the engine's, 20000. */
  maxEntries?: number;
  /** Most bytes kept (sources, translations and what comes with them). Default: the engine's, 64 MiB. */
  maxBytes?: number;
}

export interface MemoryStats {
  entries: number;
  bytes: number;
  /** Sentences answered from the memory since the engine started (or the memory was cleared). */
  hits: number;
  /** Sentences looked up and computed. */
  misses: number;
  /**
   * Whole texts translated before (a page's blocks, menus, buttons), answered with their complete
   * result without entering the engine: how many are kept, their approximate bytes, and the
   * sentences answered that way (counted in `hits` too). Bounded by the same maxEntries and maxBytes.
   */
  texts: { entries: number; bytes: number; hits: number };
  /** The IndexedDB database it is kept in, or null. */
  database: string | null;
  /** Kept in IndexedDB as it is now. */
  saved: boolean;
}

/** Translator.memory: the translation memory in the engine's Worker. */
export interface TranslationMemory {
  stats(): Promise<MemoryStats>;
  /** Writes it to IndexedDB now (with persist; it is also written shortly after each translation). */
  save(): Promise<MemoryStats>;
  /** Empties it and removes its stored copy. */
  clear(): Promise<MemoryStats>;
}

/**
 * A glossary term. Where `source` stands in a sentence as a whole word (or words), the translation
 * says `target`; without a target the term is kept as the sentence writes it (do not translate).
 */
export interface GlossaryEntry {
  /** The term in the source language: not empty, no whitespace at either end, no control characters. */
  source: string;
  /** The translation to use; left out: keep the source term as it is. */
  target?: string;
  /** Match `source` only as written (default true); false: in any case. */
  caseSensitive?: boolean;
}

export interface TranslateOptions {
  /** Beam size; 1 (default) is greedy search. 1..64. */
  beam?: number;
  /**
   * Longest translation in target tokens per sentence; 0 (default) = the engine's length rule. The
   * model's positions bound it whatever is asked.
   */
  maxLength?: number;
  /** Hypotheses kept per sentence (<= beam), in `sentences[i].nbest`. Default 1. */
  nbest?: number;
  /** Return the cross-attention alignment (default false). */
  alignment?: boolean;
  /** Split paragraphs into sentences before translating (default true). */
  splitSentences?: boolean;
  /**
   * The longest input text, in characters (Unicode code points); a longer one makes the request
   * reject with a message naming it. Default 100000; 0 = no limit.
   */
  maxInputChars?: number;
  /**
   * Sentences longer than this many source tokens are cut into pieces of at most this many tokens,
   * each translated on its own. Default 0: the model's own limit (its positions minus BOS/EOS),
   * which is also the most a value here can give.
   */
  maxSentenceTokens?: number;
  /**
   * Pass through what the model cannot translate (default true): numbers (with an attached
   * currency sign or unit), URLs, e-mail addresses, emoji and other symbols, and characters outside
   * the model's vocabulary are taken out before translating and put back into the translation as
   * they were, at a word boundary (where the model's attention clearly says, else at the same
   * relative place; at the end when only closing punctuation followed them). false: the model's
   * own output.
   */
  passthrough?: boolean;
  /**
   * Stop decoding loops (default true): a token that would repeat the last token a fourth time,
   * or a group of 2-4 tokens a third time, back to back, is not taken. false: the model's own output.
   */
  repetitionGuard?: boolean;
  /**
   * Each text is a fragment of HTML (default false); the result's `text` is the translated HTML.
   * Tags, attributes and comments are kept (entities decoded for the model and written back as
   * the source wrote &quot;, &#39;, &nbsp;; &, <, > escaped); block elements (p, div, li, td, h1...), br
   * and hr split the text; inline elements (a, b, i, em, strong, span, sub, sup...) are placed on
   * the translated words by the model's alignment. script, style and `translate="no"` subtrees
   * stay as they are, and so do code, pre, kbd and samp unless `htmlTranslateCode`. Malformed
   * markup is repaired (an unclosed element is closed, a stray end tag dropped, a bare `<` is
   * text); nesting deeper than 256 elements is refused.
   */
  html?: boolean;
  /** With `html`: translate code, pre, kbd and samp elements too (default false). */
  htmlTranslateCode?: boolean;
  /**
   * Models with a lexical shortlist (Firefox Translations' `lex.*.s2t.bin`, imported with the
   * model) score each sentence's shortlisted target words only, as Bergamot does: faster, and the
   * same words Bergamot chooses. `false` scores every word of the vocabulary (default true).
   */
  shortlist?: boolean;
  /**
   * Terms to translate your way, or to keep (default none; at most 10000). Matched on whole words,
   * longest first. The model translates the whole sentence; where its translation does not already
   * say a term's target, the target words its alignment gives the term are replaced by the target
   * as written (not inflected), or, where no word aligns to it, the target goes after the word of
   * the source word before it. With `html`, targets are text: "<" and "&" come out escaped.
   * Overrides the glossary given to Translator.create.
   */
  glossary?: GlossaryEntry[];
  /**
   * Each sentence gets `confidence`: a score and the confidence of each of its words, from the
   * decoder's probabilities (default false). It does not change the translation. With `html`,
   * the words' positions are in the sentence's plain `text`, not in the HTML.
   */
  confidence?: boolean;
  /** Cancels the request, whether queued or running. The promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * A name for a line of requests (one text box): the request runs in chunks of whole sentences of
   * about CHUNK_CHARS characters (chunksOf), joined into one result, so that a newer request with
   * the same key and `supersede` can drop it between two chunks.
   */
  key?: string;
  /**
   * With `key`: the earlier requests with this key reject at once with a SupersededError; a
   * queued one never runs, the running one stops at the end of its chunk (the engine is not
   * restarted). Default false.
   */
  supersede?: boolean;
}

/**
 * [begin, end) of a string, in string indices (UTF-16 code units, as `slice` takes them):
 * `text.slice(begin, end)` is what the range holds.
 */
export type TextRange = [number, number];

/**
 * Cross-attention weights between source and target pieces, ready to draw, with the text each
 * piece stands for. Ranges come from SentencePiece's piece offsets: a piece is normalised and
 * carries "▁" for the space before it ("▁Wetter", three "." for "…", "fi" for "ﬁ"), its range
 * is where it stood (" Wetter", "…" on the last of the three, "ﬁ"). A piece's range holds the
 * space before it within its sentence; end-of-sentence (and a model's beginning-of-sentence)
 * stands for nothing: an empty range where its sentence ends (begins). Where one character
 * became several pieces, all but the last have an empty range. What passthrough kept out of
 * the model (numbers, emoji, ...) lies outside every piece's range.
 */
export interface Alignment {
  /** SentencePiece pieces of the source (one per source token, end-of-sentence included). */
  sourcePieces: string[];
  /** Pieces of the translation (one per target token, end-of-sentence included). */
  targetPieces: string[];
  /**
   * Where each source piece stands: of the sentence's `source` for a sentence's alignment, of
   * the input text for a Translation's, of the sentences' sources joined by their separators for
   * paragraphAlignment(). Absent from a Translation's alignment in HTML mode.
   */
  sourceRanges?: TextRange[];
  /** Where each target piece stands: of the sentence's `text`, the Translation's `text`, or the sentences' texts joined. */
  targetRanges?: TextRange[];
  /** Where each sentence stands in the source (not in a sentence's own alignment; not in HTML mode). */
  sourceSentences?: TextRange[];
  /** Where each sentence stands in the translation (not in a sentence's own alignment; not in HTML mode). */
  targetSentences?: TextRange[];
  /** Row-major [targetPieces.length x sourcePieces.length]; each row sums to 1. */
  weights: Float32Array;
}

export interface Hypothesis {
  text: string;
  tokens: Int32Array;
  score: number;
}

/** One item of translateStream(): the sentence as translate() gives it, and where it belongs. */
export interface StreamedSentence extends SentenceTranslation {
  /** Which input text (0 for a string). */
  paragraph: number;
  /** Which of that text's sentences: translate()'s `sentences[index]`. */
  index: number;
  /** What the text's translation has before this sentence: '' (its first), ' ' or line breaks. */
  separator: string;
}

/** One word of a sentence's translation: tokens that SentencePiece joins without a space. */
export interface WordConfidence {
  text: string;
  /** Where the word is in its sentence's `text` (JS string indices, end excluded). */
  start: number;
  end: number;
  /** The probability the model gave the word (the product of its tokens'), in (0, 1]. */
  confidence: number;
}

/** With `confidence: true`: how sure the decoder was of a sentence's best translation. */
export interface SentenceConfidence {
  /** The mean log-probability of its tokens, end-of-sentence included (0 is certain). */
  score: number;
  /** Its words in order (none where the sentence was copied as it was). */
  words: WordConfidence[];
}

export interface SentenceTranslation {
  /** The sentence as split from the input. */
  source: string;
  text: string;
  /** Target token ids of the best hypothesis (end-of-sentence included). */
  tokens: Int32Array;
  /** Summed log-probability / length (the engine's length penalty, 1.0). */
  score: number;
  sourceTokens: Int32Array;
  sourcePieces: string[];
  targetPieces: string[];
  alignment?: Alignment;
  /** With nbest > 1: the best hypotheses, best first. */
  nbest?: Hypothesis[];
  /** With `confidence: true`: the sentence's score and its words' confidence. */
  confidence?: SentenceConfidence;
}

export interface Timings {
  /** Time spent waiting behind other requests. */
  queueMs: number;
  /** Engine time in the Worker for this call. */
  translateMs: number;
  /** From the call to the result. */
  totalMs: number;
  /** Target tokens produced by the call (all its inputs, end-of-sentence tokens included). */
  targetTokens: number;
  /** targetTokens per second of translateMs. */
  tokensPerSecond: number | null;
  /** What finished the call: 'webgpu', or 'wasm' (also when the GPU failed during it). */
  backend: 'wasm' | 'webgpu';
  /** The GPU's work for the call; null when it ran on wasm from the start. */
  gpu: GpuCounters | null;
  /**
   * Sentences of the call answered by the translation memory (create({ memory })) rather than
   * computed: the same as computing them gives (text, tokens, scores, alignment). 0 without one.
   */
  memoryHits: number;
}

export interface Translation {
  /** The translation of the input (its sentences joined by a space). */
  text: string;
  /** Target token ids of all sentences, in order. */
  tokens: Int32Array;
  /** Mean of the sentences' scores (0 for an empty input). */
  score: number;
  /** With `alignment: true`: the whole input's alignment (sentences on the diagonal). */
  alignment?: Alignment;
  /** Timings of the call (shared by all inputs of an array call). */
  timings: Timings;
  sentences: SentenceTranslation[];
}

export interface ModelDescription {
  name: string | null;
  sourceLanguage: string | null;
  targetLanguage: string | null;
  metadata: Record<string, unknown>;
  config: Record<string, unknown>;
  parameters: number;
  fileBytes: number;
  url: string | null;
  sha256: string | null;
  /** Where the bytes came from ('files': a Marian folder; see `files`; 'catalog': a catalogue pair). */
  source: 'network' | 'cache' | 'file' | 'memory' | 'files' | 'catalog';
  /** A catalogue pair (`from`/`to`): its route, one model or two through English. */
  catalog?: {
    from: string;
    to: string;
    pivot: boolean;
    architecture: string;
    downloadBytes: number;
    steps: { from: string; to: string; architecture: string; version: string }[];
  };
  /** A Marian folder: what the importer read and said. */
  marian?: {
    name: string;
    /** The model file read. */
    modelFile: string;
    /** The importer's description: variant, vocabularies, options ignored or unknown, the shortlist... */
    summary: Record<string, unknown>;
    /** What the importer warned about (also in TranslatorInfo.warnings, prefixed 'model import: '). */
    warnings: string[];
  };
  /** A Marian folder: each file as given (name without .gz, whether it was gzip, its bytes after decompression). */
  files?: { name: string; source: 'network' | 'cache' | 'file' | 'memory'; url: string | null; sha256: string | null; bytes: number; gzip: boolean }[];
}

export interface TranslatorInfo {
  variant: Variant;
  /** Threads the engine runs on. */
  threads: number;
  /** The backend in use (becomes 'wasm' after a GPU failure). */
  backend: 'wasm' | 'webgpu';
  /** Why that backend: the rule of 'auto', what was asked, or the failure that made it fall back. */
  backendReason: string;
  requestedBackend: Backend;
  /** The WebGPU adapter looked at ("vendor architecture device description"), null when none. */
  adapter: string | null;
  /** The weights uploaded to the GPU, null on wasm. */
  gpu: { uploadedBytes: number; f16Weights: boolean } | null;
  /** Memory held: the wasm heap, the GPU's weights, the model bytes the page keeps for engine restarts. */
  memory: { wasmBytes: number | null; gpuWeightBytes: number; keptModelBytes: number };
  /** The engine's kernel library ('xnnpack'): what computes on the CPU, whichever the backend. */
  kernels: string;
  /** @deprecated The old name of `kernels` (the same value); kept for callers that read it. */
  engine: string;
  crossOriginIsolated: boolean;
  /** Where the engine runs: a Worker, or (null) the calling thread, where none can be started (a Service Worker). */
  worker: 'web-worker' | 'worker_threads' | null;
  /** Why something other than what was asked is used (backend, variant, threads, cache). */
  warnings: string[];
  model: ModelDescription;
  load: {
    modelMs: number;
    fromCache: boolean;
    bytes: number;
    instantiateMs: number;
    engineMs: number;
    /** Looking for an adapter and uploading the weights (null when wasm was certain). */
    gpuMs: number | null;
    beforeStartMs: number;
    totalMs: number;
  };
  files: { glue: string; wasm: string };
  /** Engine restarts so far: each abort of a running translate() (a stream stops between steps instead), each trap of the engine. */
  restarts: number;
  /** Requests queued or running now. */
  queued: number;
}

/**
 * A language pair of a model catalogue (default Firefox's, `catalog`) instead of `model`: its files
 * are downloaded (one progress total), checked against the catalogue's sizes and sha256, unpacked
 * (zstd) and cached the first time. A pair without a direct model is translated through English.
 */
export interface CatalogCreateOptions extends Omit<CreateOptions, 'model' | 'sha256' | 'size'> {
  from: string;
  to: string;
  /** The catalogue's Remote Settings server (default Firefox's, FIREFOX_CATALOG). */
  catalog?: string | URL;
  /** The records of which channel: 'release' (default), 'beta' or 'nightly'. */
  channel?: 'release' | 'beta' | 'nightly';
  /** Only models of this architecture ('tiny', 'base', 'base-memory'); default: the newest of any. */
  architecture?: string;
  /** Not with a pair: the catalogue gives each file's hash and size. */
  model?: never;
  sha256?: never;
  size?: never;
}

/** A language pair of a model catalogue (Translator.pairs). */
export interface CatalogPair {
  from: string;
  to: string;
  /** Translated through English with two models. */
  pivot: boolean;
  /** Of its models: 'tiny', 'base', ... ('tiny+base' when the two of a pivot differ). */
  architecture: string;
  /** Bytes to download (all of its files, cached or not). */
  downloadBytes: number;
}

export interface PairsOptions {
  catalog?: string | URL;
  channel?: 'release' | 'beta' | 'nightly';
  architecture?: string;
  cache?: boolean | string | CacheLike;
  signal?: AbortSignal;
  wasmBase?: string | URL;
}

/** Firefox's Remote Settings server, the default catalogue. */
export const FIREFOX_CATALOG: string;

export class Translator {
  private constructor();
  /** Loads a model (with progress, cache and sha256 check) and starts the engine in a Worker. */
  static create(options: CreateOptions | CatalogCreateOptions): Promise<Translator>;
  /** The pairs of a model catalogue (default Firefox's): only its list of files is fetched. */
  static pairs(options?: PairsOptions): Promise<CatalogPair[]>;
  readonly info: TranslatorInfo;
  translate(text: string, options?: TranslateOptions): Promise<Translation>;
  translate(texts: string[], options?: TranslateOptions): Promise<Translation[]>;
  /**
   * Translates like translate() and yields each sentence as soon as it is done, in input order
   * (`for await (const s of t.translateStream(text))`). The request queues as translate()'s do.
   * Bad arguments throw at the call; an abort makes the iterator throw the signal's reason (an
   * AbortError by default) and stops the engine's work on it before its next step, as leaving
   * the loop early does (the engine is not restarted).
   */
  translateStream(text: string | string[], options?: TranslateOptions): AsyncGenerator<StreamedSentence, void, undefined>;
  /** Stops the engine; queued and running requests reject with TranslatorDisposedError. */
  dispose(): void;
  /** The translation memory (create({ memory })), or null. */
  readonly memory: TranslationMemory | null;
}

/** The IndexedDB database of `memory: { persist: true }`. */
export const DEFAULT_MEMORY_DATABASE: string;

/**
 * How translatePage() shows a translated block: the translation alone, the original with the
 * translation under it or beside it (the bilingual views), or the original.
 */
export type PageView = 'translation' | 'below' | 'beside' | 'original';
export const PAGE_VIEWS: PageView[];
/** The elements translated as one text each (the innermost of them), as a CSS selector. */
export const PAGE_BLOCKS: string;

export interface TranslatePageOptions {
  /**
   * The package's Translator (markup placed on the translated words), or a Translator of the web's
   * standard API (Chrome's own or tformer-wasm/polyfill's: each block's text runs translated as plain text).
   */
  translator: Translator | { readonly sourceLanguage: string; readonly targetLanguage: string;
    translate(input: string, options?: { signal?: AbortSignal }): Promise<string> };
  /** Default 'translation'. */
  view?: PageView;
  /** In the 'translation' view, the original's text in a tooltip over the block under the pointer. Default true. */
  hover?: boolean;
  /** Blocks as they come near the view (IntersectionObserver), else all at once. Default true. */
  lazy?: boolean;
  /** The block elements (default PAGE_BLOCKS); script, style, code-like content, form controls, frames, media, translate="no", .notranslate and contenteditable are always left alone. */
  blocks?: string;
  /** Blocks left as they are (for example, those already in the target language). */
  skip?: (block: Element) => boolean;
  /** translate() options for every request ('html' is always true; 'signal', 'key', 'supersede' are the helper's). */
  translateOptions?: Omit<TranslateOptions, 'html' | 'signal' | 'key' | 'supersede'>;
  /** After each request's blocks are shown. */
  onProgress?: (progress: PageProgress) => void;
  /** After a block's translation is shown: the block and its translate() result (with the package's Translator and a block sent as HTML; otherwise {text, sentences: []}). */
  onBlock?: (block: { element: Element; result: Translation | { text: string; sentences: [] } }) => void;
  /** Aborting it restores the page (restore()). */
  signal?: AbortSignal;
}

export interface PageProgress {
  blocks: number;
  translated: number;
  /** Blocks in view waiting for a request. */
  waiting: number;
  /** Blocks per request made so far. */
  requests: number[];
  /** Sentences translated, and how many of them the translation memory answered. */
  sentences: number;
  memoryHits: number;
  /** What stopped the translation or kept a block as it was, if anything. */
  error: Error | null;
  /** Every block translated (or the translation stopped). */
  done: boolean;
}

export interface PageTranslation {
  readonly view: PageView;
  /** Shows every translated block in `view`; blocks translated later follow it. */
  setView(view: PageView): void;
  readonly progress: PageProgress;
  /** Resolves once every block is translated (lazy: as they are scrolled to), or the translation stopped. */
  readonly done: Promise<PageProgress>;
  /** Puts back every block's own text (the page is again what it was, its nodes never replaced) and stops translating. */
  restore(): void;
}

/**
 * Translates the blocks of `root` (and of open shadow roots in it) in place, changing text nodes
 * only: the page's elements keep their listeners and state. Shows them in one of the views
 * (PageView). The page gets no markup that was not its own: only the text of the engine's answer
 * enters the page, as text.
 */
export function translatePage(root: Element, options: TranslatePageOptions): PageTranslation;

/** One file of a model: the same model stored with other weights (e.g. 'f16', 'int8'). */
export interface ModelVariant {
  /** How the weights are stored: 'f32', 'f16' or 'int8' (8-bit with per-row scales). */
  weights: string;
  /** Absolute once loaded by loadRegistry. */
  url: string;
  /** Bytes to download. */
  size: number;
  sha256: string;
  /** Whether the entry's own url/size/sha256 are this variant's. */
  default: boolean;
  /** Greedy BLEU per test set, from the model folder's eval.json (empty when not measured). */
  bleu?: Record<string, number>;
  /** The file in the model's folder ('model.tfm', 'model.int8.tfm'). */
  file?: string;
}

/** A model of the registry; its url, size and sha256 are its default variant's. */
export interface RegistryEntry {
  /** The model's folder name (models/<id>/), which is what the README and users call it. */
  id: string;
  from: string;
  to: string;
  label?: string;
  /** A test model (random weights). */
  test?: boolean;
  /** Absolute once loaded by loadRegistry (relative to the registry in the file). */
  url: string;
  size: number;
  sha256: string;
  /** The weights of the default variant. */
  weights?: string;
  /**
   * Every stored form of the model, the default first. The int8 one is the default where its
   * greedy BLEU is within 0.5 of the full model's on every test set measured for both; else
   * model.tfm. A registry without variants gets one (the entry itself) from loadRegistry.
   */
  variants?: ModelVariant[];
  /** Why the default variant is the default. */
  defaultReason?: string;
  /** The model's README, when the registry has one. */
  readme?: string;
  [key: string]: unknown;
}

export interface Registry {
  format: 'tformer-registry';
  version: 1;
  models: RegistryEntry[];
}

/** Fetches and checks a registry JSON; entry URLs become absolute. */
export function loadRegistry(url: string | URL, options?: { signal?: AbortSignal }): Promise<Registry>;
export function parseRegistry(json: unknown, baseUrl: string): Registry;
export function findModels(registry: Registry, direction?: { from?: string; to?: string }): RegistryEntry[];
/**
 * The entry with the url, size and sha256 of its variant with these weights (the default variant
 * without `weights`), ready for Translator.create({ model }). RangeError when it has none.
 */
export function withVariant(entry: RegistryEntry, weights?: string): RegistryEntry;

/**
 * A model could not be obtained (missing file, HTTP error, offline and not cached) or failed its
 * size or sha256 check.
 */
export class ModelLoadError extends Error {
  readonly name: 'ModelLoadError' | 'ModelFormatError' | 'ModelTooLargeError';
  /** The model's path (Node files), URL, or 'the model bytes given'; null when not known. */
  readonly model: string | null;
  /** A download failed while the browser said it was offline (navigator.onLine), and the model was not cached. */
  readonly offline: boolean;
}
/** The model's bytes are not a model the engine can read: not a .tfm file, truncated, unsupported. */
export class ModelFormatError extends ModelLoadError {
  readonly name: 'ModelFormatError' | 'ModelTooLargeError';
}
/** A model file is larger than the engine takes: a .gz of a model folder that decompresses past 2 GiB. */
export class ModelTooLargeError extends ModelFormatError {
  readonly name: 'ModelTooLargeError';
  /** The limit passed, in bytes. */
  readonly limit: number | null;
}
/** A text to translate is not valid Unicode (a lone UTF-16 surrogate); translate() rejects before queueing. */
export class InvalidTextError extends Error {
  readonly name: 'InvalidTextError';
  /** Index of the text in the call (0 for a single string). */
  readonly input: number;
  /** UTF-16 index of the lone surrogate in that text. */
  readonly position: number;
}
/**
 * The engine refused a request (a value out of the engine's range, a text it cannot take) or failed
 * in it. Told apart by `code`, never by the message.
 */
export class TranslationError extends Error {
  readonly name: 'TranslationError';
  /**
   * The engine's reason: 'invalid_options', 'invalid_argument', 'invalid_text' (not valid UTF-8,
   * HTML it cannot read), 'text_too_long' (over maxInputChars), 'resources', 'internal', ...
   */
  readonly code: string;
  /** The text of the call at fault (0 for a single string), or null when none is. */
  readonly input: number | null;
}
/** A request with a `key` was superseded by a newer one with the same key and `supersede: true`. */
export class SupersededError extends Error {
  readonly name: 'SupersededError';
  readonly key: string;
}
/** translate() after dispose(), or a request that was queued or running when dispose() was called. */
export class TranslatorDisposedError extends Error {
  readonly name: 'TranslatorDisposedError';
}
/** The engine's Worker stopped (out of memory, a crash) or its engine trapped (a WebAssembly.RuntimeError); the request failed, the next ones run on a fresh engine. */
export class EngineStoppedError extends Error {}
export function sha256Hex(bytes: BufferSource): Promise<string>;
/** About how many characters a chunk of a keyed request holds (400). */
export const CHUNK_CHARS: number;
/**
 * A text in chunks of whole sentences (Intl.Segmenter in `language`) of about CHUNK_CHARS
 * characters, as keyed requests run: `start` is where the chunk begins in `text`, `sentences`
 * counts each chunk's sentences, `separator` is the text between it and the next ('' after the
 * last; its line breaks, else ' '). A text of at most CHUNK_CHARS characters is one chunk, as given.
 */
export function chunksOf(text: string, language?: string): { text: string; start: number; sentences: number; separator: string }[];
/**
 * The alignment of several sentences as one matrix, each sentence's on the diagonal: what
 * Translation.alignment is, for sentences collected from translateStream(). Its target ranges are
 * of the sentences' texts joined by their separators (the translation, as translate() gives it),
 * its source ranges of their sources joined the same way.
 */
export function paragraphAlignment(sentences: { source: string; text: string; separator?: string; alignment?: Alignment }[]): Alignment;
export const DEFAULT_CACHE_NAME: string;
export function chooseEngine(
  options: { threads?: number; backend?: Backend; variant?: 'auto' | Variant },
  env: {
    crossOriginIsolated: boolean; sharedArrayBuffer: boolean; hardwareConcurrency: number; webgpu: boolean;
    /** Whether WebAssembly relaxed SIMD validates (absent: no). */
    relaxedSimd?: boolean;
  },
): {
  variant: Variant;
  threads: number;
  /** 'webgpu': the engine may use the GPU (decided in its Worker by decideBackend); 'wasm': certain. */
  backend: 'wasm' | 'webgpu';
  backendReason: string | null;
  requestedBackend: Backend;
  warnings: string[];
};

/** What an adapter says about itself; `software` is true for fallback adapters and SwiftShader-like rasterisers. */
export interface AdapterSummary {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  fallback: boolean;
  software: boolean;
}
export function describeAdapter(adapter: { info?: object; isFallbackAdapter?: boolean } | null): AdapterSummary;
/** d_model x vocab_size from which 'auto' uses a hardware GPU (2^23). */
export const AUTO_MIN_PROJECTION: number;
/** The engine's choice between wasm and WebGPU once the adapter and the model are known. */
export function decideBackend(input: {
  requested: 'auto' | 'webgpu';
  node: boolean;
  adapter: { info?: object; isFallbackAdapter?: boolean } | null;
  config: { d_model: number; vocab_size: number };
}): { backend: 'wasm' | 'webgpu'; reason: string; adapter: AdapterSummary | null };

// Language detection (CLD2, the detector Firefox uses; src/detection.js, src/standard/).
export type { Availability, CreateMonitor, LanguageDetectionResult, LanguageDetectorCreateOptions } from './standard.js';
import type { StandardLanguageDetector } from './standard.js';
/** The web's LanguageDetector (webmachinelearning/translation-api), as the package implements it. */
export declare const LanguageDetector: typeof StandardLanguageDetector;
export type LanguageDetector = StandardLanguageDetector;

/** What detectLanguage() finds in a text. */
export interface LanguageDetection {
  /** As LanguageDetector.detect() gives it: by confidence, "und" last. */
  ranked: LanguageDetectionResult[];
  /** CLD2's (up to) three languages: the share of the text's letters in each, and how well they fit it. */
  languages: { language: string; confidence: number; score: number }[];
  /** The share of the text in no detected language. */
  unknown: number;
  /** CLD2's own verdict. */
  reliable: boolean;
  /** reliable, and at least 200 characters: what Firefox acts on. */
  confident: boolean;
  /** Code points of the text. */
  characters: number;
  /** Runs of one language ("und" where none), as UTF-16 indices of the text: text.slice(start, end). */
  spans: { start: number; end: number; language: string }[];
}
import type { LanguageDetectionResult } from './standard.js';
/** The languages of `text` in detail (the detector is loaded once, in the calling thread). */
export function detectLanguage(text: string, options?: { wasmBase?: string | URL }): Promise<LanguageDetection>;
/** The BCP 47 tags the detector can report (canonical, sorted). */
export function detectableLanguages(options?: { wasmBase?: string | URL }): Promise<string[]>;

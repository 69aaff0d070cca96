// Gets the files of a Marian model folder (Firefox Translations, OPUS-MT) for the engine's importer
// (wasm/bindings/marian_import.cc, core/include/tformer/marian.h), as Translator.create's
//   model: { files: [...], modelFile?, vocabs?, spms?, config?, weights?, name?, maxPositions? }
//
// Each entry of `files` is one of:
//   - a URL or a path (Node): named by the last component of its path;
//   - { url, name?, sha256?, size? }: a download checked like a .tfm (sha256, size);
//   - a File (a file picker's or a drop's): named by File.name;
//   - { name, data }: data an ArrayBuffer, a typed array or a Blob.
// Downloads go through loadModel (model-loader.js): the same sha256 check, Cache API storage and
// progress as a .tfm model, per file. A name ending in .gz is decompressed here with
// DecompressionStream('gzip') and passed on without the .gz (the hash applies to the file as
// downloaded). Decompression stops with ModelTooLargeError past MAX_GUNZIP_BYTES.
import { loadModel } from './model-loader.js';
import { ModelFormatError, ModelLoadError, ModelTooLargeError } from './errors.js';

// The most bytes one .gz file may decompress to: the engine's importer's own limit for a .gz
// (kMaxGunzipBytes, core/src/marian/gzip.cc), more than any Marian model file and less than a
// wasm32 heap holds. Counted while decompressing, so a small crafted file cannot fill memory.
export const MAX_GUNZIP_BYTES = 2 ** 31;

export const FOLDER_KEYS = ['files', 'modelFile', 'vocabs', 'spms', 'config', 'weights', 'name', 'maxPositions'];
const WEIGHTS = ['keep', 'f32', 'f16', 'int8'];

/** Whether Translator.create's `model` is a Marian folder ({files: [...]}). */
export function isModelFolder(model) {
  return typeof model === 'object' && model !== null && !ArrayBuffer.isView(model) && !(model instanceof ArrayBuffer) &&
    'files' in model;
}

/** Checks the folder option; returns the importer's options (names as the binding takes them). */
export function checkModelFolder(what, model) {
  for (const key of Object.keys(model)) {
    if (!FOLDER_KEYS.includes(key)) {
      throw new TypeError(`${what}: unknown key '${key}' in option 'model' (a model folder takes: ${FOLDER_KEYS.join(', ')})`);
    }
  }
  if (!Array.isArray(model.files) || model.files.length === 0) {
    throw new TypeError(`${what}: 'model.files' must be a non-empty array of the model folder's files`);
  }
  const options = {};
  for (const [key, to] of [['modelFile', 'model'], ['config', 'config'], ['name', 'name'], ['weights', 'weights']]) {
    if (model[key] === undefined) continue;
    if (typeof model[key] !== 'string') throw new TypeError(`${what}: 'model.${key}' must be a string`);
    options[to] = model[key];
  }
  if (options.weights !== undefined && !WEIGHTS.includes(options.weights)) {
    throw new TypeError(`${what}: 'model.weights' must be one of ${WEIGHTS.map((w) => `'${w}'`).join(', ')} (got '${options.weights}')`);
  }
  for (const key of ['vocabs', 'spms']) {
    if (model[key] === undefined) continue;
    const v = typeof model[key] === 'string' ? [model[key]] : model[key];
    if (!Array.isArray(v) || v.length < 1 || v.length > 2 || v.some((x) => typeof x !== 'string')) {
      throw new TypeError(`${what}: 'model.${key}' must be a file name or an array of one or two (source, target)`);
    }
    options[key] = v;
  }
  if (model.maxPositions !== undefined) {
    if (!Number.isInteger(model.maxPositions) || model.maxPositions < 1 || model.maxPositions > 65536) {
      throw new RangeError(`${what}: 'model.maxPositions' must be an integer between 1 and 65536`);
    }
    options.maxPositions = model.maxPositions;
  }
  model.files.forEach((entry, i) => entryKind(what, entry, i));
  return options;
}

function isBlob(x) {
  return typeof Blob !== 'undefined' && x instanceof Blob;
}

function isBytes(x) {
  return x instanceof ArrayBuffer || ArrayBuffer.isView(x);
}

// 'url' | 'entry' (a {url,...}) | 'file' (File) | 'named' ({name, data}); else a TypeError.
function entryKind(what, entry, i) {
  if (typeof entry === 'string' || entry instanceof URL) return 'url';
  if (isBlob(entry)) {
    if (typeof entry.name !== 'string' || !entry.name) {
      throw new TypeError(`${what}: model file ${i} is a Blob without a name: give it as {name, data}`);
    }
    return 'file';
  }
  if (isBytes(entry)) throw new TypeError(`${what}: model file ${i} is bytes without a name: give it as {name, data}`);
  if (typeof entry === 'object' && entry !== null) {
    if (entry.url !== undefined) {
      if (typeof entry.url !== 'string' && !(entry.url instanceof URL)) throw new TypeError(`${what}: model file ${i}: 'url' must be a string or URL`);
      if (entry.name !== undefined && typeof entry.name !== 'string') throw new TypeError(`${what}: model file ${i}: 'name' must be a string`);
      return 'entry';
    }
    if (typeof entry.name === 'string' && entry.name && (isBytes(entry.data) || isBlob(entry.data))) return 'named';
  }
  throw new TypeError(`${what}: model file ${i} must be a URL, a path, a File, {url, sha256?, size?, name?} ` +
    'or {name, data} with an ArrayBuffer, typed array or Blob');
}

// The last component of a URL's path (the folder part is not the file's name in the folder).
function nameOfUrl(url) {
  const text = url instanceof URL ? url.pathname : String(url).split(/[?#]/)[0];
  return decodeURIComponent(text.split(/[\\/]/).pop());
}

function bytesOf(data) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Decompresses gzip bytes with the platform's DecompressionStream; `name` is for the errors.
 * More than `limit` bytes out: ModelTooLargeError, as soon as the count passes it.
 */
export async function gunzip(bytes, name, limit = MAX_GUNZIP_BYTES) {
  if (typeof DecompressionStream === 'undefined') {
    throw new ModelLoadError(`${name}: decompressing .gz needs DecompressionStream, which this platform lacks (decompress it first)`, { model: name });
  }
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (e) {
      throw new ModelFormatError(`${name} is not a complete gzip file (${e.message})`, { model: name, cause: e });
    }
    if (chunk.done) break;
    total += chunk.value.byteLength;
    if (total > limit) {
      reader.cancel().catch(() => {});
      throw new ModelTooLargeError(`${name} decompresses to more than ${limit} bytes, the most a model file may have`, { model: name, limit });
    }
    chunks.push(chunk.value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * Obtains every file of the folder; `maxGunzipBytes`: gunzip()'s limit for each .gz file.
 * @returns {Promise<{files: {name: string, bytes: Uint8Array}[], sources: object[], warnings: string[], ms: number, fromCache: boolean}>}
 *   sources: per file {name, source, url, sha256, bytes, gzip}
 */
export async function loadModelFolder(request, env, { maxGunzipBytes = MAX_GUNZIP_BYTES } = {}) {
  const started = performance.now();
  const progress = request.onProgress ?? (() => {});
  const entries = request.model.files;
  const files = [];
  const sources = [];
  const warnings = [];
  let allCached = true;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const kind = entryKind('Translator.create', entry, i);
    const onProgress = (event) => progress({ ...event, file: i, files: entries.length });
    let name;
    let bytes;
    let loaded;
    if (kind === 'file' || kind === 'named') {
      name = kind === 'file' ? entry.name : entry.name;
      const data = kind === 'file' ? entry : entry.data;
      bytes = isBlob(data) ? new Uint8Array(await data.arrayBuffer()) : bytesOf(data);
      loaded = { source: 'memory', url: null, sha256: null, fromCache: false };
      if (request.signal?.aborted) throw request.signal.reason;
      onProgress({ phase: 'loaded', loaded: bytes.byteLength, total: bytes.byteLength, fromCache: false, name });
    } else {
      const url = kind === 'url' ? entry : entry.url;
      name = (kind === 'entry' && entry.name) || nameOfUrl(url);
      if (!name.split(/[\\/]/).pop()) throw new TypeError(`Translator.create: model file ${i} has no file name (its path ends with '/'): give it a name`);
      loaded = await loadModel({ model: url, sha256: kind === 'entry' ? entry.sha256 : undefined,
        size: kind === 'entry' ? entry.size : undefined, cache: request.cache, signal: request.signal,
        onProgress: (event) => onProgress({ ...event, name }) }, env);
      bytes = loaded.bytes;
      warnings.push(...loaded.warnings);
    }
    allCached &&= loaded.fromCache;
    name = name.split(/[\\/]/).pop();  // a path's last component: the importer knows files by name
    if (!name) throw new TypeError(`Translator.create: model file ${i} has no file name (its path ends with '/'): give it a name`);
    const gzip = /\.gz$/i.test(name);
    if (gzip) {
      bytes = await gunzip(bytes, name, maxGunzipBytes);
      name = name.slice(0, -3);
    }
    if (files.some((f) => f.name === name)) {
      throw new TypeError(`Translator.create: the model folder has two files named '${name}'`);
    }
    files.push({ name, bytes });
    sources.push({ name, source: loaded.source, url: loaded.url, sha256: loaded.sha256, bytes: bytes.byteLength, gzip });
  }
  return { files, sources, warnings, ms: performance.now() - started, fromCache: allCached };
}

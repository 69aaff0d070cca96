// Gets the bytes of a .tfm model: from memory, a file (Node), the Cache API, or the network with
// progress events; checks them against the expected sha256 and size; stores a verified download in
// the cache so that the next visit does not download it again.
//
// Integrity: with a sha256 (from the model registry, or given), a cached copy that does not match
// it (a corrupted entry, or a model updated since it was cached) is deleted and fetched again; a
// download that does not match is refused with an error naming both hashes and is not cached.
// Without a sha256 the hash recorded when the file was cached is checked instead.
import { isNode } from './environment.js';
import { ModelLoadError } from './errors.js';
import { fetchFailure } from './fetch-failure.js';

export { ModelLoadError };

export const DEFAULT_CACHE_NAME = 'tformer-models-v1';
const HASH_HEADER = 'x-tformer-sha256';

export async function sha256Hex(bytes) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    throw new ModelLoadError('checking a model needs crypto.subtle, which browsers give only to secure contexts ' +
      '(https:, or http://localhost / 127.0.0.1)');
  }
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function openCache(cache, env) {
  if (cache === false) return null;
  if (typeof cache === 'object' && cache !== null) return cache;
  if (!env.cacheStorage) return null;
  try {
    return await env.cacheStorage.open(typeof cache === 'string' ? cache : DEFAULT_CACHE_NAME);
  } catch {
    return null;  // e.g. storage disabled in a private window: go without a cache
  }
}

function toUint8Array(model) {
  if (model instanceof Uint8Array) return model;
  if (model instanceof ArrayBuffer) return new Uint8Array(model);
  if (ArrayBuffer.isView(model)) return new Uint8Array(model.buffer, model.byteOffset, model.byteLength);
  return null;
}

function shortHash(h) {
  return h ? `${h.slice(0, 12)}...` : 'none';
}

/**
 * @param {object} request
 * @param {string|URL|ArrayBuffer|Uint8Array|{url: string, sha256?: string, size?: number}} request.model
 * @param {string} [request.sha256]  expected hash (hex)
 * @param {number} [request.size]    expected size in bytes (also the progress total when the
 *                                   server gives no Content-Length)
 * @param {boolean|string|Cache} [request.cache]
 * @param {(event: object) => void} [request.onProgress]
 * @param {AbortSignal} [request.signal]
 * @param {object} env  from detectEnvironment()
 * @returns {Promise<{bytes: Uint8Array, source: string, url: string|null, sha256: string|null, fromCache: boolean, warnings: string[], ms: number}>}
 */
export async function loadModel(request, env) {
  const started = performance.now();
  const progress = request.onProgress ?? (() => {});
  let { model, sha256, size } = request;
  if (model && typeof model === 'object' && !(model instanceof URL) && toUint8Array(model) === null) {
    // A registry entry: { url, sha256, size, ... }
    if (typeof model.url !== 'string' && !(model.url instanceof URL)) {
      throw new TypeError("Translator.create: option 'model' must be a URL, a path, an ArrayBuffer/Uint8Array " +
        'or a registry entry with a url');
    }
    sha256 ??= model.sha256;
    size ??= model.size;
    model = model.url;
  }
  checkIntegrityOptions(sha256, size, "Translator.create: the model's");
  sha256 = sha256?.toLowerCase();
  const warnings = [];
  const done = (bytes, extra) => ({ bytes, sha256: null, warnings, ms: performance.now() - started, fromCache: false, url: null, ...extra });

  const inMemory = toUint8Array(model);
  if (inMemory) {
    if (sha256) await verify(inMemory, sha256, size, 'the model bytes given');
    progress({ phase: 'loaded', loaded: inMemory.byteLength, total: inMemory.byteLength, fromCache: false });
    return done(inMemory, { source: 'memory', sha256: sha256 ?? null });
  }
  if (typeof model !== 'string' && !(model instanceof URL)) {
    throw new TypeError(`Translator.create: option 'model' must be a URL, a path, an ArrayBuffer/Uint8Array or a registry entry`);
  }

  const url = await resolveUrl(model);
  if (url.protocol === 'file:') {
    const fs = process.getBuiltinModule('node:fs/promises');  // not import(): bundlers for browsers see no `node:` import
    let bytes;
    try {
      bytes = new Uint8Array(await fs.readFile(url));
    } catch (e) {
      throw new ModelLoadError(`could not read the model file ${decodeURIComponent(url.pathname)}: ${e.message}`, { cause: e, model: decodeURIComponent(url.pathname) });
    }
    checkSize(bytes, size, url.href);
    const hash = sha256 ? await verify(bytes, sha256, size, url.href) : null;
    progress({ phase: 'loaded', loaded: bytes.byteLength, total: bytes.byteLength, fromCache: false });
    return done(bytes, { source: 'file', url: url.href, sha256: hash });
  }

  const cache = await openCache(request.cache ?? true, env);
  if (cache) {
    const cached = await cache.match(url.href);
    if (cached) {
      const bytes = new Uint8Array(await cached.arrayBuffer());
      const expected = sha256 ?? cached.headers.get(HASH_HEADER);
      const actual = expected ? await sha256Hex(bytes) : null;
      if (!expected || actual === expected) {
        progress({ phase: 'loaded', loaded: bytes.byteLength, total: bytes.byteLength, fromCache: true });
        return done(bytes, { source: 'cache', url: url.href, sha256: actual, fromCache: true });
      }
      warnings.push(`the cached copy of ${url.href} did not match its sha256 (expected ${shortHash(expected)}, ` +
        `found ${shortHash(actual)}): it was deleted and the model downloaded again`);
      progress({ phase: 'refetch', reason: warnings.at(-1) });
      await cache.delete(url.href);
    }
  }

  const bytes = await download(url, size, progress, request.signal);
  const actual = await verify(bytes, sha256, size, url.href);
  if (cache) {
    try {
      await cache.put(url.href, new Response(bytes, {
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.byteLength), [HASH_HEADER]: actual },
      }));
    } catch (e) {
      warnings.push(`the model could not be stored in the cache (${e.message}); it will be downloaded again next time`);
    }
  }
  return done(bytes, { source: 'network', url: url.href, sha256: actual });
}

async function resolveUrl(model) {
  if (model instanceof URL) return model;
  if (isNode() && !/^[a-z][a-z0-9+.-]+:/i.test(model)) {
    // A path in Node (relative to the working directory).
    const { pathToFileURL } = process.getBuiltinModule('node:url');
    return pathToFileURL(model);
  }
  const base = globalThis.document?.baseURI ?? globalThis.location?.href;
  try {
    return new URL(model, base);
  } catch {
    throw new TypeError(`Translator.create: the model URL ${JSON.stringify(model)} is not a valid URL`);
  }
}

/**
 * A sha256 or size given for a download must be well-formed: a malformed one is a mistake in the
 * call (a TypeError), not a file that changed.
 */
export function checkIntegrityOptions(sha256, size, what) {
  if (sha256 !== undefined && (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(sha256))) {
    throw new TypeError(`${what} 'sha256' must be 64 hexadecimal digits (got ${JSON.stringify(sha256)})`);
  }
  if (size !== undefined && !(Number.isSafeInteger(size) && size >= 0)) {
    throw new TypeError(`${what} 'size' must be a whole number of bytes (got ${JSON.stringify(size)})`);
  }
}

function checkSize(bytes, size, what) {
  if (size !== undefined && bytes.byteLength !== size) {
    throw new ModelLoadError(`model ${what}: expected ${size} bytes, got ${bytes.byteLength} (the file changed or is corrupted)`, { model: what });
  }
}

async function verify(bytes, sha256, size, what) {
  checkSize(bytes, size, what);
  const actual = await sha256Hex(bytes);
  if (sha256 && actual !== sha256) {
    throw new ModelLoadError(`model ${what}: sha256 mismatch, expected ${sha256}, got ${actual} ` +
      '(the file changed or is corrupted; it was not used)', { model: what });
  }
  return actual;
}

async function download(url, expectedSize, progress, signal) {
  let response;
  try {
    response = await fetch(url.href, { signal, credentials: 'same-origin' });
  } catch (e) {
    if (e?.name === 'AbortError') throw e;
    // Browsers say only "Failed to fetch"; when they know they are offline, say what it means.
    const offline = globalThis.navigator?.onLine === false;
    throw new ModelLoadError(`could not download the model ${url.href}: ` +
      (offline ? `offline: this model is not in the cache yet (${e.message})` : fetchFailure(e)), { cause: e, model: url.href, offline });
  }
  if (!response.ok) {
    throw new ModelLoadError(`could not download the model ${url.href}: HTTP ${response.status} ${response.statusText}`.trim(), { model: url.href });
  }
  const header = Number(response.headers.get('content-length'));
  // With Content-Encoding the header counts compressed bytes: trust it only for identity bodies.
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const total = expectedSize ?? (header > 0 && !encoded ? header : 0);
  progress({ phase: 'download', loaded: 0, total, url: url.href });
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    progress({ phase: 'download', loaded: bytes.byteLength, total: total || bytes.byteLength, url: url.href });
    return bytes;
  }
  const reader = response.body.getReader();
  let buffer = new Uint8Array(total || 1 << 20);
  let loaded = 0;
  let lastReport = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (loaded + value.byteLength > buffer.byteLength) {
      const grown = new Uint8Array(Math.max(buffer.byteLength * 2, loaded + value.byteLength));
      grown.set(buffer.subarray(0, loaded));
      buffer = grown;
    }
    buffer.set(value, loaded);
    loaded += value.byteLength;
    const now = performance.now();
    if (now - lastReport > 50) {  // at most 20 events a second
      lastReport = now;
      progress({ phase: 'download', loaded, total, url: url.href });
    }
  }
  progress({ phase: 'download', loaded, total: total || loaded, url: url.href });
  return loaded === buffer.byteLength ? buffer : buffer.slice(0, loaded);
}

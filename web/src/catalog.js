// A model catalogue in Firefox's format (Remote Settings, collection translations-models-v2): the
// package's side. The rules (which records a channel sees, the newest version of each pair, its
// files, the route through English) and the checks of every file (size, both sha256, zstd with a
// bound) are the engine's (core/src/catalog, through Module.Catalog: wasm/bindings/catalog.cc),
// run in the single-threaded wasm build on this thread; this file fetches with progress and keeps
// what passed the checks:
//   Node      the folder the CLI uses ($XDG_CACHE_HOME/tformer or ~/.cache/tformer, or `cache`
//             given as a path), in the CLI's layout, so that a pair fetched by either is cached for both;
//   browsers  the Cache API (cache name 'tformer-catalog-v1', or `cache` given as a name or a Cache).
// The catalogue's documents are cached too: a cached pair works offline. Online, each use reads the
// records again, so that a newer release version or a changed file replaces what is cached.
import { isNode } from './environment.js';
import { variantFiles, compileWasm } from './wasm-files.js';
import { ModelLoadError } from './errors.js';
import { glueFactory } from './glue.js';
import { fetchFailure } from './fetch-failure.js';

export const FIREFOX_CATALOG = 'https://firefox.settings.services.mozilla.com/v1';
export const CATALOG_CACHE_NAME = 'tformer-catalog-v1';

let modulePromise = null;

// The single-threaded build, instantiated once on this thread for the catalogue's rules.
function catalogModule(wasmBase) {
  if (!modulePromise) {
    modulePromise = (async () => {
      const files = variantFiles('single', wasmBase);
      const wasmModule = await compileWasm(files.wasm);
      const create = await glueFactory('single', files.glue);
      return create({
        instantiateWasm(imports, receive) {
          WebAssembly.instantiate(wasmModule, imports).then((instance) => receive(instance, wasmModule));
          return {};
        },
      });
    })();
    modulePromise.catch(() => { modulePromise = null; });
  }
  return modulePromise;
}

async function sha256Text(text) {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

// ---- the caches ------------------------------------------------------------------------------------
// A cache key is <pair>/<version folder>/<file name> or a document's name, built from record fields
// that the engine held to strict patterns when it read the records; each part is checked again
// here, so that no key can name anything outside the cache.
const KEY_PART = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,199}$/;
// The empty file in each version folder the cache made: only folders that hold it are ever
// removed (the CLI's cache writes and reads the same mark: core/cli/catalog_client.h).
export const VERSION_MARK = '.tformer-version';

function checkKey(key) {
  const parts = key.split('/');
  const bad = (p, i) => !(KEY_PART.test(p) || (i === 2 && p === VERSION_MARK)) || p.includes('..');
  if (parts.length > 3 || parts.some(bad)) {
    throw new ModelLoadError(`refusing the cache key '${key.slice(0, 80)}': not <pair>/<version>/<file name>`);
  }
  return key;
}

class FolderCache {
  constructor(dir, path) {
    this.dir = dir;
    this.path = path;
  }

  static async open(cache, server) {
    // Not import(): bundlers for browsers see no `node:` import.
    const path = process.getBuiltinModule('node:path');
    const os = process.getBuiltinModule('node:os');
    const root = typeof cache === 'string' ? cache
      : process.env.XDG_CACHE_HOME ? path.join(process.env.XDG_CACHE_HOME, 'tformer') : path.join(os.homedir(), '.cache', 'tformer');
    return new FolderCache(path.resolve(root, `catalog-${(await sha256Text(server)).slice(0, 16)}`), path);
  }

  async fs() {
    return process.getBuiltinModule('node:fs/promises');
  }

  // The file of a key, after checking that the deepest folder on its way that exists lies inside
  // this catalogue's folder once its links are resolved (a folder replaced by a link is refused).
  async file(key, action) {
    const fs = await this.fs();
    const file = this.path.join(this.dir, checkKey(key));
    const root = await fs.realpath(this.dir).catch(() => null);
    if (root === null) return file;  // nothing made yet: the key's own check is enough
    for (let at = this.path.dirname(file); at.length >= this.dir.length; at = this.path.dirname(at)) {
      const real = await fs.realpath(at).catch(() => null);
      if (real === null) continue;
      if (real === root || real.startsWith(root + this.path.sep)) return file;
      break;
    }
    throw new ModelLoadError(`refusing to ${action} '${file}': it lies outside the cache folder ${this.dir}`);
  }

  async get(key) {
    try {
      return new Uint8Array(await (await this.fs()).readFile(await this.file(key, 'read')));
    } catch {
      return null;
    }
  }

  // Under a temporary name, then renamed: a reader sees the whole file or none.
  async put(key, bytes) {
    const fs = await this.fs();
    const file = await this.file(key, 'write');
    await fs.mkdir(this.path.dirname(file), { recursive: true });
    await this.file(key, 'write');  // again, now that the folders exist
    const part = `${file}.part-${process.pid}`;
    await fs.writeFile(part, bytes);
    await fs.rename(part, file);
  }

  async has(key) {
    try {
      return (await (await this.fs()).stat(await this.file(key, 'read'))).isFile();
    } catch {
      return false;
    }
  }

  async delete(key) {
    await (await this.fs()).rm(await this.file(key, 'remove'), { force: true });
  }

  // Marks a version folder as the cache's own.
  async mark(folder, version) {
    const file = await this.file(`${folder}/${version}/${VERSION_MARK}`, 'write');
    await (await this.fs()).writeFile(file, '');
  }

  // The other version folders of a pair that this cache made (real folders holding the mark; links
  // and anything else are left alone), with what they hold.
  async dropOthers(folder, keep) {
    const fs = await this.fs();
    const pairDir = this.path.dirname(await this.file(`${folder}/${keep}`, 'clean up'));
    const entries = await fs.readdir(pairDir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isDirectory() || e.isSymbolicLink() || e.name === keep || !KEY_PART.test(e.name)) continue;
      const mark = await fs.lstat(this.path.join(pairDir, e.name, VERSION_MARK)).catch(() => null);
      if (!mark?.isFile()) continue;
      await fs.rm(await this.file(`${folder}/${e.name}`, 'remove'), { recursive: true, force: true });
    }
  }
}

class BrowserCache {
  constructor(cache, server) {
    this.cache = cache;
    this.prefix = `${server.replace(/\/+$/, '')}/.tformer-cache/`;
  }

  static async open(cache, server) {
    if (cache === false) return null;
    if (typeof cache === 'object' && cache) return new BrowserCache(cache, server);
    if (!globalThis.caches) return null;
    try {
      return new BrowserCache(await globalThis.caches.open(typeof cache === 'string' ? cache : CATALOG_CACHE_NAME), server);
    } catch {
      return null;  // storage disabled (a private window): go without a cache
    }
  }

  // Keys are checked as the folder cache checks them, so that both refuse the same records.
  async get(key) {
    const r = await this.cache.match(this.prefix + checkKey(key));
    return r ? new Uint8Array(await r.arrayBuffer()) : null;
  }

  async put(key, bytes) {
    await this.cache.put(this.prefix + checkKey(key), new Response(bytes));
  }

  async has(key) {
    return (await this.cache.match(this.prefix + checkKey(key))) !== undefined;
  }

  async delete(key) {
    await this.cache.delete(this.prefix + checkKey(key));
  }

  // A cache of URLs has no folders to mark: dropOthers() removes by prefix.
  async mark() {}

  async dropOthers(folder, keep) {
    checkKey(`${folder}/${keep}`);
    const under = `${this.prefix}${folder}/`;
    for (const request of await this.cache.keys()) {
      if (request.url.startsWith(under) && !request.url.startsWith(`${under}${keep}/`)) await this.cache.delete(request);
    }
  }
}

async function openCache(cache, server) {
  if (cache === false) return null;
  if (isNode() && (cache === undefined || cache === true || typeof cache === 'string')) return FolderCache.open(cache, server);
  return BrowserCache.open(cache === true ? undefined : cache, server);
}

// Where a model's file lives in the cache: the CLI's layout (core/cli/catalog_client.h), one folder
// per pair and in it one per version.
const pairFolder = (step) => `${step.source}-${step.target}`;
const versionFolder = (step) => `${step.version.replace(/[^A-Za-z0-9.-]/g, '_')}-${step.architecture || 'model'}`;
const fileKey = (step, file) => `${pairFolder(step)}/${versionFolder(step)}/${file.name}`;

// ---- fetching ---------------------------------------------------------------------------------------
async function fetchBytes(url, { signal, onBytes, limit }) {
  let response;
  try {
    response = await fetch(url, { signal });
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    throw new ModelLoadError(`cannot download ${url}: ${fetchFailure(e)}`, { cause: e });
  }
  if (!response.ok) throw new ModelLoadError(`cannot download ${url}: HTTP status ${response.status}`);
  const chunks = [];
  let received = 0;
  try {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > limit) {
        reader.cancel().catch(() => {});
        throw new ModelLoadError(`${url} sends more than the ${limit} bytes its record states`);
      }
      chunks.push(value);
      onBytes?.(value.byteLength);
    }
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    if (e instanceof ModelLoadError) throw e;
    // A cut connection: what arrived goes to the checks, which name it truncated.
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return bytes;
}

function engineError(e, what) {
  if (typeof e?.detail === 'string') return new ModelLoadError(`${what}: ${e.detail}`, { cause: e });
  return e;
}

// The catalogue's documents as cached ({root, records}), or null.
async function cachedDocuments(store) {
  const root = await store?.get('server.json');
  const records = root ? await store?.get('records.json') : null;
  return root && records ? { root: new TextDecoder().decode(root), records: new TextDecoder().decode(records) } : null;
}

/**
 * The catalogue at `server` as the engine reads it: {module, catalog (a Module.Catalog), base, cache,
 * fromCache}. The documents are fetched, or read from the cache when the server cannot be reached
 * (with `cachedFirst`, read from the cache when it has them: a look at what is cached needs no
 * fresh list).
 */
export async function openCatalog({ catalog: server = FIREFOX_CATALOG, channel, architecture, cache, wasmBase, signal, cachedFirst = false } = {}) {
  const M = await catalogModule(wasmBase);
  const store = await openCache(cache, server);
  const urls = M.catalogUrls(server);
  let documents = cachedFirst ? await cachedDocuments(store) : null;
  let fromCache = documents !== null;
  if (!documents) {
    try {
      documents = {
        root: new TextDecoder().decode(await fetchBytes(urls.server, { signal, limit: 1 << 20 })),
        records: new TextDecoder().decode(await fetchBytes(urls.records, { signal, limit: 64 << 20 })),
      };
    } catch (e) {
      if (signal?.aborted) throw e;
      documents = await cachedDocuments(store);
      if (!documents) throw new ModelLoadError(`${e.message} (and no copy of this catalogue is cached)`, { cause: e });
      fromCache = true;
    }
  }
  const { root, records } = documents;
  let handle, base;
  try {
    base = M.catalogAttachmentsBase(root);
    handle = new M.Catalog(records, { channel: channel ?? 'release', architecture: architecture ?? '' });
  } catch (e) {
    throw engineError(e, `the catalogue at ${server}`);
  }
  if (!fromCache && store) {
    await store.put('server.json', new TextEncoder().encode(root)).catch(() => {});
    await store.put('records.json', new TextEncoder().encode(records)).catch(() => {});
  }
  return { module: M, catalog: handle, base, cache: store, fromCache, server };
}

/** The pairs of a catalogue: [{from, to, pivot, architecture, downloadBytes}]. */
export async function catalogPairs(options = {}) {
  const c = await openCatalog(options);
  try {
    return c.catalog.pairs().map((p) => ({ from: p.source, to: p.target, pivot: p.pivot, architecture: p.architecture,
      downloadBytes: p.downloadBytes }));
  } finally {
    c.catalog.delete();
  }
}

/**
 * Whether every file of the pair from -> to (both models of a pair through English) is in the
 * cache, so that fetching the pair downloads nothing. Files are only looked for here; fetchPair
 * checks them before use (and downloads one again that fails).
 */
export async function pairCached(from, to, options = {}) {
  const c = await openCatalog({ ...options, cachedFirst: true });
  try {
    if (!c.cache) return false;
    let plan;
    try {
      plan = c.catalog.plan(from, to);
    } catch {
      return false;  // no such pair
    }
    for (const step of plan.steps) {
      for (const f of step.files) {
        if (!(await c.cache.has(fileKey(step, f)))) return false;
      }
    }
    return true;
  } finally {
    c.catalog.delete();
  }
}

/**
 * A pair's plan and its files ready for the importer: [{step, files: [{name, bytes}]}] per step
 * (one, or two through English). Progress: onProgress({phase: 'download', loaded, total, url, pair})
 * over all the files to download, once before the first byte (loaded 0) and as bytes arrive.
 */
export async function fetchPair(from, to, options = {}) {
  const c = await openCatalog(options);
  const { signal, onProgress } = options;
  try {
    let plan;
    try {
      plan = c.catalog.plan(from, to);
    } catch (e) {
      throw engineError(e, `the catalogue at ${c.server}`);
    }
    const pair = plan.steps.map((s) => `${s.source}->${s.target}`).join(', ');
    // What is cached and passes the engine's check is used; the rest is downloaded.
    const ready = new Map();
    let total = 0;
    for (const step of plan.steps) {
      for (const f of step.files) {
        const key = fileKey(step, f);
        const bytes = await c.cache?.get(key);
        if (bytes) {
          try {
            c.catalog.check(f.id, bytes);
            ready.set(f.id, bytes);
            continue;
          } catch {
            await c.cache.delete(key).catch(() => {});
          }
        }
        total += f.size;
      }
    }
    let loaded = 0;
    if (total > 0) onProgress?.({ phase: 'download', loaded, total, url: c.server, pair });
    const steps = [];
    for (const step of plan.steps) {
      const files = [];
      for (const f of step.files) {
        let bytes = ready.get(f.id);
        if (!bytes) {
          const downloaded = await fetchBytes(c.base + f.location, {
            signal, limit: f.size,
            onBytes: (n) => { loaded += n; onProgress?.({ phase: 'download', loaded, total, url: c.server, pair }); },
          });
          try {
            bytes = c.catalog.unpack(f.id, downloaded);
          } catch (e) {
            throw engineError(e, `the catalogue's ${step.source}->${step.target} model`);
          }
          await c.cache?.put(fileKey(step, f), bytes).catch(() => {});
        }
        files.push({ name: f.name, bytes });
      }
      // One version of a pair is kept: a newer one replaces the files of the one used before.
      await c.cache?.mark(pairFolder(step), versionFolder(step)).catch(() => {});
      await c.cache?.dropOthers(pairFolder(step), versionFolder(step)).catch(() => {});
      steps.push({ step, files });
    }
    return { plan, steps, fromCache: total === 0 };
  } finally {
    c.catalog.delete();
  }
}

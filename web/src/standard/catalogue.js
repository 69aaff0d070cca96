// Where the standard Translator finds its models: the one file that knows the catalogues.
//
// A language arc is what one Translator.create() of the package loads. Two sources give arcs:
//   a model catalogue in Firefox's format (its Remote Settings server's URL; default Firefox's):
//     every pair it can translate, directly or through English (src/catalog.js), each created as
//     Translator.create({ from, to, catalog }) of the package: its files downloaded with one
//     progress total, checked against the catalogue's sizes and hashes, kept in the cache;
//   a model registry of .tfm models (registry.json's URL, or a registry object; src/registry.js):
//     one arc per entry, created as Translator.create({ model: entry }), checked against its sha256.
import { loadRegistry } from '../registry.js';
import { catalogPairs, pairCached, FIREFOX_CATALOG } from '../catalog.js';
import { DEFAULT_CACHE_NAME } from '../model-loader.js';
import { canonicalTag } from './language-tags.js';

/**
 * What `catalog` names: {kind: 'catalogue', server} (a Remote Settings server), {kind: 'registry',
 * registry} (a registry's URL, which ends in .json, or a parsed registry), or null (no models).
 * Undefined is Firefox's catalogue.
 */
export function catalogueSource(catalog) {
  if (catalog === undefined) return { kind: 'catalogue', server: FIREFOX_CATALOG };
  if (catalog === null || catalog === false) return null;
  if (typeof catalog === 'string' || catalog instanceof URL) {
    const url = String(catalog);
    return /\.json(?:[?#]|$)/i.test(url) ? { kind: 'registry', registry: url } : { kind: 'catalogue', server: url };
  }
  if (typeof catalog === 'object' && Array.isArray(catalog.models)) return { kind: 'registry', registry: catalog };
  throw new TypeError('catalog must be a model catalogue\'s URL (a Remote Settings server in Firefox\'s format), ' +
    'a model registry\'s URL (registry.json) or a parsed registry ({models: [...]}), or null for none');
}

// Firefox syncs its Remote Settings collections, the model catalogue among them, every 24 hours
// (the pref services.settings.poll_interval, 86400 s, set in modules/libpref/init/all.js): a
// catalogue's list is read once per realm, and read again by the first use a day or more later.
export const CATALOGUE_REFRESH_MS = 86_400_000;

const lists = new Map();  // list key -> { readAt, arcs: Promise }
const ids = new WeakMap();  // an object among the settings (a parsed registry, a Cache) -> its number in keys
let nextId = 0;

function identity(value) {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return JSON.stringify(String(value));
  if (!ids.has(value)) ids.set(value, nextId++);
  return `#${ids.get(value)}`;
}

function listKey(source, { cache, channel, wasmBase }) {
  const where = !source ? null : source.kind === 'registry' ? source.registry : source.server;
  return [source?.kind, where, cache, channel, wasmBase].map(identity).join('\n');
}

/**
 * catalogueArcs(source, settings), read once per realm for the same source and settings and again
 * after CATALOGUE_REFRESH_MS; a read that failed is forgotten, so that the next use tries again.
 * `now`: the clock (a test's).
 */
export function catalogueList(source, settings = {}, { now = Date.now } = {}) {
  const key = listKey(source, settings);
  let entry = lists.get(key);
  if (!entry || now() - entry.readAt >= CATALOGUE_REFRESH_MS) {
    entry = { readAt: now(), arcs: catalogueArcs(source, settings) };
    lists.set(key, entry);
    entry.arcs.catch(() => {
      if (lists.get(key) === entry) lists.delete(key);
    });
  }
  return entry.arcs;
}

// A tag of the catalogue as the API gives it, or null for one Intl cannot read.
function tagOrNull(tag) {
  try {
    return canonicalTag(tag);
  } catch {
    return null;
  }
}

/**
 * The language arcs of a source (catalogueSource): [{ sourceLanguage, targetLanguage, key, options,
 * cached() }]: canonical tags; `key` names the arc's models; `options` is what the package's
 * Translator.create takes for it (less wasmBase and onProgress); cached() resolves to whether its
 * models are in this realm's cache (so that creating it downloads nothing).
 * `settings`: {cache, channel, wasmBase, signal}, as the package's Translator.create takes them.
 */
export async function catalogueArcs(source, { cache, channel, wasmBase, signal } = {}) {
  if (!source) return [];
  if (source.kind === 'registry') {
    const registry = typeof source.registry === 'object' ? source.registry : await loadRegistry(source.registry, { signal });
    return registry.models.filter((m) => !m.test).map((m) => ({
      sourceLanguage: canonicalTag(m.from),
      targetLanguage: canonicalTag(m.to),
      key: m.url,
      options: { model: m },
      async cached() {
        const caches = globalThis.caches;
        if (!m.url || !caches?.open) return false;
        try {
          return !!(await (await caches.open(DEFAULT_CACHE_NAME)).match(m.url));
        } catch {
          return false;  // no cache here (an opaque origin)
        }
      },
    }));
  }
  const settings = { catalog: source.server, cache, channel, wasmBase };
  const pairs = await catalogPairs({ ...settings, signal });
  const arcs = [];
  for (const p of pairs) {
    const sourceLanguage = tagOrNull(p.from);
    const targetLanguage = tagOrNull(p.to);
    if (!sourceLanguage || !targetLanguage) continue;
    const options = { from: p.from, to: p.to, catalog: source.server, ...(cache === undefined ? {} : { cache }),
      ...(channel === undefined ? {} : { channel }) };
    arcs.push({
      sourceLanguage, targetLanguage, key: `${source.server} ${p.from}->${p.to}`, options,
      cached: () => pairCached(p.from, p.to, settings).catch(() => false),
    });
  }
  return arcs;
}

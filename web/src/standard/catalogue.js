// Where the standard Translator finds its models: the one function that knows the catalogue.
//
// Today the catalogue is the package's model registry (src/registry.js): a registry.json's URL,
// or a registry as loadRegistry/parseRegistry give it. Each entry is one direction (from -> to)
// that Translator.create({ model: entry }) loads, checked against its sha256. A catalogue of
// other models (Firefox's, with pivots through English) plugs in here.
import { loadRegistry } from '../registry.js';
import { canonicalTag } from './language-tags.js';

/**
 * The language arcs of `catalog`: [{ sourceLanguage, targetLanguage, model }], canonical tags,
 * `model` what the package's Translator.create takes. No catalogue: no arcs.
 */
export async function catalogueArcs(catalog, { signal } = {}) {
  if (catalog === undefined || catalog === null) return [];
  const registry = typeof catalog === 'string' || catalog instanceof URL ? await loadRegistry(catalog, { signal }) : catalog;
  if (!Array.isArray(registry?.models)) throw new TypeError('catalog must be a registry URL or a parsed registry ({models: [...]})');
  return registry.models.filter((m) => !m.test).map((m) => ({
    sourceLanguage: canonicalTag(m.from), targetLanguage: canonicalTag(m.to), model: m,
  }));
}

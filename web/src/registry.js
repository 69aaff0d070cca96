// The model registry: a small JSON file listing models with their languages, size and sha256
// (the idea of Bergamot's registry with integrity hashes). URLs in it are relative to the
// registry's own URL. scripts/registry.mjs writes one from the models present.
//
//   { "format": "tformer-registry", "version": 1,
//     "models": [ { "id": "tiny.deen", "from": "de", "to": "en", "label": "tiny.deen (de -> en)",
//                   "url": "tiny.deen/model.int8.tfm", "size": 7471104, "sha256": "<64 hex digits>",
//                   "weights": "int8", "test": false, "readme": "tiny.deen/README.md",
//                   "variants": [ { "weights": "int8", "url": "tiny.deen/model.int8.tfm", "size": ..., "sha256": ...,
//                                   "default": true, "bleu": { "multi30k-test2016": 22.4 } },
//                                 { "weights": "f16", "url": "tiny.deen/model.tfm", ..., "default": false } ],
//                   "defaultReason": "int8 is within 0.5 BLEU of f16 on every test set (...)" } ] }
//
// One entry per model; its variants are the same model stored with other weights (f16, int8).
// The entry's own url, size and sha256 are its default variant's, so an entry can be passed as
// is to Translator.create({ model: entry }); withVariant(entry, 'f16') gives one for another.
// `variants` is optional (an older registry, or a model with one file).

export async function loadRegistry(url, { signal } = {}) {
  const base = new URL(url, globalThis.document?.baseURI ?? globalThis.location?.href);
  let response;
  try {
    response = await fetch(base.href, { signal, cache: 'no-cache' });
  } catch (e) {
    if (e?.name === 'AbortError') throw e;
    throw new Error(`could not load the model registry ${base.href}: ${e.message}`, { cause: e });
  }
  if (!response.ok) throw new Error(`could not load the model registry ${base.href}: HTTP ${response.status}`);
  let json;
  try {
    json = await response.json();
  } catch (e) {
    throw new Error(`the model registry ${base.href} is not valid JSON: ${e.message}`, { cause: e });
  }
  return parseRegistry(json, base.href);
}

export function parseRegistry(json, baseUrl) {
  const what = `the model registry ${baseUrl}`;
  if (json?.format !== 'tformer-registry' || json.version !== 1 || !Array.isArray(json.models)) {
    throw new Error(`${what} is not a tformer registry (expected {"format": "tformer-registry", "version": 1, "models": [...]})`);
  }
  const models = json.models.map((m, i) => {
    for (const key of ['id', 'from', 'to', 'url', 'sha256']) {
      if (typeof m[key] !== 'string' || !m[key]) throw new Error(`${what}: model ${i} has no '${key}'`);
    }
    if (!/^[0-9a-f]{64}$/i.test(m.sha256)) throw new Error(`${what}: model ${m.id}: sha256 must be 64 hexadecimal digits`);
    if (!Number.isSafeInteger(m.size) || m.size <= 0) throw new Error(`${what}: model ${m.id}: size must be a positive integer`);
    const url = new URL(m.url, baseUrl).href;
    let variants = [{ weights: typeof m.weights === 'string' ? m.weights : null, url, size: m.size, sha256: m.sha256, default: true }];
    if (m.variants !== undefined) {
      if (!Array.isArray(m.variants) || !m.variants.length) throw new Error(`${what}: model ${m.id}: variants must be a non-empty array`);
      variants = m.variants.map((v, j) => {
        const which = `${what}: model ${m.id}, variant ${j}`;
        if (typeof v?.weights !== 'string' || typeof v.url !== 'string') throw new Error(`${which} needs 'weights' and 'url'`);
        if (typeof v.sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(v.sha256)) throw new Error(`${which}: sha256 must be 64 hexadecimal digits`);
        if (!Number.isSafeInteger(v.size) || v.size <= 0) throw new Error(`${which}: size must be a positive integer`);
        return { ...v, url: new URL(v.url, baseUrl).href, default: v.default === true };
      });
      if (variants.filter((v) => v.default).length !== 1) throw new Error(`${what}: model ${m.id}: exactly one variant must be the default`);
      const chosen = variants.find((v) => v.default);
      if (chosen.url !== url || chosen.sha256.toLowerCase() !== m.sha256.toLowerCase()) {
        throw new Error(`${what}: model ${m.id}: its url and sha256 must be those of its default variant`);
      }
    }
    return {
      ...m, label: m.label ?? `${m.from} -> ${m.to} (${m.id})`, test: m.test === true, url, variants,
      ...(typeof m.readme === 'string' ? { readme: new URL(m.readme, baseUrl).href } : {}),
    };
  });
  return { ...json, models };
}

/**
 * The entry with another variant's url, size and sha256 (e.g. 'f16' for the full model where the
 * default is 'int8'), ready for Translator.create({ model }). Without `weights`: the default.
 */
export function withVariant(entry, weights) {
  const variants = entry.variants ?? [];
  const v = weights === undefined ? variants.find((x) => x.default) : variants.find((x) => x.weights === weights);
  if (!v) {
    throw new RangeError(`model ${entry.id} has no '${weights}' variant (it has: ${variants.map((x) => x.weights).join(', ') || 'none listed'})`);
  }
  return { ...entry, url: v.url, size: v.size, sha256: v.sha256, weights: v.weights };
}

/** The models of a registry for a direction (either language may be omitted). */
export function findModels(registry, { from, to } = {}) {
  return registry.models.filter((m) => (!from || m.from === from) && (!to || m.to === to));
}

// The model registry: a small JSON file listing models with their languages, size and sha256
// (the idea of Bergamot's registry with integrity hashes). URLs in it are relative to the
// registry's own URL. scripts/registry.mjs writes one from the models present.
//
//   { "format": "tformer-registry", "version": 1,
//     "models": [ { "id": "tiny.deen", "from": "de", "to": "en", "label": "German -> English (tiny)",
//                   "url": "tiny.deen/model.tfm", "size": 26214400, "sha256": "<64 hex digits>",
//                   "test": false, "readme": "tiny.deen/README.md" } ] }
//
// An entry can be passed as is to Translator.create({ model: entry }).

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
    return {
      ...m, label: m.label ?? `${m.from} -> ${m.to} (${m.id})`, test: m.test === true, url: new URL(m.url, baseUrl).href,
      ...(typeof m.readme === 'string' ? { readme: new URL(m.readme, baseUrl).href } : {}),
    };
  });
  return { ...json, models };
}

/** The models of a registry for a direction (either language may be omitted). */
export function findModels(registry, { from, to } = {}) {
  return registry.models.filter((m) => (!from || m.from === from) && (!to || m.to === to));
}

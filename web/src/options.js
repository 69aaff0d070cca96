// Checks the options of Translator.create and translate(): their names and the types of their
// values. A wrong option is a TypeError or RangeError naming it, raised before anything is
// queued. Nothing is filled in: an option left out keeps the engine's default, which is stated
// once, in C++ (tformer::TranslateOptions, read by the bindings' translate options).
import { BACKENDS, VARIANTS, MAX_THREADS } from './select.js';
import { memorySettings } from './memory.js';
import { checkGlossary } from './glossary.js';

const CREATE_KEYS = ['model', 'sha256', 'size', 'threads', 'backend', 'variant', 'onProgress', 'onFallback', 'cache', 'signal', 'wasmBase',
  'from', 'to', 'catalog', 'channel', 'architecture', 'memory', 'glossary'];
const CATALOG_KEYS = ['catalog', 'channel', 'architecture', 'cache', 'signal', 'wasmBase'];
const CHANNELS = ['release', 'beta', 'nightly'];
const TRANSLATE_KEYS = ['beam', 'maxLength', 'nbest', 'alignment', 'splitSentences', 'maxInputChars', 'maxSentenceTokens', 'passthrough',
  'repetitionGuard', 'html', 'htmlTranslateCode', 'shortlist', 'glossary', 'confidence', 'signal', 'key', 'supersede'];

// The largest value of the engine's int options: the bound of the options the engine itself
// limits no further.
const INT_FIELD_MAX = 2 ** 31 - 1;

function checkKeys(what, options, known) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${what}: options must be an object (got ${describe(options)})`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new TypeError(`${what}: unknown option '${key}' (known: ${known.join(', ')})`);
  }
  return options;
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '...' : value)}`;
  return typeof value === 'object' ? (value.constructor?.name ?? 'an object') : `${typeof value} ${String(value)}`;
}

function integer(what, name, value, min, max) {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${what}: option '${name}' must be an integer (got ${describe(value)})`);
  }
  if (value < min || value > max) throw new RangeError(`${what}: option '${name}' must be between ${min} and ${max} (got ${value})`);
  return value;
}

function boolean(what, name, value) {
  if (typeof value !== 'boolean') throw new TypeError(`${what}: option '${name}' must be true or false (got ${describe(value)})`);
  return value;
}

function oneOf(what, name, value, allowed) {
  if (!allowed.includes(value)) {
    throw new TypeError(`${what}: option '${name}' must be one of ${allowed.map((a) => `'${a}'`).join(', ')} (got ${describe(value)})`);
  }
  return value;
}

export function checkSignal(what, signal) {
  if (signal === undefined) return undefined;
  if (typeof signal !== 'object' || signal === null || typeof signal.aborted !== 'boolean' ||
      typeof signal.addEventListener !== 'function') {
    throw new TypeError(`${what}: option 'signal' must be an AbortSignal (got ${describe(signal)})`);
  }
  return signal;
}

/**
 * A request's scheduling options: `key` (a non-empty string: the request runs in chunks, and a
 * later request with the same key may supersede it) and `supersede` (true: this request
 * supersedes the earlier ones with its key; needs a key). Returns {key: string|null, supersede}.
 */
export function checkScheduling(what, options) {
  const key = options?.key;
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    throw new TypeError(`${what}: option 'key' must be a non-empty string (got ${describe(key)})`);
  }
  const supersede = options?.supersede === undefined ? false : boolean(what, 'supersede', options.supersede);
  if (supersede && key === undefined) throw new TypeError(`${what}: option 'supersede' needs a 'key' (the requests it supersedes share it)`);
  return { key: key ?? null, supersede };
}

export function checkCreateOptions(options) {
  const what = 'Translator.create';
  if (options === undefined) throw new TypeError(`${what}: options with a 'model' are required (or 'from' and 'to': a pair of a model catalogue)`);
  const o = checkKeys(what, options, CREATE_KEYS);
  if (o.from !== undefined || o.to !== undefined) {
    // A pair of a model catalogue (catalog.js).
    if (o.model !== undefined) throw new TypeError(`${what}: give either 'model' or 'from' and 'to', not both`);
    for (const key of ['from', 'to']) {
      if (typeof o[key] !== 'string' || o[key] === '') {
        throw new TypeError(`${what}: option '${key}' must be a language tag such as 'fr' (got ${describe(o[key])})`);
      }
    }
    if (o.sha256 !== undefined || o.size !== undefined) {
      throw new TypeError(`${what}: a catalogue pair is checked against the catalogue's own sha256 and sizes; 'sha256' and 'size' do not apply`);
    }
  } else if (o.model === undefined || o.model === null) {
    throw new TypeError(`${what}: option 'model' is required (a URL, a path in Node, an ArrayBuffer/Uint8Array, or a registry entry)`);
  }
  if (o.threads !== undefined) integer(what, 'threads', o.threads, 1, MAX_THREADS);
  if (o.backend !== undefined) oneOf(what, 'backend', o.backend, ['auto', ...Object.keys(BACKENDS)]);
  if (o.variant !== undefined) oneOf(what, 'variant', o.variant, ['auto', ...Object.keys(VARIANTS)]);
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') {
    throw new TypeError(`${what}: option 'onProgress' must be a function (got ${describe(o.onProgress)})`);
  }
  if (o.onFallback !== undefined && typeof o.onFallback !== 'function') {
    throw new TypeError(`${what}: option 'onFallback' must be a function (got ${describe(o.onFallback)})`);
  }
  if (o.sha256 !== undefined && (typeof o.sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(o.sha256))) {
    throw new TypeError(`${what}: option 'sha256' must be 64 hexadecimal digits (got ${describe(o.sha256)})`);
  }
  if (o.size !== undefined) integer(what, 'size', o.size, 0, Number.MAX_SAFE_INTEGER);
  if (o.cache !== undefined && typeof o.cache !== 'boolean' && typeof o.cache !== 'string' &&
      !(typeof o.cache === 'object' && o.cache && typeof o.cache.match === 'function' && typeof o.cache.put === 'function')) {
    throw new TypeError(`${what}: option 'cache' must be true, false, a cache name or a Cache (got ${describe(o.cache)})`);
  }
  if (o.wasmBase !== undefined && typeof o.wasmBase !== 'string' && !(o.wasmBase instanceof URL)) {
    throw new TypeError(`${what}: option 'wasmBase' must be a URL (got ${describe(o.wasmBase)})`);
  }
  checkCatalogOptions(what, o);
  checkSignal(what, o.signal);
  memorySettings(what, o.memory, describe);
  // Every translate() of the translator uses it, unless the call gives its own.
  if (o.glossary !== undefined) return { ...o, glossary: checkGlossary(what, o.glossary) };
  return o;
}

function checkCatalogOptions(what, o) {
  if (o.catalog !== undefined && typeof o.catalog !== 'string' && !(o.catalog instanceof URL)) {
    throw new TypeError(`${what}: option 'catalog' must be the catalogue server's URL (got ${describe(o.catalog)})`);
  }
  if (o.channel !== undefined) oneOf(what, 'channel', o.channel, CHANNELS);
  if (o.architecture !== undefined && typeof o.architecture !== 'string') {
    throw new TypeError(`${what}: option 'architecture' must be a string such as 'tiny' or 'base' (got ${describe(o.architecture)})`);
  }
  if ((o.catalog !== undefined || o.channel !== undefined || o.architecture !== undefined) && o.from === undefined) {
    throw new TypeError(`${what}: options 'catalog', 'channel' and 'architecture' go with 'from' and 'to'`);
  }
}

/** The options of Translator.pairs(). */
export function checkPairsOptions(options) {
  const what = 'Translator.pairs';
  const o = checkKeys(what, options, CATALOG_KEYS);
  checkCatalogOptions(what, { ...o, from: '' });
  checkSignal(what, o.signal);
  return o;
}

// The package's translate() options that go to the engine, by the bindings' names, and the check
// of each value (the ranges here are types' bounds; the engine checks its own rules).
const ENGINE_KEYS = {
  beam: ['beam', (what, v, limits) => integer(what, 'beam', v, 1, limits.maxBeam)],
  nbest: ['nbest', (what, v, limits) => integer(what, 'nbest', v, 1, limits.maxBeam)],
  // No bound of its own: the engine stops at the model's positions whatever is asked.
  maxLength: ['maxLength', (what, v) => integer(what, 'maxLength', v, 0, INT_FIELD_MAX)],
  alignment: ['returnAlignment', (what, v) => boolean(what, 'alignment', v)],
  splitSentences: ['splitSentences', (what, v) => boolean(what, 'splitSentences', v)],
  maxInputChars: ['maxInputChars', (what, v) => integer(what, 'maxInputChars', v, 0, INT_FIELD_MAX)],
  maxSentenceTokens: ['maxSentenceTokens', (what, v) => integer(what, 'maxSentenceTokens', v, 0, INT_FIELD_MAX)],
  passthrough: ['passthrough', (what, v) => boolean(what, 'passthrough', v)],
  repetitionGuard: ['repetitionGuard', (what, v) => boolean(what, 'repetitionGuard', v)],
  html: ['html', (what, v) => boolean(what, 'html', v)],
  htmlTranslateCode: ['htmlTranslateCode', (what, v) => boolean(what, 'htmlTranslateCode', v)],
  shortlist: ['shortlist', (what, v) => boolean(what, 'shortlist', v)],
  glossary: ['glossary', (what, v) => checkGlossary(what, v)],
  confidence: ['confidence', (what, v) => boolean(what, 'confidence', v)],
};

/**
 * The public translate() options -> the options of the engine's translate() (the bindings' names),
 * with only the keys given. `limits`: the engine's bounds (Module.limits(): maxBeam), not a copy.
 */
export function engineOptions(options, limits, what = 'translate') {
  const o = checkKeys(what, options, TRANSLATE_KEYS);
  const out = {};
  for (const [name, [engineName, check]] of Object.entries(ENGINE_KEYS)) {
    if (o[name] !== undefined) out[engineName] = check(what, o[name], limits);
  }
  if (out.nbest !== undefined && out.beam !== undefined && out.nbest > out.beam) {
    throw new RangeError(`${what}: option 'nbest' (${out.nbest}) cannot exceed 'beam' (${out.beam})`);
  }
  return out;
}

/** Text input: a string or an array of strings. Returns the array and whether one was given. */
export function checkTexts(texts) {
  if (typeof texts === 'string') return { list: [texts], single: true };
  if (!Array.isArray(texts)) throw new TypeError(`translate: text must be a string or an array of strings (got ${describe(texts)})`);
  texts.forEach((t, i) => {
    if (typeof t !== 'string') throw new TypeError(`translate: item ${i} of the array is not a string (got ${describe(t)})`);
  });
  return { list: texts.slice(), single: false };
}

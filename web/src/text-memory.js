// The translation memory's first level: whole texts answered before. A page's blocks, menus,
// footers and buttons come back word for word on the next visit, and a text translated before
// with the same options gets its complete result back without entering the engine: no HTML
// parsing, segmentation, tokenization or conversion of results, which is most of what the engine's
// own memory (sentence by sentence, memory.js) still costs for a text whose every sentence it
// knows. It lives in the Worker beside that memory, is bounded the same way, least recently used
// first, and is stored and cleared with it.
//
// A result is the package's (results.js: completeTranslation), kept as a private copy: what is
// handed out is a structured clone, since the Worker transfers its typed arrays and a caller may
// change what it got.

// Options that change no translation (the request queue's own), left out of the key.
const NOT_IN_KEY = new Set(['signal', 'key', 'supersede']);

// Rough bytes of a result: its strings (UTF-16), typed arrays and a little per object and array.
function sizeOf(value) {
  if (typeof value === 'string') return 2 * value.length;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (Array.isArray(value)) return value.reduce((n, v) => n + sizeOf(v), 16);
  if (value && typeof value === 'object') return Object.entries(value).reduce((n, [k, v]) => n + 2 * k.length + sizeOf(v), 32);
  return 8;
}

export class TextMemory {
  /** @param {{maxEntries?: number, maxBytes?: number}} limits  the same limits as the engine's memory */
  constructor({ maxEntries = 20000, maxBytes = 64 << 20 } = {}) {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.entries = new Map();  // key -> {result, bytes}, in order of use (oldest first)
    this.bytes = 0;
    this.sentenceHits = 0;     // sentences of the texts answered from here
    this.changed = false;      // entries added since the last image()
  }

  /**
   * The options as a key part: every option the engine is given, in a fixed order, but the
   * queue's own. More than the engine's own fingerprint (tformer/options.h memory_fingerprint)
   * where a field changes no translation: that costs only a miss, never a stale answer. The model
   * is not in it: the memory belongs to one engine, and is stored under the model's identity.
   */
  static optionsKey(options) {
    const kept = Object.keys(options).filter((k) => !NOT_IN_KEY.has(k) && options[k] !== undefined).sort();
    return JSON.stringify(kept.map((k) => [k, options[k]]));
  }

  /** A copy of the result kept for (optionsKey, text), or undefined; the entry becomes the newest. */
  get(optionsKey, text) {
    const key = `${optionsKey}\n${text}`;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.sentenceHits += entry.result.sentences.length;
    return structuredClone(entry.result);
  }

  /** Keeps a copy of a result, dropping the least recently used entries beyond the limits. */
  set(optionsKey, text, result) {
    const key = `${optionsKey}\n${text}`;
    this.remove(key);
    if (this.add(key, structuredClone(result))) this.changed = true;
  }

  // Adds an entry as the newest (not one larger than the whole memory), then drops the oldest
  // beyond the limits. Whether it was added.
  add(key, result) {
    const bytes = 2 * key.length + sizeOf(result);
    if (bytes > this.maxBytes) return false;
    this.entries.set(key, { result, bytes });
    this.bytes += bytes;
    for (const [oldest] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
    return true;
  }

  remove(key) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  clear() {
    this.entries.clear();
    this.bytes = 0;
    this.sentenceHits = 0;
    this.changed = false;
  }

  stats() {
    return { entries: this.entries.size, bytes: this.bytes, hits: this.sentenceHits };
  }

  /** What IndexedDB keeps: [key, result] pairs, oldest first (structured-cloneable). */
  image() {
    this.changed = false;
    return { version: 1, entries: [...this.entries].map(([key, e]) => [key, e.result]) };
  }

  /**
   * Takes the entries of a stored image in place of its own. Returns null, or why it was not used
   * (then the memory is left as it was): what IndexedDB gives back may be damaged or not one.
   */
  load(image) {
    const valid = image && typeof image === 'object' && image.version === 1 && Array.isArray(image.entries) &&
      image.entries.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && e[0].includes('\n') &&
        e[1] && typeof e[1] === 'object' && typeof e[1].text === 'string' && Array.isArray(e[1].sentences));
    if (!valid) return 'not an image of whole texts';
    this.clear();
    for (const [key, result] of image.entries) this.add(key, result);
    return null;
  }
}

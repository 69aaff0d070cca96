// The package's translation memory (create({ memory })): whole texts answered before
// (text-memory.js), then the engine's own, sentence by sentence (Module.TranslationMemory, core
// tformer/translation_memory.h), living in the Worker beside the model, and, with `persist`,
// their images kept in IndexedDB so that a page loaded again (or the next visit) starts with them.
// The engine keys each sentence by the sha256 of the model file and every option that changes a
// translation, so a new model or other options are never answered with old text (the whole texts
// by every option, in a memory of one model); IndexedDB keeps one image per model (the record's
// key is the same identity; the whole texts' under that key with TEXTS_SUFFIX).
//
// An image read back that is damaged, truncated or not one is refused by the engine with a
// warning (info.warnings) and replaced at the next save; a runtime without IndexedDB (Node)
// keeps the memory for the Translator's lifetime only, with a warning.

import { TextMemory } from './text-memory.js';

/** The IndexedDB database that `persist: true` uses. */
export const DEFAULT_MEMORY_DATABASE = 'tformer-memory-v1';

// After a translation that added sentences, the image is written this long after the last one
// (a page translated block by block is saved once, not once per block).
const SAVE_DELAY_MS = 300;

// The IndexedDB key of the whole texts' image: the model's identity and this.
const TEXTS_SUFFIX = ' texts';

/**
 * Checks create()'s `memory` option: true, false, or {persist, maxEntries, maxBytes}.
 * Returns null (no memory) or {persist: string|null, maxEntries?, maxBytes?}.
 */
export function memorySettings(what, value, describe) {
  if (value === undefined || value === false) return null;
  if (value === true) return { persist: null };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${what}: option 'memory' must be true, false or {persist, maxEntries, maxBytes} (got ${describe(value)})`);
  }
  for (const key of Object.keys(value)) {
    if (!['persist', 'maxEntries', 'maxBytes'].includes(key)) {
      throw new TypeError(`${what}: unknown option 'memory.${key}' (known: persist, maxEntries, maxBytes)`);
    }
  }
  const out = { persist: null };
  const p = value.persist;
  if (p === true) out.persist = DEFAULT_MEMORY_DATABASE;
  else if (typeof p === 'string' && p !== '') out.persist = p;
  else if (p !== undefined && p !== false) {
    throw new TypeError(`${what}: option 'memory.persist' must be true, false or an IndexedDB database name (got ${describe(p)})`);
  }
  for (const key of ['maxEntries', 'maxBytes']) {
    if (value[key] === undefined) continue;
    if (!Number.isSafeInteger(value[key]) || value[key] < 1) {
      throw new RangeError(`${what}: option 'memory.${key}' must be a positive integer (got ${describe(value[key])})`);
    }
    out[key] = value[key];
  }
  return out;
}

// One IndexedDB database holding memory images by model identity.
class ImageStore {
  static async open(name) {
    const db = await request(indexedDB.open(name, 1), (req) => {
      req.onupgradeneeded = () => req.result.createObjectStore('images');
    });
    return new ImageStore(db);
  }

  constructor(db) {
    this.db = db;
  }

  get(key) {
    return request(this.db.transaction('images').objectStore('images').get(key));
  }

  put(key, bytes) {
    return this.write((store) => store.put(bytes, key));
  }

  delete(key) {
    return this.write((store) => store.delete(key));
  }

  write(change) {
    return new Promise((resolve, reject) => {
      const tx = this.db.transaction('images', 'readwrite');
      change(tx.objectStore('images'));
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error('the IndexedDB transaction was aborted'));
    });
  }
}

function request(req, setup = null) {
  setup?.(req);
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/**
 * The Worker's side: the engine's memory, used by its translators, and its stored image.
 * Created by Engine.create with the settings memorySettings() gave.
 */
export class EngineMemory {
  static async create(module, translators, settings, warnings) {
    const memory = new module.TranslationMemory({ maxEntries: settings.maxEntries, maxBytes: settings.maxBytes });
    for (const t of translators) t.useMemory(memory);
    const identity = translators.map((t) => t.memoryIdentity()).join(' + ');
    const engineMemory = new EngineMemory(memory, new TextMemory(settings), identity);
    if (settings.persist) {
      if (typeof indexedDB === 'undefined') {
        warnings.push('memory.persist: this runtime has no IndexedDB; the translation memory lasts as long as the Translator');
      } else {
        try {
          engineMemory.store = await ImageStore.open(settings.persist);
          engineMemory.database = settings.persist;
          const image = await engineMemory.store.get(identity);
          if (image !== undefined) {
            const refused = image instanceof Uint8Array ? memory.load(image) : 'it is not a translation memory image';
            if (refused) warnings.push(`the stored translation memory was not used (${refused}); it will be replaced`);
          }
          const texts = await engineMemory.store.get(identity + TEXTS_SUFFIX);
          if (texts !== undefined) {
            const refused = engineMemory.texts.load(texts);
            if (refused) warnings.push(`the stored translations of whole texts were not used (${refused}); they will be replaced`);
          }
        } catch (e) {
          engineMemory.store = null;
          warnings.push(`memory.persist: IndexedDB '${settings.persist}' cannot be used (${e?.message ?? e}); ` +
            'the translation memory lasts as long as the Translator');
        }
      }
    }
    return engineMemory;
  }

  constructor(memory, texts, identity) {
    this.memory = memory;
    this.texts = texts;         // the TextMemory in front of it
    this.identity = identity;
    this.store = null;
    this.database = null;
    this.timer = null;
    this.saving = Promise.resolve();
    this.dirty = false;
  }

  // The engine's counts, with the sentences of whole texts answered before it as hits.
  stats() {
    const s = this.memory.stats();
    return { ...s, hits: s.hits + this.texts.sentenceHits };
  }

  // After a translation: `added` sentences were computed (and stored in the memory), and new
  // whole texts perhaps kept.
  translated(added) {
    if (!this.store || (added === 0 && !this.texts.changed)) return;
    this.dirty = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.save().catch(() => {}); }, SAVE_DELAY_MS);
  }

  // Writes the image now (when there is something new); resolves once it is stored.
  save() {
    clearTimeout(this.timer);
    this.timer = null;
    if (!this.store || !this.dirty) return this.saving;
    this.dirty = false;
    const image = this.memory.save();
    const texts = this.texts.image();
    this.saving = this.saving.then(() => this.store.put(this.identity, image))
      .then(() => this.store.put(this.identity + TEXTS_SUFFIX, texts));
    return this.saving;
  }

  async clear() {
    clearTimeout(this.timer);
    this.timer = null;
    this.dirty = false;
    this.memory.clear();
    this.texts.clear();
    if (this.store) {
      await this.saving.catch(() => {});
      this.saving = this.store.delete(this.identity).then(() => this.store.delete(this.identity + TEXTS_SUFFIX));
      await this.saving;
    }
  }

  // What Translator.memory.stats() reports.
  async report() {
    await this.saving.catch(() => {});
    return { ...this.stats(), texts: this.texts.stats(), database: this.database, saved: this.store !== null && !this.dirty };
  }

  dispose() {
    clearTimeout(this.timer);
    this.memory.delete();
  }
}

// Translator, as the web's Translator and Language Detector APIs specify it
// (webmachinelearning/translation-api, "The translator API"), on the package's own Translator
// (src/translator.js) and the models of a catalogue (catalogue.js).
//
// A language arc is "available" once its models are in the cache (the package keeps verified
// downloads: the Cache API in browsers, a folder in Node) or loaded in this realm, "downloading" while a create() downloads it,
// "downloadable" otherwise. The identity arc (the same language on both sides) is always
// "available" and gives its input back. Input usage and quota are in code points, the engine's
// unit (its max_input_chars).
import { Translator as EngineTranslator } from '../translator.js';
import { catalogueArcs, catalogueSource } from './catalogue.js';
import { bestFit, canonicalTag } from './language-tags.js';
import { createModelObject, Destroyable, domException, quotaExceededError } from './model-object.js';

/** The engine's longest input, in code points (TranslateOptions::max_input_chars). */
export const TRANSLATOR_INPUT_QUOTA = 100_000;

// Per catalogue (per install()): its arcs (read once), the arcs being downloaded, and those
// loaded in this realm (by key).
export class Catalogue {
  /**
   * @param catalog what install() was given (catalogue.js: catalogueSource)
   * @param {{cache?: boolean|string|object, channel?: string, wasmBase?: string|URL}} settings
   */
  constructor(catalog, { cache, channel, wasmBase } = {}) {
    this.source = catalogueSource(catalog);
    this.settings = { cache, channel, wasmBase };
    this.wasmBase = wasmBase;
    this.arcs = null;
    this.downloading = new Set();
    this.loaded = new Set();
  }

  async load(signal) {
    if (!this.arcs) {
      this.arcs = catalogueArcs(this.source, { ...this.settings, signal });
      this.arcs.catch(() => { this.arcs = null; });
    }
    return this.arcs;
  }

  /** The arc for canonical tags, by best fit, or null. */
  async find(sourceLanguage, targetLanguage) {
    for (const arc of await this.load()) {
      if (bestFit([arc.sourceLanguage], sourceLanguage) && bestFit([arc.targetLanguage], targetLanguage)) return arc;
    }
    return null;
  }

  async availability(arc) {
    if (this.loaded.has(arc.key)) return 'available';
    if (this.downloading.has(arc.key)) return 'downloading';
    return (await arc.cached()) ? 'available' : 'downloadable';
  }
}

// "can be fulfilled by the identity translation": either tag is a best fit for the other
// (en-US and en-GB are; en and de, or zh and zh-Hant, are not).
function identity(source, target) {
  return bestFit([source], target) !== undefined || bestFit([target], source) !== undefined;
}

function requiredTag(options, key) {
  if (options?.[key] === undefined) throw new TypeError(`${key} is required`);
  return canonicalTag(options[key]);
}

function validate(options) {
  if (options === undefined || options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  return { sourceLanguage: requiredTag(options, 'sourceLanguage'), targetLanguage: requiredTag(options, 'targetLanguage') };
}

function domString(method, count, input) {
  if (count < 1) throw new TypeError(`${method}(): 1 argument required, but only 0 present`);
  return `${input}`;
}

/** The standard Translator class bound to one catalogue (what install() defines). */
export function translatorClass(catalogue) {
  async function compute(o) {
    let arc;
    try {
      arc = await catalogue.find(o.sourceLanguage, o.targetLanguage);
    } catch (e) {
      throw Object.assign(domException('UnknownError', `the model catalogue could not be read: ${e.message}`), { cause: e });
    }
    if (arc) return { availability: await catalogue.availability(arc), arc };
    if (identity(o.sourceLanguage, o.targetLanguage)) return { availability: 'available', arc: null };
    return { availability: 'unavailable', arc: null };
  }

  // The package's Translator for an arc: its model downloaded (or read from the cache) and its
  // engine started. `onBytes(soFar, total)` follows the download.
  async function load(arc, onBytes) {
    catalogue.downloading.add(arc.key);
    try {
      const engine = await EngineTranslator.create({
        ...arc.options,
        wasmBase: catalogue.wasmBase,
        onProgress(e) {
          if (e.phase === 'download' && e.total > 0) onBytes(Math.min(e.loaded, e.total), e.total);
        },
      });
      catalogue.loaded.add(arc.key);
      return engine;
    } finally {
      catalogue.downloading.delete(arc.key);
    }
  }

  return class Translator extends Destroyable {
    #engine;
    #source;
    #target;

    static async availability(options) {
      return (await compute(validate(options))).availability;
    }

    static create(options) {
      let arc = null;
      let engine = null;
      return createModelObject(options, {
        validate,
        async availability(o) {
          const result = await compute(o);
          arc = result.arc;
          if (arc) {
            // The spec's best fit: the arc's own tags.
            o.sourceLanguage = arc.sourceLanguage;
            o.targetLanguage = arc.targetLanguage;
          }
          return result.availability === 'available' && arc && !catalogue.loaded.has(arc.key) ? 'downloadable' : result.availability;
        },
        unsupportedMessage: (o) => `no model translates ${o.sourceLanguage} to ${o.targetLanguage}`,
        async download(o, onBytes, signal) {
          engine = await load(arc, onBytes);
          // The download completes when create() is aborted (its bytes stay in the cache); the
          // engine started for it does not stay.
          if (signal?.aborted) {
            engine.dispose();
            engine = null;
          }
        },
        async create(o) {
          if (arc && !engine) engine = await load(arc, () => {});
          return new Translator(engine, o.sourceLanguage, o.targetLanguage);
        },
      });
    }

    constructor(engine, sourceLanguage, targetLanguage) {
      super();
      this.#engine = engine;
      this.#source = sourceLanguage;
      this.#target = targetLanguage;
    }

    get sourceLanguage() { return this.#source; }
    get targetLanguage() { return this.#target; }
    get inputQuota() { return TRANSLATOR_INPUT_QUOTA; }

    #checkQuota(text) {
      const requested = [...text].length;
      if (requested > TRANSLATOR_INPUT_QUOTA) throw quotaExceededError(requested, TRANSLATOR_INPUT_QUOTA);
    }

    async translate(input, options = {}) {
      const text = domString('translate', arguments.length, input);
      return this.operation('translate', options, async (signal) => {
        this.#checkQuota(text);
        if (!this.#engine) return text;  // the identity translation
        return (await this.#engine.translate(text.toWellFormed?.() ?? text, { signal })).text;
      });
    }

    /** A ReadableStream of strings (each sentence with what precedes it) that concatenate to translate()'s result. */
    translateStreaming(input, options = {}) {
      const text = domString('translateStreaming', arguments.length, input);
      if (options !== undefined && (options === null || typeof options !== 'object')) throw new TypeError('translateStreaming(): options must be an object');
      const signal = options?.signal;
      if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError('translateStreaming(): signal must be an AbortSignal');
      if (this.destroyed) throw domException('InvalidStateError', 'translateStreaming(): the model was destroyed');
      const composite = this.callSignal(signal);
      if (composite.aborted) throw composite.reason;
      const engine = this.#engine;
      let iterator = null;
      // The engine's request stops when the stream is aborted (the call's signal, destroy()) or cancelled.
      const stop = new AbortController();
      return new ReadableStream({
        start: (controller) => {
          composite.addEventListener('abort', () => {
            stop.abort(composite.reason);
            controller.error(composite.reason);
          }, { once: true });
          const requested = [...text].length;
          if (requested > TRANSLATOR_INPUT_QUOTA) {
            stop.abort();
            controller.error(quotaExceededError(requested, TRANSLATOR_INPUT_QUOTA));
          }
        },
        pull: async (controller) => {
          if (stop.signal.aborted) return;
          if (!engine) {  // the identity translation
            if (text) controller.enqueue(text);
            controller.close();
            return;
          }
          iterator ??= engine.translateStream(text.toWellFormed?.() ?? text, { signal: stop.signal })[Symbol.asyncIterator]();
          try {
            const { value, done } = await iterator.next();
            if (stop.signal.aborted) return;
            if (done) controller.close();
            else controller.enqueue(`${value.separator}${value.text}`);
          } catch (e) {
            if (!stop.signal.aborted) controller.error(e);
          }
        },
        cancel: (reason) => {
          stop.abort(reason);
          return iterator?.return?.();
        },
      });
    }

    async measureInputUsage(input, options = {}) {
      const text = domString('measureInputUsage', arguments.length, input);
      return this.operation('measureInputUsage', options, () => [...text].length);
    }

    released() {
      // The engine is the realm's: later create()s of the arc find it "available" and load it again.
      this.#engine?.dispose();
      this.#engine = null;
    }
  };
}

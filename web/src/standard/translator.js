// Translator, as the web's Translator and Language Detector APIs specify it
// (webmachinelearning/translation-api, "The translator API"), on the package's own Translator
// (src/translator.js) and the models of a catalogue (catalogue.js), as a WebIDL interface (webidl.js).
//
// A language arc is "available" once its models are in the cache (the package keeps verified
// downloads: the Cache API in browsers, a folder in Node) or loaded in this realm, "downloading"
// while a create() downloads it, "downloadable" otherwise. The translators of an arc share one
// engine (shared-engines.js). The identity arc (the same language on both sides) is always
// "available" and gives its input back, as does an input with nothing to translate (only white
// space and control characters). Input usage and quota are in code points, the engine's unit (its
// max_input_chars).
import { iterableStream } from '../iterable-stream.js';
import { Translator as EngineTranslator } from '../translator.js';
import { catalogueList, catalogueSource } from './catalogue.js';
import { bestFit, canonicalTag } from './language-tags.js';
import { allowedToUse } from './permissions.js';
import { createModelObject, ModelState, domException, quotaExceededError } from './model-object.js';
import { SharedEngines } from './shared-engines.js';
import { defineInterface, dictionary, requiredString } from './webidl.js';

/** The engine's longest input, in code points (TranslateOptions::max_input_chars). */
export const TRANSLATOR_INPUT_QUOTA = 100_000;

const FEATURE = 'translator';

// "No translatable content": nothing but white space and control characters; translated, it is
// itself (the spec: "the resulting translation should be input").
const UNTRANSLATABLE = /^[\s\p{Cc}]*$/u;

// Per catalogue (per install()): its arcs (catalogue.js: read once per realm), the engines of the
// arcs (shared by their translators) and the arcs loaded in this realm (by key).
export class Catalogue {
  /**
   * @param catalog what install() was given (catalogue.js: catalogueSource)
   * @param {{cache?: boolean|string|object, channel?: string, wasmBase?: string|URL}} settings
   */
  constructor(catalog, { cache, channel, wasmBase } = {}) {
    this.source = catalogueSource(catalog);
    this.settings = { cache, channel, wasmBase };
    this.wasmBase = wasmBase;
    this.loaded = new Set();
    // The package's Translator for an arc: its model downloaded (or read from the cache) and its
    // engine started; `onBytes(soFar, total)` follows the download.
    this.engines = new SharedEngines(async (arc, onBytes) => {
      const engine = await EngineTranslator.create({
        ...arc.options,
        wasmBase: this.wasmBase,
        onProgress(e) {
          if (e.phase === 'download' && e.total > 0) onBytes(Math.min(e.loaded, e.total), e.total);
        },
      });
      this.loaded.add(arc.key);
      return engine;
    });
  }

  /** The arc for canonical tags, by best fit, or null. */
  async find(sourceLanguage, targetLanguage) {
    for (const arc of await catalogueList(this.source, this.settings)) {
      if (bestFit([arc.sourceLanguage], sourceLanguage) && bestFit([arc.targetLanguage], targetLanguage)) return arc;
    }
    return null;
  }

  async availability(arc) {
    if (this.loaded.has(arc.key)) return 'available';
    if (await arc.cached()) return 'available';
    return this.engines.loading(arc.key) ? 'downloading' : 'downloadable';
  }
}

// "can be fulfilled by the identity translation": either tag is a best fit for the other
// (en-US and en-GB are; en and de, or zh and zh-Hant, are not).
function identity(source, target) {
  return bestFit([source], target) !== undefined || bestFit([target], source) !== undefined;
}

function requiredTag(options, key) {
  if (options[key] === undefined) throw new TypeError(`${key} is required`);
  return canonicalTag(options[key]);
}

function validate(options) {
  const o = dictionary(options, 'options');
  return { sourceLanguage: requiredTag(o, 'sourceLanguage'), targetLanguage: requiredTag(o, 'targetLanguage') };
}

function checkQuota(text) {
  const requested = [...text].length;
  if (requested > TRANSLATOR_INPUT_QUOTA) throw quotaExceededError(requested, TRANSLATOR_INPUT_QUOTA);
}

// A translator's state: its hold on the arc's shared engine (none for the identity translation).
class TranslatorState extends ModelState {
  constructor(hold, sourceLanguage, targetLanguage) {
    super(() => {
      this.hold?.release();
      this.hold = null;
    });
    this.hold = hold;
    this.sourceLanguage = sourceLanguage;
    this.targetLanguage = targetLanguage;
  }
}

/** The standard Translator interface object bound to one catalogue (what install() defines). */
export function translatorInterface(catalogue) {
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

  const translators = defineInterface('Translator', {
    statics: {
      create: {
        length: 1,
        promise: true,
        run([options]) {
          let arc = null;
          return createModelObject(options, {
            feature: FEATURE,
            validate,
            async availability(o) {
              const result = await compute(o);
              arc = result.arc;
              if (arc) {
                // The spec's best fit: the arc's own tags.
                o.sourceLanguage = arc.sourceLanguage;
                o.targetLanguage = arc.targetLanguage;
              }
              return result.availability;
            },
            unsupportedMessage: (o) => `no model translates ${o.sourceLanguage} to ${o.targetLanguage}`,
            async prepare(o, onBytes) {
              if (!arc) return null;
              const hold = catalogue.engines.hold(arc, onBytes);
              try {
                hold.engine = await hold.ready;
              } catch (e) {
                hold.release();
                throw e;
              }
              return hold;
            },
            wrap(o, hold) {
              const state = new TranslatorState(hold, o.sourceLanguage, o.targetLanguage);
              return { object: translators.make(state), destroy: (reason) => state.destroy(reason) };
            },
            discard: (hold) => hold?.release(),
          });
        },
      },
      availability: {
        length: 1,
        promise: true,
        async run([options]) {
          const o = validate(options);
          if (!allowedToUse(FEATURE)) return 'unavailable';
          return (await compute(o)).availability;
        },
      },
    },
    attributes: {
      sourceLanguage: (state) => state.sourceLanguage,
      targetLanguage: (state) => state.targetLanguage,
      inputQuota: () => TRANSLATOR_INPUT_QUOTA,
    },
    operations: {
      translate: {
        length: 1,
        promise: true,
        run(state, args) {
          const text = requiredString(args, 'translate()');
          return state.operation('translate', args[1], async (signal) => {
            checkQuota(text);
            const engine = state.hold?.engine;
            if (!engine || UNTRANSLATABLE.test(text)) return text;
            return (await engine.translate(text.toWellFormed?.() ?? text, { signal })).text;
          });
        },
      },
      /** A ReadableStream of strings (each sentence with what precedes it) that concatenate to translate()'s result. */
      translateStreaming: {
        length: 1,
        run: (state, args) => translateStreaming(state, requiredString(args, 'translateStreaming()'), args[1]),
      },
      measureInputUsage: {
        length: 1,
        promise: true,
        run(state, args) {
          const text = requiredString(args, 'measureInputUsage()');
          return state.operation('measureInputUsage', args[1], () => [...text].length);
        },
      },
      destroy: { length: 0, run: (state) => state.destroy() },
    },
  });
  return translators.Interface;
}

// "Get a streaming AI model result": the stream errors with the composite signal's reason when the
// call's signal aborts or the translator is destroyed; a cancelled stream stops the engine's request.
function translateStreaming(state, text, options) {
  const composite = state.callSignal(ModelState.signalOf(options, 'translateStreaming()'));
  if (composite.aborted) throw composite.reason;
  const engine = state.hold?.engine;
  let iterator = null;
  const stop = new AbortController();
  // Async-iterable in WebKit too, whose ReadableStream has no async iterator.
  return iterableStream(new ReadableStream({
    start: (controller) => {
      composite.addEventListener('abort', () => {
        stop.abort(composite.reason);
        controller.error(composite.reason);
      }, { once: true });
      try {
        checkQuota(text);
      } catch (e) {
        stop.abort(e);
        controller.error(e);
      }
    },
    pull: async (controller) => {
      if (stop.signal.aborted) return;
      if (!engine || UNTRANSLATABLE.test(text)) {  // the identity translation, or nothing to translate
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
  }));
}

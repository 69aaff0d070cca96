// LanguageDetector, as the web's Translator and Language Detector APIs specify it
// (webmachinelearning/translation-api, "The language detector API"), on CLD2 (src/detection.js).
//
// The "model" to download is the engine's single-threaded wasm build; availability() is
// "downloadable" until it is loaded in this realm ("downloading" meanwhile), then "available". The input quota is finite so
// that one call's copy into wasm memory stays bounded; usage is the input's length in UTF-16 code
// units.
import { loadDetector, detectLoaded, detectorState } from '../detection.js';
import { DETECTABLE_LANGUAGES } from '../detectable-languages.js';
import { canonicalTags, bestFit } from './language-tags.js';
import { createModelObject, Destroyable, domException, quotaExceededError } from './model-object.js';

/** LanguageDetector's inputQuota: UTF-16 code units per call. */
export const DETECTOR_INPUT_QUOTA = 1_000_000;

// "compute language availability": every language must have a best fit among the detectable
// ones; the answer is the detector's state. The tags become their best fits.
function languageAvailability(options, wasmBase) {
  const fitted = [];
  for (const language of options.expectedInputLanguages) {
    const fit = bestFit(DETECTABLE_LANGUAGES, language);
    if (fit === undefined) return { availability: 'unavailable', fitted: options.expectedInputLanguages };
    fitted.push(fit);
  }
  return { availability: detectorState(wasmBase), fitted: [...new Set(fitted)] };
}

function validate(options) {
  return { expectedInputLanguages: canonicalTags(options?.expectedInputLanguages), wasmBase: options?.wasmBase };
}

// WebIDL's conversion of a required DOMString argument.
function domString(method, count, input) {
  if (count < 1) throw new TypeError(`${method}(): 1 argument required, but only 0 present`);
  return `${input}`;  // a Symbol throws a TypeError, as in WebIDL
}

export class LanguageDetector extends Destroyable {
  #module;
  #expected;

  /**
   * @param {{expectedInputLanguages?: string[], signal?: AbortSignal, monitor?: (m: CreateMonitor) => void,
   *          wasmBase?: string|URL}} [options]  wasmBase: where the package's dist/ is (a package option)
   */
  static create(options = {}) {
    const Class = this;  // a subclass (the polyfill's) creates its own instances
    return createModelObject(options, {
      validate,
      async availability(o) {
        const { availability, fitted } = languageAvailability(o, o.wasmBase);
        o.expectedInputLanguages = fitted;
        return availability;
      },
      unsupportedMessage: (o) => `cannot detect ${o.expectedInputLanguages.join(', ')} (LanguageDetector detects ${DETECTABLE_LANGUAGES.join(', ')})`,
      download: (o, onBytes) => loadDetector({ wasmBase: o.wasmBase, onBytes }),
      create: async (o) => new Class(await loadDetector({ wasmBase: o.wasmBase }), o.expectedInputLanguages),
    });
  }

  /** @param {{expectedInputLanguages?: string[]}} [options] */
  static async availability(options = {}) {
    if (options === null || typeof options !== 'object') throw new TypeError('availability(): options must be an object');
    return languageAvailability(validate(options), options.wasmBase).availability;
  }

  constructor(module, expectedInputLanguages) {
    super();
    this.#module = module;
    this.#expected = expectedInputLanguages.length ? Object.freeze([...expectedInputLanguages]) : null;
  }

  get expectedInputLanguages() { return this.#expected; }

  get inputQuota() { return DETECTOR_INPUT_QUOTA; }

  /** @returns {Promise<{detectedLanguage: string, confidence: number}[]>} by confidence; "und" last */
  async detect(input, options = {}) {
    const text = domString('detect', arguments.length, input);
    return this.operation('detect', options, () => {
      const requested = text.length;
      if (requested > DETECTOR_INPUT_QUOTA) throw quotaExceededError(requested, DETECTOR_INPUT_QUOTA);
      try {
        return detectLoaded(this.#module, text).ranked;
      } catch (e) {
        throw Object.assign(domException('UnknownError', `detect(): ${e.message}`), { cause: e });
      }
    });
  }

  async measureInputUsage(input, options = {}) {
    const text = domString('measureInputUsage', arguments.length, input);
    return this.operation('measureInputUsage', options, () => text.length);
  }

  released() {
    this.#module = null;
  }
}

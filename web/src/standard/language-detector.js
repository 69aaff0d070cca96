// LanguageDetector, as the web's Translator and Language Detector APIs specify it
// (webmachinelearning/translation-api, "The language detector API"), on CLD2 (src/detection.js),
// as a WebIDL interface (webidl.js).
//
// The "model" to download is the engine's single-threaded wasm build. availability() is
// "available" once it is loaded in this realm, or where the browser's HTTP cache holds it (a page of
// this origin loaded it before: a request for it costs no download; asked of the cache itself, for
// a build served from the page's own origin); "downloading" while a load is under way, else
// "downloadable". The input quota is finite so that one call's copy into wasm memory stays bounded;
// usage is the input's length in UTF-16 code units.
import { loadDetector, detectLoaded, detectorState } from '../detection.js';
import { DETECTABLE_LANGUAGES } from '../detectable-languages.js';
import { variantFiles } from '../wasm-files.js';
import { canonicalTags, bestFit } from './language-tags.js';
import { allowedToUse } from './permissions.js';
import { createModelObject, ModelState, domException, quotaExceededError } from './model-object.js';
import { defineInterface, dictionary, requiredString } from './webidl.js';

/** LanguageDetector's inputQuota: UTF-16 code units per call. */
export const DETECTOR_INPUT_QUOTA = 1_000_000;

const FEATURE = 'language-detector';

// Whether the browser's HTTP cache holds `url` (a same-origin request only: the Fetch standard allows
// "only-if-cached" for no other). Where it cannot be asked (Node, another origin), no.
async function inHttpCache(url) {
  const origin = globalThis.location?.origin;
  if (typeof globalThis.fetch !== 'function' || !origin || origin === 'null' || new URL(url).origin !== origin) return false;
  try {
    const response = await fetch(url, { cache: 'only-if-cached', mode: 'same-origin' });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

async function detectorAvailability(wasmBase) {
  const state = detectorState(wasmBase);
  if (state !== 'downloadable') return state;
  return (await inHttpCache(variantFiles('single', wasmBase).wasm)) ? 'available' : 'downloadable';
}

// "compute language availability": every language must have a best fit among the detectable
// ones; the answer is the detector's state. The tags become their best fits.
async function languageAvailability(options) {
  const fitted = [];
  for (const language of options.expectedInputLanguages) {
    const fit = bestFit(DETECTABLE_LANGUAGES, language);
    if (fit === undefined) return { availability: 'unavailable', fitted: options.expectedInputLanguages };
    fitted.push(fit);
  }
  return { availability: await detectorAvailability(options.wasmBase), fitted: [...new Set(fitted)] };
}

/**
 * The LanguageDetector interface object whose detectors load the engine from `wasmBase` (where the
 * package's dist/ is; undefined: beside its src/). create() and availability() also take a
 * `wasmBase` option, a package option that overrides it.
 */
export function languageDetectorInterface(wasmBase) {
  const validate = (options) => ({
    expectedInputLanguages: canonicalTags(options.expectedInputLanguages),
    wasmBase: options.wasmBase ?? wasmBase,
  });

  const detectors = defineInterface('LanguageDetector', {
    statics: {
      create: {
        length: 0,
        promise: true,
        run: ([options]) => createModelObject(options, {
          feature: FEATURE,
          validate,
          async availability(o) {
            const { availability, fitted } = await languageAvailability(o);
            o.expectedInputLanguages = fitted;
            return availability;
          },
          unsupportedMessage: (o) => `cannot detect ${o.expectedInputLanguages.join(', ')} (LanguageDetector detects ${DETECTABLE_LANGUAGES.join(', ')})`,
          prepare: (o, onBytes) => loadDetector({ wasmBase: o.wasmBase, onBytes }),
          wrap(o, module) {
            const state = new DetectorState(module, o.expectedInputLanguages);
            return { object: detectors.make(state), destroy: (reason) => state.destroy(reason) };
          },
        }),
      },
      availability: {
        length: 0,
        promise: true,
        async run([options]) {
          const o = validate(dictionary(options, 'availability()'));
          if (!allowedToUse(FEATURE)) return 'unavailable';
          return (await languageAvailability(o)).availability;
        },
      },
    },
    attributes: {
      expectedInputLanguages: (state) => state.expected,
      inputQuota: () => DETECTOR_INPUT_QUOTA,
    },
    operations: {
      /** @returns {Promise<{detectedLanguage: string, confidence: number}[]>} by confidence; "und" last */
      detect: {
        length: 1,
        promise: true,
        run(state, args) {
          const text = requiredString(args, 'detect()');
          return state.operation('detect', args[1], () => {
            const requested = text.length;
            if (requested > DETECTOR_INPUT_QUOTA) throw quotaExceededError(requested, DETECTOR_INPUT_QUOTA);
            try {
              return detectLoaded(state.module, text).ranked;
            } catch (e) {
              throw Object.assign(domException('UnknownError', `detect(): ${e.message}`), { cause: e });
            }
          });
        },
      },
      measureInputUsage: {
        length: 1,
        promise: true,
        run(state, args) {
          const text = requiredString(args, 'measureInputUsage()');
          return state.operation('measureInputUsage', args[1], () => text.length);
        },
      },
      destroy: { length: 0, run: (state) => state.destroy() },
    },
  });
  return detectors.Interface;
}

class DetectorState extends ModelState {
  constructor(module, expectedInputLanguages) {
    super(() => { this.module = null; });
    this.module = module;
    // A FrozenArray attribute: the same frozen array on every read.
    this.expected = expectedInputLanguages.length ? Object.freeze([...expectedInputLanguages]) : null;
  }
}

/** The package's LanguageDetector (the engine's build beside src/, or create()'s `wasmBase`). */
export const LanguageDetector = languageDetectorInterface(undefined);

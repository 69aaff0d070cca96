// tformer-wasm/polyfill: the web's Translator and LanguageDetector APIs
// (webmachinelearning/translation-api) where the browser has none, on this package's engine:
//
//   import { install } from 'tformer-wasm/polyfill';
//   install();   // the models of Firefox's catalogue; or install({ catalog: 'https://host/v1' })
//   const translator = await Translator.create({ sourceLanguage: 'de', targetLanguage: 'en' });
//
// install() defines globalThis.Translator, globalThis.LanguageDetector and globalThis.CreateMonitor
// only where they are absent (a browser's own implementation stays); `force: true` replaces them.
// It returns the interface objects it would define, installed or not.
import { LanguageDetector as PackageLanguageDetector, languageDetectorInterface } from './standard/language-detector.js';
import { Catalogue, translatorInterface } from './standard/translator.js';
import { CreateMonitor } from './standard/model-object.js';

export { CreateMonitor };
// The rule where a browser has its own classes (install() leaves them in place): the browser's API
// where its availability() answers "available" for the request, the package's otherwise.
export { servingApi } from './native-apis.js';

/**
 * @param {{catalog?: string|URL|object|null, cache?: boolean|string|object, channel?: string, force?: boolean,
 *          wasmBase?: string|URL}} [options]
 *   catalog: where the Translator's models are (standard/catalogue.js): a model catalogue in
 *   Firefox's format (its Remote Settings server's URL; default Firefox's), every pair it has,
 *   direct or through English; or a model registry of .tfm models (registry.json's URL, or a
 *   parsed registry); null: none (only the identity translation, the same language on both sides).
 *   cache, channel: as the package's Translator.create takes them for a catalogue pair.
 *   wasmBase: where the package's dist/ is served, when not beside its src/.
 * @returns {{Translator: Function, LanguageDetector: Function, CreateMonitor: Function, installed: string[]}}
 */
export function install({ catalog, cache, channel, force = false, wasmBase } = {}) {
  const Translator = translatorInterface(new Catalogue(catalog, { cache, channel, wasmBase }));
  const LanguageDetector = wasmBase === undefined ? PackageLanguageDetector : languageDetectorInterface(wasmBase);
  const installed = [];
  for (const [name, value] of [['Translator', Translator], ['LanguageDetector', LanguageDetector], ['CreateMonitor', CreateMonitor]]) {
    if (!force && name in globalThis) continue;
    // As the browser's own interfaces are: writable, configurable, not enumerable.
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
    installed.push(name);
  }
  return { Translator, LanguageDetector, CreateMonitor, installed };
}

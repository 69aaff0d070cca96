// tformer-wasm/polyfill: the web's Translator and LanguageDetector APIs
// (webmachinelearning/translation-api) where the browser has none, on this package's engine:
//
//   import { install } from 'tformer-wasm/polyfill';
//   install({ catalog: '/models/registry.json' });
//   const translator = await Translator.create({ sourceLanguage: 'de', targetLanguage: 'en' });
//
// install() defines globalThis.Translator and globalThis.LanguageDetector only where they are
// absent (a browser's own implementation stays); `force: true` replaces them. It returns the
// classes it would define, installed or not.
import { LanguageDetector as PackageLanguageDetector } from './standard/language-detector.js';
import { Catalogue, translatorClass } from './standard/translator.js';

export { CreateMonitor } from './standard/model-object.js';

/**
 * @param {{catalog?: string|URL|object, force?: boolean, wasmBase?: string|URL}} [options]
 *   catalog: where the Translator's models are (a model registry's URL, or a parsed registry);
 *   without one only the identity translation (the same language on both sides) is available.
 *   wasmBase: where the package's dist/ is served, when not beside its src/.
 * @returns {{Translator: Function, LanguageDetector: Function, installed: string[]}}
 */
export function install({ catalog, force = false, wasmBase } = {}) {
  const Translator = translatorClass(new Catalogue(catalog, { wasmBase }));
  const Detector = wasmBase === undefined ? PackageLanguageDetector : class LanguageDetector extends PackageLanguageDetector {
    static create(options = {}) { return super.create({ ...options, wasmBase }); }
    static availability(options = {}) { return super.availability({ ...options, wasmBase }); }
  };
  const installed = [];
  for (const [name, value] of [['Translator', Translator], ['LanguageDetector', Detector]]) {
    if (!force && name in globalThis) continue;
    // As the browser's own interfaces are: writable, configurable, not enumerable.
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
    installed.push(name);
  }
  return { Translator, LanguageDetector: Detector, installed };
}

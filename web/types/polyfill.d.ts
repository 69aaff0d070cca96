// tformer-wasm/polyfill: the web's Translator and LanguageDetector where the browser has none,
// on this package's engine (src/polyfill.js).
import type { Registry } from './index.js';
import type { StandardTranslator, StandardLanguageDetector } from './standard.js';

export type { Availability, CreateMonitor, CreateMonitorCallback, TranslatorCreateOptions, TranslatorCreateCoreOptions,
  TranslatorTranslateOptions, LanguageDetectorCreateOptions, LanguageDetectorCreateCoreOptions, LanguageDetectorDetectOptions,
  LanguageDetectionResult, StandardTranslator, StandardLanguageDetector } from './standard.js';

export interface InstallOptions {
  /**
   * Where the Translator's models are: a model registry's URL (registry.json, scripts/registry.mjs)
   * or a registry as loadRegistry() gives it. Without one only the identity translation (the same
   * language on both sides) is available.
   */
  catalog?: string | URL | Registry;
  /** Replace a Translator or LanguageDetector the environment already has. */
  force?: boolean;
  /** Where the package's dist/ is served, when not beside its src/. */
  wasmBase?: string | URL;
}

/**
 * Defines globalThis.Translator and globalThis.LanguageDetector where they are absent (or, with
 * `force`, always); returns the classes and the names it defined.
 */
export function install(options?: InstallOptions): {
  Translator: typeof StandardTranslator;
  LanguageDetector: typeof StandardLanguageDetector;
  installed: Array<'Translator' | 'LanguageDetector'>;
};

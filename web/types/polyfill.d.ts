// tformer-wasm/polyfill: the web's Translator and LanguageDetector where the browser has none,
// on this package's engine (src/polyfill.js).
import type { Registry } from './index.js';
import type { StandardTranslator, StandardLanguageDetector } from './standard.js';

export type { Availability, CreateMonitor, CreateMonitorCallback, TranslatorCreateOptions, TranslatorCreateCoreOptions,
  TranslatorTranslateOptions, LanguageDetectorCreateOptions, LanguageDetectorCreateCoreOptions, LanguageDetectorDetectOptions,
  LanguageDetectionResult, StandardTranslator, StandardLanguageDetector } from './standard.js';

export interface InstallOptions {
  /**
   * Where the Translator's models are:
   * - a model catalogue in Firefox's format: its Remote Settings server's URL (the default is
   *   Firefox's, FIREFOX_CATALOG). Every pair it has is an arc, direct or through English (as
   *   Translator.create({ from, to, catalog }) of the package loads it);
   * - a model registry of .tfm models: its URL (ending in .json; scripts/registry.mjs writes one)
   *   or a registry as loadRegistry() gives it;
   * - null: none; only the identity translation (the same language on both sides) is available.
   */
  catalog?: string | URL | Registry | null;
  /** For a catalogue's pairs: where their files are kept, as CreateOptions.cache. */
  cache?: boolean | string | Cache;
  /** For a catalogue's pairs: which records count, as CreateOptions.channel. */
  channel?: 'release' | 'beta' | 'nightly';
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

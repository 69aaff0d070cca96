// tformer-wasm/polyfill: the web's Translator and LanguageDetector where the browser has none,
// on this package's engine (src/polyfill.js).
import type { Registry } from './index.js';
import type { CreateMonitor as Monitor, StandardTranslator, StandardLanguageDetector } from './standard.js';

export type { Availability, CreateMonitorCallback, TranslatorCreateOptions, TranslatorCreateCoreOptions,
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

/** What create()'s monitor is given, and its interface object. */
export type CreateMonitor = Monitor;
export declare const CreateMonitor: { readonly prototype: Monitor };

/**
 * Defines globalThis.Translator, globalThis.LanguageDetector and globalThis.CreateMonitor where
 * they are absent (or, with `force`, always); returns the interface objects and the names it
 * defined. The translators of one language pair share one download and one engine (freed with the
 * last of them); a catalogue's list is read once, and again after a day. On a page, a create() that
 * must download needs transient user activation (navigator.userActivation), and the permissions
 * policy ("translator", "language-detector") counts where document.featurePolicy reads it;
 * Workers and Node have neither.
 */
export function install(options?: InstallOptions): {
  Translator: typeof StandardTranslator;
  LanguageDetector: typeof StandardLanguageDetector;
  CreateMonitor: typeof CreateMonitor;
  installed: Array<'Translator' | 'LanguageDetector' | 'CreateMonitor'>;
};

/**
 * Which implementation serves a request where the browser has its own Translator or
 * LanguageDetector (install() leaves those in place): the browser's when its
 * availability(options) answers "available", else `own` (Chromium has both without models
 * offline). `which` is 'browser' or 'package'; `answer` is what the browser said, or null.
 */
export function servingApi<T>(native: T | undefined, own: T, options?: object, how?: { force?: boolean }):
  Promise<{ api: T; which: 'browser' | 'package'; answer: string | null }>;

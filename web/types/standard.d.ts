// The web's Translator and LanguageDetector APIs (webmachinelearning/translation-api, with
// CreateMonitor, Availability and DestroyableModel from writing-assistance-apis), as this package
// implements them (src/standard/). Declared as classes of their own: a TypeScript program with
// the DOM library may see the browser's declarations of the same names.

export type Availability = 'unavailable' | 'downloadable' | 'downloading' | 'available';

/** What `monitor` receives: `downloadprogress` events, `loaded` from 0 to exactly 1, `total` 1. */
export interface CreateMonitor extends EventTarget {
  ondownloadprogress: ((this: CreateMonitor, event: ProgressEvent) => unknown) | null;
  addEventListener(type: 'downloadprogress', listener: (event: ProgressEvent) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void;
}
export type CreateMonitorCallback = (monitor: CreateMonitor) => void;

/**
 * destroy(): the operations in progress and every later call reject with an AbortError
 * DOMException (the spec's destruction reason). Aborting create()'s signal after it resolved
 * destroys the object with the signal's reason, which its calls then reject with.
 */
export interface DestroyableModel {
  destroy(): void;
}

export interface TranslatorCreateCoreOptions {
  sourceLanguage: string;
  targetLanguage: string;
}
export interface TranslatorCreateOptions extends TranslatorCreateCoreOptions {
  signal?: AbortSignal;
  monitor?: CreateMonitorCallback;
}
export interface TranslatorTranslateOptions {
  signal?: AbortSignal;
}

/**
 * Rejections are DOMExceptions: NotSupportedError (no model for the arc), NotAllowedError (a
 * create() that must download, called without transient user activation on a page; or a document
 * whose permissions policy does not allow "translator"), NetworkError (the download failed),
 * AbortError (after destroy()), QuotaExceededError (input over inputQuota, with `requested` and
 * `quota`); an aborted signal rejects with its reason; a tag that is not BCP 47 is a RangeError.
 * An input of white space and control characters only translates to itself. There is no
 * constructor: `new Translator()` throws a TypeError, as the browser's own does.
 */
export declare class StandardTranslator implements DestroyableModel {
  private constructor();
  static create(options: TranslatorCreateOptions): Promise<StandardTranslator>;
  static availability(options: TranslatorCreateCoreOptions): Promise<Availability>;
  translate(input: string, options?: TranslatorTranslateOptions): Promise<string>;
  /** String chunks (each sentence with what precedes it) that concatenate to translate()'s result. */
  translateStreaming(input: string, options?: TranslatorTranslateOptions): ReadableStream<string>;
  readonly sourceLanguage: string;
  readonly targetLanguage: string;
  measureInputUsage(input: string, options?: TranslatorTranslateOptions): Promise<number>;
  readonly inputQuota: number;
  destroy(): void;
}

export interface LanguageDetectorCreateCoreOptions {
  expectedInputLanguages?: string[];
}
export interface LanguageDetectorCreateOptions extends LanguageDetectorCreateCoreOptions {
  signal?: AbortSignal;
  monitor?: CreateMonitorCallback;
  /** The package's option: where its dist/ is served, when not beside its src/. */
  wasmBase?: string | URL;
}
export interface LanguageDetectorDetectOptions {
  signal?: AbortSignal;
}
export interface LanguageDetectionResult {
  /** A BCP 47 tag; "und" for the share of the input in no detected language (always the last entry). */
  detectedLanguage: string;
  confidence: number;
}

/**
 * CLD2, the detector Firefox uses, in the engine's single-threaded wasm build, run in the calling
 * thread. Rejections as StandardTranslator's ("language-detector" for the permissions policy).
 */
export declare class StandardLanguageDetector implements DestroyableModel {
  private constructor();
  static create(options?: LanguageDetectorCreateOptions): Promise<StandardLanguageDetector>;
  static availability(options?: LanguageDetectorCreateCoreOptions & { wasmBase?: string | URL }): Promise<Availability>;
  /** By confidence, stopping once their sum reaches 0.99; the last entry is "und". */
  detect(input: string, options?: LanguageDetectorDetectOptions): Promise<LanguageDetectionResult[]>;
  /** The canonical best fits of the languages given to create(), or null. */
  readonly expectedInputLanguages: ReadonlyArray<string> | null;
  /** UTF-16 code units. */
  measureInputUsage(input: string, options?: LanguageDetectorDetectOptions): Promise<number>;
  readonly inputQuota: number;
  destroy(): void;
}

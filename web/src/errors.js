// The package's error types, one per kind of failure a caller may want to handle on its own.
// Bad options stay TypeError/RangeError naming the option; an abort rejects with the signal's
// reason (an AbortError DOMException by default); EngineStoppedError is in engine-host.js. None
// of them is told apart by its message: each carries what a caller acts on as properties.

/** A model could not be obtained (missing file, HTTP error, offline) or failed its size/sha256 check. */
export class ModelLoadError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'ModelLoadError';
    /** The model's URL or path, or 'the model bytes given'. */
    this.model = options?.model ?? null;
    /** A download failed while the browser said it was offline (and the model was not cached). */
    this.offline = options?.offline ?? false;
  }
}

/** The model's bytes arrived but are not a model the engine can read (not a .tfm, truncated, unsupported). */
export class ModelFormatError extends ModelLoadError {
  constructor(message, options) {
    super(message, options);
    this.name = 'ModelFormatError';
  }
}

/** A model file is larger than the engine takes: a .gz that decompresses past the limit (`limit`, in bytes). */
export class ModelTooLargeError extends ModelFormatError {
  constructor(message, options) {
    super(message, options);
    this.name = 'ModelTooLargeError';
    this.limit = options?.limit ?? null;
  }
}

/** A text to translate is not valid Unicode (a lone UTF-16 surrogate). */
export class InvalidTextError extends Error {
  /** @param {number} input index of the text in the call (0 for a single string) @param {number} position UTF-16 index in it */
  constructor(input, position) {
    super(`input text ${input + 1} is not valid Unicode: lone UTF-16 surrogate at index ${position}`);
    this.name = 'InvalidTextError';
    this.input = input;
    this.position = position;
  }
}

/**
 * The engine refused a request or failed in it. `code` is the engine's reason, one of the names
 * of its error codes (core/include/tformer/error.h): 'invalid_options', 'invalid_text',
 * 'text_too_long', 'resources', 'internal', ...; `input` is the text of the call at fault (from 0)
 * when one is, else null.
 */
export class TranslationError extends Error {
  constructor(message, { code = 'internal', input = null, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'TranslationError';
    this.code = code;
    this.input = input;
  }
}

/**
 * A request made with a `key` was superseded by a newer request with the same key and
 * `supersede: true` (a text box whose text changed): it rejects at once; the engine finishes at
 * most the chunk it was on (chunks.js), and is not restarted.
 */
export class SupersededError extends Error {
  constructor(key) {
    super(`superseded by a newer request with the key ${JSON.stringify(key)}`);
    this.name = 'SupersededError';
    this.key = key;
  }
}

/** The Translator was disposed: the call came after dispose(), or was queued or running when it was called. */
export class TranslatorDisposedError extends Error {
  constructor() {
    super('this Translator was disposed');
    this.name = 'TranslatorDisposedError';
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Throws InvalidTextError for the first text with a lone surrogate (which no encoder can turn into UTF-8). */
export function checkUnicode(texts) {
  texts.forEach((text, i) => {
    const match = LONE_SURROGATE.exec(text);
    if (match) throw new InvalidTextError(i, match.index);
  });
}

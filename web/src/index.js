// tformer-wasm: neural machine translation in the browser (and Node), computed by a C++
// Transformer engine compiled to WebAssembly. See README.md and types/index.d.ts.
export { Translator } from './translator.js';
export { FIREFOX_CATALOG } from './catalog.js';
export { loadRegistry, parseRegistry, findModels, withVariant } from './registry.js';
export { sha256Hex, DEFAULT_CACHE_NAME } from './model-loader.js';
export { ModelLoadError, ModelFormatError, ModelTooLargeError, InvalidTextError, TranslationError, SupersededError, TranslatorDisposedError } from './errors.js';
export { chunksOf, CHUNK_CHARS } from './chunks.js';
export { paragraphAlignment } from './alignment.js';
export { EngineStoppedError } from './engine-host.js';
export { chooseEngine, decideBackend, describeAdapter, AUTO_MIN_PROJECTION } from './select.js';
export { LanguageDetector } from './standard/language-detector.js';
export { detectLanguage, detectableLanguages } from './detection.js';
export { translatePage, PAGE_VIEWS, PAGE_BLOCKS } from './page.js';
export { DEFAULT_MEMORY_DATABASE } from './memory.js';

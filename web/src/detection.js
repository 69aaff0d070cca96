// Language detection in the package: CLD2 (the detector Firefox uses) in the engine's
// single-threaded wasm build, run in the calling thread (a page, a Worker, Node): a detection
// takes well under a millisecond per sentence, so no Worker round trip is worth it, and the
// single-threaded build needs no SharedArrayBuffer. The module is loaded once per realm.
import { variantFiles, compileWasm, isWasmCompiled } from './wasm-files.js';
import { glueFactory } from './glue.js';

let loading = null;
let loaded = false;

function files(wasmBase) {
  return variantFiles('single', wasmBase);
}

/**
 * The detector's state in this realm, as availability() reports it: "available" once loaded (or
 * its wasm compiled by a Translator of the package), "downloading" while a load is under way,
 * else "downloadable".
 */
export function detectorState(wasmBase) {
  if (loaded || (loading === null && isWasmCompiled(files(wasmBase).wasm))) return 'available';
  return loading !== null ? 'downloading' : 'downloadable';
}

/**
 * The engine's module, for detection. `onBytes(soFar, total)` follows the wasm download when this
 * call starts it. A failed load is forgotten, so that a later call tries again.
 */
export function loadDetector({ wasmBase, onBytes = null } = {}) {
  if (!loading) {
    loading = (async () => {
      const { glue, wasm } = files(wasmBase);
      const wasmModule = await compileWasm(wasm, onBytes);
      const createModule = await glueFactory('single', glue);
      return createModule({
        instantiateWasm(imports, receiveInstance) {
          WebAssembly.instantiate(wasmModule, imports).then((instance) => receiveInstance(instance, wasmModule));
          return {};
        },
        print: (line) => console.log(line),
        printErr: (line) => console.warn(line),
      });
    })();
    loading.then(() => { loaded = true; }, () => { loading = null; });
  } else if (onBytes) {
    loading.then(() => onBytes(1, 1), () => {});
  }
  return loading;
}

// WebIDL's DOMString may hold lone surrogates, which UTF-8 cannot: they become U+FFFD, as a
// USVString conversion would make them.
function wellFormed(text) {
  return typeof text.toWellFormed === 'function'
    ? text.toWellFormed()
    : text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * The languages of `text` (types/index.d.ts: LanguageDetection): CLD2's top three with their
 * shares, the web's ranked list, reliability, and the runs of one language (UTF-16 indices).
 */
export async function detectLanguage(text, { wasmBase } = {}) {
  const module = await loadDetector({ wasmBase });
  return detectLoaded(module, text);
}

/** detectLanguage on a loaded module. */
export function detectLoaded(module, text) {
  return module.detectLanguage(wellFormed(String(text)));
}

/** The BCP 47 tags CLD2 can report (canonical, sorted). */
export async function detectableLanguages({ wasmBase } = {}) {
  const module = await loadDetector({ wasmBase });
  return module.detectableLanguages();
}

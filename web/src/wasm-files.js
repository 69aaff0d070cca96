// Where the wasm builds are, and their compilation. The files are copied into dist/ by
// `npm run build` (scripts/build.mjs) from the Emscripten build (build-wasm/wasm/):
//   tformer-mt.mjs/.wasm/.worker.js  SIMD + threads     tformer-st.mjs/.wasm  SIMD, one thread
//   tformer-mtr.mjs/.wasm/.worker.js SIMD + threads with relaxed SIMD
// A compiled WebAssembly.Module is kept per URL: every engine started from it (a Translator
// restarted after an abort, or several translators) skips compilation.
import { VARIANTS } from './select.js';
import { isNode, leftBehind, served } from './environment.js';

// Each file is named by one literal `new URL('../dist/<file>', import.meta.url)`: the form that
// Vite and webpack recognise, copy into their output and rewrite (a URL put together from parts
// they would leave behind). Functions, so that nothing is resolved before it is needed: where a
// bundler gives no import.meta.url, importing the package does not throw.
const PACKAGE_FILES = {
  'tformer-mtr': () => ({
    glue: new URL('../dist/tformer-mtr.mjs', import.meta.url),
    wasm: new URL('../dist/tformer-mtr.wasm', import.meta.url),
    worker: new URL('../dist/tformer-mtr.worker.js', import.meta.url),
  }),
  'tformer-mt': () => ({
    glue: new URL('../dist/tformer-mt.mjs', import.meta.url),
    wasm: new URL('../dist/tformer-mt.wasm', import.meta.url),
    worker: new URL('../dist/tformer-mt.worker.js', import.meta.url),
  }),
  'tformer-st': () => ({
    glue: new URL('../dist/tformer-st.mjs', import.meta.url),
    wasm: new URL('../dist/tformer-st.wasm', import.meta.url),
    worker: null,
  }),
};

// Whether a bundler merged this module into a file of its own and left dist/ where npm put it
// (esbuild, Rollup, Vite's dev server for the dependencies it pre-bundles): the literal URL is
// then still what it says, relative to that file, and this module is no longer src/wasm-files.js.
// (Vite and webpack rewrite the literal: it names their copy, and the two differ.)
const moduleUrl = import.meta.url;
function bundledWithoutFiles() {
  try {
    const written = PACKAGE_FILES['tformer-st']().wasm.href;
    return written === new URL('../dist/tformer-st.wasm', moduleUrl).href &&
      !/\/src\/wasm-files\.js$/.test(new URL(moduleUrl).pathname);
  } catch {
    return false;  // no import.meta.url to read: the URLs cannot be what was written
  }
}
if (!isNode() && bundledWithoutFiles()) leftBehind(new URL('../dist/', moduleUrl).href, moduleUrl);

// glue URL -> the URL of its build's pthread script (Emscripten's <name>.worker.js), as
// variantFiles named them: a bundler names each file apart (hashes, data: URLs), so the one cannot
// be told from the other.
const pthreadScripts = new Map();

/**
 * The files of `variant`: {glue, wasm}, from the package's dist/, or from `wasmBase` (a folder
 * holding the same files; relative to the page, or in Node to the working directory).
 */
export function variantFiles(variant, wasmBase) {
  const name = VARIANTS[variant].file;
  let files;
  if (wasmBase === undefined || wasmBase === null) {
    try {
      const urls = PACKAGE_FILES[name]();
      files = { glue: urls.glue.href, wasm: urls.wasm.href, worker: urls.worker?.href ?? null };
    } catch (e) {
      throw new Error(`the package cannot tell where its dist/ is (new URL('../dist/${name}.wasm', import.meta.url) failed: ` +
        `${e.message}); pass the option wasmBase, the URL of a folder holding the package's dist/ files`, { cause: e });
    }
  } else {
    const base = new URL(String(wasmBase).replace(/\/?$/, '/'), relativeTo());
    files = { glue: new URL(`${name}.mjs`, base).href, wasm: new URL(`${name}.wasm`, base).href,
      worker: variant === 'single' ? null : new URL(`${name}.worker.js`, base).href };
  }
  if (files.worker) pthreadScripts.set(files.glue, files.worker);
  return { glue: files.glue, wasm: files.wasm };
}

/** The pthread script of the threaded build whose glue is `glueUrl` (from variantFiles), else null. */
export function pthreadScriptOf(glueUrl) {
  return pthreadScripts.get(glueUrl) ?? null;
}

// What a relative wasmBase is relative to: the page (or the Worker's script), or in Node the
// working directory.
function relativeTo() {
  if (isNode()) return process.getBuiltinModule('node:url').pathToFileURL(`${process.cwd()}/`).href;
  return globalThis.document?.baseURI ?? globalThis.location?.href;
}


const compiled = new Map();

/** Whether `url` was compiled here already (or is being compiled). */
export function isWasmCompiled(url) {
  return compiled.has(url);
}

/**
 * The compiled module of `url`; `onBytes(soFar, total)` follows its download when this call starts
 * it (a browser fetch with a Content-Length; otherwise it is told only of the end).
 */
export function compileWasm(url, onBytes = null) {
  if (!compiled.has(url)) {
    const promise = compile(url, onBytes);
    compiled.set(url, promise);
    promise.catch(() => compiled.delete(url));  // let a later call try again
  }
  return compiled.get(url);
}

async function compile(url, onBytes) {
  try {
    url = await served(url);
  } catch (e) {
    throw new Error(`could not load the WebAssembly module ${url}: ${e.message}`, { cause: e });
  }
  try {
    if (url.startsWith('file:') && isNode()) {
      const fs = process.getBuiltinModule('node:fs/promises');
      const bytes = await fs.readFile(new URL(url));
      onBytes?.(bytes.length, bytes.length);
      return await WebAssembly.compile(bytes);
    }
    const response = await fetch(url, { credentials: 'same-origin' });
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
    const total = Number(response.headers.get('content-length'));
    if (onBytes && response.body && total > 0) {
      const chunks = [];
      let soFar = 0;
      for (const reader = response.body.getReader(); ;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        soFar += value.length;
        onBytes(Math.min(soFar, total), total);
      }
      return await WebAssembly.compile(await new Blob(chunks).arrayBuffer());
    }
    if (WebAssembly.compileStreaming && response.headers.get('content-type')?.startsWith('application/wasm')) {
      return await WebAssembly.compileStreaming(response);
    }
    return await WebAssembly.compile(await response.arrayBuffer());
  } catch (e) {
    throw new Error(`could not load the WebAssembly module ${url}: ${e.message}` +
      (e.code === 'ENOENT' ? ' (run `npm run build` in web/ to copy the wasm build into dist/)' : ''), { cause: e });
  }
}

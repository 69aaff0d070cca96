// Where the wasm builds are, and their compilation. The files are copied into dist/ by
// `npm run build` (scripts/build.mjs) from the Emscripten build (build-wasm/wasm/):
//   tformer-mt.mjs/.wasm/.worker.js  SIMD + threads     tformer-st.mjs/.wasm  SIMD, one thread
// A compiled WebAssembly.Module is kept per URL: every engine started from it (a Translator
// restarted after an abort, or several translators) skips compilation.
import { VARIANTS } from './select.js';
import { isNode } from './environment.js';

export const DEFAULT_WASM_BASE = new URL('../dist/', import.meta.url);

export function variantFiles(variant, wasmBase = DEFAULT_WASM_BASE) {
  const base = new URL(String(wasmBase).replace(/\/?$/, '/'), DEFAULT_WASM_BASE);
  const name = VARIANTS[variant].file;
  return { glue: new URL(`${name}.mjs`, base).href, wasm: new URL(`${name}.wasm`, base).href };
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
    if (url.startsWith('file:') && isNode()) {
      const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:fs/promises');
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

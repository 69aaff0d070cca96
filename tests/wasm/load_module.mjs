// Loads a tformer wasm variant in node: 'mt' threaded, 'st' single-threaded, 'mtr' threaded with
// relaxed SIMD (its own build folder; node 22+ runs it, node 20 only with --experimental-wasm-relaxed-simd).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');
export const wasmDir = process.env.TFORMER_WASM_DIR || path.join(repoRoot, 'build-wasm', 'wasm');
const relaxedWasmDir = process.env.TFORMER_WASM_DIR || path.join(repoRoot, 'build-wasm-relaxed', 'wasm');

/** The folder holding a variant's tformer-VARIANT.{mjs,wasm}. */
export function wasmDirOf(variant) {
  return variant === 'mtr' ? relaxedWasmDir : wasmDir;
}

export async function loadVariant(variant) {
  const dir = wasmDirOf(variant);
  const { default: create } = await import(path.join(dir, `tformer-${variant}.mjs`));
  // Giving the bytes directly keeps node's fetch (which cannot read file paths) out of the way.
  return create({ wasmBinary: readFileSync(path.join(dir, `tformer-${variant}.wasm`)) });
}

export function fixture(name, file) {
  return path.join(repoRoot, 'tests', 'fixtures', name, file);
}

// A request's options for the low-level API: every key is optional, a key left out keeps the
// engine's default (Module.defaultOptions()). The goldens are the plain model's, as its reference
// implementations compute it: passthrough and the repetition guard (on by default) are off here.
export function options(overrides = {}) {
  return { passthrough: false, repetitionGuard: false, ...overrides };
}

// Loads a tformer wasm variant ('mt' threaded or 'st' single-threaded) in node.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');
export const wasmDir = process.env.TFORMER_WASM_DIR || path.join(repoRoot, 'build-wasm', 'wasm');

export async function loadVariant(variant) {
  const { default: create } = await import(path.join(wasmDir, `tformer-${variant}.mjs`));
  // Giving the bytes directly keeps node's fetch (which cannot read file paths) out of the way.
  return create({ wasmBinary: readFileSync(path.join(wasmDir, `tformer-${variant}.wasm`)) });
}

export function fixture(name, file) {
  return path.join(repoRoot, 'tests', 'fixtures', name, file);
}

export function options(overrides = {}) {
  return { beam: 1, maxLength: 0, nbest: 1, returnScores: true, returnAlignment: false, splitSentences: true, maxInputChars: 100000, maxSentenceTokens: 0,
    html: false, htmlTranslateCode: false, shortlist: true, ...overrides };
}

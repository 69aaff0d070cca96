// Models for the WebGPU end-to-end tests and the benchmark: the fixtures (tiny random models with
// PyTorch golden outputs) and a larger random model of the shipped "tiny" shape (d 256, ffn 1536,
// 6 + 2 layers, 16k vocabulary), written once by tests/bench/peers/random_model.py and cached.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES = ['tutorial', 'marian', 'marian-prenorm-swish', 'marian-ssru'];
// int8 fixtures: WebGPU computes their encoder and output projection from dequantised weights in
// f32, while the engine (and the reference) also quantise activations, so their tokens may part at
// near ties: tests hold them to the int8 bounds, not to the reference's texts.
export const INT8_FIXTURES = ['marian-int8'];

export function fixtureFile(name, file) {
  return path.join(repoRoot, 'tests', 'fixtures', name, file);
}

export function lines(file) {
  return readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
}

// Path of the larger random model (TFORMER_LARGE_MODEL, or build/webgpu-models/tiny-random.tfm,
// generated on first use: about 2 minutes with PyTorch on 2 cores), or { reason } without one.
export function largeModel() {
  const file = process.env.TFORMER_LARGE_MODEL || path.join(repoRoot, 'build', 'webgpu-models', 'tiny-random.tfm');
  if (existsSync(file)) return { file };
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    execFileSync('/usr/bin/python3', [path.join(repoRoot, 'tests', 'bench', 'peers', 'random_model.py'), '-o', file],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: 900_000 });
    return { file };
  } catch (error) {
    return { reason: `cannot write the larger random model ${file} with tests/bench/peers/random_model.py: ${error.message.split('\n')[0]}` };
  }
}

// Source sentences for the larger model: real German text of the test sets (flores devtest), from
// line `from` on, at most `maxWords` words each (SwiftShader tests keep them short).
export function germanSentences(count, { from = 0, maxWords = Infinity } = {}) {
  const file = path.join(repoRoot, '..', 'shared', 'data', 'deen', 'test', 'flores-devtest.de');
  const source = existsSync(file) ? lines(file).slice(from) : lines(fixtureFile('marian', 'input.txt'));
  const picked = source.filter((s) => s.split(/\s+/).length <= maxWords).slice(0, count);
  return Array.from({ length: count }, (_, i) => picked[i % picked.length]);
}

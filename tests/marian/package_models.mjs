// The models of the package's Marian-folder tests (package.test.mjs, demo_browser.test.mjs), made
// when missing or older than their makers: build/marian-parity (make_models.py --quick, as
// parity.test.mjs makes it; TFORMER_MARIAN_MODELS names another folder) and build/marian-package
// (make_package_models.py: the engine's importer's .tfm of each, made by the native CLI, and two
// OPUS-MT style folders).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import { ROOT } from './bergamot.mjs';

export const PYTHON = '/usr/bin/python3';
export const MODELS = process.env.TFORMER_MARIAN_MODELS || path.join(ROOT, 'build', 'marian-parity');
export const PACKAGE_MODELS = path.join(ROOT, 'build', 'marian-package');

/** Why the models cannot be made here, or null. */
export function cannotMakeModels() {
  const py = spawnSync(PYTHON, ['-c', 'import torch, sentencepiece, numpy, yaml'], { encoding: 'utf8' });
  if (py.status !== 0) return `${PYTHON} with torch, sentencepiece, numpy and yaml is needed to make the models`;
  if (!existsSync(path.join(ROOT, 'build', 'tformer'))) return 'build/tformer (the native CLI, whose importer converts the models) is needed';
  if (!process.env.TFORMER_MARIAN_MODELS && spawnSync('spm_train', ['--help']).error) return 'spm_train (Debian package sentencepiece) is needed to make the models';
  return null;
}

function run(args) {
  const r = spawnSync(PYTHON, args, { encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'], timeout: 3600e3 });
  if (r.status !== 0) throw new Error(`${args[0]} failed:\n${r.stderr}`);
}

/** Makes what is missing or stale; returns make_package_models.py's index (its `models`). */
export function ensurePackageModels() {
  const index = path.join(MODELS, 'index.json');
  const script = path.join(ROOT, 'tests', 'marian', 'make_models.py');
  if (!existsSync(index) || (!process.env.TFORMER_MARIAN_MODELS && statSync(script).mtimeMs > statSync(index).mtimeMs)) {
    run([script, MODELS, '--sentences', '40', '--quick']);
  }
  const ours = path.join(PACKAGE_MODELS, 'index.json');
  const maker = path.join(ROOT, 'tests', 'marian', 'make_package_models.py');
  const importer = path.join(ROOT, 'build', 'tformer');  // tformer convert writes the .tfm files
  if (!existsSync(ours) || statSync(ours).mtimeMs < Math.max(statSync(index).mtimeMs, statSync(maker).mtimeMs, statSync(importer).mtimeMs)) {
    run([maker, MODELS, PACKAGE_MODELS]);
  }
  return JSON.parse(readFileSync(ours, 'utf8')).models;
}

// node --test tests/marian/parity.test.mjs
//
// Bergamot's wasm (Marian) and tformer give identical greedy translations of random-weight models
// in Marian's conventions, every supported variant, under Node and in headless Chromium.
// Models come from tests/marian/make_models.py into build/marian-parity (d=64 variants; set
// TFORMER_MARIAN_FULL=1 for the d=256 ones too, or TFORMER_MARIAN_MODELS=DIR to use a folder made
// before). Skips, saying why, when a prerequisite is missing: the native build (build/tformer), the
// PyTorch tools (/usr/bin/python3 with torch), the npm dev dependencies (web/node_modules), Chromium.
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import {existsSync, statSync} from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';

import {ROOT, bergamotAvailable} from './bergamot.mjs';
import {checkModel, loadModels, openBrowser, summary} from './parity.mjs';

const TFORMER = process.env.TFORMER || path.join(ROOT, 'build', 'tformer');
const PYTHON = '/usr/bin/python3';
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const FULL = process.env.TFORMER_MARIAN_FULL === '1';
const MODELS = process.env.TFORMER_MARIAN_MODELS ||
    path.join(ROOT, 'build', FULL ? 'marian-parity-full' : 'marian-parity');

function missing() {
  if (!existsSync(TFORMER)) return `${TFORMER} is not built (cmake -S . -B build && cmake --build build)`;
  if (!bergamotAvailable()) return 'web/node_modules/@browsermt/bergamot-translator is missing (npm install in web/, or symlink web/node_modules)';
  if (!existsSync(path.join(ROOT, 'web', 'node_modules', 'playwright-core'))) return 'playwright-core is missing in web/node_modules';
  if (!process.env.TFORMER_MARIAN_MODELS) {
    const py = spawnSync(PYTHON, ['-c', 'import torch, sentencepiece, numpy, yaml'], {encoding: 'utf8'});
    if (py.status !== 0) return `${PYTHON} with torch, sentencepiece, numpy and yaml is needed to make the models`;
    if (spawnSync('spm_train', ['--help']).error) return 'spm_train (Debian package sentencepiece) is needed to make the models';
  }
  return null;
}

function ensureModels() {
  const index = path.join(MODELS, 'index.json');
  const script = path.join(ROOT, 'tests', 'marian', 'make_models.py');
  const stale = !existsSync(index) || (!process.env.TFORMER_MARIAN_MODELS &&
      statSync(script).mtimeMs > statSync(index).mtimeMs);
  if (!stale) return;
  const args = [script, MODELS, '--sentences', FULL ? '100' : '40'];
  if (!FULL) args.push('--quick');
  const r = spawnSync(PYTHON, args, {encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'], timeout: 3600e3});
  if (r.status !== 0) throw new Error(`make_models.py failed:\n${r.stderr}`);
}

const reason = missing();

function assertParity(r) {
  const ex = r.matched.examples.map((e) => `  #${e.i} ${e.text}\n    bergamot: ${e.bergamot}\n    tformer:  ${e.tformer}`);
  assert.deepEqual(r.matched.bergamot_vs_tformer, [], `${r.name}: Bergamot and tformer differ at the same length cap:\n${ex.join('\n')}`);
  assert.deepEqual(r.matched.tformer_vs_pytorch, [], `${r.name}: tformer differs from the PyTorch reference`);
  assert.deepEqual(r.defaults.unexplained, [], `${r.name}: with default length rules, differences the length rule does not explain`);
}

test('Bergamot (Node) and tformer: identical greedy output on every Marian variant', {skip: reason || false, timeout: 3600e3}, async (t) => {
  ensureModels();
  for (const m of loadModels(MODELS)) {
    await t.test(m.name, async () => {
      const r = await checkModel(m, {tformer: TFORMER});
      t.diagnostic(summary(r));
      assertParity(r);
    });
  }
});

const browserReason = reason || (existsSync(CHROMIUM) ? null : `${CHROMIUM} is not installed (apt-get install chromium)`);

test('Bergamot in headless Chromium and tformer: identical greedy output', {skip: browserReason || false, timeout: 3600e3}, async (t) => {
  ensureModels();
  const browser = await openBrowser(MODELS);
  try {
    for (const m of loadModels(MODELS)) {
      await t.test(m.name, async () => {
        const r = await checkModel(m, {tformer: TFORMER, browser});
        t.diagnostic(summary(r));
        assertParity(r);
        assert.deepEqual(r.browser.matched_vs_tformer, [], `${m.name}: Chromium's Bergamot differs from tformer`);
        assert.deepEqual(r.browser.matched_vs_node, [], `${m.name}: Chromium's Bergamot differs from Node's`);
      });
    }
  } finally {
    await browser.close();
  }
});

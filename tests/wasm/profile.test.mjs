// Module.profileEnable / profileTake (tformer/profile.h) in both modules: off by default (nothing
// counted), on it counts every phase a beam search goes through, and a take resets the counters.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadVariant, fixture, options } from './load_module.mjs';

const modules = {};
after(() => { for (const m of Object.values(modules)) m.PThread?.terminateAllThreads(); });
const phases = ['encoder', 'decoder self-attention', 'decoder cross-attention', 'decoder feed-forward',
  'output projection', 'softmax/top-k', 'beam bookkeeping', 'KV-cache reorder'];
const lines = readFileSync(fixture('marian', 'input.txt'), 'utf8').split('\n').filter((l) => l);

for (const variant of ['st', 'mt']) {
  test(`${variant}: the per-phase timers`, async () => {
    const M = (modules[variant] ??= await loadVariant(variant));
    const t = new M.Translator(new Uint8Array(readFileSync(fixture('marian', 'model.tfm'))), 1);
    try {
      M.profileTake();
      t.translate(lines, options({ beam: 2 }));
      const off = M.profileTake();
      assert.deepEqual(Object.keys(off), phases);
      for (const p of phases) assert.equal(off[p], 0, `${p} counted while off`);

      M.profileEnable(true);
      t.translate(lines, options({ beam: 2 }));
      M.profileEnable(false);
      const on = M.profileTake();
      for (const p of phases) assert.ok(on[p] > 0, `${p}: ${on[p]} ms`);
      const again = M.profileTake();
      for (const p of phases) assert.equal(again[p], 0, `${p} not reset by take`);
    } finally {
      t.delete();
    }
  });
}

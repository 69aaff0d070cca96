// The lexical shortlist through the wasm module (both variants): a shortlisted batch's projection
// request says cpuOnly and refuses answers from outside, and the package's decode loop
// (web/src/run-session.js) then leaves it to wasm without giving up its GPU backend.
// The decoding itself is tests/core/test_shortlist.cc, which also runs in these modules.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadVariant, fixture, options } from './load_module.mjs';
import { runSession } from '../../web/src/run-session.js';

const golden = JSON.parse(readFileSync(fixture('shortlist', 'golden.json'), 'utf8'));
const modules = {};
after(() => { for (const m of Object.values(modules)) m.PThread?.terminateAllThreads(); });

// A stand-in for the WebGPU backend that stays usable and counts the projections it is asked
// for: it declines encoder requests (runSession then lets wasm answer them), and must never see
// a shortlisted projection.
function standInBackend() {
  return {
    usable: true, candidates: false, asked: 0,
    async encode() { throw new Error('declined'); },
    async project() { this.asked += 1; throw new Error('a shortlisted projection reached the GPU'); },
    disable() {},
  };
}

for (const variant of ['st', 'mt']) {
  test(`${variant}: a shortlisted projection is the engine's own (cpuOnly), with the reference's tokens`, async () => {
    const M = (modules[variant] ??= await loadVariant(variant));
    const { file, sentences } = golden.models.marian;
    const t = new M.Translator(new Uint8Array(readFileSync(fixture('shortlist', file))), 1);
    try {
      const s = t.begin([sentences[2].text], options());
      let need = s.next();
      assert.equal(need.kind, 'encode');
      s.computeOnCpu();
      need = s.next();
      assert.equal(need.kind, 'project');
      assert.equal(need.cpuOnly, true);
      assert.throws(() => s.provideLogits(new Float32Array(need.rows * t.info().config.vocab_size)),
        /provideLogits\(\).*lexical shortlist.*computeOnCpu\(\)/);
      for (; need.kind !== 'done'; need = s.next()) s.computeOnCpu();
      assert.deepEqual(Array.from(s.results()[0].sentences[0].tokens), sentences[2].greedy.tokens);
      s.delete();

      const plain = t.begin([sentences[2].text], options({ shortlist: false }));
      plain.next();
      plain.computeOnCpu();
      assert.equal(plain.next().cpuOnly, false);
      plain.delete();

      // The package's loop with a GPU backend: wasm answers the shortlisted projections.
      const texts = sentences.map((x) => x.text);
      const backend = standInBackend();
      const results = await runSession(t.begin(texts, options()), backend);
      results.forEach((r, i) => assert.deepEqual(Array.from(r.sentences[0].tokens), sentences[i].greedy.tokens));
      assert.equal(backend.asked, 0, 'the GPU was asked for a shortlisted projection');
    } finally {
      t.delete();
    }
  });
}

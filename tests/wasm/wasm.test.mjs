// Both wasm variants under node: golden parity with the PyTorch reference and the native build,
// and bad input through the Embind API (a thrown Error with a clear message, module still usable).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadVariant, fixture, options, repoRoot } from './load_module.mjs';

const VARIANTS = ['tutorial', 'marian', 'marian-prenorm-swish', 'marian-ssru'];
const nativeCli = process.env.TFORMER_NATIVE_CLI || path.join(repoRoot, 'build', 'tformer');
const modules = {};
const translators = [];

async function translator(variant, fixtureName, threads) {
  modules[variant] ??= await loadVariant(variant);
  const t = new modules[variant].Translator(new Uint8Array(readFileSync(fixture(fixtureName, 'model.tfm'))), threads);
  translators.push(t);
  return t;
}

after(() => {
  for (const t of translators) if (!t.isDeleted()) t.delete();
  for (const m of Object.values(modules)) m.PThread?.terminateAllThreads();  // let node exit
});

function golden(name) {
  return JSON.parse(readFileSync(fixture(name, 'golden.json'), 'utf8'));
}

// The native CLI's n-best list: "i ||| text ||| score" lines.
function nativeNbest(name, texts) {
  const out = execFileSync(nativeCli, ['translate', '-m', fixture(name, 'model.tfm'), '--beam', '4', '--nbest', '4',
    '--no-passthrough', '--no-repetition-guard'],
                           { input: texts.join('\n') + '\n', encoding: 'utf8' });
  const lists = texts.map(() => []);
  for (const line of out.trimEnd().split('\n')) {
    const [i, text, score] = line.split(' ||| ');
    lists[Number(i)].push({ text, score: Number(score) });
  }
  return lists;
}

for (const [variant, threads] of [['st', 1], ['mt', 1], ['mt', 2]]) {
  for (const name of VARIANTS) {
    test(`${variant} (${threads} thread${threads > 1 ? 's' : ''}) matches the reference on fixture ${name}`, async () => {
      const t = await translator(variant, name, threads);
      const g = golden(name);
      const texts = g.sentences.map(s => s.text);
      const greedy = t.translate(texts, options({ returnAlignment: true }));
      const beam = t.translate(texts, options({ beam: 4, nbest: 4 }));
      g.sentences.forEach((s, i) => {
        const sent = greedy[i].sentences[0];
        assert.deepEqual(Array.from(sent.tokens), s.greedy.tokens, `greedy tokens, sentence ${i}`);
        assert.ok(Math.abs(sent.score - s.greedy.score) < 1e-4, `greedy score ${sent.score} vs ${s.greedy.score}`);
        assert.equal(greedy[i].text, s.greedy.text);
        assert.deepEqual(Array.from(sent.sourceTokens), s.source_ids);
        const S = sent.sourceTokens.length;
        assert.equal(sent.alignment.length, sent.tokens.length * S);
        for (let r = 0; r < sent.tokens.length; r++) {
          const row = sent.alignment.subarray(r * S, (r + 1) * S).reduce((a, b) => a + b, 0);
          assert.ok(Math.abs(row - 1) < 1e-4, `alignment row ${r} sums to ${row}`);
        }
        const nbest = beam[i].sentences[0].nbest;
        assert.equal(nbest.length, s.beam.length);
        nbest.forEach((h, k) => {
          assert.deepEqual(Array.from(h.tokens), s.beam[k].tokens, `beam tokens, sentence ${i}, hypothesis ${k}`);
          assert.ok(Math.abs(h.score - s.beam[k].score) < 1e-4, `beam score ${h.score} vs ${s.beam[k].score}`);
        });
      });
      t.delete();  // frees its pool threads for the next tests
      if (existsSync(nativeCli)) {
        const native = nativeNbest(name, texts);
        beam.forEach((r, i) => r.sentences[0].nbest.forEach((h, k) => {
          assert.equal(h.text, native[i][k].text, `native text, sentence ${i}, hypothesis ${k}`);
          // the CLI prints 6 significant digits
          assert.ok(Math.abs(h.score - native[i][k].score) < 1e-5 * Math.max(1, Math.abs(h.score)), 'native score');
        }));
      }
    });
  }
}

test('info() describes the model and the thread count', async () => {
  const t = await translator('mt', 'marian', 2);
  const info = t.info();
  assert.equal(info.threads, 2);
  assert.equal(info.kernels, 'xnnpack');
  assert.equal(info.backend, undefined, '"backend" is where a translation runs, in the npm package');
  assert.equal(info.kernels, 'xnnpack', 'kernels: the kernel library; backend: its deprecated alias');
  assert.equal(info.config.d_model, 32);
  assert.equal(info.config.positional_encoding, 'marian');
  assert.ok(info.tensors.some(x => x.name === 'embedding.weight' && x.dtype === 'f16'));
  const st = await translator('st', 'marian', 4);
  assert.equal(st.info().threads, 1, 'the single-threaded build runs on one thread whatever is asked');
  t.delete();
  st.delete();
});

test('mt: using up the pool of workers is an error, not a hang', async () => {
  const M = modules.mt ??= await loadVariant('mt');
  const bytes = new Uint8Array(readFileSync(fixture('marian', 'model.tfm')));
  // 8 workers in node: a translator with 9 threads needs 8 of them, a second one cannot start.
  const big = new M.Translator(bytes, 9);
  assert.throws(() => new M.Translator(bytes, 2), /pool of workers is used up/);
  big.delete();
  const again = new M.Translator(bytes, 2);  // the workers are free again
  assert.equal(again.info().threads, 2);
  again.delete();
});

for (const variant of ['st', 'mt']) {
  test(`${variant}: bad input gives clear Errors and the module stays usable`, async () => {
    const M = modules[variant] ??= await loadVariant(variant);
    const bytes = new Uint8Array(readFileSync(fixture('marian', 'model.tfm')));
    const t = await translator(variant, 'marian', 1);
    const expected = golden('marian').sentences[2].greedy.text;
    const stillWorks = () => assert.equal(t.translate(['Die Katze schläft.'], options())[0].text, expected);

    assert.deepEqual(t.translate([''], options()).map(r => [r.text, r.sentences.length]), [['', 0]]);
    assert.equal(t.translate('', options())[0].text, '');

    assert.throws(() => t.translate(['ok', 'a\uD800b'], options()),
                  { message: 'translate(): input text 2 is not valid Unicode: lone UTF-16 surrogate at index 1' });
    assert.throws(() => t.translate(['\uDFFF'], options()), /lone UTF-16 surrogate at index 0/);
    stillWorks();
    assert.throws(() => t.translate([42], options()), { message: 'translate(): item 0 is not a string' });
    assert.throws(() => t.translate({}, options()), /takes a string or an array of strings/);
    assert.throws(() => t.translate(['x'], options({ beam: 0 })), /beam size must be between 1 and 64 \(got 0\)/);
    stillWorks();

    assert.throws(() => new M.Translator(bytes.subarray(0, bytes.length / 2), 1), /truncated at tensor/);
    assert.throws(() => new M.Translator(bytes.subarray(0, 5000), 1), /truncated: the header needs/);
    assert.throws(() => new M.Translator(bytes.subarray(0, 10), 1), /too small for a \.tfm model/);
    assert.throws(() => new M.Translator(bytes.buffer, 1), /must be given as a Uint8Array/);
    const noise = new Uint8Array(4096).map((_, i) => (i * 7919) & 255);
    assert.throws(() => new M.Translator(noise, 1), /bad magic: this is not a \.tfm model file/);
    assert.throws(() => new M.Translator(new Uint8Array(0), 1), /too small/);
    assert.throws(() => new M.Translator(bytes, 0), /threads must be between 1 and 256/);
    stillWorks();

    // A huge input: 200 KB in one line, translated in pieces.
    const huge = 'Hund Katze spielen im Schnee '.repeat(7000);
    const r = t.translate([huge], options({ maxInputChars: 0 }))[0];  // past the default limit of 100000
    assert.ok(r.sentences.length > 10);
    stillWorks();
  });
}

test('options: every key optional, left-out keys keep the engine\'s defaults; wrong types and unknown keys refused', async () => {
  const M = modules.st ??= await loadVariant('st');
  const t = await translator('st', 'marian', 1);
  const text = [golden('marian').sentences[2].text];
  const defaults = M.defaultOptions();
  assert.deepEqual(Object.keys(defaults), ['beam', 'nbest', 'lengthPenalty', 'maxLengthRatio', 'maxLengthOffset', 'maxLength',
    'returnAlignment', 'returnScores', 'splitSentences', 'maxBatchTokens', 'maxInputChars', 'maxSentenceTokens', 'passthrough',
    'repetitionGuard', 'html', 'htmlTranslateCode', 'shortlist', 'confidence', 'glossary']);
  assert.equal(defaults.beam, 1);
  assert.equal(defaults.returnScores, true);
  assert.equal(defaults.passthrough, true, 'on by default');
  assert.equal(defaults.repetitionGuard, true, 'on by default');
  const plain = t.translate(text, undefined);  // Embind counts arguments: the options are passed, if undefined
  assert.deepEqual(t.translate(text, {}), plain);
  assert.deepEqual(t.translate(text, null), plain);
  assert.deepEqual(t.translate(text, { beam: undefined }), plain, 'undefined is left out');
  assert.deepEqual(t.translate(text, defaults), plain, 'the defaults are what a left-out key gets');
  assert.equal(typeof plain[0].sentences[0].score, 'number');
  assert.equal(plain[0].sentences[0].alignment, undefined);
  assert.equal(t.translate(text, { returnScores: false })[0].sentences[0].score, undefined);
  assert.equal(t.translate(text, { returnAlignment: true })[0].sentences[0].alignment.length,
    plain[0].sentences[0].tokens.length * plain[0].sentences[0].sourceTokens.length);
  const beam = t.translate(text, { beam: 4, nbest: 2 });
  assert.equal(beam[0].sentences[0].nbest.length, 2);
  const refused = (message) => ({ code: 'invalid_argument', phase: 'request', message: `translate(): ${message}` });
  assert.throws(() => t.translate(text, { beam: '4' }), refused('option \'beam\' must be an integer (got the string "4")'));
  assert.throws(() => t.translate(text, { beam: 2.5 }), refused('option \'beam\' must be an integer (got number 2.5)'));
  assert.throws(() => t.translate(text, { maxInputChars: -1 }), refused('option \'maxInputChars\' must be a non-negative integer (got number -1)'));
  assert.throws(() => t.translate(text, { lengthPenalty: NaN }), refused('option \'lengthPenalty\' must be a number (got number NaN)'));
  assert.throws(() => t.translate(text, { passthrough: 1 }), refused('option \'passthrough\' must be true or false (got number 1)'));
  assert.throws(() => t.translate(text, { beamSize: 4 }), { code: 'invalid_argument', message: /^translate\(\): unknown option 'beamSize' \(known: beam, nbest, / });
  assert.throws(() => t.begin(text, 'fast'), { code: 'invalid_argument', message: 'begin(): options must be an object (got the string "fast")' });
  // Ranges are the engine's rules.
  assert.throws(() => t.translate(text, { beam: 2, nbest: 3 }), { code: 'invalid_options', message: /nbest must be between 1 and the beam size 2/ });
  assert.deepEqual(M.limits(), { maxBeam: 64, maxThreads: 256 });
});

test('errors leave the bindings one way: a JS Error worded for JS, with the engine\'s code, phase and detail', async () => {
  const M = modules.st ??= await loadVariant('st');
  const t = await translator('st', 'marian', 1);
  // The engine's error as properties (call, code, phase, detail, input); the message worded from them.
  const refused = (call, code, phase, detail, input) => (e) => {
    assert.ok(e instanceof Error);
    assert.deepEqual([e.call, e.code, e.phase], [call, code, phase]);
    if (typeof detail === 'string') assert.equal(e.detail, detail);
    else assert.match(e.detail, detail);
    assert.equal(e.input, input);
    const subject = input === undefined ? '' : `input text ${input + 1} `;
    assert.equal(e.message, `${call}(): ${subject}${e.detail}`);
    return true;
  };
  assert.throws(() => t.translate([42], options()), refused('translate', 'invalid_argument', 'request', 'item 0 is not a string'));
  assert.throws(() => t.begin([42], options()), refused('begin', 'invalid_argument', 'request', 'item 0 is not a string'), 'begin() is not called translate()');
  assert.throws(() => t.begin({}, options()), refused('begin', 'invalid_argument', 'request', 'takes a string or an array of strings'));
  assert.throws(() => t.begin(['x'], options({ beam: 0 })),
    refused('begin', 'invalid_options', 'request', 'invalid translate options: beam size must be between 1 and 64 (got 0)'));
  assert.throws(() => t.begin(['ok', 'a\uDC00'], options()),
    refused('begin', 'invalid_text', 'request', 'is not valid Unicode: lone UTF-16 surrogate at index 1', 1));
  assert.throws(() => t.translate(['x'.repeat(11)], options({ maxInputChars: 10 })),
    refused('translate', 'text_too_long', 'request', 'has 11 characters, more than the limit of 10 per input', 0));
  assert.throws(() => t.tensorView('no.such.tensor'), refused('tensorView', 'internal', 'translate', /no\.such\.tensor/));
  assert.throws(() => new M.Translator(new Uint8Array(0), 1), refused('new Translator', 'invalid_model', 'load', /too small for a \.tfm model/));
  assert.throws(() => new M.Translator(new ArrayBuffer(8), 1),
    refused('new Translator', 'invalid_argument', 'load', 'the model must be given as a Uint8Array holding a .tfm file'));
  // The session's calls: named by their JS names, with the calls that fit the session's state.
  const s = t.begin(['Hallo Welt.'], options());
  try {
    assert.throws(() => s.computeOnCpu(), { call: 'computeOnCpu', code: 'wrong_state', phase: 'compute_on_cpu',
      message: 'computeOnCpu() has no request to answer (call next())' });
    assert.equal(s.next().kind, 'encode');
    assert.throws(() => s.provideLogits(new Float32Array(4)), { call: 'provideLogits', code: 'wrong_state', phase: 'provide_logits',
      detail: 'needs a projection request, but an encode request is pending',
      message: 'provideLogits() needs a projection request, but an encode request is pending' });
    assert.throws(() => s.next(), { code: 'wrong_state',
      message: 'next() cannot go on: the pending encode request has no answer yet (call provideEncoderOutput() or computeOnCpu())' });
    assert.throws(() => s.provideEncoderOutput([1]), { call: 'provideEncoderOutput', code: 'invalid_values',
      message: 'provideEncoderOutput() takes a Float32Array' });
    assert.throws(() => s.results(), { call: 'results', code: 'wrong_state',
      message: 'results() cannot be had yet: the translation is not finished (call next())' });
  } finally {
    s.delete();
  }
  assert.equal(t.translate(['Die Katze schläft.'], options())[0].text, golden('marian').sentences[2].greedy.text, 'still usable');
});

for (const variant of ['st', 'mt']) {
  test(`${variant}: the step-wise session (Translator.begin) gives translate()'s results; misuse throws Errors`, async () => {
    const M = modules[variant] ??= await loadVariant(variant);
    const t = await translator(variant, 'marian', 1);
    const texts = golden('marian').sentences.map((s) => s.text);
    for (const opts of [options({ returnAlignment: true }), options({ beam: 4, nbest: 3 })]) {
      const s = t.begin(texts, opts);
      const needs = [];
      for (let need = s.next(); need.kind !== 'done'; need = s.next()) {
        needs.push(need.kind);
        if (need.kind === 'encode') {
          assert.equal(need.ids.length, need.batch * need.length);
          assert.equal(need.lengths.length, need.batch);
        } else {
          assert.equal(need.hidden.length, need.rows * 32);
        }
        s.computeOnCpu();
      }
      assert.equal(needs[0], 'encode');
      assert.ok(needs.filter((k) => k === 'project').length >= 30);
      assert.deepEqual(s.results(), t.translate(texts, opts));
      s.delete();
    }

    // Answers from outside: the engine's own numbers, given back through the JS API.
    const s = t.begin(['Die Katze schläft.'], options());
    const expected = t.translate(['Die Katze schläft.'], options());
    let need = s.next();
    assert.throws(() => s.provideLogits(new Float32Array(4)), { message: 'provideLogits() needs a projection request, but an encode request is pending' });
    assert.throws(() => s.next(), /the pending encode request has no answer yet/);
    assert.throws(() => s.provideEncoderOutput([1, 2]), { message: 'provideEncoderOutput() takes a Float32Array' });
    assert.throws(() => s.provideEncoderOutput(new Float32Array(3)), /provideEncoderOutput\(\) got 3 values, \d+ expected \(batch 1 x length \d+ x d_model 32\)/);
    s.computeOnCpu();
    need = s.next();
    assert.equal(need.kind, 'project');
    s.computeOnCpu();
    assert.throws(() => s.computeOnCpu(), { message: 'computeOnCpu() has no request to answer (call next())' });
    need = s.next();
    assert.equal(need.candidates, 1, 'greedy search needs the best candidate of each row');
    assert.throws(() => s.provideCandidates(new Float32Array(3)), { message: `provideCandidates() got 3 values, ${need.rows * 5} expected (${need.rows} rows x (3 + 2 x 1 candidates))` });
    const logits = new Float32Array(need.rows * 256).fill(NaN);
    assert.throws(() => s.provideLogits(logits), { message: 'provideLogits() got NaN as value 0' });
    assert.throws(() => s.results(), { message: 'results() cannot be had yet: the translation is not finished (call next())' });
    s.computeOnCpu();
    while (s.next().kind !== 'done') s.computeOnCpu();
    assert.equal(s.results()[0].text, expected[0].text);
    s.delete();

    assert.throws(() => t.begin(['x'], options({ beam: 0 })), /beam size must be between 1 and 64/);
    assert.throws(() => t.begin(['\uD800'], options()), /lone UTF-16 surrogate/);
    assert.throws(() => t.tensorView('no.such.tensor'), /missing tensor no\.such\.tensor/);
    const info = t.info();
    assert.equal(t.tensorView('embedding.weight').length, 256 * 32); // f16 in the file: converted
    assert.equal(t.tensorView('output_bias').length, 256);
    assert.equal(t.positionsView().length, info.config.max_positions * 32);
    t.delete();
  });
}

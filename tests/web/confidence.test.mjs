// translate(text, { confidence: true }) in Node: each sentence's score is the PyTorch reference's
// mean log-probability, its words are where their text is in the sentence (JS string indices, also
// past the Basic Multilingual Plane), their confidences in (0, 1]; the translation is the same as
// without; html, streaming and keyed (chunked) requests carry it too; bad values are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PLAIN, fixturePath, golden, packageUnderTest, repoRoot } from './helpers.mjs';

const shipped = path.join(repoRoot, 'models', 'tiny.deen', 'model.tfm');
const translators = await packageUnderTest({ threads: 2 });
const create = (model) => translators.create({ model });

// What must hold of every sentence's confidence.
function checkWords(sentence, where) {
  const c = sentence.confidence;
  assert.ok(c, `${where}: no confidence`);
  assert.equal(typeof c.score, 'number');
  assert.ok(c.score <= 0, `${where}: score ${c.score}`);
  let after = 0;
  for (const w of c.words) {
    assert.ok(w.start >= after && w.end > w.start && w.end <= sentence.text.length, `${where}: word ${JSON.stringify(w)}`);
    assert.equal(sentence.text.slice(w.start, w.end), w.text, `${where}: word ${JSON.stringify(w)} in ${JSON.stringify(sentence.text)}`);
    assert.ok(w.confidence > 0 && w.confidence <= 1, `${where}: confidence ${w.confidence}`);
    assert.equal(w.text.trim(), w.text);
    after = w.end;
  }
}

test('the score is the reference\'s mean log-probability; the translation is unchanged', async () => {
  for (const name of ['marian', 'tutorial']) {
    const t = await create(fixturePath(name));
    const g = golden(name);
    const texts = g.sentences.map((s) => s.text);
    const without = await t.translate(texts, PLAIN);
    const withConfidence = await t.translate(texts, { ...PLAIN, confidence: true });
    withConfidence.forEach((r, i) => {
      const want = g.sentences[i].greedy;
      assert.equal(r.text, without[i].text);
      assert.equal(without[i].sentences[0].confidence, undefined, 'no confidence unless asked for');
      const s = r.sentences[0];
      checkWords(s, `${name} ${i}`);
      const mean = want.raw_score / want.tokens.length;
      assert.ok(Math.abs(s.confidence.score - mean) < 1e-4, `${name} ${i}: score ${s.confidence.score}, reference ${mean}`);
    });
    // Beam search: the chosen hypothesis's (its tokens are the reference's best).
    const beam = await t.translate(g.sentences[0].text, { ...PLAIN, beam: 4, confidence: true });
    const best = g.sentences[0].beam[0];
    assert.ok(Math.abs(beam.sentences[0].confidence.score - best.raw_score / best.tokens.length) < 1e-4);
  }
});

test('words of real translations: plain text, characters past the BMP, html, streams, keyed requests',
  { skip: !existsSync(shipped) && 'no models/tiny.deen/model.tfm' }, async () => {
    const t = await create(shipped);
    const text = 'Die Kinder 🧒🏽 spielen im Garten. Überraschenderweise ist es „sehr“ warm – sagte Jürgen.';
    const r = await t.translate(text, { confidence: true });
    assert.equal(r.sentences.length, 2);
    for (const [i, s] of r.sentences.entries()) {
      checkWords(s, `sentence ${i}`);
      assert.ok(s.confidence.words.length >= 3, JSON.stringify(s.confidence));
    }
    assert.ok(r.sentences[0].text.includes('🧒🏽'), 'the emoji passes through');
    assert.equal(r.text, (await t.translate(text)).text);

    // html: the HTML is the same; the words are in the sentences' plain text.
    const html = '<p>Ich habe <b>drei</b> Katzen &amp; zwei Hunde.</p><p>Sie <em>schlafen</em>.</p>';
    const h = await t.translate(html, { html: true, confidence: true });
    assert.equal(h.text, (await t.translate(html, { html: true })).text);
    assert.equal(h.sentences.length, 2);
    for (const [i, s] of h.sentences.entries()) {
      checkWords(s, `html sentence ${i}`);
      assert.ok(!s.text.includes('<') && !s.text.includes('&amp;'), s.text);
    }

    // A stream hands out each sentence with its confidence; a keyed request (run in chunks) too.
    const streamed = [];
    for await (const s of t.translateStream(text, { confidence: true })) streamed.push(s);
    assert.deepEqual(streamed.map((s) => s.confidence), r.sentences.map((s) => s.confidence));
    const keyed = await t.translate(text, { confidence: true, key: 'box' });
    assert.deepEqual(keyed.sentences.map((s) => s.confidence), r.sentences.map((s) => s.confidence));
  });

test('empty input and bad values', async () => {
  const t = await create(fixturePath('marian'));
  const empty = await t.translate(['', '   '], { confidence: true });
  for (const r of empty) assert.deepEqual(r.sentences, []);
  for (const bad of ['yes', 1, null]) {
    await assert.rejects(t.translate('Hallo', { confidence: bad }), (e) => e instanceof TypeError && /'confidence' must be true or false/.test(e.message),
      `confidence: ${JSON.stringify(bad)}`);
  }
  const off = await t.translate('Hallo', { confidence: false });
  assert.equal(off.sentences[0].confidence, undefined);
});

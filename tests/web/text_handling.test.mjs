// translate()'s passthrough and repetitionGuard (on by default): emoji, URLs, e-mail addresses and
// phone numbers come out of a real model's translation as they went in, and every number of the
// source is in it; loops of the looping test model are stopped; `false` gives the model's own
// output; the options are checked like the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PLAIN, fixturePath, golden, importPackage, repoRoot } from './helpers.mjs';

const { Translator } = await importPackage();
const shipped = path.join(repoRoot, 'models', 'tiny.deen', 'model.tfm');

// A token 4 times, or a group of 2-4 tokens 3 times, back to back (the guard's rule, written out).
function hasLoop(tokens) {
  for (let n = 1; n <= tokens.length; n++) {
    for (let p = 1; p <= 4; p++) {
      const repeats = p === 1 ? 4 : 3;
      if (n < repeats * p) continue;
      let loop = true;
      for (let k = n - (repeats - 1) * p; k < n && loop; k++) loop = tokens[k] === tokens[k - p];
      if (loop) return true;
    }
  }
  return false;
}

test('passthrough on the shipped de->en model: each span once, exactly as typed; each number once', { skip: !existsSync(shipped) && 'no models/tiny.deen/model.tfm' }, async (t) => {
  const tr = await Translator.create({ model: shipped });
  try {
    const cases = [
      ['Das Wetter ist ☀️ heute.', ['☀️']],
      // A number is the model's to write, in the target language's way; one it loses is put back.
      ['Der Preis beträgt 12,50 €.', [/12[.,]50/g]],
      ['Von az, aktualisiert am 04.05.2018 um 11:11', ['04.05.2018', '11:11']],
      ['Schreib mir an anna@example.org oder besuche https://example.org/hilfe.', ['anna@example.org', 'https://example.org/hilfe']],
      ['Ruf mich unter 0171 2345678 an.', ['0171 2345678']],
      ['Mehr auf https://example.com.', ['https://example.com']],
    ];
    for (const [text, spans] of cases) {
      const out = (await tr.translate(text)).text;  // on by default
      for (const s of spans) {
        const found = s instanceof RegExp ? (out.match(s) ?? []).length : out.split(s).length - 1;
        assert.equal(found, 1, `"${s}" once in "${out}"`);
      }
      assert.equal((await tr.translate(text, { passthrough: true, repetitionGuard: true })).text, out);
      t.diagnostic(`"${text}" -> "${out}" (without: "${(await tr.translate(text, PLAIN)).text}")`);
    }
    // A span that closes the sentence closes the translation.
    const closing = (await tr.translate('Es kostet nichts, gefunden zu werden 😀.')).text;
    assert.match(closing, / 😀\.$/, closing);
    const plain = 'Zwei Kinder spielen im Park.';
    assert.equal((await tr.translate(plain)).text, (await tr.translate(plain, PLAIN)).text);
  } finally {
    tr.dispose();
  }
});

test('repetitionGuard: the looping test model loops no more; on by default', async () => {
  const tr = await Translator.create({ model: fixturePath('marian') });
  try {
    const g = golden('marian');
    const texts = g.sentences.map((s) => s.text);
    const plain = await tr.translate(texts, PLAIN);
    assert.deepEqual(plain.map((r) => Array.from(r.tokens)), g.sentences.map((s) => s.greedy.tokens), 'off: the reference output');
    assert.ok(plain.some((r) => hasLoop(Array.from(r.tokens))), 'the test model loops');
    const guarded = await tr.translate(texts, { passthrough: false });  // the guard on by default
    assert.deepEqual(guarded.map((r) => r.text), (await tr.translate(texts, { passthrough: false, repetitionGuard: true })).map((r) => r.text));
    for (const r of guarded) assert.equal(hasLoop(Array.from(r.tokens)), false, r.text);
    await assert.rejects(tr.translate('x', { passthrough: 'yes' }), { name: 'TypeError', message: /option 'passthrough' must be true or false/ });
    await assert.rejects(tr.translate('x', { repetitionGuard: 1 }), { name: 'TypeError', message: /option 'repetitionGuard' must be true or false/ });
  } finally {
    tr.dispose();
  }
});

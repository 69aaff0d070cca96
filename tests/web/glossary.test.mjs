// translate()'s and Translator.create's `glossary`: terms come out of a real model's translation the
// user's way (or kept, without a target), only where asked; HTML targets stay text; bad glossaries
// are refused with a message naming the item, before anything is queued (the package's own checks
// of the shape, then the engine's of the entries).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { importPackage, repoRoot } from './helpers.mjs';

const { Translator } = await importPackage();
const shipped = path.join(repoRoot, 'models', 'tiny.deen', 'model.tfm');
const skip = !existsSync(shipped) && 'no models/tiny.deen/model.tfm';

// Whole-word occurrences (as the engine counts them: no letter or digit on either side).
function occurrences(text, term, flags = 'gu') {
  const escaped = term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return (text.match(new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, flags)) ?? []).length;
}

test('glossary on the shipped de->en model: targets put in, kept terms kept, nothing else changed', { skip }, async (t) => {
  const tr = await Translator.create({ model: shipped });
  try {
    const text = 'Das Haus ist sehr alt. Wir wohnen in Berlin.';
    const plain = (await tr.translate(text)).text;
    t.diagnostic(`without: "${plain}"`);
    assert.equal(occurrences(plain, 'house', 'giu'), 1, plain);

    const out = (await tr.translate(text, { glossary: [{ source: 'Haus', target: 'building' }, { source: 'berlin', target: 'Bärlin', caseSensitive: false }] })).text;
    t.diagnostic(`with: "${out}"`);
    assert.equal(occurrences(out, 'building'), 1, out);
    assert.equal(occurrences(out, 'house', 'giu'), 0, out);
    assert.equal(occurrences(out, 'Bärlin'), 1, out);

    // Do not translate: no target.
    const kept = (await tr.translate('Das Haus ist sehr alt.', { glossary: [{ source: 'Haus' }] })).text;
    assert.equal(occurrences(kept, 'Haus'), 1, kept);
    // Where the model already says the target, or the term is not in the text: unchanged.
    assert.equal((await tr.translate(text, { glossary: [{ source: 'Haus', target: 'house', caseSensitive: false }] })).text, plain);
    assert.equal((await tr.translate(text, { glossary: [{ source: 'Katze', target: 'kitty' }] })).text, plain);
    assert.equal((await tr.translate(text, { glossary: [] })).text, plain);
    // translateStream takes it too.
    const streamed = [];
    for await (const s of tr.translateStream(text, { glossary: [{ source: 'Haus', target: 'building' }] })) streamed.push(s.text);
    assert.equal(occurrences(streamed.join(' '), 'building'), 1, streamed.join(' '));
  } finally {
    tr.dispose();
  }
});

test('glossary of Translator.create: every request uses it unless it gives its own', { skip }, async () => {
  const glossary = [{ source: 'Haus', target: 'building' }];
  const tr = await Translator.create({ model: shipped, glossary });
  try {
    glossary[0].target = 'changed later';  // the translator keeps the glossary it was given
    const out = (await tr.translate('Das Haus ist sehr alt.')).text;
    assert.equal(occurrences(out, 'building'), 1, out);
    const own = (await tr.translate('Das Haus ist sehr alt.', { glossary: [{ source: 'Haus', target: 'cottage' }] })).text;
    assert.equal(occurrences(own, 'cottage'), 1, own);
    assert.equal(occurrences(own, 'building'), 0, own);
    const none = (await tr.translate('Das Haus ist sehr alt.', { glossary: [] })).text;
    assert.equal(occurrences(none, 'building'), 0, none);
  } finally {
    tr.dispose();
  }
});

test('glossary with html: a target is text, never markup', { skip }, async () => {
  const tr = await Translator.create({ model: shipped });
  try {
    const out = (await tr.translate('<p>Das <b>Haus</b> ist sehr alt.</p>', {
      html: true, glossary: [{ source: 'Haus', target: '<img src=x onerror=alert(1)>' }],
    })).text;
    assert.ok(!out.includes('<img'), out);
    // The markup that was there stays (placed on the target's words by the alignment).
    assert.ok(out.includes('<b>') && out.includes('</b>'), out);
    assert.ok(out.replace('<b>', '').replace('</b>', '').includes('&lt;img src=x onerror=alert(1)&gt;'), out);
  } finally {
    tr.dispose();
  }
});

test('bad glossaries: a clear error naming the item, before anything is queued; the translator goes on', { skip }, async () => {
  const tr = await Translator.create({ model: shipped });
  try {
    const refused = [
      [{ source: 'Haus' }, TypeError, /option 'glossary': must be an array/],
      ['Haus', TypeError, /option 'glossary': must be an array/],
      [[null], TypeError, /item 0 must be an object/],
      [[{ source: 3 }], TypeError, /item 0: 'source' must be a string \(got number 3\)/],
      [[{ source: 'Haus', target: null }], TypeError, /item 0: 'target' must be a string or left out/],
      [[{ source: 'Haus', caseSensitive: 'no' }], TypeError, /item 0: 'caseSensitive' must be true or false/],
      [[{ source: 'Haus', to: 'x' }], TypeError, /item 0: unknown key 'to'/],
      [[{ source: 'Ha\uD800us' }], TypeError, /item 0: 'source' has a lone surrogate/],
    ];
    for (const [glossary, type, message] of refused) {
      await assert.rejects(tr.translate('Hallo', { glossary }), (e) => e instanceof type && message.test(e.message), JSON.stringify(glossary));
      assert.throws(() => tr.translateStream('Hallo', { glossary }), (e) => e instanceof type && message.test(e.message));
    }
    await assert.rejects(Translator.create({ model: shipped, glossary: [{ source: 1 }] }), /Translator.create: option 'glossary': item 0: 'source' must be a string/);
    // The engine's own rules: an empty source, control characters, whitespace at the ends, a
    // source given twice, too many entries.
    const engineRefused = [
      [[{ source: '' }], /glossary\[0\]: source is empty/],
      [[{ source: 'Haus', target: 'bu\u0007ilding' }], /glossary\[0\]: target has a control character \(U\+0007\) at byte 2/],
      [[{ source: 'Haus', target: '' }], /glossary\[0\]: target is empty \(leave it out to keep the source as it is\)/],
      [[{ source: 'Haus ' }], /glossary\[0\]: source begins or ends with whitespace/],
      [[{ source: 'Haus' }, { source: 'haus', caseSensitive: false }], /glossary\[1\]: source "haus" is given already by glossary\[0\]/],
      [Array.from({ length: 10001 }, (_, i) => ({ source: `w${i}` })), /10001 entries, at most 10000 are allowed/],
    ];
    for (const [glossary, message] of engineRefused) {
      await assert.rejects(tr.translate('Hallo', { glossary }), message, JSON.stringify(glossary).slice(0, 80));
    }
    // A large valid glossary is fine (terms of letters only: passthrough keeps words with digits).
    const letters = (i) => [...i.toString(26)].map((c) => String.fromCharCode(97 + parseInt(c, 26))).join('');
    const many = Array.from({ length: 10000 }, (_, i) => ({ source: `Wort${letters(i)}`, target: `word${letters(i)}` }));
    const out = (await tr.translate(`Das Wort${letters(5)} ist kurz.`, { glossary: many })).text;
    assert.equal(occurrences(out, `word${letters(5)}`), 1, out);
    assert.ok((await tr.translate('Hallo Welt.')).text.length > 0);
  } finally {
    tr.dispose();
  }
});

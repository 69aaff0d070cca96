// The translation memory through the npm package (create({ memory })), in Node: a sentence
// translated before comes back from it (timings.memoryHits counts them) exactly as computed (text,
// tokens, scores, alignment, HTML), only for the same options; clear() empties it; its options are
// checked; without IndexedDB (Node) `persist` warns and the memory lasts as long as the
// Translator. The engine's Module.TranslationMemory refuses images that are not one (empty,
// truncated, damaged, another kind of value) with a reason, and never crashes. A whole text
// translated before comes back whole (the memory's first level, text-memory.js), as a copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixturePath, importPackage, PLAIN } from './helpers.mjs';
import { loadVariant } from '../wasm/load_module.mjs';

const { Translator } = await importPackage();

const TEXTS = ['Ein Mann fährt Fahrrad. Die Katze schläft.', 'Zwei Hunde spielen im Schnee.', 'Die Katze schläft. Ein Mann fährt Fahrrad.'];

// What a translation gives, without its timings.
const content = (results) => results.map((r) => ({
  text: r.text, tokens: [...r.tokens], score: r.score,
  sentences: r.sentences.map((s) => ({ ...s, tokens: [...s.tokens], sourceTokens: [...s.sourceTokens],
    alignment: s.alignment && { ...s.alignment, weights: [...s.alignment.weights] },
    nbest: s.nbest?.map((h) => ({ ...h, tokens: [...h.tokens] })) })),
}));

test('memory: sentences translated before are answered from it, exactly as computed', async () => {
  const plain = await Translator.create({ model: fixturePath('marian') });
  const tr = await Translator.create({ model: fixturePath('marian'), memory: true });
  try {
    assert.equal(plain.memory, null);
    for (const options of [PLAIN, { ...PLAIN, beam: 4, nbest: 2, alignment: true }, {}]) {
      const expected = await plain.translate(TEXTS, options);
      assert.equal(expected[0].timings.memoryHits, 0);
      const first = await tr.translate(TEXTS, options);
      assert.equal(first[0].timings.memoryHits, 0, 'nothing before');
      assert.deepEqual(content(first), content(expected));
      // Five sentences, three different: all come from the memory, in other places too.
      const second = await tr.translate(TEXTS, options);
      assert.equal(second[0].timings.memoryHits, 5);
      assert.deepEqual(content(second), content(expected));
    }
    const html = ['<p>Ein <b>Mann</b> fährt Fahrrad.</p><p>Die Katze <i>schläft</i>.</p>'];
    const expectedHtml = await plain.translate(html, { html: true });
    await tr.translate(html, { html: true });
    const again = await tr.translate(html, { html: true });
    assert.equal(again[0].timings.memoryHits, 2);
    assert.equal(again[0].text, expectedHtml[0].text);
    // Keyed requests (chunks) and streams count theirs too.
    assert.equal((await tr.translate(TEXTS[0], { ...PLAIN, key: 'k' })).timings.memoryHits, 2);
    const streamed = [];
    for await (const s of tr.translateStream(TEXTS[1], PLAIN)) streamed.push(s.text);
    assert.deepEqual(streamed, [(await plain.translate(TEXTS[1], PLAIN)).text]);

    const stats = await tr.memory.stats();
    assert.equal(stats.database, null);
    assert.ok(stats.entries >= 3 && stats.bytes > 0 && stats.hits > 0, JSON.stringify(stats));
    const cleared = await tr.memory.clear();
    assert.equal(cleared.entries, 0);
    assert.equal((await tr.translate(TEXTS, PLAIN))[0].timings.memoryHits, 0);
  } finally {
    plain.dispose();
    tr.dispose();
  }
});

test('memory: a whole text translated before comes back whole, without the engine; a copy each time', async () => {
  const plain = await Translator.create({ model: fixturePath('marian') });
  const tr = await Translator.create({ model: fixturePath('marian'), memory: true });
  try {
    const blocks = ['<p>Ein <b>Mann</b> fährt Fahrrad.</p>', 'Die Katze schläft. Zwei Hunde spielen im Schnee.'];
    const expected = await plain.translate(blocks, { html: true, alignment: true });
    const first = await tr.translate(blocks, { html: true, alignment: true });
    assert.deepEqual(content(first), content(expected));
    const before = await tr.memory.stats();
    assert.equal(before.texts.entries, 2);
    // A caller that changes what it got changes nothing kept.
    first[0].text = 'changed';
    first[1].sentences[0].tokens[0] = -1;
    const again = await tr.translate(blocks, { html: true, alignment: true, signal: new AbortController().signal });
    assert.deepEqual(content(again), content(expected));
    assert.equal(again[0].timings.memoryHits, 3);
    // Answered as whole texts: the engine's own memory looked nothing up.
    const after = await tr.memory.stats();
    assert.equal(after.texts.hits - before.texts.hits, 3);
    assert.equal(after.hits - before.hits, 3);
    assert.equal(after.misses, before.misses);
    // One text new, one known: only the new one is computed, the results in the request's order.
    const mixed = await tr.translate(['Zwei Hunde spielen im Schnee.', blocks[0]], { html: true, alignment: true });
    assert.deepEqual(content(mixed), content(await plain.translate(['Zwei Hunde spielen im Schnee.', blocks[0]], { html: true, alignment: true })));
    assert.equal((await tr.memory.stats()).texts.entries, 3);
    // A text twice in one request: computed once, the second a copy from the memory.
    const twice = await tr.translate(['Der Hund bellt.', blocks[0], 'Der Hund bellt.'], { html: true, alignment: true });
    assert.deepEqual(content(twice), content(await plain.translate(['Der Hund bellt.', blocks[0], 'Der Hund bellt.'], { html: true, alignment: true })));
    assert.equal(twice[0].timings.memoryHits, 2, "the block known before, and the repeat");
    twice[0].text = 'changed';
    assert.notEqual(twice[2].text, 'changed', 'a copy each');
    // Word confidence is computed (the memory keeps no log-probabilities).
    const sure = await tr.translate(blocks, { html: true, alignment: true, confidence: true });
    assert.equal(sure[0].timings.memoryHits, 0);
    assert.ok(sure[1].sentences[0].confidence);
    // clear() empties both levels.
    const cleared = await tr.memory.clear();
    assert.deepEqual([cleared.entries, cleared.texts.entries], [0, 0]);
    assert.equal((await tr.translate(blocks, { html: true, alignment: true }))[0].timings.memoryHits, 0);
  } finally {
    plain.dispose();
    tr.dispose();
  }
});

test('memory: other options or another model are never answered with it', async () => {
  const tr = await Translator.create({ model: fixturePath('marian'), memory: { maxEntries: 100, maxBytes: 1 << 20 } });
  try {
    await tr.translate(TEXTS, PLAIN);
    assert.equal((await tr.translate(TEXTS, { ...PLAIN, beam: 2 }))[0].timings.memoryHits, 0);
    assert.equal((await tr.translate(TEXTS, { ...PLAIN, passthrough: true }))[0].timings.memoryHits, 0);
    assert.equal((await tr.translate(TEXTS, { ...PLAIN, alignment: true }))[0].timings.memoryHits, 0);
    assert.equal((await tr.translate(TEXTS, PLAIN))[0].timings.memoryHits, 5);
  } finally {
    tr.dispose();
  }
  // The limits hold: one entry kept.
  const small = await Translator.create({ model: fixturePath('marian'), memory: { maxEntries: 1 } });
  try {
    await small.translate(TEXTS, PLAIN);
    assert.equal((await small.memory.stats()).entries, 1);
  } finally {
    small.dispose();
  }
});

test('memory: options are checked; persist without IndexedDB warns', async () => {
  const model = fixturePath('marian');
  await assert.rejects(Translator.create({ model, memory: 'yes' }), { name: 'TypeError', message: /option 'memory' must be true, false or/ });
  await assert.rejects(Translator.create({ model, memory: { size: 1 } }), { name: 'TypeError', message: /unknown option 'memory.size'/ });
  await assert.rejects(Translator.create({ model, memory: { persist: 1 } }), { name: 'TypeError', message: /memory.persist/ });
  await assert.rejects(Translator.create({ model, memory: { maxEntries: 0 } }), { name: 'RangeError', message: /memory.maxEntries/ });
  await assert.rejects(Translator.create({ model, memory: { maxBytes: 1.5 } }), { name: 'RangeError', message: /memory.maxBytes/ });
  const tr = await Translator.create({ model, memory: { persist: true } });
  try {
    assert.ok(tr.info.warnings.some((w) => /no IndexedDB/.test(w)), tr.info.warnings.join('; '));
    await tr.translate(TEXTS, PLAIN);
    assert.equal((await tr.translate(TEXTS, PLAIN))[0].timings.memoryHits, 5);
    assert.equal((await tr.memory.save()).saved, false);
  } finally {
    tr.dispose();
  }
  await assert.rejects(tr.memory.stats(), { name: 'TranslatorDisposedError' });
});

test('Module.TranslationMemory refuses what is not an image, and keeps what it had', async () => {
  const Module = await loadVariant('st');
  const memory = new Module.TranslationMemory({});
  const other = new Module.TranslationMemory({ maxEntries: 10 });
  const tr = new Module.Translator(new Uint8Array((await import('node:fs')).readFileSync(fixturePath('marian'))), 1);
  try {
    tr.useMemory(memory);
    tr.translate(TEXTS, {});
    const image = memory.save();
    assert.ok(image instanceof Uint8Array && image.length > 100);
    assert.equal(other.load(image), '');
    assert.equal(other.stats().entries, 3);
    for (const bad of [new Uint8Array(0), image.subarray(0, image.length - 1), image.subarray(0, 40), new Uint8Array(image.length)]) {
      const fresh = new Module.TranslationMemory({});
      assert.match(fresh.load(bad), /translation memory/);
      assert.equal(fresh.stats().entries, 0);
      fresh.delete();
    }
    const flipped = image.slice();
    flipped[30] ^= 0xff;
    assert.match(other.load(flipped), /checksum/);
    assert.equal(other.stats().entries, 3);
    assert.throws(() => other.load('image'), /Uint8Array/);
    assert.throws(() => new Module.TranslationMemory({ maxEntries: -1 }), /maxEntries must be a positive whole number/);
    // A translator given the other memory answers from it.
    tr.useMemory(other);
    const before = other.stats().hits;
    tr.translate(TEXTS, {});
    assert.equal(other.stats().hits - before, 5);
    tr.useMemory(null);
    tr.translate(TEXTS, {});
    assert.equal(other.stats().hits - before, 5);
  } finally {
    tr.delete();
    memory.delete();
    other.delete();
  }
});

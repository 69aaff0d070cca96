// Requests with a key (node --test): long texts run in chunks of whole sentences (chunksOf), joined
// as one translation; a request with `supersede: true` rejects the earlier requests with its key
// at once (SupersededError), the queued ones never run, the running one stops at its next chunk,
// and the engine is never restarted for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixturePath, golden, packageUnderTest } from './helpers.mjs';

const { pkg, create } = await packageUnderTest();

const sentences = () => golden('marian').sentences.map((x) => x.text);

// A text of a few paragraphs (one after a blank line), well over CHUNK_CHARS.
function longText() {
  const s = sentences();
  const paragraph = (n) => Array.from({ length: n }, (_, i) => s[i % s.length]).join(' ');
  return `${paragraph(12)}\n\n${paragraph(9)}\n${paragraph(14)}`;
}

test('chunksOf: whole sentences of about CHUNK_CHARS, the text between them kept as separators', () => {
  const { chunksOf, CHUNK_CHARS } = pkg;
  assert.equal(CHUNK_CHARS, 400);
  const short = 'Ein kurzer Text. Zwei Sätze.';
  assert.deepEqual(chunksOf(short, 'de'), [{ text: short, start: 0, sentences: 2, separator: '' }], 'a short text is one chunk, as given');
  const text = longText();
  const chunks = chunksOf(text, 'de');
  assert.ok(chunks.length >= 4, `${chunks.length} chunks`);
  assert.equal(chunks.map((c) => c.text + c.separator).join(''), text, 'the chunks and separators are the text');
  assert.ok(chunks.some((c) => c.separator === '\n\n') && chunks.some((c) => c.separator === '\n'), 'line breaks kept');
  assert.equal(chunks.at(-1).separator, '');
  for (const c of chunks) assert.equal(text.slice(c.start, c.start + c.text.length), c.text, 'each chunk stands at its start');
  for (const c of chunks.slice(0, -1)) assert.ok(c.text.length >= CHUNK_CHARS || /\n/.test(c.separator), c.text.length);
  const segmented = [...new Intl.Segmenter('de', { granularity: 'sentence' }).segment(text)].filter((x) => x.segment.trim());
  assert.equal(chunks.reduce((n, c) => n + c.sentences, 0), segmented.length);
  assert.deepEqual(chunksOf('   '.repeat(200), 'de'), [{ text: '   '.repeat(200), start: 0, sentences: 0, separator: '' }]);
});

test('a request with a key: its chunks translated one by one and joined as one translation', async () => {
  const t = await create({ model: fixturePath('marian'), variant: 'single' });
  const text = longText();
  const chunks = pkg.chunksOf(text, t.info.model.sourceLanguage ?? undefined);
  // What the chunks give on their own, joined (an independent way to the same result).
  const parts = await t.translate(chunks.map((c) => c.text), { alignment: true });
  const keyed = await t.translate(text, { key: 'box', alignment: true });
  assert.equal(keyed.text, parts.map((p, i) => p.text + chunks[i].separator).join(''));
  assert.deepEqual(keyed.sentences.map((s) => s.text), parts.flatMap((p) => p.sentences.map((s) => s.text)));
  assert.deepEqual(Array.from(keyed.tokens), parts.flatMap((p) => Array.from(p.tokens)));
  const sourceCount = keyed.sentences.reduce((n, s) => n + s.sourcePieces.length, 0);
  const targetCount = keyed.sentences.reduce((n, s) => n + s.targetPieces.length, 0);
  assert.equal(keyed.alignment.weights.length, sourceCount * targetCount, 'the alignment of all sentences');
  assert.ok(keyed.timings.translateMs > 0);
  // A short text with a key is the plain request.
  const short = sentences()[0];
  assert.deepEqual((await t.translate(short, { key: 'box' })).text, (await t.translate(short)).text);
  // An array: each text chunked on its own.
  const [a, b] = await t.translate([text, short], { key: 'box' });
  assert.equal(a.text, keyed.text);
  assert.equal(b.text, (await t.translate(short)).text);
});

test('supersede: earlier requests with the key reject at once, others run, the engine is not restarted', async () => {
  const t = await create({ model: fixturePath('marian'), variant: 'single' });
  const text = longText();
  const restarts = t.info.restarts;
  const running = t.translate(text, { key: 'box' });
  const queued = t.translate(text, { key: 'box' });
  const other = t.translate(sentences()[1], { key: 'other' });
  const plain = t.translate(sentences()[2]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const newest = t.translate(sentences()[0], { key: 'box', supersede: true });
  const superseded = (e) => e instanceof pkg.SupersededError && e.name === 'SupersededError' && e.key === 'box';
  await assert.rejects(running, superseded);
  await assert.rejects(queued, superseded);
  assert.equal((await newest).text, (await t.translate(sentences()[0])).text);
  assert.equal((await other).text, (await t.translate(sentences()[1])).text, 'another key is left alone');
  assert.equal((await plain).text, (await t.translate(sentences()[2])).text, 'a request without a key is left alone');
  assert.equal(t.info.restarts, restarts, 'no engine restart');
  assert.equal(t.info.queued, 0);
});

test('translateStream with a key: sentences numbered across chunks; a superseded stream throws SupersededError', async () => {
  const t = await create({ model: fixturePath('marian'), variant: 'single' });
  const text = longText();
  const whole = await t.translate(text, { key: 'box' });
  const items = [];
  for await (const s of t.translateStream(text, { key: 'box' })) items.push(s);
  assert.deepEqual(items.map((s) => s.index), whole.sentences.map((_, i) => i));
  assert.ok(items.every((s) => s.paragraph === 0));
  assert.equal(items.map((s) => s.separator + s.text).join(''), whole.text);

  const restarts = t.info.restarts;
  const stale = t.translateStream(text, { key: 'box' });
  const first = await stale.next();
  assert.equal(first.done, false);
  const newest = t.translate(sentences()[0], { key: 'box', supersede: true });
  await assert.rejects(async () => { for await (const s of stale) assert.ok(s); }, { name: 'SupersededError' });
  await newest;
  assert.equal(t.info.restarts, restarts);
});

test('key and supersede are checked at the call', async () => {
  const t = await create({ model: fixturePath('marian'), variant: 'single' });
  await assert.rejects(t.translate('x', { key: '' }), { name: 'TypeError', message: /option 'key' must be a non-empty string/ });
  await assert.rejects(t.translate('x', { key: 3 }), { name: 'TypeError', message: /option 'key' must be a non-empty string \(got number 3\)/ });
  await assert.rejects(t.translate('x', { supersede: true }), { name: 'TypeError', message: /option 'supersede' needs a 'key'/ });
  await assert.rejects(t.translate('x', { key: 'a', supersede: 'yes' }), { name: 'TypeError', message: /option 'supersede' must be true or false/ });
  assert.throws(() => t.translateStream('x', { supersede: true }), { name: 'TypeError' });
});

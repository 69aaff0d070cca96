// The translation memory's level of whole texts (web/src/text-memory.js) on its own: results come
// back as copies (a caller changing one changes nothing kept), the least recently used go first
// beyond the limits in entries and in bytes, the options' key leaves out only the request
// queue's fields, and a stored image that is damaged or not one is refused with a reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextMemory } from '../../web/src/text-memory.js';

const result = (text, sentences = 1) => ({ text, tokens: new Int32Array([1, 2, 3]), score: -0.5,
  sentences: Array.from({ length: sentences }, (_, i) => ({ source: `s${i}`, text: `${text} ${i}`, tokens: new Int32Array([i]) })) });

test('text memory: copies in and out, hits counted in sentences', () => {
  const m = new TextMemory();
  const key = TextMemory.optionsKey({ html: true });
  const r = result('Hello.', 2);
  m.set(key, 'Hallo.', r);
  r.text = 'changed after';
  r.tokens[0] = 99;
  const got = m.get(key, 'Hallo.');
  assert.equal(got.text, 'Hello.');
  assert.deepEqual([...got.tokens], [1, 2, 3]);
  got.sentences[0].text = 'changed by the caller';
  assert.equal(m.get(key, 'Hallo.').sentences[0].text, 'Hello. 0');
  assert.equal(m.get(key, 'Hallo!'), undefined);
  assert.equal(m.get(TextMemory.optionsKey({ html: false }), 'Hallo.'), undefined);
  assert.deepEqual({ ...m.stats(), bytes: m.stats().bytes > 0 }, { entries: 1, bytes: true, hits: 4 });
  m.clear();
  assert.deepEqual(m.stats(), { entries: 0, bytes: 0, hits: 0 });
});

test('text memory: the options key: order-free, every option but the queue\'s', () => {
  const a = TextMemory.optionsKey({ beam: 4, html: true, glossary: [{ source: 'A', target: 'B' }] });
  assert.equal(TextMemory.optionsKey({ glossary: [{ source: 'A', target: 'B' }], html: true, beam: 4 }), a);
  assert.equal(TextMemory.optionsKey({ beam: 4, html: true, glossary: [{ source: 'A', target: 'B' }], signal: {}, key: 'k', supersede: true }), a);
  assert.notEqual(TextMemory.optionsKey({ beam: 4, html: true, glossary: [{ source: 'A', target: 'C' }] }), a);
  assert.notEqual(TextMemory.optionsKey({ beam: 4, html: true }), a);
  assert.notEqual(TextMemory.optionsKey({ beam: 4, html: true, glossary: [{ source: 'A', target: 'B' }], maxLength: 9 }), a);
});

test('text memory: the least recently used go first, in entries and in bytes', () => {
  const m = new TextMemory({ maxEntries: 2 });
  m.set('k', 'a', result('A'));
  m.set('k', 'b', result('B'));
  m.get('k', 'a');                 // a is now newer than b
  m.set('k', 'c', result('C'));
  assert.deepEqual(['a', 'b', 'c'].map((t) => m.get('k', t)?.text ?? null), ['A', null, 'C']);
  const small = new TextMemory({ maxBytes: 2000 });
  for (const t of 'abcdefgh') small.set('k', t, result(t.repeat(100)));
  assert.ok(small.stats().bytes <= 2000 && small.stats().entries >= 1 && small.stats().entries < 8, JSON.stringify(small.stats()));
  assert.equal(small.get('k', 'h')?.text, 'h'.repeat(100), 'the newest kept');
  assert.equal(small.get('k', 'a'), undefined, 'the oldest dropped');
  small.set('k', 'huge', result('x'.repeat(5000)));  // larger than the whole memory: not kept
  assert.equal(small.get('k', 'huge'), undefined);
});

test('text memory: an image round trip; damaged or foreign images are refused and leave it empty', () => {
  const m = new TextMemory();
  m.set('k', 'a', result('A', 3));
  m.set('k', 'b', result('B'));
  const image = structuredClone(m.image());  // as IndexedDB gives it back
  const back = new TextMemory();
  assert.equal(back.load(image), null);
  assert.equal(back.get('k', 'a').sentences.length, 3);
  assert.equal(back.get('k', 'b').text, 'B');
  // Limits apply to a loaded image too.
  const one = new TextMemory({ maxEntries: 1 });
  assert.equal(one.load(image), null);
  assert.equal(one.stats().entries, 1);
  for (const bad of [undefined, null, 'text', 42, new Uint8Array(100), [], {}, { version: 2, entries: [] },
    { version: 1, entries: 'x' }, { version: 1, entries: [['k\na']] }, { version: 1, entries: [[1, result('A')]] },
    { version: 1, entries: [['no newline', result('A')]] }, { version: 1, entries: [['k\na', { text: 5, sentences: [] }]] },
    { version: 1, entries: [['k\na', { text: 'A', sentences: 'x' }]] }, { version: 1, entries: [['k\na', null]] }]) {
    const fresh = new TextMemory();
    fresh.set('k', 'z', result('Z'));
    assert.equal(fresh.load(bad), 'not an image of whole texts', String(bad));
    assert.equal(fresh.get('k', 'z')?.text, 'Z', 'what it had is kept');
  }
});

// translateStream() (node --test): each sentence comes out as soon as it is done, in input order,
// equal to the same sentence of translate()'s result; an abort midway (the signal, or leaving the
// loop) throws the signal's reason and stops the engine's work on it; bad arguments throw at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PLAIN, fixtureBytes, fixturePath, golden, packageUnderTest, webDir } from './helpers.mjs';

const { pkg, create } = await packageUnderTest();

// Everything translate() says of a sentence, comparable with deepEqual.
const plain = (s) => ({
  source: s.source, text: s.text, score: s.score, tokens: Array.from(s.tokens), sourceTokens: Array.from(s.sourceTokens),
  sourcePieces: s.sourcePieces, targetPieces: s.targetPieces,
  alignment: s.alignment && { ...s.alignment, weights: Array.from(s.alignment.weights) },
  nbest: s.nbest?.map((h) => ({ text: h.text, score: h.score, tokens: Array.from(h.tokens) })),
});

async function collect(iterator) {
  const items = [];
  for await (const item of iterator) items.push(item);
  return items;
}

for (const variant of ['threaded', 'single']) {
  test(`${variant}: sentences come in input order, each equal to translate()'s`, async () => {
    const t = await create({ model: fixturePath('marian'), variant, threads: 2 });
    const s = golden('marian').sentences.map((x) => x.text);
    // The fixture's sentences end at different steps (30, 1 and 28 tokens for the first three):
    // the iterator holds the early ones back until their turn. Sentences of one text, lines, an
    // empty text.
    const texts = [`${s[0]} ${s[1]} ${s[2]}`, '', `${s[3]}\n\n${s[4]}`, s[5]];
    for (const options of [{}, { alignment: true }, { beam: 4, nbest: 2 }]) {
      const expected = await t.translate(texts, options);
      const items = await collect(t.translateStream(texts, options));
      const want = expected.flatMap((r, paragraph) => r.sentences.map((sentence, index) => ({ paragraph, index, sentence })));
      assert.equal(items.length, want.length, JSON.stringify(options));
      items.forEach((item, i) => {
        assert.equal(item.paragraph, want[i].paragraph, `item ${i}`);
        assert.equal(item.index, want[i].index, `item ${i}`);
        assert.deepEqual(plain(item), plain(want[i].sentence), `item ${i} ${JSON.stringify(options)}`);
      });
      // The separators join the sentences into translate()'s texts.
      const joined = texts.map(() => '');
      for (const item of items) joined[item.paragraph] += item.separator + item.text;
      assert.deepEqual(joined, expected.map((r) => r.text));
      assert.deepEqual(items.map((x) => x.separator), ['', ' ', ' ', '', '\n\n', '']);
    }
    // Nothing to translate: an iterator that ends at once.
    assert.deepEqual(await collect(t.translateStream('')), []);
    assert.deepEqual(await collect(t.translateStream([])), []);
    assert.deepEqual(await collect(t.translateStream(['', ' \n '])), []);
    // A string is one text.
    const one = await collect(t.translateStream(s[0]));
    assert.deepEqual(one.map(plain), (await t.translate(s[0])).sentences.map(plain));
    assert.equal(t.info.restarts, 0);
  });
}

test('sentences come out while the request still runs, and an abort midway stops it', async () => {
  const t = await create({ model: fixturePath('marian'), threads: 1 });
  // 3000 equal sentences: several encoder batches, the first done long before the last.
  const huge = 'Hund Katze spielen im Schnee. '.repeat(3000);
  const [first] = (await t.translate('Hund Katze spielen im Schnee.')).sentences;

  const controller = new AbortController();
  const items = [];
  let runningAtFirst = null;
  await assert.rejects(async () => {
    for await (const item of t.translateStream(huge, { signal: controller.signal })) {
      if (items.length === 0) runningAtFirst = t.info.queued;
      items.push(item);
      assert.deepEqual(plain(item), plain(first));
      assert.equal(item.index, items.length - 1);
      if (items.length === 5) controller.abort();
    }
  }, { name: 'AbortError' });
  assert.equal(runningAtFirst, 1, 'the first sentence came while its request was running');
  assert.equal(items.length, 5, 'nothing after the abort');
  assert.equal(t.info.restarts, 0, 'the engine stopped working on it between two steps, and goes on');
  assert.equal(t.info.queued, 0);
  // The signal's own reason is what the iterator throws.
  const reason = new Error('enough');
  const withReason = new AbortController();
  await assert.rejects(async () => {
    for await (const item of t.translateStream(huge, { signal: withReason.signal })) {
      assert.ok(item);
      withReason.abort(reason);
    }
  }, (e) => e === reason);

  // Leaving the loop early stops the request too; the translator goes on.
  for await (const item of t.translateStream(huge)) {
    assert.equal(item.text, first.text);
    break;
  }
  // An aborted signal throws before anything is queued.
  await assert.rejects(collect(t.translateStream('x', { signal: AbortSignal.abort() })), { name: 'AbortError' });
  assert.equal(t.info.restarts, 0);
  assert.equal((await t.translate('Die Katze schläft.', PLAIN)).text, golden('marian').sentences[2].greedy.text);
});

test('leaving a stream early, 50 times, keeps the same engine', async () => {
  const t = await create({ model: fixturePath('marian'), threads: 1 });
  const sentences = golden('marian').sentences;
  const text = 'Hund Katze spielen im Schnee. '.repeat(200);
  for (let i = 0; i < 50; i++) {
    for await (const item of t.translateStream(text, PLAIN)) {
      assert.equal(item.index, 0);
      break;
    }
  }
  assert.equal(t.info.restarts, 0, 'no engine restart: each stream stopped between two steps');
  // The engine translates on as a fresh one does: streams and single calls, keyed requests.
  const texts = sentences.slice(0, 4).map((x) => x.text);
  assert.deepEqual((await t.translate(texts, PLAIN)).map((r) => r.text), sentences.slice(0, 4).map((x) => x.greedy.text));
  assert.deepEqual((await collect(t.translateStream(texts, PLAIN))).map((x) => x.text), sentences.slice(0, 4).map((x) => x.greedy.text));
  // A stream left early while a request waits behind it: the waiting one runs after it, whole.
  const stream = t.translateStream(text, PLAIN);
  assert.equal((await stream.next()).value.index, 0);
  const behind = t.translate(texts[1], PLAIN);
  assert.equal(t.info.queued, 2);
  await stream.return();
  assert.equal((await behind).text, sentences[1].greedy.text);
  assert.equal(t.info.restarts, 0);
  assert.equal(t.info.queued, 0);
});

test('streams queue with translate() requests in call order', async () => {
  const t = await create({ model: fixturePath('marian'), threads: 1 });
  const s = golden('marian').sentences;
  const order = [];
  const a = t.translate(s[0].text).then(() => order.push('a'));
  const streamed = collect(t.translateStream([s[1].text, s[2].text], PLAIN)).then((items) => { order.push('stream'); return items; });
  const b = t.translate(s[3].text).then(() => order.push('b'));
  const [items] = await Promise.all([streamed, a, b]);
  assert.deepEqual(order, ['a', 'stream', 'b']);
  assert.deepEqual(items.map((x) => x.text), [s[1].greedy.text, s[2].greedy.text]);
});

test('bad arguments throw at the call, before anything is queued', async () => {
  const t = await create({ model: fixturePath('marian'), threads: 1 });
  assert.throws(() => t.translateStream(42), /text must be a string or an array of strings/);
  assert.throws(() => t.translateStream(['a', 3]), /item 1 of the array is not a string/);
  assert.throws(() => t.translateStream('x', { beam: 0 }), /option 'beam' must be between 1/);
  assert.throws(() => t.translateStream('x', { colour: 'red' }), /unknown option 'colour'/);
  assert.throws(() => t.translateStream('x', { signal: 'stop' }), /option 'signal' must be an AbortSignal/);
  assert.throws(() => t.translateStream('a\uD800b'), /not valid Unicode/);
  assert.throws(() => t.translateStream('<p>x</p>', { html: true }), /option 'html' is not supported/);
  assert.equal(t.info.queued, 0);
  t.dispose();
  assert.throws(() => t.translateStream('x'), { name: 'TranslatorDisposedError' });
});

test('without the Worker: the engine itself hands out each sentence as it ends', async () => {
  // Engine is what the Worker runs; here on this thread, with the single-threaded build.
  const { Engine } = await import('../../web/src/engine.js');
  const { engineOptions } = await import('../../web/src/options.js');
  const dist = path.join(webDir, 'dist');
  const engine = await Engine.create({ glueUrl: pathToFileURL(path.join(dist, 'tformer-st.mjs')).href,
    wasmModule: await WebAssembly.compile(readFileSync(path.join(dist, 'tformer-st.wasm'))),
    model: fixtureBytes('marian'), threads: 1, variant: 'single', backend: 'wasm' });
  try {
    const s = golden('marian').sentences.map((x) => x.text);
    const texts = [`${s[0]} ${s[1]} ${s[2]}`, s[3]];
    const options = engineOptions({ alignment: true }, engine.info().limits);
    const calls = [];
    const { results } = await engine.translate(texts, options, undefined, (sentences) => calls.push(sentences));
    const items = calls.flat();
    assert.ok(calls.length > 1, `handed out over ${calls.length} steps`);
    // In the order their search ended (the 1-token sentence first), each once.
    assert.deepEqual(items.map((x) => x.segment).sort(), [0, 1, 2, 3]);
    assert.equal(items[0].segment, 1);
    for (const item of items) assert.deepEqual(plain(item.sentence), plain(results[item.paragraph].sentences[item.index]));
    assert.deepEqual(plain(results[0].sentences[0]), plain((await engine.translate([texts[0]], options)).results[0].sentences[0]));
    // A signal stops a stepped translation before its next step (the Worker's 'cancel'): no
    // sentence after the abort, and the engine translates on.
    const controller = new AbortController();
    const reason = new Error('left the loop');
    const before = [];
    await assert.rejects(engine.translate(texts, options, controller.signal, (sentences) => {
      before.push(...sentences);
      controller.abort(reason);
    }), (e) => e === reason);
    assert.deepEqual(before.map((x) => x.segment), calls[0].map((x) => x.segment), 'only the sentences of the first step');
    assert.ok(before.length < 4);
    assert.deepEqual(plain((await engine.translate(texts, options)).results[1].sentences[0]), plain(results[1].sentences[0]));
  } finally {
    await engine.dispose();
  }
});

test('a long text streams in small calls first, then large ones, cut only where the engine cuts', async () => {
  const { streamCalls, streamSchedule, cutsOf, LARGE_CALL_SENTENCES, ENGINE_ABBREVIATIONS } = await import('../../web/src/stream-schedule.js');
  // The abbreviations after which the engine does not end a sentence are the engine's own.
  const splitter = readFileSync(path.join(webDir, '..', 'core', 'src', 'text', 'sentence_splitter.cc'), 'utf8');
  const list = splitter.match(/abbreviations\(\) \{[^]*?words = \{([^}]*)\}/)[1];
  assert.deepEqual([...ENGINE_ABBREVIATIONS].sort(), [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]).sort());
  // 100 sentences: calls of 1, 2 and 4 sentences, then of LARGE_CALL_SENTENCES.
  const hundred = Array.from({ length: 100 }, (_, i) => `Der Hund Nummer ${i + 1} spielt im Garten.`).join(' ');
  const sizes = streamCalls([hundred], 'de').map((call) => call.reduce((n, piece) => n + cutsOf(piece.text, 'de').sentences, 0));
  assert.deepEqual(sizes, [1, 2, 4, LARGE_CALL_SENTENCES, 100 - 7 - LARGE_CALL_SENTENCES]);
  const sizesOn = (threads) => streamCalls([hundred], 'de', streamSchedule(threads))
    .map((call) => call.reduce((n, piece) => n + cutsOf(piece.text, 'de').sentences, 0));
  assert.deepEqual(sizesOn(1), sizes, 'one thread: the default schedule');
  // More threads: the first sentence alone, the rest in one call (the engine batches it).
  assert.deepEqual(sizesOn(2), [1, 99]);
  assert.deepEqual(sizesOn(4), [1, 99]);
  // The pieces put together are the text.
  assert.equal(streamCalls([hundred], 'de').flat().map((p) => p.text).join(''), hundred);
  // Where the engine does not end a sentence, nothing is cut, though Intl.Segmenter ends one:
  // abbreviations, initials, ordinals, no-break spaces, a small letter after the period.
  for (const text of ['Wir treffen Dr. Müller morgen.', 'Es war am 3. Mai im Park.', 'Das sagte J. Smith gestern.',
    'Er kam z.B. Heute nicht.', 'Das ist eine Frau. Sie lacht.', 'Er schläft.\u00A0Sie lacht.', 'Das ist es. und dann?']) {
    assert.deepEqual(cutsOf(text, 'de').cuts, [], text);
  }
  // Where it does: after a long word, !, ?, …, closing quotes, and at every line break.
  assert.deepEqual(cutsOf('Der Hund schläft draußen. Die Katze auch! Wirklich? Ja… Gut. „Neu“ kam.\nNeu', 'de').cuts.map((c) => c.sentences),
    [1, 2, 3, 4, 5]);
  assert.deepEqual(cutsOf('Er sagte: "Gut." Dann ging er.', 'de').cuts, [{ at: 17, sentences: 1 }]);
  // Texts keep their pieces together and in order; a text's first piece has no separator.
  const calls = streamCalls(['Eins ist gut.', '', 'Der Vogel fliegt heute.\n\nDie Katze schläft draußen. Zwei.'], 'de');
  assert.deepEqual(calls.map((call) => call.map((p) => [p.paragraph, p.text, p.separator])), [
    [[0, 'Eins ist gut.', '']],
    [[1, '', ''], [2, 'Der Vogel fliegt heute.\n\nDie Katze schläft draußen. ', '']],
    [[2, 'Zwei.', ' ']],
  ]);
});

test('a threaded engine streams the first sentence alone and the rest in one call, as translate() gives them', async () => {
  const t = await create({ model: fixturePath('marian'), variant: 'threaded', threads: 2 });
  assert.equal(t.info.threads, 2);
  const s = golden('marian').sentences.map((x) => x.text);
  const text = Array.from({ length: 12 }, (_, i) => s[i % s.length]).join(' ');
  const calls = [];
  const translateOnce = t.host.translate.bind(t.host);
  t.host.translate = (list, ...rest) => { calls.push(list); return translateOnce(list, ...rest); };
  const expected = await t.translate(text, PLAIN);
  calls.length = 0;
  const items = await collect(t.translateStream(text, PLAIN));
  assert.equal(calls.length, 2, 'two engine calls');
  assert.equal(calls[0].join(''), `${s[0]} `, 'the first sentence alone');
  assert.equal(calls.flat().join(''), text);
  assert.deepEqual(items.map((x) => x.text), expected.sentences.map((x) => x.text));
  assert.equal(items.map((x, i) => (i ? x.separator : '') + x.text).join(''), expected.text);
});

test('streamed sentences are translate()\'s where the text is cut and where it is not', async () => {
  const t = await create({ model: fixturePath('marian'), threads: 1 });
  const s = golden('marian').sentences.map((x) => x.text);
  // Sentences the engine does not split (abbreviations, ordinals) among ones it does, line breaks,
  // blank lines, and enough sentences for several calls.
  const tricky = `${s[0]} Wir treffen Dr. Müller am 3. Mai. ${s[1]}! ${s[2]}\n\n${s[3]} „${s[4]}“ ${s[5]}`;
  const texts = [tricky, '', Array.from({ length: 12 }, (_, i) => s[i % s.length]).join(' '), tricky];
  const calls = [];
  const translateOnce = t.host.translate.bind(t.host);
  t.host.translate = (list, ...rest) => { calls.push(list.length); return translateOnce(list, ...rest); };
  for (const options of [PLAIN, { alignment: true }]) {
    const expected = await t.translate(texts, options);
    calls.length = 0;
    const items = await collect(t.translateStream(texts, options));
    assert.ok(calls.length > 3, `${calls.length} engine calls`);
    const want = expected.flatMap((r, paragraph) => r.sentences.map((sentence, index) => ({ paragraph, index, sentence })));
    assert.equal(items.length, want.length);
    items.forEach((item, i) => {
      assert.equal(item.paragraph, want[i].paragraph, `item ${i}`);
      assert.equal(item.index, want[i].index, `item ${i}`);
      assert.deepEqual(plain(item), plain(want[i].sentence), `item ${i}`);
    });
    const joined = texts.map(() => '');
    for (const item of items) joined[item.paragraph] += item.separator + item.text;
    assert.deepEqual(joined, expected.map((r) => r.text));
  }
  // The first sentence comes before the later calls have run.
  let started = null;
  calls.length = 0;
  for await (const item of t.translateStream(texts[2], PLAIN)) {
    started ??= calls.length;
    assert.ok(item);
  }
  assert.ok(started <= 2, `the first sentence came after ${started} calls were sent`);
});

// The package's alignment output with the text each piece stands for (node --test): on the shipped
// models, each piece's range (string indices of the input and the translation) against Debian's
// SentencePiece for Python (tests/models/sentencepiece_offsets.py), each sentence's range against
// its `source` and `text`, and each range's substring against its piece's text (modulo what
// SentencePiece normalises). Texts with several sentences and lines, multi-byte characters,
// "…" and "ﬁ", an emoji (two UTF-16 code units), whitespace at either end; one call, a keyed
// request in chunks, and a stream.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { PLAIN, importPackage, repoRoot } from './helpers.mjs';

const MODEL = path.join(repoRoot, 'models', 'tiny.deen', 'model.tfm');
const SPECIALS = new Set(['<s>', '</s>']);
const TEXTS = [
  'Die Katze schläft. Der Hund bellt laut!',
  '  Er sagte … nichts.  Die ﬁnale Runde beginnt heute.  \n\nGröße: zwölf Äpfel für drei Euro – wirklich? Ja 😀 sicher.\n',
  '',
];

let pkg, translator;
before(async () => {
  pkg = await importPackage();
  translator = await pkg.Translator.create({ model: MODEL, threads: 2 });
});
after(() => translator?.dispose());

// SentencePiece's own view: the pieces of each source sentence and the text of each target
// sentence's pieces, with their ranges in UTF-16 code units.
function sentencepiece(sources, targets) {
  const out = execFileSync('/usr/bin/python3', [path.join(repoRoot, 'tests', 'models', 'sentencepiece_offsets.py')],
    { input: JSON.stringify({ model: MODEL, sources, targets }), encoding: 'utf8' });
  return JSON.parse(out);
}

const shift = (ranges, by) => ranges.map(([b, e]) => [b + by, e + by]);

// Ranges in order within [from, to], without overlap.
function inOrder(ranges, from, to, what) {
  let at = from;
  ranges.forEach(([b, e], i) => {
    assert.ok(at <= b && b <= e && e <= to, `${what}: range ${i} [${b}, ${e}) after ${at}, within [${from}, ${to})`);
    at = e;
  });
}

// A piece's text as the text it stands for reads after SentencePiece's normalisation (NFKC).
const pieceText = (piece) => piece.replaceAll('\u2581', ' ').trim();
const normalised = (text) => text.normalize('NFKC').trim();

function checkResult(input, r, what) {
  const a = r.alignment;
  assert.equal(a.sourceSentences.length, r.sentences.length, what);
  assert.equal(a.targetSentences.length, r.sentences.length, what);
  inOrder(a.sourceSentences, 0, input.length, `${what} source sentences`);
  inOrder(a.targetSentences, 0, r.text.length, `${what} target sentences`);
  // Only whitespace outside the sentences.
  const outside = (text, sentences) => sentences.reduce((rest, [b, e]) => rest.slice(0, b) + ' '.repeat(e - b) + rest.slice(e), text);
  assert.equal(outside(input, a.sourceSentences).trim(), '', `${what}: source outside the sentences`);
  assert.equal(outside(r.text, a.targetSentences).trim(), '', `${what}: translation outside the sentences`);
  let col = 0, row = 0;
  r.sentences.forEach((s, i) => {
    const [sb, se] = a.sourceSentences[i], [tb, te] = a.targetSentences[i];
    assert.equal(input.slice(sb, se), s.source, `${what} sentence ${i}: its source`);
    assert.equal(r.text.slice(tb, te), s.text, `${what} sentence ${i}: its translation`);
    // The whole text's ranges are the sentence's own, moved to where the sentence stands.
    const cols = s.sourcePieces.length, rows = s.targetPieces.length;
    assert.deepEqual(a.sourceRanges.slice(col, col + cols), shift(s.alignment.sourceRanges, sb), `${what} sentence ${i}`);
    assert.deepEqual(a.targetRanges.slice(row, row + rows), shift(s.alignment.targetRanges, tb), `${what} sentence ${i}`);
    inOrder(a.sourceRanges.slice(col, col + cols), sb, se, `${what} sentence ${i} source pieces`);
    inOrder(a.targetRanges.slice(row, row + rows), tb, te, `${what} sentence ${i} target pieces`);
    col += cols;
    row += rows;
  });
  assert.equal(col, a.sourcePieces.length);
  assert.equal(row, a.targetPieces.length);
}

test('each piece stands where SentencePiece says, in the input and in the translation', async () => {
  const results = await translator.translate(TEXTS, { ...PLAIN, alignment: true });
  const sentences = results.flatMap((r) => r.sentences);
  assert.ok(sentences.length >= 6);
  const golden = sentencepiece(sentences.map((s) => s.source), sentences.map((s) => s.targetPieces));
  let k = 0;
  results.forEach((r, p) => {
    checkResult(TEXTS[p], r, `text ${p}`);
    r.sentences.forEach((s, i) => {
      const what = `text ${p} sentence ${i}`;
      const { pieces, ranges } = golden.sources[k];
      const kept = s.sourcePieces.map((piece, c) => [piece, s.alignment.sourceRanges[c]]).filter(([piece]) => !SPECIALS.has(piece));
      assert.deepEqual(kept.map(([piece]) => piece), pieces, `${what}: source pieces`);
      assert.deepEqual(kept.map(([, range]) => range), ranges, `${what}: source ranges`);
      s.sourcePieces.forEach((piece, c) => {
        const [b, e] = s.alignment.sourceRanges[c];
        if (SPECIALS.has(piece)) assert.ok(b === e && (b === 0 || b === s.source.length), `${what}: ${piece} at [${b}, ${e})`);
      });
      assert.equal(golden.targets[k].text, s.text, `${what}: the translation is its pieces decoded`);
      assert.deepEqual(s.alignment.targetRanges, golden.targets[k].ranges, `${what}: target ranges`);
      k++;
    });
  });
  // What each range holds reads as its piece (SentencePiece's NFKC: "…" is "...", "ﬁ" is "fi").
  let ellipsis = false, ligature = false, emoji = false;
  for (const s of sentences) {
    s.sourcePieces.forEach((piece, c) => {
      const [b, e] = s.alignment.sourceRanges[c];
      // Outside the vocabulary: "<unk>", two code units of the string.
      emoji ||= piece === '<unk>' && s.source.slice(b, e) === '😀' && e - b === 2;
      if (SPECIALS.has(piece) || piece === '<unk>' || b === e) return;
      assert.equal(normalised(s.source.slice(b, e)), pieceText(piece), `"${s.source}": piece ${piece} at [${b}, ${e})`);
      ellipsis ||= s.source.slice(b, e).includes('…');
      ligature ||= s.source.slice(b, e).includes('ﬁ');
    });
    s.targetPieces.forEach((piece, r) => {
      const [b, e] = s.alignment.targetRanges[r];
      if (SPECIALS.has(piece) || piece === '<unk>' || b === e) return;
      assert.equal(normalised(s.text.slice(b, e)), pieceText(piece), `"${s.text}": piece ${piece} at [${b}, ${e})`);
    });
  }
  assert.ok(ellipsis && ligature && emoji, 'the normalised characters and the emoji stand where they were typed');
  assert.deepEqual(results[2].alignment.sourceRanges, []);
});

test('passthrough: what the model did not see lies outside every piece', async () => {
  const text = 'Das kostet 12,50 € heute. Siehe https://example.org/a dort 😀.';
  const r = await translator.translate(text, { alignment: true });
  checkResult(text, r, 'passthrough');
  // (A number is the model's to translate: it lies in its pieces.)
  for (const span of ['https://example.org/a', '😀']) {
    const at = text.indexOf(span);
    for (const [b, e] of r.alignment.sourceRanges) assert.ok(e <= at || b >= at + span.length || b === e, `${span} in a piece [${b}, ${e})`);
  }
});

test('a keyed request in chunks and a stream: ranges of the whole input and translation', async () => {
  const long = Array.from({ length: 30 }, (_, i) => `${i % 7 ? ' ' : '\n'}Satz ${['eins', 'zwei', 'drei'][i % 3]} … über ﬁnale Größen.`).join('');
  const text = `  ${Array.from({ length: 30 }, (_, i) => `Die ${i % 2 ? 'ﬁnale' : 'große'} Runde … beginnt.`).join(' ')}\n\n${long}  `;
  const keyed = await translator.translate(text, { ...PLAIN, alignment: true, key: 'box' });
  const whole = await translator.translate(text, { ...PLAIN, alignment: true });
  assert.ok(pkg.chunksOf(text).length > 1, 'the text is cut into chunks');
  checkResult(text, keyed, 'keyed');
  assert.equal(keyed.text, whole.text);
  assert.deepEqual(keyed.alignment.sourceSentences, whole.alignment.sourceSentences);
  assert.deepEqual(keyed.alignment.sourceRanges, whole.alignment.sourceRanges);
  assert.deepEqual(keyed.alignment.targetRanges, whole.alignment.targetRanges);
  // A stream's sentences, joined by paragraphAlignment: ranges of their texts joined by their separators.
  const streamed = [];
  for await (const s of translator.translateStream(text, { ...PLAIN, alignment: true })) streamed.push(s);
  const joined = pkg.paragraphAlignment(streamed);
  const target = streamed.map((s) => s.separator + s.text).join('');
  const source = streamed.map((s) => s.separator + s.source).join('');
  assert.equal(target, whole.text);
  streamed.forEach((s, i) => {
    assert.equal(target.slice(...joined.targetSentences[i]), s.text);
    assert.equal(source.slice(...joined.sourceSentences[i]), s.source);
  });
  assert.deepEqual(joined.targetRanges, whole.alignment.targetRanges);
  joined.sourceRanges.forEach(([b, e], c) => assert.equal(source.slice(b, e), text.slice(...whole.alignment.sourceRanges[c])));
});

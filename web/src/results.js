// The package's results (types/index.d.ts: Translation) from the engine's. The engine's result
// objects (wasm/bindings/results.cc, to_js: per sentence source, text, tokens, score, pieces, alignment,
// nbest, confidence) are the package's: their fields are the bindings' alone and are not copied here. The
// package adds what its own API has on top of them:
// - per sentence with `alignment`: the weights with the pieces they align and the range of the
//   sentence's `source` and `text` each piece stands for, ready to draw ({sourcePieces,
//   targetPieces, sourceRanges, targetRanges, weights}) instead of the bare matrix;
// - per input: the tokens of all sentences, the mean of their scores, and with `alignment` the
//   whole input's alignment (alignment.js), its ranges within the whole input and translation.
// Ranges are string indices ([begin, end) of UTF-16 code units, as `slice` takes them): the
// bindings convert the engine's byte ranges (wasm/bindings/utf16_ranges.h); nothing here counts bytes.
import { paragraphAlignment } from './alignment.js';

/**
 * Completes one engine result (one input) in place and returns it.
 * @param {object} result what Module.Translator translate() or a session's results() gave for one input
 * @param {boolean} withAlignment whether the request asked for the alignment (returnAlignment)
 */
export function completeTranslation(result, withAlignment) {
  const { sentences } = result;
  if (withAlignment) {
    for (const s of sentences) completeSentence(s, true);
    result.alignment = sentences.length ? paragraphAlignment(sentences) : paragraphAlignment([]);
    // The engine's ranges within the whole input and translation (none in HTML mode, whose
    // translation is markup) replace those of the sentences joined.
    const whole = ['sourceRanges', 'targetRanges', 'sourceSentences', 'targetSentences'];
    if (whole.every((k) => result[k])) {
      for (const k of whole) result.alignment[k] = result[k];
    } else {
      for (const k of whole) delete result.alignment[k];
    }
    for (const k of whole) delete result[k];
  }
  result.tokens = concatInt32(sentences.map((s) => s.tokens));
  // One number per input: the mean of its sentences' (length-normalised) scores.
  result.score = sentences.length ? sentences.reduce((sum, s) => sum + s.score, 0) / sentences.length : 0;
  return result;
}

/**
 * Completes one engine sentence (a result's `sentences` item, or one a session handed out as it
 * ended: streaming) in place and returns it.
 */
export function completeSentence(sentence, withAlignment) {
  if (withAlignment) {
    // Row-major [targetPieces.length x sourcePieces.length], as the engine gives it; the ranges
    // are of this sentence's `source` and `text`.
    sentence.alignment = { sourcePieces: sentence.sourcePieces, targetPieces: sentence.targetPieces,
      sourceRanges: sentence.sourceRanges, targetRanges: sentence.targetRanges, weights: sentence.alignment };
    delete sentence.sourceRanges;
    delete sentence.targetRanges;
  }
  return sentence;
}

/**
 * One input's translation from the translations of its chunks (chunks.js), as one call would give
 * it: texts joined by the chunks' separators, sentences, tokens and score of all of them, and the
 * alignment of all sentences, its ranges moved to where each chunk stands in the input (`starts`:
 * each chunk's index in it) and its translation in the joined text. `parts` are completed
 * (completeTranslation) already.
 */
export function joinTranslations(parts, separators, withAlignment, starts) {
  if (parts.length === 1 && !starts?.[0]) return parts[0];
  const sentences = parts.flatMap((p) => p.sentences);
  const result = {
    text: parts.map((p, i) => p.text + (i + 1 < parts.length ? separators[i] : '')).join(''),
    sentences,
    tokens: concatInt32(sentences.map((s) => s.tokens)),
    score: sentences.length ? sentences.reduce((sum, s) => sum + s.score, 0) / sentences.length : 0,
  };
  if (withAlignment) {
    result.alignment = paragraphAlignment(sentences);
    if (parts.every((p) => p.alignment.sourceRanges)) {
      const moved = { sourceRanges: [], targetRanges: [], sourceSentences: [], targetSentences: [] };
      let at = 0;  // where the part's translation begins in result.text
      parts.forEach((p, i) => {
        const from = starts?.[i] ?? 0;
        for (const k of ['sourceRanges', 'sourceSentences']) moved[k].push(...shift(p.alignment[k], from));
        for (const k of ['targetRanges', 'targetSentences']) moved[k].push(...shift(p.alignment[k], at));
        at += p.text.length + (i + 1 < parts.length ? separators[i].length : 0);
      });
      Object.assign(result.alignment, moved);
    }
  }
  return result;
}

function shift(ranges, by) {
  return ranges.map(([begin, end]) => [begin + by, end + by]);
}

function concatInt32(arrays) {
  const out = new Int32Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) { out.set(a, at); at += a.length; }
  return out;
}

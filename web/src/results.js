// The package's results (types/index.d.ts: Translation) from the engine's. The engine's result
// objects (wasm/bindings/results.cc, to_js: per sentence source, text, tokens, score, pieces, alignment,
// nbest, confidence) are the package's: their fields are the bindings' alone and are not copied here. The
// package adds what its own API has on top of them:
// - per sentence with `alignment`: the weights with the pieces they align, ready to draw
//   ({sourcePieces, targetPieces, weights}) instead of the bare matrix;
// - per input: the tokens of all sentences, the mean of their scores, and with `alignment` the
//   whole input's alignment (alignment.js).
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
    result.alignment = sentences.length ? paragraphAlignment(sentences)
      : { sourcePieces: [], targetPieces: [], weights: new Float32Array(0) };
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
    // Row-major [targetPieces.length x sourcePieces.length], as the engine gives it.
    sentence.alignment = { sourcePieces: sentence.sourcePieces, targetPieces: sentence.targetPieces, weights: sentence.alignment };
  }
  return sentence;
}

/**
 * One input's translation from the translations of its chunks (chunks.js), as one call would give
 * it: texts joined by the chunks' separators, sentences, tokens and score of all of them, and the
 * alignment of all sentences. `parts` are completed (completeTranslation) already.
 */
export function joinTranslations(parts, separators, withAlignment) {
  if (parts.length === 1) return parts[0];
  const sentences = parts.flatMap((p) => p.sentences);
  const result = {
    text: parts.map((p, i) => p.text + (i + 1 < parts.length ? separators[i] : '')).join(''),
    sentences,
    tokens: concatInt32(sentences.map((s) => s.tokens)),
    score: sentences.length ? sentences.reduce((sum, s) => sum + s.score, 0) / sentences.length : 0,
  };
  if (withAlignment) result.alignment = paragraphAlignment(sentences);
  return result;
}

function concatInt32(arrays) {
  const out = new Int32Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) { out.set(a, at); at += a.length; }
  return out;
}

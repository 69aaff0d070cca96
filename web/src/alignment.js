// A paragraph's alignment: its sentences' matrices on the diagonal of one matrix, so that a whole
// input can be drawn at once (weights between different sentences are 0), with each piece's
// range and each sentence's range in the sentences joined: their `text`s joined by their
// `separator`s (what translate() gives, and what a stream's sentences add up to; ' ' where a
// sentence has none), and their `source`s joined the same way.
export function paragraphAlignment(sentences) {
  const sourcePieces = sentences.flatMap((s) => s.alignment.sourcePieces);
  const targetPieces = sentences.flatMap((s) => s.alignment.targetPieces);
  const weights = new Float32Array(sourcePieces.length * targetPieces.length);
  const sourceRanges = [], targetRanges = [], sourceSentences = [], targetSentences = [];
  let row0 = 0, col0 = 0, sourceAt = 0, targetAt = 0;
  sentences.forEach((s, i) => {
    const a = s.alignment;
    const rows = a.targetPieces.length, cols = a.sourcePieces.length;
    for (let r = 0; r < rows; r++) weights.set(a.weights.subarray(r * cols, (r + 1) * cols), (row0 + r) * sourcePieces.length + col0);
    row0 += rows;
    col0 += cols;
    const gap = i === 0 ? 0 : (s.separator ?? ' ').length;
    sourceAt += gap;
    targetAt += gap;
    sourceSentences.push([sourceAt, sourceAt + s.source.length]);
    targetSentences.push([targetAt, targetAt + s.text.length]);
    for (const [b, e] of a.sourceRanges ?? []) sourceRanges.push([sourceAt + b, sourceAt + e]);
    for (const [b, e] of a.targetRanges ?? []) targetRanges.push([targetAt + b, targetAt + e]);
    sourceAt += s.source.length;
    targetAt += s.text.length;
  });
  return { sourcePieces, targetPieces, sourceRanges, targetRanges, sourceSentences, targetSentences, weights };
}

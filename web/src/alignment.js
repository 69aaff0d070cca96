// A paragraph's alignment: its sentences' matrices on the diagonal of one matrix, so that a whole
// input can be drawn at once (weights between different sentences are 0).
export function paragraphAlignment(sentences) {
  if (sentences.length === 1) return sentences[0].alignment;
  const sourcePieces = sentences.flatMap((s) => s.alignment.sourcePieces);
  const targetPieces = sentences.flatMap((s) => s.alignment.targetPieces);
  const weights = new Float32Array(sourcePieces.length * targetPieces.length);
  let row0 = 0, col0 = 0;
  for (const { alignment: a } of sentences) {
    const rows = a.targetPieces.length, cols = a.sourcePieces.length;
    for (let r = 0; r < rows; r++) weights.set(a.weights.subarray(r * cols, (r + 1) * cols), (row0 + r) * sourcePieces.length + col0);
    row0 += rows;
    col0 += cols;
  }
  return { sourcePieces, targetPieces, weights };
}

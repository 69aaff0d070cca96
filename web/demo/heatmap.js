// The alignment view: a translation's cross-attention weights drawn as an SVG heat map, one row
// per target piece and one column per source piece (the picture of the classic attention
// tutorials). `alignment` is a result's `alignment` from tformer-wasm: {sourcePieces,
// targetPieces, sourceRanges, targetRanges, weights} with weights row-major [target x source],
// each row summing to 1. Each row and column is labelled with the text its piece stands for (its
// range of the source or the translation), not the piece's own spelling, which SentencePiece
// normalised ("..." for "…") and marked with "▁"; a piece that stands for no text (end of
// sentence, all but the last piece of a split character) shows the piece itself.

const SVG = 'http://www.w3.org/2000/svg';
const MAX_PIECES = 150;  // beyond this a paragraph is not drawn (cells would be too small to read)

function el(name, attributes = {}, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

// Text width estimate for monospace 11px labels (no layout pass needed).
const charWidth = 6.7;

// What each piece stands for in `text` (its range, trimmed), or the piece where that is nothing.
function labels(pieces, ranges, text) {
  return pieces.map((piece, i) => {
    const range = ranges?.[i];
    const word = range && typeof text === 'string' ? text.slice(range[0], range[1]).trim() : '';
    return word || piece;
  });
}

// A piece as a cell's tooltip names it: the piece, or, where the text holds something else there
// (a glossary's term, a number put back, an emoji passed through), that text, with the piece the
// model wrote in its place.
function pieceNote(piece, label) {
  const spelled = piece.replace(/\u2581/g, ' ').trim();
  return !label || label === piece || label === spelled ? `piece ${piece}` : `"${label}" in place of the model's piece ${piece}`;
}

/**
 * @param {HTMLElement} container
 * @param {{sourcePieces: string[], targetPieces: string[], sourceRanges?: [number, number][],
 *   targetRanges?: [number, number][], weights: Float32Array}} alignment
 * @param {{rows: number, cols: number}[]} [blocks] the sentences of a paragraph, in order: each
 *   is a block on the diagonal (result.sentences[i].targetPieces/sourcePieces lengths)
 * @param {{source: string, target: string}} [texts] the texts the alignment's ranges are of
 */
export function drawHeatmap(container, alignment, blocks, texts) {
  container.replaceChildren();
  const { sourcePieces, targetPieces, weights } = alignment ?? { sourcePieces: [], targetPieces: [] };
  const src = labels(sourcePieces, alignment?.sourceRanges, texts?.source);
  const tgt = labels(targetPieces, alignment?.targetRanges, texts?.target);
  if (!src.length || !tgt.length) {
    container.append(Object.assign(document.createElement('p'), { className: 'empty', textContent: 'Nothing translated yet.' }));
    container.dataset.cells = '0';
    return;
  }
  if (src.length > MAX_PIECES || tgt.length > MAX_PIECES) {
    container.append(Object.assign(document.createElement('p'), {
      className: 'empty', textContent: `This input has ${src.length} source and ${tgt.length} target pieces: too many to draw. Try a sentence or two.`,
    }));
    container.dataset.cells = '0';
    return;
  }
  const cell = 22;
  // Each sentence is shaded from its own smallest to its largest weight, as the tutorials' plots
  // (matshow) shade one matrix: one scale for a whole paragraph would let the sentence blocks
  // (and the zeros between them) take the contrast that should show between words. Cells outside
  // every block (between sentences) are 0 and drawn blank.
  const parts = blocks?.length && blocks.reduce((n, b) => n + b.rows, 0) === tgt.length &&
    blocks.reduce((n, b) => n + b.cols, 0) === src.length ? blocks : [{ rows: tgt.length, cols: src.length }];
  const scales = [];  // per block: {r0, c0, rows, cols, min, span}
  let r0 = 0, c0 = 0;
  for (const b of parts) {
    let min = Infinity, max = -Infinity;
    for (let r = r0; r < r0 + b.rows; r++) {
      for (let c = c0; c < c0 + b.cols; c++) { const w = weights[r * src.length + c]; min = Math.min(min, w); max = Math.max(max, w); }
    }
    scales.push({ r0, c0, rows: b.rows, cols: b.cols, min, span: max - min });
    r0 += b.rows;
    c0 += b.cols;
  }
  const scaleOf = (r, c) => scales.find((b) => r >= b.r0 && r < b.r0 + b.rows && c >= b.c0 && c < b.c0 + b.cols);
  const left = Math.ceil(Math.max(...tgt.map((p) => p.length)) * charWidth) + 12;
  const top = Math.ceil(Math.max(...src.map((p) => p.length)) * charWidth * 0.75) + 16;  // labels at -50 degrees
  const legend = scales.length > 1
    ? `each of the ${scales.length} sentences shaded from its own lightest to darkest weight; each row sums to 1`
    : `lightest ${scales[0].min.toFixed(3)}, darkest ${(scales[0].min + scales[0].span).toFixed(3)}; each row sums to 1`;
  const width = Math.max(left + src.length * cell + 8, legend.length * 6 + 8), height = top + tgt.length * cell + 20;
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img',
    'aria-label': `attention between ${tgt.length} target and ${src.length} source pieces` });

  src.forEach((piece, c) => {
    const x = left + c * cell + cell / 2, y = top - 6;
    svg.append(el('text', { x, y, transform: `rotate(-50 ${x} ${y})`, class: 'source-piece' }, piece));
  });
  tgt.forEach((piece, r) => {
    svg.append(el('text', { x: left - 6, y: top + r * cell + cell / 2 + 4, 'text-anchor': 'end', class: 'target-piece' }, piece));
  });
  const cells = el('g');
  for (let r = 0; r < tgt.length; r++) {
    for (let c = 0; c < src.length; c++) {
      const w = weights[r * src.length + c];
      const scale = scaleOf(r, c);
      const shade = scale ? 0.04 + 0.96 * (scale.span > 0 ? (w - scale.min) / scale.span : 1) : 0;
      const rect = el('rect', { x: left + c * cell, y: top + r * cell, width: cell, height: cell, class: scale ? 'cell' : 'cell outside',
        'fill-opacity': shade.toFixed(3), 'data-weight': w.toFixed(4), 'data-sentence': scale ? scales.indexOf(scale) : -1 });
      rect.append(el('title', {}, `${tgt[r]} \u2190 ${src[c]}: ${w.toFixed(3)} (${pieceNote(targetPieces[r], tgt[r])} \u2190 ${pieceNote(sourcePieces[c], src[c])})`));
      cells.append(rect);
    }
  }
  svg.append(cells);
  svg.append(el('text', { x: 4, y: height - 4, class: 'legend' }, legend));
  container.append(svg);
  container.dataset.cells = String(src.length * tgt.length);
}

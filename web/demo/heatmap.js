// The alignment view: a translation's cross-attention weights drawn as an SVG heat map, one row
// per target piece and one column per source piece (the picture of the classic attention
// tutorials). `alignment` is a result's `alignment` from tformer-wasm: {sourcePieces,
// targetPieces, weights} with weights row-major [target x source], each row summing to 1.

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

export function drawHeatmap(container, alignment) {
  container.replaceChildren();
  const { sourcePieces: src, targetPieces: tgt, weights } = alignment ?? { sourcePieces: [], targetPieces: [] };
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
  // The colour scale spans the matrix's smallest to largest weight, as the tutorials' plots
  // (matshow) do: with long sentences every weight is small and absolute shading would be white.
  let min = Infinity, max = -Infinity;
  for (const w of weights) { min = Math.min(min, w); max = Math.max(max, w); }
  const span = max - min;
  const left = Math.ceil(Math.max(...tgt.map((p) => p.length)) * charWidth) + 12;
  const top = Math.ceil(Math.max(...src.map((p) => p.length)) * charWidth * 0.75) + 16;  // labels at -50 degrees
  const legend = `lightest ${min.toFixed(2)}, darkest ${max.toFixed(2)}; each row sums to 1`;
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
      const rect = el('rect', { x: left + c * cell, y: top + r * cell, width: cell, height: cell, class: 'cell',
        'fill-opacity': (0.04 + 0.96 * (span > 0 ? (w - min) / span : 1)).toFixed(3), 'data-weight': w.toFixed(4) });
      rect.append(el('title', {}, `${tgt[r]} \u2190 ${src[c]}: ${w.toFixed(3)}`));
      cells.append(rect);
    }
  }
  svg.append(cells);
  svg.append(el('text', { x: 4, y: height - 4, class: 'legend' }, legend));
  container.append(svg);
  container.dataset.cells = String(src.length * tgt.length);
}

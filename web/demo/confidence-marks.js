// Marks the words the model was unsure of (translate()'s `confidence: true`) in translated text
// already on the page, for the demo's output and the page demo's blocks. Nothing is written into
// the page: the words are ranges of its text nodes, drawn by the CSS Custom Highlight API
// (::highlight(tformer-unsure) in the style sheets), so the text, its markup and what a copy
// takes stay as they were, and model output never becomes markup.
//
// A word's confidence is the probability the model gave it; a sentence's words carry their
// positions in the sentence's text. The sentences are found in order in the text of the element
// (the sentence texts joined by their separators in the demo; the HTML's text in a page block).

// Words under this confidence are marked. Chosen on FLORES devtest with both shipped models
// (docs/BENCHMARKS.md, "Word confidence"): 6% (de->en) and 11% (en->de) of the words are under
// it, and 89% of those are missing from the human reference translation, against about 40% of
// the others.
export const UNSURE_BELOW = 0.1;
export const HIGHLIGHT = 'tformer-unsure';

// What the legend says (the measurement behind the threshold).
export const LEGEND = `Underlined words: the model gave them a probability under ${UNSURE_BELOW * 100}%. ` +
  'On Wikipedia sentences (FLORES) it underlines 6 to 11 words in 100, and 9 in 10 of those are not in the human ' +
  'translation, against 4 in 10 of the other words: a hint where to look, not a verdict.';

const supported = () => typeof CSS !== 'undefined' && CSS.highlights !== undefined && typeof Highlight === 'function';

function highlight() {
  let h = CSS.highlights.get(HIGHLIGHT);
  if (!h) {
    h = new Highlight();
    CSS.highlights.set(HIGHLIGHT, h);
  }
  return h;
}

// The text nodes under `root` in order, with where each starts in root's text.
function textNodes(root) {
  const nodes = [];
  let at = 0;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    nodes.push({ node: n, start: at });
    at += n.data.length;
  }
  return nodes;
}

// The DOM position of character `offset` of root's text (`end`: a position that ends there).
function position(nodes, offset, end) {
  for (const { node, start } of nodes) {
    const length = node.data.length;
    if (offset < start + length || (end && offset === start + length)) return [node, offset - start];
  }
  return null;
}

// `text` with each run of whitespace as one space (markup's line breaks and indentation around
// elements are not in the model's sentences), and for each of its characters where it is in `text`.
function collapsed(text) {
  let out = '';
  const at = [];
  for (let i = 0; i < text.length; i++) {
    const space = /\s/.test(text[i]);
    if (space && (out === '' || out.endsWith(' '))) continue;
    out += space ? ' ' : text[i];
    at.push(i);
  }
  return { text: out, at };
}

/**
 * The words of `sentences` under `threshold` as [start, end) in `text`: each sentence is looked for
 * in `text` after the previous one (one that cannot be found is left out).
 */
export function unsureSpans(text, sentences, threshold = UNSURE_BELOW) {
  const spans = [];
  let cursor = 0;
  for (const s of sentences ?? []) {
    if (!s?.confidence || !s.text) continue;
    const at = text.indexOf(s.text, cursor);
    if (at < 0) continue;
    for (const w of s.confidence.words) {
      if (w.confidence < threshold) spans.push({ start: at + w.start, end: at + w.end, confidence: w.confidence });
    }
    cursor = at + s.text.length;
  }
  return spans;
}

/**
 * Marks the unsure words of `sentences` in `root`'s text; returns how many. An earlier marking of
 * `root` is replaced.
 */
export function markUnsure(root, sentences, threshold = UNSURE_BELOW) {
  clearMarks(root);
  if (!supported()) return 0;
  const nodes = textNodes(root);
  const text = collapsed(nodes.map((n) => n.node.data).join(''));
  const ranges = [];
  for (const { start, end } of unsureSpans(text.text, sentences, threshold)) {
    const from = position(nodes, text.at[start], false), to = position(nodes, text.at[end - 1] + 1, true);
    if (!from || !to) continue;
    const range = new Range();
    range.setStart(...from);
    range.setEnd(...to);
    ranges.push(range);
  }
  const h = highlight();
  for (const r of ranges) h.add(r);
  marked.set(root, ranges);
  return ranges.length;
}

const marked = new Map();  // root -> its ranges in the highlight

/** Takes the marks of `root` away (of every element marked when no root is given). */
export function clearMarks(root) {
  if (!supported()) return;
  const h = CSS.highlights.get(HIGHLIGHT);
  for (const [r, ranges] of [...marked]) {
    if (root && r !== root) continue;
    for (const range of ranges) h?.delete(range);
    marked.delete(r);
  }
}

/**
 * A toggle button (aria-pressed) that shows or hides the marks (the highlight stays registered;
 * the style sheet draws it only while `body` has the class `show-unsure`), and its legend. A
 * button rather than a checkbox: the page demo gives back its page byte for byte, and a browser
 * may write attributes onto form inputs (Chromium's screenshots do).
 */
export function setupToggle(button, legend) {
  if (legend) legend.textContent = LEGEND;
  const apply = (on) => {
    button.setAttribute('aria-pressed', String(on));
    document.body.classList.toggle('show-unsure', on);
    if (legend) legend.hidden = !on;
  };
  if (!supported()) {
    button.disabled = true;
    button.title = 'This browser cannot mark words (no CSS Custom Highlight API)';
  }
  button.addEventListener('click', () => apply(button.getAttribute('aria-pressed') !== 'true'));
  apply(false);
}

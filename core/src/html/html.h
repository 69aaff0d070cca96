// HTML fragments in translation (TranslateOptions::html; Bergamot's src/translator/html.cpp is the
// reference behaviour). parse_html() reads a fragment as browsers read it (html/tokenizer.h: the
// WHATWG tokenizer; the tree builder's choices that decide how bytes are read) and turns it into
// the markup the model never sees, written back from its tokens, and the blocks of text it translates: block elements (p, div, li, td, h1...), br and hr split the text;
// inline elements (a, b, i, em, strong, span, sub, sup...) stay inside a block as markup over its
// text; script, style, translate="no" subtrees and, by option, code/pre are kept as they are.
// render_block() rebuilds a block from its translated sentences: each target word takes the
// inline elements of the source word it is aligned to, neighbouring words with the same elements
// share one element, an element the translation splits (within a sentence or across the block's
// sentences) stays on the run of words that attends most to it (each element appears once, as in
// the source), an element no target word got is
// given the word that attends most to its text, and markup without text (img, comments, skipped
// code) goes before the target word aligned to the source word after it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tformer {

struct HtmlOptions {
  bool skip_code = true;   // code, pre, kbd and samp are kept untranslated
  size_t max_depth = 256;  // elements open at once; deeper nesting is refused with an error
};

// A run of inline content to translate.
struct HtmlBlock {
  std::string text;  // entities decoded: what the model translates (byte offsets below point into it)
  struct Run {       // text[begin, end) lies inside `path`: element ids, outermost first
    size_t begin = 0, end = 0;
    std::vector<int> path;
  };
  std::vector<Run> runs;  // cover the text, in order
  struct Atom {           // markup with no text of its own (img, a comment, skipped code) at byte `at`
    size_t at = 0;
    std::vector<int> path;
    std::string markup;
    // An element kept untranslated (code, translate="no"): the text a reader sees in it, where
    // sentences are cut; empty for other markup.
    std::string text;
  };
  std::vector<Atom> atoms;  // in order of `at`
  struct Element {          // its start tag, written back from the source's tokens, and its end tag
    std::string open, close;
    int parent = -1;        // the element it lies in (an earlier one), or -1
  };
  std::vector<Element> elements;
  // How the source wrote U+00A0, " and ' as entities ("&nbsp;", "&quot;", "&#39;"...), so that
  // the translation writes them the same way; empty: as characters.
  std::string nbsp, quot, apos;
};

// markup[0] blocks[0] markup[1] blocks[1] ... markup[n]: markup.size() == blocks.size() + 1.
struct HtmlFragment {
  std::vector<std::string> markup;
  std::vector<HtmlBlock> blocks;
};

// Parses a fragment of HTML (valid UTF-8, which the caller checks). Malformed markup is repaired,
// never dropped with text: an element left open is closed where its parent closes, an end tag
// that closes nothing is dropped, a '<' that starts no tag is text. Throws tformer::Error when
// elements nest deeper than options.max_depth.
HtmlFragment parse_html(std::string_view html, const HtmlOptions& options = {});

// One translated sentence of a block.
struct HtmlSentence {
  size_t begin = 0, end = 0;  // the source sentence: block.text[begin, end)
  std::string target;         // its translation, plain text
  // Row-major [target words x source words] weights: the whitespace-separated words of `target`,
  // and the source words of the sentence (html_source_words); empty (or a row of zeros): words are
  // matched by their relative place.
  std::vector<float> alignment;
  // Instead of `alignment`: each target word's source word, or -1 (a sparse alignment).
  std::vector<int> source_word;
};

// The block's HTML with each sentence's source replaced by its translation, in order, and the
// text between and around sentences kept. Sentences must lie inside the text, in order, without
// overlapping.
std::string render_block(const HtmlBlock& block, const std::vector<HtmlSentence>& sentences);

// The fragment with each block replaced by its rendering (blocks.size() strings).
std::string render_fragment(const HtmlFragment& fragment, const std::vector<std::string>& blocks);

// Byte ranges of the whitespace-separated (ASCII whitespace) words of `text`, shifted by `offset`.
std::vector<std::pair<size_t, size_t>> html_words(std::string_view text, size_t offset = 0);

// The source words of block.text[begin, end) that target words are aligned to: its
// whitespace-separated words, cut where an inline element begins or ends, so that each lies in one
// element. "<a>See</a>." gives "See" and ".": a target word the model aligned to the full stop
// (or a comma after a link) is not taken into the link.
std::vector<std::pair<size_t, size_t>> html_source_words(const HtmlBlock& block, size_t begin, size_t end);

}  // namespace tformer

// The HTML projection on its own (TranslateOptions::html does the same with the model's own
// translations): for translations made elsewhere, and for the tests' table
// (tests/fixtures/html/cases.json). A fragment's blocks are its runs of text between block
// elements (p, li, td, br...), entities decoded; each block is given back as its sentences,
// translated, and the fragment is rebuilt with its markup, inline elements placed on the
// translated words by a word alignment.
#pragma once

#include <string>
#include <vector>

namespace tformer {

struct HtmlSentenceTranslation {
  std::string source;  // the sentence as it stands in its block's text (the blocks' next sentence)
  std::string target;  // its translation
  // For each whitespace-separated word of target, the source word (counting from 0) it is aligned
  // to, or -1; empty: words are matched by their relative place. Source words are the
  // whitespace-separated words of source cut where an inline element begins or ends ("Haus<b>tür</b>"
  // is two words, "Haus" and "tür"; "<a>See</a>." is "See" and ".").
  std::vector<int> alignment;
};

// The texts of the fragment's blocks, in order. Throws tformer::Error on nesting deeper than 256.
std::vector<std::string> html_block_texts(const std::string& html, bool translate_code = false);

// The fragment with its blocks' sentences replaced by their translations. Throws tformer::Error
// when `blocks` does not match the fragment's blocks, a source is not the next sentence of its
// block's text, or an alignment names a word that is not there.
std::string project_html(const std::string& html, const std::vector<std::vector<HtmlSentenceTranslation>>& blocks,
                         bool translate_code = false);

}  // namespace tformer

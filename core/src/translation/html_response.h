// HTML mode of a translation (TranslateOptions::html): each input text is parsed into its markup
// and its blocks of text (html/html.h); every block is translated as a text of its own; the
// translations of a text's blocks are put back into its markup, inline elements placed on the
// translated words by the model's alignment.
#pragma once

#include <string>
#include <vector>

#include "html/html.h"
#include "model/config.h"
#include "text/sentence_splitter.h"
#include "tformer/translator.h"
#include "translation/response.h"
#include "translation/segmenter.h"

namespace tformer {

// What the model translates of a block: its text with whitespace and U+00A0 as plain spaces, byte
// for byte where they were (a line break would start a new line of sentences; U+00A0 becomes two
// spaces, its two bytes), so that the segments' byte ranges point into the block's text.
std::string html_model_text(const std::string& block_text);

// The sentences of a block, cut on the text a reader sees: its model text with the text of each
// element kept untranslated (code, translate="no") where it stands, so that "Katzen. <code>ls
// -l</code> zeigt" ends a sentence before the code as "Katzen. Ls zeigt" would, and a sentence
// end inside such an element cuts there too. Byte ranges of `model_text` (the model never sees
// those elements' text: they are put back by the alignment, as other markup is).
std::vector<SentenceSpan> html_sentences(const HtmlBlock& block, const std::string& model_text);

// A segment of a block and where the words of its translation came from.
struct HtmlSegment {
  const Segment* segment = nullptr;
  const TranslationBytes* bytes = nullptr;
};

// The Translation of one input text in HTML mode. `blocks`: the translations of the fragment's
// blocks, in order, each assembled from its `segments` (the segments whose paragraph is that
// block, in order; moved out). Each sentence's alignment [target tokens x source tokens] places
// the elements, on the words its tokens stand for; it stays in the result only when `keep_alignment`.
Translation html_translation(const HtmlFragment& fragment, const ModelConfig& config,
                             const std::vector<std::vector<HtmlSegment>>& segments,
                             std::vector<Translation>& blocks, bool keep_alignment);

}  // namespace tformer

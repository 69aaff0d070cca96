// The first step of a translation (Bergamot's text processor): an input text becomes the segments
// the model translates. Each line is split into sentences (text/sentence_splitter.h) unless asked
// not to; each sentence is encoded, with what passes through taken out first on request
// (text/passthrough.h); a sentence longer than the model's positions allow (or than
// TranslateOptions::max_sentence_tokens) is cut into consecutive pieces, each a segment of its own,
// so that every segment fits the model with its BOS/EOS.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/config.h"
#include "text/annotated_text.h"
#include "text/glossary.h"
#include "text/passthrough.h"
#include "text/sentence_splitter.h"
#include "tformer/options.h"

namespace tformer {

class Tokenizer;

// One unit of work: a sentence (or a piece of an over-long one) of one input text.
struct Segment {
  size_t paragraph = 0, line = 0;  // which input text, and which line of it
  std::string text;                // the sentence as split from the input, or the cut piece's bytes of it
  size_t begin = 0, end = 0;       // the sentence's bytes in the input text (a cut piece: the whole sentence's)
  size_t text_at = 0;              // where `text` begins in the sentence (past 0 for a cut piece after the first)
  std::vector<int> source;         // the encoder's input, with BOS/EOS as the model wants them
  // Each token of `source` but BOS/EOS: the bytes it stands for in the sentence the model was
  // given (kept.text when spans were taken out, else the input's bytes [begin, end)).
  std::vector<ByteRange> source_tokens;
  ProtectedSentence kept;          // options.passthrough: what was taken out of the source
  bool alignment = false;          // return the alignment (passthrough needs it either way)
  // The glossary's terms in the sentence the model was given (kept.text when spans were taken
  // out, else the sentence), put into the translation by the alignment (text/glossary.h).
  std::vector<GlossaryMatch> terms;
};

class Segmenter {
 public:
  // `source` must outlive the segmenter.
  Segmenter(const ModelConfig& config, const Tokenizer& source) : config_(config), source_(source) {}

  // The most source tokens of one segment, BOS/EOS not counted: the model's max_positions less
  // BOS/EOS, or options.max_sentence_tokens where that is positive and smaller.
  size_t max_piece_tokens(const TranslateOptions& options) const;

  // Appends the segments of input text number `paragraph` to `out`, in order. Throws a
  // tformer::Error about that text (Error::input() is `paragraph`) when it is not valid UTF-8
  // (kInvalidText) or has more than options.max_input_chars characters (kTextTooLong). A sentence
  // with no tokens (control characters only) gives no segment.
  // `sentences`: where the text's sentences are (a text of one line), when the caller cut them
  // itself (HTML: on the text with its untranslated elements); otherwise they are cut here.
  // `glossary`: the terms to find in each sentence (not in the pieces of a cut one).
  void split(size_t paragraph, const std::string& text, const TranslateOptions& options, std::vector<Segment>& out,
             const std::vector<SentenceSpan>* sentences = nullptr, const Glossary* glossary = nullptr) const;

 private:
  ModelConfig config_;
  const Tokenizer& source_;
};

}  // namespace tformer

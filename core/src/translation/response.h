// The last step of a translation (Bergamot's response builder): a segment's hypotheses from the
// search become its SentenceTranslation (each hypothesis detokenized, passthrough's spans put back,
// the pieces of source and best target and the bytes each stands for, the best one's alignment on
// request), and the sentences of each input text are joined into its Translation, with the
// source and target annotated texts of the whole input (tformer/annotated_text.h).
#pragma once

#include <vector>

#include "decoding/search.h"
#include "model/config.h"
#include "text/annotated_text.h"
#include "text/glossary.h"
#include "text/passthrough.h"
#include "tformer/translator.h"
#include "translation/segmenter.h"

namespace tformer {

class Tokenizer;

// Where the words of a sentence's best translation came from, for placing HTML elements on them:
// the model's own translation with the bytes each of its tokens (EOS not counted) stands for,
// and what passthrough put back into it (text/passthrough.h).
struct TranslationBytes {
  AnnotatedSentence model;
  std::vector<PutBack> put_back;
  bool verbatim = false;  // the sentence was copied: the model's tokens are not in the translation

  // The byte of the translation that byte `at` of the model's translation became.
  size_t in_translation(size_t at) const;
};

class ResponseBuilder {
 public:
  // The tokenizers must outlive the builder. `number_marks`: the decimal marks of the source and
  // the target language (text/passthrough.h decimal_mark; 0: unknown), for the numbers passthrough
  // puts back.
  ResponseBuilder(const ModelConfig& config, const Tokenizer& source, const Tokenizer& target,
                  std::pair<char, char> number_marks = {0, 0})
      : config_(config), source_(source), target_(target), number_marks_(number_marks) {}

  // The translation of one segment from its hypotheses, best first (at least one). Takes the best
  // hypothesis's alignment (moved out) when the segment asked for it.
  // `best`, when given, gets where the best hypothesis's words came from. `glossary`: the one whose
  // terms the segment holds (Segment::terms), put into each hypothesis first.
  SentenceTranslation sentence(const Segment& segment, std::vector<SearchHypothesis>& hypotheses,
                               TranslationBytes* best = nullptr, const Glossary* glossary = nullptr) const;

 private:
  // SentenceTranslation::source_ranges: the segment's tokens, BOS/EOS included, in bytes of its text.
  std::vector<ByteRange> source_ranges(const Segment& segment) const;
  // SentenceTranslation::target_ranges: the best hypothesis's tokens, EOS included, in bytes of
  // its text (`text_size` bytes), from where its words came from.
  std::vector<ByteRange> target_ranges(const std::vector<int>& tokens, const TranslationBytes& best,
                                       size_t text_size) const;

  ModelConfig config_;
  const Tokenizer& source_;
  const Tokenizer& target_;
  std::pair<char, char> number_marks_;
};

// Joins the sentences (one per segment, in segment order; moved out) into the translations of
// their input texts: sentences of one line by a space, lines by as many line breaks as there were
// between them. `paragraphs` holds one Translation per input text, empty for a text without
// segments. With the input `texts` (one per paragraph), each Translation's source and target
// annotated texts are built too: each sentence and its tokens placed within the whole text.
void assemble(const std::vector<Segment>& segments, std::vector<SentenceTranslation>& sentences,
              std::vector<Translation>& paragraphs, const std::vector<std::string>* texts = nullptr);

}  // namespace tformer

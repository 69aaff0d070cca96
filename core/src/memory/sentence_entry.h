// What the translation memory (tformer/translation_memory.h) keeps of one segment: the key that
// says which model, options and sentence it is, and the segment's result as bytes, read back with
// every part checked against the segment it answers (an entry may come from a file or IndexedDB).
#pragma once

#include <optional>
#include <string>

#include "model/config.h"
#include "tformer/options.h"
#include "tformer/translator.h"
#include "translation/response.h"
#include "translation/segmenter.h"

namespace tformer {

// A sha256 (hex) of the model's identity, the options' memory_fingerprint() and the segment: the
// bytes of its sentence in `text` (the text it was split from), its own text, its token ids and
// the bytes each token stands for.
std::string sentence_key(const std::string& model_identity, const std::string& options_fingerprint, const Segment& segment,
                         const std::string& text);

// A segment's result (and, in HTML mode, where its best translation's words came from).
struct SentenceEntry {
  SentenceTranslation sentence;
  TranslationBytes bytes;
};

std::string encode_entry(const SentenceTranslation& sentence, const TranslationBytes* bytes);
// The entry, or nothing when the bytes are not an entry for this segment of this model: truncated,
// token ids outside the vocabulary, another source, an alignment or byte ranges that do not fit.
std::optional<SentenceEntry> decode_entry(const std::string& value, const Segment& segment, const ModelConfig& config);

}  // namespace tformer

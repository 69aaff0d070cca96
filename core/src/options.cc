// The checks of tformer/options.h: each value out of its range is refused with a message that
// names the option, its range and the value given.
#include "tformer/options.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "text/glossary.h"
#include "tformer/error.h"

namespace tformer {
namespace {

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

}  // namespace

void validate(const TranslateOptions& o) {
  auto bad = [](const std::string& m) { throw Error(ErrorCode::kInvalidOptions, Phase::kRequest, "invalid translate options: " + m); };
  if (o.beam_size < 1 || o.beam_size > kMaxBeamSize)
    bad("beam size must be between 1 and " + std::to_string(kMaxBeamSize) + " (got " + std::to_string(o.beam_size) + ")");
  if (o.nbest < 1 || o.nbest > o.beam_size)
    bad("nbest must be between 1 and the beam size " + std::to_string(o.beam_size) + " (got " + std::to_string(o.nbest) + ")");
  if (!std::isfinite(o.length_penalty) || o.length_penalty < 0 || o.length_penalty > 10)
    bad("length penalty must be between 0 and 10 (got " + number(o.length_penalty) + ")");
  if (!std::isfinite(o.max_length_ratio) || o.max_length_ratio <= 0 || o.max_length_ratio > 100)
    bad("max length ratio must be in (0, 100] (got " + number(o.max_length_ratio) + ")");
  if (o.max_length < 0) bad("max length must not be negative (got " + std::to_string(o.max_length) + ")");
  if (o.max_length_offset < -10000 || o.max_length_offset > 10000) bad("max length offset out of range");
  if (o.max_batch_tokens < 1) bad("max batch tokens must be positive");
  if (o.max_sentence_tokens < 0)
    bad("max sentence tokens must be 0 (the model's limit) or positive (got " + std::to_string(o.max_sentence_tokens) + ")");
  validate_glossary(o.glossary);
}

// A new field stops the native build (libstdc++, 64-bit) here until memory_fingerprint() has
// been told whether it changes a translation.
#if defined(__GLIBCXX__) && __SIZEOF_POINTER__ == 8
static_assert(sizeof(TranslateOptions) == 96,
              "a new TranslateOptions field: add it to memory_fingerprint() if it changes a translation");
#endif

namespace {

// Each entry's terms with their lengths (so that no two glossaries read the same) and its case rule.
std::string glossary_fingerprint(const std::vector<GlossaryEntry>& glossary) {
  std::string out;
  for (const GlossaryEntry& e : glossary) {
    out += std::to_string(e.source.size()) + ":" + e.source;
    out += e.target ? std::to_string(e.target->size()) + ":" + *e.target : std::string("-");
    out += e.case_sensitive ? "c;" : "i;";
  }
  return out;
}

}  // namespace

std::string memory_fingerprint(const TranslateOptions& o) {
  // Left out: confidence (it changes no translation, and a request that asks for it does not use
  // the memory: session.cc), batch sizes and input limits.
  // %a: floats exactly, whatever the locale.
  char floats[64];
  std::snprintf(floats, sizeof floats, "%a,%a", double(o.length_penalty), double(o.max_length_ratio));
  return "beam=" + std::to_string(o.beam_size) + ";nbest=" + std::to_string(o.nbest) + ";length_penalty,ratio=" + floats +
         ";offset=" + std::to_string(o.max_length_offset) + ";max_length=" + std::to_string(o.max_length) +
         ";alignment=" + std::to_string(o.return_alignment) + ";split=" + std::to_string(o.split_sentences) +
         ";sentence_tokens=" + std::to_string(o.max_sentence_tokens) + ";passthrough=" + std::to_string(o.passthrough) +
         ";repetition_guard=" + std::to_string(o.repetition_guard) + ";html=" + std::to_string(o.html) +
         ";html_code=" + std::to_string(o.html_translate_code) + ";shortlist=" + std::to_string(o.shortlist) +
         ";glossary=" + glossary_fingerprint(o.glossary);
}

void validate(const TranslatorConfig& c) {
  if (c.threads < 1 || c.threads > kMaxThreads)
    throw Error(ErrorCode::kInvalidOptions, Phase::kLoad,
                "threads must be between 1 and " + std::to_string(kMaxThreads) + " (got " + std::to_string(c.threads) + ")");
}

}  // namespace tformer

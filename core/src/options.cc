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

void validate(const TranslatorConfig& c) {
  if (c.threads < 1 || c.threads > kMaxThreads)
    throw Error(ErrorCode::kInvalidOptions, Phase::kLoad,
                "threads must be between 1 and " + std::to_string(kMaxThreads) + " (got " + std::to_string(c.threads) + ")");
}

}  // namespace tformer

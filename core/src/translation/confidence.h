// Word confidence from the log-probabilities of a sentence's best hypothesis
// (TranslateOptions::confidence; the measures are stated in tformer/confidence.h): its tokens
// grouped into words at SentencePiece's word boundaries, each word placed on the bytes of the
// translation its tokens became, with the probability the model gave it.
#pragma once

#include <string>
#include <vector>

#include "tformer/confidence.h"
#include "translation/response.h"

namespace tformer {

// `pieces`: the hypothesis's target pieces and `log_probs` their step scores, one per token, EOS
// included; `bytes`: where its tokens went (the model's translation, what passthrough put back);
// `translation`: the sentence's final text.
SentenceConfidence sentence_confidence(const std::vector<std::string>& pieces, const std::vector<float>& log_probs,
                                       const TranslationBytes& bytes, const std::string& translation);

}  // namespace tformer

#include "confidence_json.h"

namespace tformer::cli {

nlohmann::ordered_json confidence_json(const Translation& translation) {
  nlohmann::ordered_json sentences = nlohmann::ordered_json::array();
  for (const SentenceTranslation& s : translation.sentences) {
    const std::string& text = s.hypotheses.at(0).text;
    nlohmann::ordered_json words = nlohmann::ordered_json::array();
    for (const WordConfidence& w : s.confidence.words)
      words.push_back({{"text", text.substr(w.begin, w.end - w.begin)},
                       {"start", w.begin},
                       {"end", w.end},
                       {"confidence", w.confidence},
                       {"tokens", {w.first_token, w.first_token + w.tokens}}});
    sentences.push_back({{"text", text},
                         {"score", s.confidence.score},
                         {"logProbs", s.confidence.log_probs},
                         {"words", std::move(words)}});
  }
  return {{"text", translation.text}, {"sentences", std::move(sentences)}};
}

}  // namespace tformer::cli

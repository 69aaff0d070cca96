#include "alignment_json.h"

namespace tformer::cli {
namespace {

nlohmann::json range(const ByteRange& r) { return nlohmann::json::array({r.begin, r.end}); }

nlohmann::json ranges(const std::vector<ByteRange>& rs) {
  nlohmann::json out = nlohmann::json::array();
  for (const ByteRange& r : rs) out.push_back(range(r));
  return out;
}

}  // namespace

nlohmann::json alignment_json(const Translation& t) {
  nlohmann::json sentences = nlohmann::json::array();
  for (size_t i = 0; i < t.sentences.size(); ++i) {
    const SentenceTranslation& s = t.sentences[i];
    const size_t rows = s.target_pieces.size(), cols = s.source_pieces.size();
    nlohmann::json weights = nlohmann::json::array();
    if (s.alignment.size() == rows * cols)
      for (size_t r = 0; r < rows; ++r)
        weights.push_back(std::vector<float>(s.alignment.begin() + long(r * cols), s.alignment.begin() + long((r + 1) * cols)));
    sentences.push_back({{"source", range(t.source.sentences.at(i))},
                         {"target", range(t.target.sentences.at(i))},
                         {"source_tokens", ranges(t.source.tokens.at(i))},
                         {"target_tokens", ranges(t.target.tokens.at(i))},
                         {"source_pieces", s.source_pieces},
                         {"target_pieces", s.target_pieces},
                         {"score", s.hypotheses.at(0).score},
                         {"alignment", std::move(weights)}});
  }
  return {{"translation", t.text}, {"sentences", std::move(sentences)}};
}

}  // namespace tformer::cli

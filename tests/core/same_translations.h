// Two translations' results compared field by field, exactly (scores and alignments bit for
// bit): for checks that another path (a session stepped by hand, the translation memory) gives
// what translate() gives.
#pragma once

#include <catch.hpp>

#include <vector>

#include "tformer/translator.h"

namespace tformer::testing {

inline void require_same(const std::vector<Translation>& a, const std::vector<Translation>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t p = 0; p < a.size(); ++p) {
    CHECK(a[p].text == b[p].text);
    REQUIRE(a[p].sentences.size() == b[p].sentences.size());
    for (size_t s = 0; s < a[p].sentences.size(); ++s) {
      const SentenceTranslation &x = a[p].sentences[s], &y = b[p].sentences[s];
      CHECK(x.source == y.source);
      CHECK(x.source_tokens == y.source_tokens);
      CHECK(x.source_pieces == y.source_pieces);
      CHECK(x.target_pieces == y.target_pieces);
      CHECK(x.alignment == y.alignment);
      REQUIRE(x.hypotheses.size() == y.hypotheses.size());
      for (size_t h = 0; h < x.hypotheses.size(); ++h) {
        CHECK(x.hypotheses[h].tokens == y.hypotheses[h].tokens);
        CHECK(x.hypotheses[h].text == y.hypotheses[h].text);
        CHECK(x.hypotheses[h].score == y.hypotheses[h].score);
      }
    }
  }
}

}  // namespace tformer::testing

#include "translation/html_response.h"

#include <algorithm>
#include <string_view>

namespace tformer {
namespace {

// The word (counting from 0) each piece belongs to: a piece that starts with SentencePiece's
// space mark "▁" starts a word. When that does not give `words` words (text that passthrough or
// normalization changed), pieces are spread over the words by their relative place.
std::vector<size_t> piece_words(const std::vector<std::string>& pieces, size_t words) {
  std::vector<size_t> of(pieces.size());
  size_t w = 0;
  for (size_t k = 0; k < pieces.size(); ++k) {
    if (k > 0 && pieces[k].rfind("\xE2\x96\x81", 0) == 0) ++w;
    of[k] = w;
  }
  if (!pieces.empty() && w + 1 == words) return of;
  for (size_t k = 0; k < pieces.size(); ++k) of[k] = words ? k * words / pieces.size() : 0;
  return of;
}

// The word alignment [target words x source words] of one sentence from its token alignment.
std::vector<float> word_alignment(const SentenceTranslation& s, const ModelConfig& config, const std::string& block_text,
                                  const std::string& model_text, const Segment& segment, const std::string& target) {
  const size_t rows = s.hypotheses.at(0).tokens.size(), cols = s.source_tokens.size();
  if (s.alignment.size() != rows * cols || cols == 0) return {};
  const size_t length = segment.end - segment.begin;
  const auto source_words = html_words(std::string_view(block_text).substr(segment.begin, length), segment.begin);
  const auto model_words = html_words(std::string_view(model_text).substr(segment.begin, length), segment.begin);
  const auto target_words = html_words(target);
  if (source_words.empty() || target_words.empty()) return {};
  // Model words (U+00A0 split them) -> the source word holding their first byte.
  std::vector<size_t> model_to_source(model_words.size(), 0);
  for (size_t m = 0, w = 0; m < model_words.size(); ++m) {
    while (w + 1 < source_words.size() && source_words[w].second <= model_words[m].first) ++w;
    model_to_source[m] = w;
  }
  std::vector<size_t> columns;  // source columns of pieces (not BOS/EOS)
  std::vector<std::string> source_pieces;
  for (size_t c = 0; c < cols; ++c) {
    const int id = s.source_tokens[c];
    if ((config.source_bos && c == 0 && id == config.bos_id) || (config.source_eos && c + 1 == cols && id == config.eos_id))
      continue;
    columns.push_back(c);
    source_pieces.push_back(s.source_pieces.at(c));
  }
  std::vector<size_t> target_rows;
  std::vector<std::string> target_pieces;
  for (size_t r = 0; r < rows; ++r) {
    if (s.hypotheses[0].tokens[r] == config.eos_id) continue;
    target_rows.push_back(r);
    target_pieces.push_back(s.target_pieces.at(r));
  }
  const std::vector<size_t> source_of = piece_words(source_pieces, model_words.size());
  const std::vector<size_t> target_of = piece_words(target_pieces, target_words.size());
  const size_t ns = source_words.size(), nt = target_words.size();
  std::vector<float> words(nt * ns, 0.f);
  for (size_t i = 0; i < target_rows.size(); ++i)
    for (size_t j = 0; j < columns.size(); ++j) {
      const size_t m = std::min(source_of[j], model_words.size() - 1);
      words[std::min(target_of[i], nt - 1) * ns + model_to_source[m]] += s.alignment[target_rows[i] * cols + columns[j]];
    }
  return words;
}

}  // namespace

std::string html_model_text(const std::string& block_text) {
  std::string text = block_text;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || text[i] == '\r' || text[i] == '\t' || text[i] == '\f') text[i] = ' ';
    if (text.compare(i, 2, "\xC2\xA0") == 0) text[i] = text[i + 1] = ' ';
  }
  return text;
}

Translation html_translation(const HtmlFragment& fragment, const ModelConfig& config,
                             const std::vector<std::vector<const Segment*>>& segments, std::vector<Translation>& blocks,
                             bool keep_alignment) {
  Translation out;
  std::vector<std::string> rendered;
  for (size_t b = 0; b < fragment.blocks.size(); ++b) {
    const HtmlBlock& block = fragment.blocks[b];
    const std::string model_text = html_model_text(block.text);
    std::vector<HtmlSentence> sentences;
    std::vector<SentenceTranslation>& done = blocks[b].sentences;
    for (size_t i = 0; i < done.size(); ++i) {
      const Segment& u = *segments[b][i];
      const std::string& target = done[i].hypotheses.at(0).text;
      if (!sentences.empty() && sentences.back().begin == u.begin) {  // a piece of a cut sentence
        sentences.back().target += " " + target;
        sentences.back().alignment.clear();  // by relative place
        continue;
      }
      HtmlSentence h;
      h.begin = u.begin;
      h.end = u.end;
      h.target = target;
      h.alignment = word_alignment(done[i], config, block.text, model_text, u, target);
      sentences.push_back(std::move(h));
    }
    rendered.push_back(render_block(block, sentences));
    for (SentenceTranslation& s : done) {
      if (!keep_alignment) s.alignment.clear();
      out.sentences.push_back(std::move(s));
    }
  }
  out.text = render_fragment(fragment, rendered);
  return out;
}

}  // namespace tformer

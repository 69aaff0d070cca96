// The Translator facade: text -> sentences -> token ids -> length-sorted batches -> encoder ->
// search -> detokenized text. Everything model-specific lives in transformer/ and decoding/.
#include "tformer/translator.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>

#include <nlohmann/json.hpp>

#include "decoding/search.h"
#include "kernels/backend.h"
#include "model/model_file.h"
#include "text/sentence_splitter.h"
#include "text/tokenizer.h"
#include "transformer/model.h"
#include "util/utf8.h"

namespace tformer {
namespace {

std::unique_ptr<Backend> make_backend(const TranslatorConfig& c) {
  if (c.threads < 1 || c.threads > 256)
    throw Error("threads must be between 1 and 256 (got " + std::to_string(c.threads) + ")");
  return c.backend == BackendKind::kReference ? make_reference_backend() : make_xnnpack_backend(c.threads);
}

void validate(const TranslateOptions& o) {
  auto bad = [](const std::string& m) { throw Error("invalid translate options: " + m); };
  if (o.beam_size < 1 || o.beam_size > 64) bad("beam size must be between 1 and 64 (got " + std::to_string(o.beam_size) + ")");
  if (o.nbest < 1 || o.nbest > o.beam_size)
    bad("nbest must be between 1 and the beam size " + std::to_string(o.beam_size) + " (got " + std::to_string(o.nbest) + ")");
  if (!std::isfinite(o.length_penalty) || o.length_penalty < 0 || o.length_penalty > 10)
    bad("length penalty must be between 0 and 10");
  if (!std::isfinite(o.max_length_ratio) || o.max_length_ratio <= 0 || o.max_length_ratio > 100)
    bad("max length ratio must be in (0, 100]");
  if (o.max_length < 0) bad("max length must not be negative");
  if (o.max_length_offset < -10000 || o.max_length_offset > 10000) bad("max length offset out of range");
  if (o.max_batch_tokens < 1) bad("max batch tokens must be positive");
}

// One unit of work: a sentence (or a piece of an over-long one) of one input paragraph.
struct Unit {
  size_t paragraph = 0, line = 0;
  std::string text;
  std::vector<int> source;  // with BOS/EOS
};

}  // namespace

class Translator::Impl {
 public:
  Impl(ModelFile file, const TranslatorConfig& tc)
      : config_(file.config()), backend_(make_backend(tc)) {
    const ModelConfig& c = config_;
    const TokenizerSpec& spec = file.tokenizer();
    auto table = [&](const std::string& name) { return name.empty() ? std::string() : file.bytes_of(name); };
    source_tokenizer_.emplace(file.bytes_of(spec.source), table(spec.source_vocab),
                              "tokenizer table '" + spec.source_vocab + "'");
    target_tokenizer_.emplace(file.bytes_of(spec.target), table(spec.target_vocab),
                              "tokenizer table '" + spec.target_vocab + "'");
    // A side's vocabulary may be smaller than vocab_size when source and target vocabularies
    // differ in size (the embeddings are padded to the larger one); never larger.
    for (const Tokenizer* t : {&*source_tokenizer_, &*target_tokenizer_})
      if (t->vocab_size() > c.vocab_size)
        throw Error(std::string("invalid model file: the ") + (t->has_vocab_table() ? "vocabulary table" : "SentencePiece model") +
                    " has " + std::to_string(t->vocab_size()) + " pieces but the config says vocab_size " +
                    std::to_string(c.vocab_size));
    model_.emplace(*backend_, file);
    fill_info(file);
  }

  std::vector<Translation> translate(const std::vector<std::string>& texts, const TranslateOptions& options) {
    std::lock_guard<std::mutex> lock(mutex_);
    validate(options);
    std::vector<Translation> results(texts.size());
    std::vector<Unit> units;
    for (size_t p = 0; p < texts.size(); ++p) {
      require_valid_utf8(texts[p], ("input text " + std::to_string(p + 1)).c_str());
      split_paragraph(p, texts[p], options, units);
    }
    std::vector<SentenceTranslation> done(units.size());
    translate_units(units, options, done);

    // Reassemble: sentences joined by a space, lines by a line break.
    for (size_t u = 0; u < units.size(); ++u) {
      Translation& t = results[units[u].paragraph];
      if (!t.sentences.empty())
        t.text += units[u].line != units[u - 1].line ? std::string(units[u].line - units[u - 1].line, '\n') : " ";
      t.text += done[u].hypotheses.at(0).text;
      t.sentences.push_back(std::move(done[u]));
    }
    return results;
  }

  const ModelInfo& info() const { return info_; }
  std::string backend_name() const { return backend_->name(); }
  int threads() const { return backend_->threads(); }

 private:
  void split_paragraph(size_t p, const std::string& text, const TranslateOptions& options, std::vector<Unit>& units) {
    const ModelConfig& c = config_;
    const size_t specials = size_t(c.source_bos) + size_t(c.source_eos);
    const size_t max_tokens = size_t(c.max_positions) - specials;
    size_t line = 0, line_start = 0;
    while (line_start <= text.size()) {
      size_t line_end = text.find('\n', line_start);
      if (line_end == std::string::npos) line_end = text.size();
      const std::string_view line_text = std::string_view(text).substr(line_start, line_end - line_start);
      std::vector<SentenceSpan> spans;
      if (options.split_sentences) {
        spans = split_sentences(line_text);
      } else {
        size_t b = line_text.find_first_not_of(" \t\r\f\v"), e = line_text.find_last_not_of(" \t\r\f\v");
        if (b != std::string_view::npos) spans.push_back({b, e + 1});
      }
      for (const SentenceSpan& s : spans) {
        const std::string sentence(line_text.substr(s.begin, s.end - s.begin));
        const std::vector<int> ids = source_tokenizer_->encode(sentence);
        if (ids.empty()) continue;  // nothing SentencePiece keeps (e.g. control characters only)
        // Sentences longer than the model's positions are translated in consecutive pieces.
        for (size_t at = 0; at < ids.size(); at += max_tokens) {
          Unit u;
          u.paragraph = p;
          u.line = line;
          std::vector<int> piece(ids.begin() + long(at), ids.begin() + long(std::min(ids.size(), at + max_tokens)));
          u.text = piece.size() == ids.size() ? sentence : source_tokenizer_->decode(piece);
          if (c.source_bos) u.source.push_back(c.bos_id);
          u.source.insert(u.source.end(), piece.begin(), piece.end());
          if (c.source_eos) u.source.push_back(c.eos_id);
          units.push_back(std::move(u));
        }
      }
      ++line;
      line_start = line_end + 1;
    }
  }

  int max_target_length(size_t source_length, const TranslateOptions& o) const {
    long long n = static_cast<long long>(std::floor(double(o.max_length_ratio) * double(source_length))) + o.max_length_offset;
    if (o.max_length > 0) n = std::min<long long>(n, o.max_length);
    return int(std::max<long long>(1, std::min<long long>(n, config_.max_positions)));
  }

  void translate_units(const std::vector<Unit>& units, const TranslateOptions& options,
                       std::vector<SentenceTranslation>& out) {
    // Similar lengths together keep padding small; results go back to their input order.
    std::vector<size_t> order(units.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return units[a].source.size() < units[b].source.size(); });
    SearchOptions so;
    so.beam_size = options.beam_size;
    so.nbest = options.nbest;
    so.length_penalty = options.length_penalty;
    so.alignment = options.return_alignment;
    for (size_t begin = 0; begin < order.size();) {
      size_t end = begin + 1;
      while (end < order.size() && (end - begin + 1) * units[order[end]].source.size() <= options.max_batch_tokens) ++end;
      std::vector<std::vector<int>> sources;
      std::vector<int> max_lengths;
      for (size_t i = begin; i < end; ++i) {
        sources.push_back(units[order[i]].source);
        max_lengths.push_back(max_target_length(units[order[i]].source.size(), options));
      }
      const EncoderOutput memory = model_->encoder().forward(sources);
      auto hyps = search(model_->decoder(), config_, memory, max_lengths, so);
      for (size_t i = begin; i < end; ++i) out[order[i]] = make_result(units[order[i]], hyps[i - begin]);
      begin = end;
    }
  }

  SentenceTranslation make_result(const Unit& unit, std::vector<SearchHypothesis>& hyps) const {
    SentenceTranslation s;
    s.source = unit.text;
    s.source_tokens = unit.source;
    for (int id : unit.source) s.source_pieces.push_back(source_tokenizer_->piece(id));
    for (SearchHypothesis& h : hyps) {
      Hypothesis out;
      out.tokens = h.tokens;
      out.score = static_cast<float>(h.score);
      std::vector<int> text_ids;
      for (int id : h.tokens)
        if (id != config_.eos_id) text_ids.push_back(id);
      out.text = target_tokenizer_->decode(text_ids);
      s.hypotheses.push_back(std::move(out));
    }
    for (int id : s.hypotheses.at(0).tokens) s.target_pieces.push_back(target_tokenizer_->piece(id));
    s.alignment = std::move(hyps.at(0).alignment);
    return s;
  }

  void fill_info(const ModelFile& file) {
    const ModelConfig& c = config_;
    info_.config_json = file.header()["config"].dump();
    info_.metadata_json = file.header().contains("metadata") ? file.header()["metadata"].dump() : "{}";
    info_.file_bytes = file.size();
    info_.vocab_size = c.vocab_size;
    info_.d_model = c.d_model;
    info_.heads = c.heads;
    info_.ffn_dim = c.ffn_dim;
    info_.encoder_layers = c.encoder_layers;
    info_.decoder_layers = c.decoder_layers;
    for (const TensorEntry& t : file.tensors()) {
      info_.tensors.push_back({t.name, dtype_name(t.dtype), t.shape, t.nbytes});
      const bool is_scales = t.name.size() > 7 && t.name.compare(t.name.size() - 7, 7, ".scales") == 0;
      if (t.dtype != DType::kU8 && !is_scales) info_.parameters += uint64_t(t.elements());
    }
  }

  ModelConfig config_;
  std::unique_ptr<Backend> backend_;
  std::optional<Tokenizer> source_tokenizer_, target_tokenizer_;
  std::optional<TransformerModel> model_;
  ModelInfo info_;
  std::mutex mutex_;
};

Translator::Translator(const std::string& model_path, const TranslatorConfig& config)
    : impl_(std::make_unique<Impl>(ModelFile::from_path(model_path), config)) {}

Translator::Translator(const uint8_t* data, size_t size, const TranslatorConfig& config)
    : Translator(std::vector<uint8_t>(data, data + size), config) {}

Translator::Translator(std::vector<uint8_t> bytes, const TranslatorConfig& config)
    : impl_(std::make_unique<Impl>(ModelFile::from_bytes(std::move(bytes)), config)) {}

Translator::~Translator() = default;

std::vector<Translation> Translator::translate(const std::vector<std::string>& texts, const TranslateOptions& options) {
  return impl_->translate(texts, options);
}

const ModelInfo& Translator::info() const { return impl_->info(); }
std::string Translator::backend_name() const { return impl_->backend_name(); }
int Translator::threads() const { return impl_->threads(); }

}  // namespace tformer

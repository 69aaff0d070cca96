// The Translator facade: text -> sentences -> token ids -> length-sorted batches -> encoder ->
// search -> detokenized text. Everything model-specific lives in transformer/ and decoding/.
#include "tformer/translator.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "decoding/search.h"
#include "kernels/backend.h"
#include "model/model_file.h"
#include "text/passthrough.h"
#include "text/sentence_splitter.h"
#include "text/tokenizer.h"
#include "transformer/model.h"
#include "util/utf8.h"

namespace tformer {
namespace {

std::unique_ptr<Backend> make_backend(const TranslatorConfig& c) {
  validate(c);
  return c.backend == BackendKind::kReference ? make_reference_backend() : make_xnnpack_backend(c.threads);
}

// One unit of work: a sentence (or a piece of an over-long one) of one input paragraph.
struct Unit {
  size_t paragraph = 0, line = 0;
  std::string text;
  std::vector<int> source;  // with BOS/EOS
  ProtectedSentence kept;   // options.passthrough: what was taken out of the source (text/passthrough.h)
  bool alignment = false;   // return the alignment (passthrough needs it either way)
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
    check_special_ids();
    file.check_memory();
    model_.emplace(*backend_, file);
    fill_info(file);
    // Kept for tensor_floats(): an external backend (WebGPU) uploads the weights from it.
    file_.emplace(std::move(file));
  }

  // Every special id must be a piece of both tokenizers: an id past a SentencePiece model's end
  // stops native builds in a CHECK and reads as "" in wasm.
  void check_special_ids() const {
    const ModelConfig& c = config_;
    const std::pair<const char*, int> specials[] = {
        {"pad_id", c.pad_id}, {"unk_id", c.unk_id}, {"bos_id", c.bos_id}, {"eos_id", c.eos_id}};
    for (const auto& [key, id] : specials) {
      if (id < 0) continue;  // not used by this model
      for (const auto& [tokenizer, side] : {std::pair{&*source_tokenizer_, "source"}, std::pair{&*target_tokenizer_, "target"}})
        if (id >= tokenizer->vocab_size())
          throw Error(std::string("invalid model file: config '") + key + "' = " + std::to_string(id) +
                      " is not a piece of the " + side + " tokenizer, which has " +
                      std::to_string(tokenizer->vocab_size()) + " pieces");
    }
  }

  const ModelInfo& info() const { return info_; }
  std::string backend_name() const { return backend_->name(); }
  int threads() const { return backend_->threads(); }

  TensorFloats tensor_floats(const std::string& name) const {
    const TensorEntry& t = file_->tensor(name);
    TensorFloats out;
    out.size = size_t(t.elements());
    if (t.dtype == DType::kF32 && reinterpret_cast<uintptr_t>(t.data) % alignof(float) == 0) {
      out.data = reinterpret_cast<const float*>(t.data);
    } else {
      out.converted = file_->floats(name, t.shape);
      out.data = out.converted.data();
    }
    return out;
  }
  const std::vector<float>& positions() const { return model_->positions().table(); }
  ModelPlan plan() const { return model_->plan(); }

  // The steps of a translation, used by TranslationSession (which holds mutex_ around them).
  void split_paragraph(size_t p, const std::string& text, const TranslateOptions& options, std::vector<Unit>& units) {
    const ModelConfig& c = config_;
    const size_t specials = size_t(c.source_bos) + size_t(c.source_eos);
    // ModelConfig guarantees max_positions > specials; without a piece length of at least one
    // the cutting below would never end.
    size_t max_tokens = size_t(c.max_positions) > specials ? size_t(c.max_positions) - specials : 0;
    if (max_tokens < 1) throw Error("the model's max_positions leaves no room for a source token");
    if (options.max_sentence_tokens > 0) max_tokens = std::min(max_tokens, size_t(options.max_sentence_tokens));
    // Passthrough: characters the source vocabulary lacks (they would be <unk>), asked once each.
    std::unordered_map<char32_t, bool> unknown_chars;
    auto unknown = [&](char32_t ch) {
      auto [at, fresh] = unknown_chars.try_emplace(ch, false);
      if (fresh) {
        std::string utf8;
        if (ch < 0x80) utf8 = char(ch);
        else if (ch < 0x800) utf8 = {char(0xC0 | (ch >> 6)), char(0x80 | (ch & 0x3F))};
        else if (ch < 0x10000) utf8 = {char(0xE0 | (ch >> 12)), char(0x80 | ((ch >> 6) & 0x3F)), char(0x80 | (ch & 0x3F))};
        else utf8 = {char(0xF0 | (ch >> 18)), char(0x80 | ((ch >> 12) & 0x3F)), char(0x80 | ((ch >> 6) & 0x3F)), char(0x80 | (ch & 0x3F))};
        for (int id : source_tokenizer_->encode(utf8)) at->second = at->second || id == c.unk_id;
      }
      return at->second;
    };
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
        ProtectedSentence kept = options.passthrough ? protect(sentence, unknown) : ProtectedSentence{};
        std::vector<int> ids = source_tokenizer_->encode(kept.spans.empty() ? sentence : kept.text);
        if (ids.size() > max_tokens && !kept.spans.empty()) {  // cut into pieces: translated as it is
          kept = ProtectedSentence{};
          ids = source_tokenizer_->encode(sentence);
        }
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
          if (piece.size() == ids.size()) u.kept = kept;
          u.alignment = options.return_alignment;
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

  // Similar lengths together keep padding small; each batch holds indices into `units`, and
  // results go back to the input order.
  std::vector<std::vector<size_t>> make_batches(const std::vector<Unit>& units, const TranslateOptions& options) const {
    std::vector<size_t> order(units.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return units[a].source.size() < units[b].source.size(); });
    std::vector<std::vector<size_t>> batches;
    for (size_t begin = 0; begin < order.size();) {
      size_t end = begin + 1;
      while (end < order.size() && (end - begin + 1) * units[order[end]].source.size() <= options.max_batch_tokens) ++end;
      batches.emplace_back(order.begin() + long(begin), order.begin() + long(end));
      begin = end;
    }
    return batches;
  }

  static SearchOptions search_options(const TranslateOptions& options) {
    SearchOptions so;
    so.beam_size = options.beam_size;
    so.nbest = options.nbest;
    so.length_penalty = options.length_penalty;
    so.alignment = options.return_alignment || options.passthrough;  // passthrough places spans by it
    so.repetition_guard = options.repetition_guard;
    return so;
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
      if (!unit.kept.spans.empty() || unit.kept.verbatim) {
        std::vector<std::string> source_pieces, target_pieces;
        for (int id : unit.source)
          if (!((config_.source_bos && id == config_.bos_id) || (config_.source_eos && id == config_.eos_id)))
            source_pieces.push_back(source_tokenizer_->piece(id));
        for (int id : text_ids) target_pieces.push_back(target_tokenizer_->piece(id));
        out.text = restore(unit.kept, source_pieces, target_pieces, out.text, h.alignment, unit.source.size(),
                           config_.source_bos ? 1 : 0);
      }
      s.hypotheses.push_back(std::move(out));
    }
    for (int id : s.hypotheses.at(0).tokens) s.target_pieces.push_back(target_tokenizer_->piece(id));
    if (unit.alignment) s.alignment = std::move(hyps.at(0).alignment);
    return s;
  }

  void fill_info(const ModelFile& file) {
    const ModelConfig& c = config_;
    // As stored, with the defaults of absent keys filled in: a reader (the WebGPU backend) sees
    // the architecture the engine runs.
    nlohmann::json config = c.to_json();
    config.update(file.header()["config"]);
    info_.config_json = config.dump();
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
  std::optional<ModelFile> file_;
  ModelInfo info_;
  std::mutex mutex_;
};

// The state of one translation between requests: its units and batches, the batch being
// decoded and the request that waits for an answer.
class TranslationSession::Impl {
 public:
  using Need = TranslationSession::Need;

  Impl(std::shared_ptr<Translator::Impl> owner, const std::vector<std::string>& texts, const TranslateOptions& options)
      : t_(std::move(owner)), options_(options), paragraphs_(texts.size()) {
    validate(options);
    for (size_t p = 0; p < texts.size(); ++p) {
      const std::string what = "input text " + std::to_string(p + 1);
      require_valid_utf8(texts[p], what.c_str());
      require_at_most_chars(texts[p], options.max_input_chars, what.c_str());
      t_->split_paragraph(p, texts[p], options, units_);
    }
    batches_ = t_->make_batches(units_, options);
    done_.resize(units_.size());
  }

  Need next() {
    if (phase_ == Phase::kEncodePending || phase_ == Phase::kProjectPending)
      throw Error(std::string("next(): the pending ") + (phase_ == Phase::kEncodePending ? "encode" : "projection") +
                  " request has no answer yet: call " +
                  (phase_ == Phase::kEncodePending ? "provide_encoder_output()" : "provide_logits(), provide_candidates()") +
                  " or compute_on_cpu() first");
    if (phase_ == Phase::kDone) return Need::kDone;
    std::lock_guard<std::mutex> lock(t_->mutex_);
    if (phase_ == Phase::kEncodeAnswered) {
      std::vector<int> max_lengths;
      for (size_t u : batches_[batch_]) max_lengths.push_back(t_->max_target_length(units_[u].source.size(), options_));
      search_.emplace(t_->model_->decoder(), t_->config_, *memory_, std::move(max_lengths),
                      Translator::Impl::search_options(options_));
      memory_.reset();  // the decoder keeps the keys and values it needs
    } else if (phase_ == Phase::kProjectAnswered) {
      if (answered_with_candidates_)
        search_->consume_candidates(candidates_.data());
      else
        search_->consume_logits();
    }
    phase_ = Phase::kIdle;
    if (search_ && !search_->done()) {
      hidden_ = search_->hidden().data();
      phase_ = Phase::kProjectPending;
      return Need::kProject;
    }
    if (search_) {
      auto hyps = search_->take_results();
      const std::vector<size_t>& batch = batches_[batch_];
      for (size_t i = 0; i < batch.size(); ++i) done_[batch[i]] = t_->make_result(units_[batch[i]], hyps[i]);
      search_.reset();
      ++batch_;
    }
    if (batch_ < batches_.size()) {
      make_encode_request();
      phase_ = Phase::kEncodePending;
      return Need::kEncode;
    }
    assemble();
    phase_ = Phase::kDone;
    return Need::kDone;
  }

  const EncodeRequest& encode_request() const {
    expect(Phase::kEncodePending, "encode_request()");
    return request_;
  }

  void provide_encoder_output(const float* states, size_t size) {
    expect(Phase::kEncodePending, "provide_encoder_output()");
    const size_t d = d_model();
    check_values("provide_encoder_output()", states, size, request_.batch * request_.length * d,
                 "batch " + std::to_string(request_.batch) + " x length " + std::to_string(request_.length) +
                     " x d_model " + std::to_string(d));
    EncoderOutput memory;
    memory.batch = request_.batch;
    memory.max_length = request_.length;
    memory.d_model = d;
    memory.lengths.assign(request_.lengths.begin(), request_.lengths.end());
    memory.states.assign(states, states + size);
    memory_ = std::move(memory);
    phase_ = Phase::kEncodeAnswered;
  }

  const float* hidden(size_t* rows) const {
    expect(Phase::kProjectPending, "hidden()");
    if (rows) *rows = search_->rows();
    return hidden_;
  }

  void provide_logits(const float* logits, size_t size) {
    expect(Phase::kProjectPending, "provide_logits()");
    const size_t rows = search_->rows();
    check_values("provide_logits()", logits, size, rows * vocab_size(),
                 std::to_string(rows) + " rows x vocabulary " + std::to_string(vocab_size()));
    std::copy(logits, logits + size, search_->logits());
    answered_with_candidates_ = false;
    phase_ = Phase::kProjectAnswered;
  }

  void provide_candidates(const float* rows, size_t size) {
    expect(Phase::kProjectPending, "provide_candidates()");
    const size_t n = search_->rows(), k = search_->candidates_per_row(), stride = 3 + 2 * k, V = vocab_size();
    check_values("provide_candidates()", rows, size, n * stride,
                 std::to_string(n) + " rows x (3 + 2 x " + std::to_string(k) + " candidates)");
    std::vector<float> ids(k);
    for (size_t r = 0; r < n; ++r) {
      const float* row = rows + r * stride;
      auto bad = [&](const std::string& what) {
        throw Error("provide_candidates(): row " + std::to_string(r) + ": " + what);
      };
      if (!std::isfinite(row[0]) || !std::isfinite(row[1])) bad("the max and log-sum-exp must be finite");
      for (size_t i = 0; i < k; ++i) {
        const float id = row[3 + 2 * i + 1];
        if (!(id >= 0 && id < float(V) && id == std::floor(id)))
          bad("candidate " + std::to_string(i) + " has token id " + std::to_string(id) + ", not one of [0, " + std::to_string(V) + ")");
        ids[i] = id;
      }
      std::sort(ids.begin(), ids.end());
      if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) bad("a token id is given twice");
    }
    candidates_.assign(rows, rows + size);
    answered_with_candidates_ = true;
    phase_ = Phase::kProjectAnswered;
  }

  size_t candidates_per_row() const {
    expect(Phase::kProjectPending, "candidates_per_row()");
    return search_->candidates_per_row();
  }

  void compute_on_cpu() {
    if (phase_ != Phase::kEncodePending && phase_ != Phase::kProjectPending)
      throw Error("compute_on_cpu(): no request is pending (call next() first)");
    std::lock_guard<std::mutex> lock(t_->mutex_);
    if (phase_ == Phase::kEncodePending) {
      std::vector<std::vector<int>> sources;
      for (size_t u : batches_[batch_]) sources.push_back(units_[u].source);
      memory_ = t_->model_->encoder().forward(sources);
      phase_ = Phase::kEncodeAnswered;
    } else {
      const std::vector<float>& hidden = search_->hidden();
      t_->model_->decoder().project(hidden.data(), search_->rows(), search_->logits());
      answered_with_candidates_ = false;
      phase_ = Phase::kProjectAnswered;
    }
  }

  std::vector<Translation> results() const {
    if (phase_ != Phase::kDone) throw Error("results(): the translation is not finished (next() has not returned kDone)");
    return paragraphs_;
  }

  size_t d_model() const { return size_t(t_->config_.d_model); }
  size_t vocab_size() const { return size_t(t_->config_.vocab_size); }

 private:
  enum class Phase { kIdle, kEncodePending, kEncodeAnswered, kProjectPending, kProjectAnswered, kDone };

  void expect(Phase phase, const char* call) const {
    if (phase_ == phase) return;
    const char* what = phase == Phase::kEncodePending ? "an encode request" : "a projection request";
    std::string now;
    switch (phase_) {
      case Phase::kIdle: now = "no request is pending (call next() first)"; break;
      case Phase::kEncodePending: now = "an encode request is pending"; break;
      case Phase::kProjectPending: now = "a projection request is pending"; break;
      case Phase::kEncodeAnswered:
      case Phase::kProjectAnswered: now = "the request was answered (call next())"; break;
      case Phase::kDone: now = "the translation is finished"; break;
    }
    throw Error(std::string(call) + " needs " + what + ", but " + now);
  }

  static void check_values(const char* call, const float* values, size_t size, size_t expected, const std::string& shape) {
    if (size != expected)
      throw Error(std::string(call) + ": " + std::to_string(size) + " values given, " + std::to_string(expected) +
                  " expected (" + shape + ")");
    if (!values && size) throw Error(std::string(call) + ": no values given");
    for (size_t i = 0; i < size; ++i)
      if (std::isnan(values[i])) throw Error(std::string(call) + ": value " + std::to_string(i) + " is NaN");
  }

  void make_encode_request() {
    const std::vector<size_t>& batch = batches_[batch_];
    request_.batch = batch.size();
    request_.length = 0;
    for (size_t u : batch) request_.length = std::max(request_.length, units_[u].source.size());
    request_.ids.assign(request_.batch * request_.length, t_->config_.pad_id);
    request_.lengths.clear();
    for (size_t b = 0; b < batch.size(); ++b) {
      const std::vector<int>& source = units_[batch[b]].source;
      std::copy(source.begin(), source.end(), request_.ids.begin() + long(b * request_.length));
      request_.lengths.push_back(int32_t(source.size()));
    }
  }

  // Sentences joined by a space, lines by line breaks, in input order.
  void assemble() {
    for (size_t u = 0; u < units_.size(); ++u) {
      Translation& t = paragraphs_[units_[u].paragraph];
      if (!t.sentences.empty())
        t.text += units_[u].line != units_[u - 1].line ? std::string(units_[u].line - units_[u - 1].line, '\n') : " ";
      t.text += done_[u].hypotheses.at(0).text;
      t.sentences.push_back(std::move(done_[u]));
    }
  }

  std::shared_ptr<Translator::Impl> t_;
  TranslateOptions options_;
  std::vector<Unit> units_;
  std::vector<std::vector<size_t>> batches_;  // indices into units_
  std::vector<SentenceTranslation> done_;     // per unit
  std::vector<Translation> paragraphs_;
  size_t batch_ = 0;                          // the batch being encoded or decoded
  Phase phase_ = Phase::kIdle;
  EncodeRequest request_;
  std::optional<EncoderOutput> memory_;
  std::optional<Search> search_;
  const float* hidden_ = nullptr;  // the pending projection's input, owned by search_
  bool answered_with_candidates_ = false;
  std::vector<float> candidates_;  // the answer of provide_candidates()
};

TranslationSession::TranslationSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TranslationSession::~TranslationSession() = default;
TranslationSession::Need TranslationSession::next() { return impl_->next(); }
const TranslationSession::EncodeRequest& TranslationSession::encode_request() const { return impl_->encode_request(); }
void TranslationSession::provide_encoder_output(const float* states, size_t size) { impl_->provide_encoder_output(states, size); }
const float* TranslationSession::hidden(size_t* rows) const { return impl_->hidden(rows); }
void TranslationSession::provide_logits(const float* logits, size_t size) { impl_->provide_logits(logits, size); }
void TranslationSession::provide_candidates(const float* rows, size_t size) { impl_->provide_candidates(rows, size); }
size_t TranslationSession::candidates_per_row() const { return impl_->candidates_per_row(); }
void TranslationSession::compute_on_cpu() { impl_->compute_on_cpu(); }
std::vector<Translation> TranslationSession::results() const { return impl_->results(); }
size_t TranslationSession::d_model() const { return impl_->d_model(); }
size_t TranslationSession::vocab_size() const { return impl_->vocab_size(); }

Translator::Translator(const std::string& model_path, const TranslatorConfig& config)
    : impl_(std::make_shared<Impl>(ModelFile::from_path(model_path), config)) {}

Translator::Translator(const uint8_t* data, size_t size, const TranslatorConfig& config)
    : Translator(std::vector<uint8_t>(data, data + size), config) {}

Translator::Translator(std::vector<uint8_t> bytes, const TranslatorConfig& config)
    : impl_(std::make_shared<Impl>(ModelFile::from_bytes(std::move(bytes)), config)) {}

Translator::~Translator() = default;

std::vector<Translation> Translator::translate(const std::vector<std::string>& texts, const TranslateOptions& options) {
  const std::unique_ptr<TranslationSession> session = begin(texts, options);
  while (session->next() != TranslationSession::Need::kDone) session->compute_on_cpu();
  return session->results();
}

std::unique_ptr<TranslationSession> Translator::begin(const std::vector<std::string>& texts,
                                                      const TranslateOptions& options) {
  std::lock_guard<std::mutex> lock(impl_->mutex_);
  return std::unique_ptr<TranslationSession>(
      new TranslationSession(std::make_unique<TranslationSession::Impl>(impl_, texts, options)));
}

TensorFloats Translator::tensor_floats(const std::string& name) const { return impl_->tensor_floats(name); }
const std::vector<float>& Translator::positions() const { return impl_->positions(); }
ModelPlan Translator::plan() const { return impl_->plan(); }
const ModelInfo& Translator::info() const { return impl_->info(); }
std::string Translator::backend_name() const { return impl_->backend_name(); }
int Translator::threads() const { return impl_->threads(); }

}  // namespace tformer

// TranslationSession, the step-wise translation that lets another backend (WebGPU) compute the
// encoder and the output projection: driven with compute_on_cpu() it is translate() exactly;
// driven with encoder outputs and logits computed outside (by a separate model on the reference
// backend) it gives the same results as that backend's own translate() and the PyTorch tokens;
// calls out of order and bad values give clear errors and leave the session usable.
#include <catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "fixtures.h"
#include "same_translations.h"
#include "kernels/ops.h"
#include "kernels/kernels.h"
#include "model/model_file.h"
#include "tformer/translator.h"
#include "transformer/model.h"

using namespace tformer;
using Need = TranslationSession::Need;
using testing::require_same;

namespace {

std::vector<std::string> golden_texts(const testing::Golden& golden) {
  std::vector<std::string> texts;
  for (const auto& s : golden.json["sentences"]) texts.push_back(s["text"]);
  return texts;
}

std::vector<Translation> run_on_cpu(TranslationSession& session) {
  while (session.next() != Need::kDone) session.compute_on_cpu();
  return session.results();
}

// The work of the requests done by a model of our own, as an external backend would.
struct ExternalBackend {
  std::unique_ptr<Kernels> kernels;
  ModelFile file;
  TransformerModel model;
  int encodes = 0, projections = 0;

  explicit ExternalBackend(const std::string& variant)
      : kernels(make_reference_kernels()),
        file(ModelFile::from_path(testing::fixture_path(variant, "model.tfm"))),
        model(*kernels, file) {}

  std::vector<float> encode(const TranslationSession::EncodeRequest& r) {
    ++encodes;
    std::vector<std::vector<int>> sources;
    for (size_t b = 0; b < r.batch; ++b)
      sources.emplace_back(r.ids.begin() + long(b * r.length), r.ids.begin() + long(b * r.length + size_t(r.lengths[b])));
    return model.encoder().forward(sources).states;
  }

  std::vector<float> project(const float* hidden, size_t rows) {
    ++projections;
    std::vector<float> logits(rows * size_t(model.config().vocab_size));
    model.decoder().project(hidden, rows, logits.data());
    return logits;
  }

  // Each row's best k candidates, as TranslationSession::provide_candidates() takes them, with
  // the max and log-sum-exp computed as ops::log_softmax computes them.
  std::vector<float> candidates(const std::vector<float>& logits, size_t rows, size_t k) const {
    const ModelConfig& c = model.config();
    const size_t V = size_t(c.vocab_size);
    std::vector<float> out;
    for (size_t r = 0; r < rows; ++r) {
      const float* x = &logits[r * V];
      float m, log_sum;
      ops::max_and_log_sum_exp(x, V, &m, &log_sum);
      out.insert(out.end(), {m, log_sum, x[c.eos_id]});
      std::vector<int> order;
      for (int i = 0; i < int(V); ++i)
        if (!(c.suppress_unk && i == c.unk_id)) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return x[a] > x[b]; });
      for (size_t i = 0; i < k; ++i) out.insert(out.end(), {x[order[i]], float(order[i])});
    }
    return out;
  }

  enum class Answer { kLogits, kCandidates };
  std::vector<Translation> run(TranslationSession& session, Answer answer = Answer::kLogits) {
    for (Need need = session.next(); need != Need::kDone; need = session.next()) {
      if (need == Need::kEncode) {
        const std::vector<float> states = encode(session.encode_request());
        session.provide_encoder_output(states.data(), states.size());
      } else {
        size_t rows = 0;
        const float* hidden = session.hidden(&rows);
        const std::vector<float> logits = project(hidden, rows);
        if (answer == Answer::kLogits) {
          session.provide_logits(logits.data(), logits.size());
        } else {
          const std::vector<float> best = candidates(logits, rows, session.candidates_per_row());
          session.provide_candidates(best.data(), best.size());
        }
      }
    }
    return session.results();
  }
};

TranslatorConfig reference_config() {
  TranslatorConfig c;
  c.kernels = KernelLibrary::kReference;
  return c;
}

}  // namespace

TEST_CASE("a session answered by compute_on_cpu is translate() bit for bit", "[session]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  CAPTURE(variant);
  Translator translator(testing::fixture_path(variant, "model.tfm"));
  const testing::Golden golden(variant);
  const std::vector<std::string> texts = golden_texts(golden);

  TranslateOptions greedy = testing::plain_options();
  greedy.return_alignment = true;
  TranslateOptions beam = testing::plain_options();
  beam.beam_size = 4;
  beam.nbest = 4;
  TranslateOptions batched = beam;  // several encoder batches
  batched.max_batch_tokens = 12;
  for (const TranslateOptions& options : {greedy, beam, batched}) {
    CAPTURE(options.beam_size, options.max_batch_tokens);
    const auto expected = translator.translate(texts, options);
    auto session = translator.begin(texts, options);
    require_same(run_on_cpu(*session), expected);
    CHECK(session->next() == Need::kDone);  // stays done
  }
  // And against the PyTorch reference, through the session.
  auto session = translator.begin(texts, greedy);
  const auto results = run_on_cpu(*session);
  for (size_t i = 0; i < texts.size(); ++i)
    CHECK(results[i].sentences.at(0).hypotheses.at(0).tokens == golden.json["sentences"][i]["greedy"]["tokens"].get<std::vector<int>>());
}

TEST_CASE("a session hands out each sentence as soon as its search ends", "[session][stream]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  CAPTURE(variant);
  Translator translator(testing::fixture_path(variant, "model.tfm"));
  const std::vector<std::string> t = golden_texts(testing::Golden(variant));
  REQUIRE(t.size() >= 6);
  // Several sentences per text, lines, an empty text: places and separators of every kind.
  const std::vector<std::string> texts = {t[3] + " " + t[0] + " " + t[4], "", t[1] + "\n\n" + t[2], t[5]};

  TranslateOptions greedy = testing::plain_options();
  greedy.return_alignment = true;
  TranslateOptions beam = testing::plain_options();
  beam.beam_size = 4;
  beam.nbest = 2;
  TranslateOptions batched = greedy;  // several encoder batches
  batched.max_batch_tokens = 12;
  for (const TranslateOptions& options : {greedy, beam, batched}) {
    CAPTURE(options.beam_size, options.max_batch_tokens);
    auto session = translator.begin(texts, options);
    std::vector<CompletedSentence> completed;
    std::vector<size_t> call;  // per completed sentence: the next() call that handed it out
    size_t calls = 0;
    for (Need need = session->next();; need = session->next()) {
      ++calls;
      for (auto& c : session->take_completed()) {
        completed.push_back(std::move(c));
        call.push_back(calls);
      }
      if (need == Need::kDone) break;
      session->compute_on_cpu();
    }
    CHECK(session->take_completed().empty());

    const std::vector<Translation> results = session->results();
    require_same(results, translator.translate(texts, options));
    // Every sentence once, where results() has it, with the separator that joins it.
    size_t total = 0;
    for (const Translation& r : results) total += r.sentences.size();
    REQUIRE(completed.size() == total);
    REQUIRE(total == 6);
    std::vector<std::string> joined(texts.size());
    // Greedy, one batch: a sentence of n tokens (EOS included) ends at search step n, answered
    // by next() call n + 2 (call 1 asks for the encoder, call 2 for step 1's projection): the
    // short ones come out while the long ones are still searched.
    if (options.beam_size == 1 && options.max_batch_tokens > 1000)
      for (size_t i = 0; i < completed.size(); ++i)
        CHECK(call[i] == completed[i].sentence.hypotheses.at(0).tokens.size() + 2);
    std::sort(completed.begin(), completed.end(),
              [](const CompletedSentence& a, const CompletedSentence& b) { return a.segment < b.segment; });
    for (size_t i = 0; i < completed.size(); ++i) {
      const CompletedSentence& c = completed[i];
      CAPTURE(c.segment, c.paragraph, c.index);
      CHECK(c.segment == i);
      REQUIRE(c.paragraph < results.size());
      REQUIRE(c.index < results[c.paragraph].sentences.size());
      require_same({Translation{"", {c.sentence}}}, {Translation{"", {results[c.paragraph].sentences[c.index]}}});
      joined[c.paragraph] += c.separator + c.sentence.hypotheses.at(0).text;
    }
    CHECK(completed[0].separator.empty());
    CHECK(completed[1].separator == " ");
    CHECK(completed[3].paragraph == 2);
    CHECK(completed[3].separator.empty());
    CHECK(completed[4].separator == "\n\n");
    for (size_t p = 0; p < texts.size(); ++p) CHECK(joined[p] == results[p].text);
  }
  // HTML places a text's markup once all its sentences are done: nothing is handed out before.
  TranslateOptions html = testing::plain_options();
  html.html = true;
  auto session = translator.begin({"<p>" + t[0] + " <b>" + t[1] + "</b></p><p>" + t[2] + "</p>"}, html);
  size_t handed_out = 0;
  for (Need need = session->next();; need = session->next()) {
    handed_out += session->take_completed().size();
    if (need == Need::kDone) break;
    session->compute_on_cpu();
  }
  CHECK(handed_out == 0);
  CHECK(session->results().at(0).text.find("<p>") == 0);
}

TEST_CASE("a session answered from outside gives the results of that kernels", "[session]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  CAPTURE(variant);
  const testing::Golden golden(variant);
  const std::vector<std::string> texts = golden_texts(golden);
  Translator translator(testing::fixture_path(variant, "model.tfm"), reference_config());
  ExternalBackend external(variant);
  const ModelConfig& config = external.model.config();

  TranslateOptions greedy = testing::plain_options();
  greedy.return_alignment = true;
  greedy.max_batch_tokens = 20;  // more than one encoder batch
  TranslateOptions beam = testing::plain_options();
  beam.beam_size = 4;
  beam.nbest = 4;
  using Answer = ExternalBackend::Answer;
  for (const TranslateOptions& options : {greedy, beam})
  for (const Answer answer : {Answer::kLogits, Answer::kCandidates}) {
    CAPTURE(options.beam_size, answer == Answer::kCandidates);
    external.encodes = external.projections = 0;
    auto session = translator.begin(texts, options);
    const auto results = external.run(*session, answer);
    require_same(results, translator.translate(texts, options));
    CHECK(external.encodes >= (options.max_batch_tokens < 100 ? 2 : 1));
    CHECK(external.projections >= external.encodes);  // a step at least per batch (some outputs are only EOS)
    for (size_t i = 0; i < texts.size(); ++i) {
      const auto& s = golden.json["sentences"][i];
      const auto& hyps = results[i].sentences.at(0).hypotheses;
      if (options.beam_size == 1) {
        CHECK(hyps.at(0).tokens == s["greedy"]["tokens"].get<std::vector<int>>());
      } else {
        REQUIRE(hyps.size() == s["beam"].size());
        for (size_t k = 0; k < hyps.size(); ++k) CHECK(hyps[k].tokens == s["beam"][k]["tokens"].get<std::vector<int>>());
      }
    }
  }

  // The encode request: the sentences' source ids (golden), padded with pad_id.
  auto session = translator.begin(texts, testing::plain_options());
  REQUIRE(session->next() == Need::kEncode);
  const auto& request = session->encode_request();
  REQUIRE(request.batch == texts.size());
  REQUIRE(request.ids.size() == request.batch * request.length);
  std::vector<std::vector<int>> expected_sources;
  for (const auto& s : golden.json["sentences"]) expected_sources.push_back(s["source_ids"].get<std::vector<int>>());
  for (size_t b = 0; b < request.batch; ++b) {
    const size_t n = size_t(request.lengths[b]);
    const std::vector<int> ids(request.ids.begin() + long(b * request.length), request.ids.begin() + long(b * request.length + n));
    CHECK(std::find(expected_sources.begin(), expected_sources.end(), ids) != expected_sources.end());
    for (size_t t = n; t < request.length; ++t) CHECK(request.ids[b * request.length + t] == config.pad_id);
  }
  session->compute_on_cpu();
  REQUIRE(session->next() == Need::kProject);
  size_t rows = 0;
  CHECK(session->hidden(&rows) != nullptr);
  CHECK(rows == texts.size());
  CHECK(session->d_model() == size_t(config.d_model));
  CHECK(session->vocab_size() == size_t(config.vocab_size));
}

TEST_CASE("session calls out of order and bad values are clear errors", "[session]") {
  Translator translator(testing::fixture_path("marian", "model.tfm"));
  const std::vector<std::string> texts = {"Die Katze schläft.", "Ein Hund."};
  const auto expected = translator.translate(texts, testing::plain_options());
  auto s = translator.begin(texts, testing::plain_options());
  const std::vector<float> few(3, 0.f);

  CHECK_THROWS_WITH(s->compute_on_cpu(), "compute_on_cpu() has no request to answer (call next())");
  CHECK_THROWS_WITH(s->encode_request(), "encode_request() needs an encode request, but no request is pending (call next())");
  CHECK_THROWS_WITH(s->provide_logits(few.data(), few.size()),
                    "provide_logits() needs a projection request, but no request is pending (call next())");
  CHECK_THROWS_WITH(s->results(), "results() cannot be had yet: the translation is not finished (call next())");

  REQUIRE(s->next() == Need::kEncode);
  CHECK_THROWS_WITH(s->next(), "next() cannot go on: the pending encode request has no answer yet (call "
                               "provide_encoder_output() or compute_on_cpu())");
  CHECK_THROWS_WITH(s->hidden(nullptr), "hidden() needs a projection request, but an encode request is pending");
  CHECK_THROWS_WITH(s->provide_logits(few.data(), few.size()),
                    "provide_logits() needs a projection request, but an encode request is pending");
  const auto& request = s->encode_request();
  const size_t states = request.batch * request.length * s->d_model();
  CHECK_THROWS_WITH(s->provide_encoder_output(few.data(), few.size()),
                    "provide_encoder_output() got 3 values, " + std::to_string(states) + " expected (batch 2 x length " +
                        std::to_string(request.length) + " x d_model 32)");
  std::vector<float> nan(states, 0.f);
  nan[5] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(s->provide_encoder_output(nan.data(), nan.size()), "provide_encoder_output() got NaN as value 5");
  s->compute_on_cpu();  // the request is still pending after a refusal
  CHECK_THROWS_WITH(s->compute_on_cpu(), "compute_on_cpu() has no request to answer (call next())");
  CHECK_THROWS_WITH(s->provide_encoder_output(nan.data(), nan.size()),
                    "provide_encoder_output() needs an encode request, but the request was answered (call next())");

  REQUIRE(s->next() == Need::kProject);
  CHECK_THROWS_WITH(s->next(), "next() cannot go on: the pending projection request has no answer yet (call "
                               "provide_logits(), provide_candidates() or compute_on_cpu())");
  CHECK_THROWS_WITH(s->encode_request(), "encode_request() needs an encode request, but a projection request is pending");
  size_t rows = 0;
  s->hidden(&rows);
  std::vector<float> logits(rows * s->vocab_size(), 0.f);
  CHECK_THROWS_WITH(s->provide_logits(logits.data(), logits.size() - 1),
                    "provide_logits() got " + std::to_string(logits.size() - 1) + " values, " +
                        std::to_string(logits.size()) + " expected (2 rows x vocabulary " + std::to_string(s->vocab_size()) + ")");
  logits[logits.size() - 1] = std::nanf("");
  CHECK_THROWS_WITH(s->provide_logits(logits.data(), logits.size()),
                    "provide_logits() got NaN as value " + std::to_string(logits.size() - 1));
  CHECK(s->candidates_per_row() == 1);  // greedy
  std::vector<float> best = {0.f, 1.f, 0.f, 0.5f, 3.f, 0.f, 1.f, 0.f, 0.5f, 7.f};
  CHECK_THROWS_WITH(s->provide_candidates(best.data(), 4),
                    "provide_candidates() got 4 values, 10 expected (2 rows x (3 + 2 x 1 candidates))");
  best[9] = 256.f;
  CHECK_THROWS_WITH(s->provide_candidates(best.data(), best.size()),
                    "provide_candidates() got a bad row 1: candidate 0 has token id 256.000000, not one of [0, 256)");
  best[9] = 2.5f;
  CHECK_THROWS_WITH(s->provide_candidates(best.data(), best.size()), Catch::Contains("token id 2.500000"));
  best[9] = 7.f;
  best[1] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(s->provide_candidates(best.data(), best.size()),
                    "provide_candidates() got a bad row 0: the max and log-sum-exp must be finite");
  s->compute_on_cpu();  // the refused logits and candidates changed nothing
  const auto results = run_on_cpu(*s);
  require_same(results, expected);
  CHECK_THROWS_WITH(s->compute_on_cpu(), "compute_on_cpu() has no request to answer (call next())");
  CHECK_THROWS_WITH(s->hidden(&rows), "hidden() needs a projection request, but the translation is finished");
  require_same(s->results(), expected);  // results() may be asked again

  TranslateOptions beam = testing::plain_options();
  beam.beam_size = 2;
  auto b = translator.begin(texts, beam);
  b->next();
  b->compute_on_cpu();
  REQUIRE(b->next() == Need::kProject);
  REQUIRE(b->candidates_per_row() == 4);
  std::vector<float> twice(2 * 11, 0.f);
  for (size_t i = 0; i < 4; ++i) twice[3 + 2 * i + 1] = twice[11 + 3 + 2 * i + 1] = float(i);
  twice[11 + 3 + 2 * 3 + 1] = 1.f;
  CHECK_THROWS_WITH(b->provide_candidates(twice.data(), twice.size()), "provide_candidates() got a bad row 1: a token id is given twice");
  CHECK_THROWS_WITH(s->candidates_per_row(), "candidates_per_row() needs a projection request, but the translation is finished");

  // Bad input is refused by begin(), as by translate().
  CHECK_THROWS_WITH(translator.begin({"ok", std::string("\xff")}, testing::plain_options()), Catch::Contains("input text 2 is not valid UTF-8"));
  TranslateOptions bad = testing::plain_options();
  bad.beam_size = 0;
  CHECK_THROWS_WITH(translator.begin(texts, bad), Catch::Contains("beam size must be between 1 and 64 (got 0)"));
}

TEST_CASE("sessions interleave, outlive their translator, and handle empty input", "[session]") {
  auto translator = std::make_unique<Translator>(testing::fixture_path("tutorial", "model.tfm"));
  const std::vector<std::string> a = {"Die Katze schläft.", "Ein kleiner Test."}, b = {"Hallo Welt.\nZwei Zeilen."};
  TranslateOptions beam = testing::plain_options();
  beam.beam_size = 3;
  const auto expected_a = translator->translate(a, beam), expected_b = translator->translate(b, testing::plain_options());

  auto sa = translator->begin(a, beam), sb = translator->begin(b, testing::plain_options());
  bool done_a = false, done_b = false;
  while (!done_a || !done_b) {  // one step of each in turn
    if (!done_a && !(done_a = sa->next() == Need::kDone)) sa->compute_on_cpu();
    if (!done_b && !(done_b = sb->next() == Need::kDone)) sb->compute_on_cpu();
  }
  require_same(sa->results(), expected_a);
  require_same(sb->results(), expected_b);

  auto orphan = translator->begin(a, beam);
  translator.reset();
  require_same(run_on_cpu(*orphan), expected_a);

  Translator t(testing::fixture_path("tutorial", "model.tfm"));
  auto empty = t.begin({"", "  \n "}, testing::plain_options());
  CHECK(empty->next() == Need::kDone);
  const auto results = empty->results();
  REQUIRE(results.size() == 2);
  CHECK(results[0].text.empty());
  CHECK(results[1].sentences.empty());
}

TEST_CASE("weights and positions for an external kernels", "[session]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  CAPTURE(variant);
  const std::string path = testing::fixture_path(variant, "model.tfm");
  Translator translator(path);
  const ModelFile file = ModelFile::from_path(path);
  const ModelConfig& c = file.config();
  for (const TensorEntry& t : file.tensors()) {
    if (t.dtype == DType::kU8) {
      CHECK_THROWS_WITH(translator.tensor_floats(t.name), Catch::Contains("holds bytes, not numbers"));
      continue;
    }
    CAPTURE(t.name);
    const TensorFloats got = translator.tensor_floats(t.name);
    const std::vector<float> expected = file.floats(t.name, t.shape);
    REQUIRE(got.size == expected.size());
    CHECK(std::memcmp(got.data, expected.data(), 4 * got.size) == 0);
    CHECK(got.converted.empty() == (t.dtype == DType::kF32));
  }
  CHECK_THROWS_WITH(translator.tensor_floats("no.such.tensor"), Catch::Contains("no.such.tensor"));

  const std::vector<float>& pe = translator.positions();
  REQUIRE(pe.size() == size_t(c.max_positions) * size_t(c.d_model));
  PositionalEncoding expected(c.positional_encoding, c.max_positions, c.d_model);
  std::vector<float> row(size_t(c.d_model), 0.f);
  expected.add(7, row.data());
  CHECK(std::memcmp(row.data(), &pe[7 * size_t(c.d_model)], 4 * row.size()) == 0);
}

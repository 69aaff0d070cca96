// Greedy and beam search over a batch of encoded sentences (the rules are stated once, in
// models/tformer/decode.py, and followed here exactly):
// - step scores are float32 log_softmax(logits); <unk> gets -inf when the model says so;
// - at a sentence's last allowed step only EOS may be chosen;
// - a hypothesis's score is the float32 sum of its step scores, ranked when finished by
//   score / length^length_penalty (length counts EOS);
// - beam search (size K) ranks candidates by summed score (ties: lower row, then lower token id),
//   looks at the best 2K: an EOS among the first K finishes a hypothesis, the others fill the next
//   beam up to K; a sentence is done when K hypotheses have finished. K = 1 is greedy search.
// Sentences that are done leave the batch; the others continue.
//
// The repetition guard (SearchOptions::repetition_guard, off by default so that the parity tests
// follow the reference decoder exactly) stops the loops small models fall into on long sentences
// ("then then, then, then"): a token that would make the hypothesis end with the same token four
// times in a row, or with the same 2-, 3- or 4-token group three times in a row, is not a
// candidate (its probability counts as 0), so the search takes the next best token, often EOS.
// It never blocks EOS. Repeats that are not back to back ("the cat and the dog") are untouched.
#pragma once

#include <utility>
#include <vector>

#include "decoding/hypothesis_records.h"
#include "transformer/decoder.h"
#include "util/raw_buffer.h"

namespace tformer {

struct SearchOptions {
  int beam_size = 1;
  int nbest = 1;
  float length_penalty = 1.f;
  bool alignment = false;
  bool repetition_guard = false;  // see above
};

// The repetition guard's rule: the tokens that may not follow `tokens` (at most 4, one per group
// length 1..4), written to `out`; returns how many.
size_t looping_tokens(const std::vector<int>& tokens, int out[4]);

struct SearchHypothesis {
  std::vector<int> tokens;  // EOS included
  float raw_score = 0.f;
  double score = 0.0;
  std::vector<float> alignment;  // [tokens x source length], on request
  std::vector<std::vector<float>> step_logits;  // for tests: raw logits per step (greedy only)
};

// The search as a resumable object, so that a step can stop between "hidden states ready" and
// "logits consumed" while the output projection runs elsewhere (the WebGPU backend, driven from
// JS). One step:
//   const std::vector<float>& h = s.hidden();           // the decoder layers, [rows, d_model]
//   decoder.project(h.data(), s.rows(), s.logits());    // or logits written by another backend
//   s.consume_logits();                                  // log-softmax, rules, beam step
// until done(); then take_results(). search() below is exactly that loop.
class Search {
 public:
  // max_lengths[s] >= 1 is sentence s's target length limit (EOS included). With keep_logits
  // (greedy only) the raw logits of every step are kept, for the parity tests. `decoder` must
  // outlive the search; `memory` is read only here.
  // `shortlists`: empty, or per sentence the target ids it may produce, ascending (a lexical
  // shortlist, decoding/shortlist.h): its log-softmax and its candidates then range over those
  // ids only, and each row of logits() holds its sentence's ids' logits (the decoder's projection).
  Search(const Decoder& decoder, const ModelConfig& config, const EncoderOutput& memory,
         std::vector<int> max_lengths, const SearchOptions& options, bool keep_logits = false,
         std::vector<std::vector<int>> shortlists = {});

  bool done() const { return rows_.empty(); }
  // Live hypotheses of this step (the rows of hidden() and logits()).
  size_t rows() const { return rows_.size(); }
  // Runs the decoder layers for this step (once; later calls return the same states).
  const std::vector<float>& hidden();
  // This step's logits [rows, vocab] to be filled in, after hidden(). With shortlists: [rows,
  // longest shortlist], which only project() writes (another backend cannot answer for them).
  float* logits();
  bool shortlisted() const { return !shortlists_.empty(); }
  // Writes logits() with the decoder's output projection (onto the shortlisted ids, if any).
  void project();
  // Applies the search rules to the filled logits and moves to the next step.
  void consume_logits();
  // The same from each row's best candidates instead of full logits (computed elsewhere, e.g.
  // on the GPU, so that only a few numbers per row travel): per row, 3 + 2 * candidates_per_row()
  // floats: the row's max logit m, log_sum = log(sum exp(logit - m)), the logit of EOS, then
  // (logit, token id) pairs of the best candidates_per_row() tokens by logit (ties: lower id),
  // <unk> left out when the model suppresses it. The best 2K of a sentence lie within its rows'
  // best 2K, so beam search needs no more; greedy needs 1.
  void consume_candidates(const float* rows);
  size_t candidates_per_row() const;
  // Per sentence, up to `nbest` hypotheses, best first; once done(). A sentence already taken
  // by take_finished() has none here.
  std::vector<std::vector<SearchHypothesis>> take_results();
  // The sentences that left the search since the last call (in the order they left; sentences
  // of one batch end at different steps), each with its hypotheses as take_results() gives
  // them, moved out: so that a caller can hand out each sentence as soon as it is done.
  std::vector<std::pair<size_t, std::vector<SearchHypothesis>>> take_finished();

 private:
  // One step of the search rules; candidates(r, force_eos, visit) calls visit(token, log-prob)
  // for the candidates of row r.
  template <typename Candidates>
  void advance(Candidates&& candidates);
  // One row's candidates in consume_candidates' layout from its logits x[0, n), column c being
  // token ids[c] (ids null: token c); a column of -1 means the token is not among them.
  void row_candidates(const float* x, size_t n, const int* ids, int unk_column, int eos_column, float* row,
                      int* top) const;
  void advance_with_candidates(const float* rows);  // consume_candidates without its checks
  // Best first (stable: ties keep the order they finished in), at most nbest.
  void rank(std::vector<SearchHypothesis>& hyps) const;

  struct Row {
    int sentence = 0;
    std::vector<int> tokens;
    float score = 0.f;
  };
  struct Candidate {
    float score;
    int64_t index;  // row-in-sentence * vocab + token
  };

  const Decoder& decoder_;
  const ModelConfig& config_;
  SearchOptions options_;
  bool keep_logits_;
  std::vector<int> max_lengths_;
  DecoderState state_;
  std::vector<Row> rows_;
  HypothesisRecords records_;  // each row's alignment and (keep_logits) raw logits
  std::vector<std::vector<SearchHypothesis>> finished_;
  std::vector<size_t> left_;  // sentences that left the search since the last take_finished()
  int step_ = 0;
  bool hidden_ready_ = false;
  std::vector<float> hidden_;
  RawBuffer<float> logits_;  // [rows, vocab], written by project() every step before it is read
  std::vector<int> tokens_, top_;
  std::vector<float> candidates_;  // consume_logits' per-row candidates, consume_candidates' layout
  std::vector<Candidate> heap_;
  std::vector<std::vector<int>> shortlists_;  // per sentence its lexical shortlist's ids
};

// Runs a Search to the end with the decoder's own output projection.
std::vector<std::vector<SearchHypothesis>> search(const Decoder& decoder, const ModelConfig& config,
                                                  const EncoderOutput& memory, const std::vector<int>& max_lengths,
                                                  const SearchOptions& options, bool keep_logits = false,
                                                  std::vector<std::vector<int>> shortlists = {});

}  // namespace tformer

// Greedy and beam search over a batch of encoded sentences (the rules are stated once, in
// models/tformer/decode.py, and followed here exactly):
// - step scores are float32 log_softmax(logits), as the decoding rules change them
//   (decoding/rules.h: the lexical shortlist, <unk>, the length limit, and the repetition guard,
//   which the reference does not have);
// - a hypothesis's score is the float32 sum of its step scores, ranked when finished by
//   score / length^length_penalty (length counts EOS);
// - greedy search takes the first maximum: the highest log-probability, then the lowest token id;
// - beam search (size K) ranks candidates by summed score (ties: lower row, then lower token id),
//   looks at the best 2K: an EOS among the first K finishes a hypothesis, the others fill the next
//   beam up to K; a sentence is done when K hypotheses have finished. K = 1 is greedy search.
// Sentences that are done leave the batch; the others continue.
#pragma once

#include <utility>
#include <vector>

#include "decoding/hypothesis_records.h"
#include "decoding/logits_processor.h"
#include "decoding/rules.h"
#include "transformer/decoder.h"
#include "util/raw_buffer.h"

namespace tformer {

struct SearchOptions {
  int beam_size = 1;
  int nbest = 1;
  float length_penalty = 1.f;
  bool alignment = false;
  bool log_probs = false;  // keep each token's step score (SearchHypothesis::log_probs)
};

struct SearchHypothesis {
  std::vector<int> tokens;  // EOS included
  float raw_score = 0.f;
  double score = 0.0;
  std::vector<float> alignment;  // [tokens x source length], on request
  std::vector<std::vector<float>> step_logits;  // for tests: raw logits per step
  std::vector<float> log_probs;  // per token (EOS included): its step score, on request
};

// The search as a resumable object, so that a step can stop between "hidden states ready" and
// "logits consumed" while the output projection runs elsewhere (the WebGPU backend, driven from
// JS). One step:
//   const std::vector<float>& h = s.hidden();           // the decoder layers, [rows, d_model]
//   s.project();                                         // or logits() written by another backend
//   s.consume_logits();                                  // log-softmax, rules, beam step
// until done(); then take_results(). search() below is exactly that loop.
class Search {
 public:
  // max_lengths[s] >= 1 is sentence s's target length limit (EOS included). `rules` change each
  // step's scores (search_rules() gives the model's). With keep_logits the raw logits of every
  // step are kept, for the parity tests. `decoder` must outlive the search; `memory` is read
  // only here.
  Search(const Decoder& decoder, const ModelConfig& config, const EncoderOutput& memory,
         std::vector<int> max_lengths, const SearchOptions& options, LogitsProcessors rules,
         bool keep_logits = false);

  bool done() const { return rows_.empty(); }
  // Live hypotheses of this step (the rows of hidden() and logits()).
  size_t rows() const { return rows_.size(); }
  // Runs the decoder layers for this step (once; later calls return the same states).
  const std::vector<float>& hidden();
  // This step's logits [rows, vocab] to be filled in, after hidden(). When the rules restrict a
  // sentence's vocabulary (a lexical shortlist): each row's logits of its sentence's ids, which
  // only project() writes (another backend cannot answer for them).
  float* logits();
  bool shortlisted() const { return !vocabularies_.empty(); }
  // Writes logits() with the decoder's output projection.
  void project();
  // Applies the rules to the filled logits and moves to the next step.
  void consume_logits();
  // The same from each row's best candidates instead of full logits (computed elsewhere, e.g.
  // on the GPU, so that only a few numbers per row travel), packed as
  // decoding/packed_candidates.h says, candidates_per_row() per row.
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
  // The rules on the packed candidates, then the beam step.
  void advance(const float* packed);
  // One step of the search on the candidates the rules left.
  void choose();
  // Best first (stable: ties keep the order they finished in), at most nbest.
  void rank(std::vector<SearchHypothesis>& hyps) const;

  struct Candidate {
    float score;
    int64_t index;  // row-in-sentence * vocab + token
  };

  const Decoder& decoder_;
  const ModelConfig& config_;
  SearchOptions options_;
  LogitsProcessors rules_;
  std::vector<int> max_lengths_;
  // Per sentence the ids the rules let it produce (its shortlist), and where <unk> and EOS lie
  // among them (-1: not there); empty: the whole vocabulary.
  std::vector<std::vector<int>> vocabularies_;
  std::vector<int> suppressed_columns_, eos_columns_;
  DecoderState state_;
  std::vector<LiveHypothesis> rows_;
  HypothesisRecords records_;
  std::vector<std::vector<SearchHypothesis>> finished_;
  std::vector<size_t> left_;  // sentences that left the search since the last take_finished()
  int step_ = 0;
  bool hidden_ready_ = false;
  std::vector<float> hidden_;
  RawBuffer<float> logits_;  // [rows, logits width], written by project() every step before it is read
  std::vector<int> tokens_, top_, parents_;  // parents_[i]: the row that next row i continues
  std::vector<float> packed_;  // consume_logits' packed candidates
  StepCandidates candidates_;
  std::vector<Candidate> heap_;
};

// Runs a Search to the end with the decoder's own output projection and the model's rules
// (search_rules() without the repetition guard, as the reference decodes; `shortlists` as there).
std::vector<std::vector<SearchHypothesis>> search(const Decoder& decoder, const ModelConfig& config,
                                                  const EncoderOutput& memory, const std::vector<int>& max_lengths,
                                                  const SearchOptions& options, bool keep_logits = false,
                                                  std::vector<std::vector<int>> shortlists = {});

}  // namespace tformer

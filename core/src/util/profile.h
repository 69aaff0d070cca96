// The engine's side of tformer/profile.h: a scoped timer per phase.
//   { profile::Scope timed(profile::Phase::kFeedForward); ...work... }   (or timed.stop())
// Off (the default), a Scope is one relaxed atomic load and a branch; on, two steady_clock reads
// and two relaxed atomic adds. Scopes must not nest (phases are exclusive, so they add up).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "tformer/profile.h"

namespace tformer::profile {

enum class Phase {
  kEncoder,          // Encoder::forward
  kSelfAttention,    // decoder self-attention sublayers (or SSRU), norm and residual included
  kCrossAttention,   // decoder cross-attention sublayers, norm and residual included
  kFeedForward,      // decoder feed-forward sublayers, norm and residual included
  kOutputProjection, // the output projection onto the vocabulary (or the shortlist)
  kCandidates,       // the search's passes over the logits: max, log-sum-exp, top-k
  kBookkeeping,      // Search::advance: beams, hypotheses, their token and alignment copies
  kCacheReorder,     // Decoder::select_rows: the KV cache's rows follow the surviving beams
  kCount
};

extern std::atomic<bool> g_enabled;

void add(Phase phase, int64_t ns);

class Scope {
 public:
  explicit Scope(Phase phase) : phase_(phase), on_(g_enabled.load(std::memory_order_relaxed)) {
    if (on_) start_ = std::chrono::steady_clock::now();
  }
  ~Scope() { stop(); }
  // Ends the timed span before the end of the C++ scope (once; later calls do nothing).
  void stop() {
    if (!on_) return;
    on_ = false;
    add(phase_, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count());
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Phase phase_;
  bool on_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace tformer::profile

#include "util/profile.h"

namespace tformer::profile {
namespace {

constexpr size_t kPhases = size_t(Phase::kCount);
const char* const kNames[kPhases] = {"encoder",           "decoder self-attention", "decoder cross-attention",
                                     "decoder feed-forward", "output projection",    "softmax/top-k",
                                     "beam bookkeeping",     "KV-cache reorder"};
std::atomic<int64_t> g_ns[kPhases];
std::atomic<uint64_t> g_calls[kPhases];

}  // namespace

std::atomic<bool> g_enabled{false};

void add(Phase phase, int64_t ns) {
  g_ns[size_t(phase)].fetch_add(ns, std::memory_order_relaxed);
  g_calls[size_t(phase)].fetch_add(1, std::memory_order_relaxed);
}

void enable(bool on) { g_enabled.store(on, std::memory_order_relaxed); }
bool enabled() { return g_enabled.load(std::memory_order_relaxed); }

std::vector<PhaseTime> take() {
  std::vector<PhaseTime> out;
  for (size_t p = 0; p < kPhases; ++p)
    out.push_back({kNames[p], double(g_ns[p].exchange(0, std::memory_order_relaxed)) / 1e6,
                   g_calls[p].exchange(0, std::memory_order_relaxed)});
  return out;
}

}  // namespace tformer::profile

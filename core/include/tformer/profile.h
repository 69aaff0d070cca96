// Where a translation's time goes, per phase, from timers built into the engine (off unless
// asked; `tformer bench --profile` and the wasm module's profileEnable/profileTake use them).
//
//   tformer::profile::enable(true);
//   translator.translate(lines, options);
//   for (const auto& p : tformer::profile::take()) std::printf("%s %.1f ms\n", p.name, p.ms);
//
// The phases do not overlap and run on the thread that called translate() (their inner work may
// use the thread pool): their sum is at most the wall time of the calls, and the difference is
// everything else (tokenization, embedding, batching, the decoder's final norm...). The counters
// are process-wide: with several translators busy at once they add up.
#pragma once

#include <vector>

namespace tformer::profile {

struct PhaseTime {
  const char* name;  // e.g. "encoder", "decoder self-attention"
  double ms;         // summed over every timed scope since the last take()
  unsigned long long calls;
};

// Turns the timers on or off (off at start). Off, each timed scope costs one relaxed atomic load.
void enable(bool on);
bool enabled();
// The time per phase since the last take() (or the start), in a fixed order; resets the counters.
std::vector<PhaseTime> take();

}  // namespace tformer::profile

// The engine's per-phase timers (tformer/profile.h; the phases of `tformer bench --profile`), off
// by default: Module.profileEnable(true); ...translate...; Module.profileTake() -> {phase: ms}
// since the last take.
#include <emscripten/bind.h>

#include "js_values.h"
#include "tformer/profile.h"

namespace tformer::wasm {
namespace {

val profile_take() {
  val out = val::object();
  for (const profile::PhaseTime& p : profile::take()) out.set(p.name, val(p.ms));
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(profile) {
  emscripten::function("profileEnable", &profile::enable);
  emscripten::function("profileTake", &profile_take);
}

}  // namespace tformer::wasm

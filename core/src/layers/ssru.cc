#include "layers/ssru.h"

#include <cmath>

namespace tformer {

void Ssru::step(const float* x, size_t rows, float* state, float* h, std::vector<float>& scratch) const {
  const size_t n = rows * w_.out();
  scratch.resize(2 * n);
  float* u = scratch.data();
  float* f = u + n;
  w_(x, rows, u);
  wf_(x, rows, f);
  for (size_t i = 0; i < n; ++i) {
    const float gate = 1.f / (1.f + std::exp(-f[i]));
    state[i] = gate * state[i] + (1.f - gate) * u[i];
    h[i] = state[i] > 0.f ? state[i] : 0.f;
  }
}

}  // namespace tformer

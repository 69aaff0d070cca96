#include "layers/linear.h"

namespace tformer {

Linear::Linear(Backend& backend, const float* w, const float* b, size_t in, size_t out)
    : backend_(&backend), packed_(backend.pack_linear(w, b, in, out)) {}

Linear::Linear(Backend& backend, const ModelFile& file, const std::string& name, size_t in, size_t out,
               bool bias)
    : backend_(&backend) {
  const std::vector<float> w = file.floats(name + ".weight", {int64_t(out), int64_t(in)});
  const std::vector<float> b = bias ? file.floats(name + ".bias", {int64_t(out)}) : std::vector<float>();
  packed_ = backend.pack_linear(w.data(), bias ? b.data() : nullptr, in, out);
}

Linear Linear::stacked(Backend& backend, const ModelFile& file, const std::vector<std::string>& names,
                       size_t in, size_t out_each) {
  std::vector<float> w, b;
  for (const std::string& name : names) {
    const std::vector<float> wi = file.floats(name + ".weight", {int64_t(out_each), int64_t(in)});
    const std::vector<float> bi = file.floats(name + ".bias", {int64_t(out_each)});
    w.insert(w.end(), wi.begin(), wi.end());
    b.insert(b.end(), bi.begin(), bi.end());
  }
  return Linear(backend, w.data(), b.data(), in, out_each * names.size());
}

}  // namespace tformer

#include "layers/linear.h"

namespace tformer {

namespace {
std::vector<std::string> tensor_names(const std::vector<std::string>& layers, const char* suffix) {
  std::vector<std::string> out;
  for (const std::string& layer : layers) out.push_back(layer + suffix);
  return out;
}
}  // namespace

Linear::Linear(Kernels& kernels, const float* w, const float* b, size_t in, size_t out)
    : kernels_(&kernels), packed_(kernels.pack_linear(w, b, in, out)) {}

Linear::Linear(Kernels& kernels, const int8_t* w, const float* scales, const float* b, size_t in, size_t out)
    : kernels_(&kernels), packed_(kernels.pack_linear_int8(w, scales, b, in, out)) {}

Linear::Linear(Kernels& kernels, const ModelFile& file, const std::string& name, size_t in, size_t out,
               bool bias, bool relu)
    : kernels_(&kernels), weights_{name + ".weight"} {
  if (bias) biases_ = {name + ".bias"};
  const std::vector<int64_t> shape = {int64_t(out), int64_t(in)};
  const std::vector<float> b = bias ? file.floats(name + ".bias", {int64_t(out)}) : std::vector<float>();
  if (file.is_int8(name + ".weight")) {
    const ModelFile::Int8Rows w = file.int8_rows(name + ".weight", shape);
    packed_ = kernels.pack_linear_int8(w.values, w.scales.data(), bias ? b.data() : nullptr, in, out, relu);
  } else {
    const std::vector<float> w = file.floats(name + ".weight", shape);
    packed_ = kernels.pack_linear(w.data(), bias ? b.data() : nullptr, in, out, relu);
  }
}

Linear Linear::stacked(Kernels& kernels, const ModelFile& file, const std::vector<std::string>& names,
                       size_t in, size_t out_each) {
  const std::vector<int64_t> shape = {int64_t(out_each), int64_t(in)};
  bool all_int8 = true;
  for (const std::string& name : names) all_int8 = all_int8 && file.is_int8(name + ".weight");
  std::vector<float> b;
  for (const std::string& name : names) {
    const std::vector<float> bi = file.floats(name + ".bias", {int64_t(out_each)});
    b.insert(b.end(), bi.begin(), bi.end());
  }
  if (all_int8) {  // rows quantized one by one: stacking keeps each row's scale
    std::vector<int8_t> w;
    std::vector<float> scales;
    for (const std::string& name : names) {
      const ModelFile::Int8Rows wi = file.int8_rows(name + ".weight", shape);
      w.insert(w.end(), wi.values, wi.values + out_each * in);
      scales.insert(scales.end(), wi.scales.begin(), wi.scales.end());
    }
    Linear stack(kernels, w.data(), scales.data(), b.data(), in, out_each * names.size());
    stack.set_tensor_names(tensor_names(names, ".weight"), tensor_names(names, ".bias"));
    return stack;
  }
  std::vector<float> w;
  for (const std::string& name : names) {
    const std::vector<float> wi = file.floats(name + ".weight", shape);
    w.insert(w.end(), wi.begin(), wi.end());
  }
  Linear stack(kernels, w.data(), b.data(), in, out_each * names.size());
  stack.set_tensor_names(tensor_names(names, ".weight"), tensor_names(names, ".bias"));
  return stack;
}

LinearPlan Linear::plan() const {
  if (!packed_) return {};  // not built (e.g. the q of a layer whose q, k, v are stacked)
  return LinearPlan{weights_, biases_, in(), out()};
}

}  // namespace tformer

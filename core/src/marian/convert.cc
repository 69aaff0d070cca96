#include "marian/convert.h"

#include <cmath>
#include <cstring>

#include "util/half.h"
#include "util/little_endian.h"

namespace tformer::marian {
namespace {

// A float item's values as float32.
std::vector<float> floats(const MarianItem& it) {
  const int64_t n = it.elements();
  std::vector<float> out(static_cast<size_t>(n));
  if (it.type == "float32") {
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = load_f32_le(it.data + 4 * i);
  } else if (it.type == "float16") {
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = half_to_float(uint16_t(it.data[2 * i] | it.data[2 * i + 1] << 8));
  } else {  // float64
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t v = load_u64_le(it.data + 8 * i);
      double d;
      std::memcpy(&d, &v, 8);
      out[size_t(i)] = static_cast<float>(d);
    }
  }
  return out;
}

// [rows, cols] -> [cols, rows].
std::vector<float> transposed(const std::vector<float>& v, int64_t rows, int64_t cols) {
  std::vector<float> t(v.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) t[size_t(c * rows + r)] = v[size_t(r * cols + c)];
  }
  return t;
}

// marian-conv stores an intgemm matrix as W^T (rows = output units), except embedding matrices,
// stored as they are; the untied output matrix's [V, d] was transposed too, so it is transposed
// back. The engine's layout: [out, in], embeddings [V, d].
void convert_intgemm(const MarianItem& it, const Parameter& p, bool keep_int8, Converted& out) {
  const bool embedding = it.name.find("Wemb") != std::string::npos;
  const int64_t rows = embedding ? it.shape[0] : it.shape[1], cols = embedding ? it.shape[1] : it.shape[0];
  const size_t esize = type_size(it.type);
  auto value = [&](int64_t r, int64_t c) -> int32_t {
    const uint8_t* e = it.data + size_t(r * cols + c) * esize;
    return esize == 1 ? int32_t(int8_t(e[0])) : int32_t(int16_t(uint16_t(e[0] | e[1] << 8)));
  };
  const bool transpose = p.marian == kOutput;
  const int64_t out_rows = transpose ? cols : rows, out_cols = transpose ? rows : cols;
  const float mult = load_f32_le(it.data + size_t(it.elements()) * esize);
  const float scale = 1.0f / mult;
  if (it.type == "intgemm8" && keep_int8) {
    Tensor t;
    t.dtype = "i8";
    t.shape = {out_rows, out_cols};
    t.q.resize(size_t(out_rows * out_cols));
    for (int64_t r = 0; r < out_rows; ++r) {
      for (int64_t c = 0; c < out_cols; ++c) t.q[size_t(r * out_cols + c)] = int8_t(transpose ? value(c, r) : value(r, c));
    }
    t.scales = p.tfm + ".scales";
    out.tensors.set(p.tfm, std::move(t));
    out.tensors.set(p.tfm + ".scales", f32_tensor({out_rows}, std::vector<float>(size_t(out_rows), scale)));
    ++out.quantized;
    return;
  }
  std::vector<float> v(size_t(out_rows * out_cols));
  for (int64_t r = 0; r < out_rows; ++r) {
    for (int64_t c = 0; c < out_cols; ++c) v[size_t(r * out_cols + c)] = float(transpose ? value(c, r) : value(r, c)) * scale;
  }
  out.tensors.set(p.tfm, f32_tensor({out_rows, out_cols}, std::move(v)));
}

// Vocabularies of different sizes: the embeddings and the output matrix padded to V rows; target
// ids >= the target vocabulary's size get an output bias of -inf, so they are never chosen.
void pad_vocabularies(const Plan& plan, Converted& out) {
  const int64_t vs = plan.source_vocab, vt = plan.target_vocab, V = plan.vocab;
  if (vs == vt) return;
  for (auto [name, n] : {std::pair<const char*, int64_t>{"source_embedding.weight", vs},
                         {"target_embedding.weight", vt}, {"output.weight", vt}}) {
    if (!out.tensors.has(name) || n >= V) continue;
    Tensor& t = out.tensors.at(name);
    const int64_t cols = t.shape[1];
    t.shape[0] = V;
    if (t.dtype == "i8") t.q.resize(size_t(V * cols), 0);
    else t.f.resize(size_t(V * cols), 0.f);
    if (!t.scales.empty()) {
      Tensor& s = out.tensors.at(t.scales);
      s.shape[0] = V;
      s.f.resize(size_t(V), 1.f);
    }
  }
  if (vt < V) {
    std::vector<float> bias = out.tensors.has("output_bias") ? out.tensors.at("output_bias").f : std::vector<float>(size_t(vt), 0.f);
    bias.resize(size_t(V), -HUGE_VALF);
    out.tensors.set("output_bias", f32_tensor({V}, std::move(bias)));
    out.output_bias = true;
  }
}

}  // namespace

Converted convert(const MarianModel& m, const Plan& plan, bool keep_int8) {
  Converted out;
  out.output_bias = plan.arch.output_bias;
  for (const Parameter& p : plan.parameters) {
    const MarianItem& it = item_of(m, plan, p);
    if (it.is_intgemm()) {
      convert_intgemm(it, p, keep_int8, out);
      continue;
    }
    std::vector<float> v = floats(it);
    if (p.kind == 'W') {  // [in, out] -> [out, in]
      out.tensors.set(p.tfm, f32_tensor({it.shape[1], it.shape[0]}, transposed(v, it.shape[0], it.shape[1])));
    } else if (p.kind == 'b') {
      const int64_t n = int64_t(v.size());
      out.tensors.set(p.tfm, f32_tensor({n}, std::move(v)));
    } else if (plan.legacy_output && p.marian == kOutput) {  // [d, V] -> [V, d]
      out.tensors.set(p.tfm, f32_tensor({it.shape[1], it.shape[0]}, transposed(v, it.shape[0], it.shape[1])));
    } else {
      out.tensors.set(p.tfm, f32_tensor(it.shape, std::move(v)));
    }
  }
  if (plan.arch.tie == "src") {  // one Marian matrix for both embeddings
    Tensor copy = out.tensors.at("source_embedding.weight");
    if (!copy.scales.empty()) {
      Tensor s = out.tensors.at(copy.scales);
      copy.scales = "target_embedding.weight.scales";
      out.tensors.set("target_embedding.weight", std::move(copy));
      out.tensors.set("target_embedding.weight.scales", std::move(s));
    } else {
      out.tensors.set("target_embedding.weight", std::move(copy));
    }
  }
  pad_vocabularies(plan, out);
  return out;
}

}  // namespace tformer::marian

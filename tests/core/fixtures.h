// Access to the golden fixtures written by the PyTorch reference (models/tformer/fixtures.py).
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tformer/options.h"

namespace tformer::testing {

inline const std::vector<std::string>& fixture_variants() {
  static const std::vector<std::string> v = {"tutorial", "marian", "marian-prenorm-swish", "marian-ssru",
                                             "marian-int8"};
  return v;
}

// How close the engine's floats must come to the reference's. f32/f16 weights: 1e-4 everywhere.
// int8: the reference repeats the engine's int8 arithmetic, but an activation within an f32
// rounding of a quantization step boundary may round the other way on one side (a step is 1/255
// of the row's range), and that moves later values. The fixture's generator measures the same
// effect in PyTorch alone (layer norms perturbed by 1e-6): encoder outputs move up to 0.007,
// logits (about +-20 here) up to 0.23, scores up to 0.12. The bounds are about twice that.
inline double tolerance(const std::string& variant) {  // logits and scores
  return variant.find("int8") != std::string::npos ? 0.5 : 1e-4;
}
inline double encoder_tolerance(const std::string& variant) {
  return variant.find("int8") != std::string::npos ? 0.02 : 1e-4;
}

// The options under which the engine computes the plain model, as the reference implementations
// (PyTorch, Bergamot) do: passthrough and the repetition guard, both on by default, turned off.
inline TranslateOptions plain_options() {
  TranslateOptions o;
  o.passthrough = false;
  o.repetition_guard = false;
  return o;
}

inline std::string fixture_path(const std::string& variant, const std::string& file) {
  return std::string(TFORMER_FIXTURES_DIR) + "/" + variant + "/" + file;
}

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

inline std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline uint64_t header_length(const std::vector<uint8_t>& f) {
  uint64_t n;
  std::memcpy(&n, &f[16], 8);
  return n;
}

// A .tfm file with its header replaced by the text h (also headers nlohmann itself could not dump):
// the data section is re-aligned to 64 bytes.
inline std::vector<uint8_t> with_raw_header(const std::vector<uint8_t>& f, const std::string& h) {
  const uint64_t hlen = header_length(f);
  const uint64_t old_start = (24 + hlen + 63) / 64 * 64, new_start = (24 + h.size() + 63) / 64 * 64;
  std::vector<uint8_t> out(new_start, 0);
  std::memcpy(out.data(), f.data(), 24);
  const uint64_t n = h.size();
  std::memcpy(&out[16], &n, 8);
  std::memcpy(&out[24], h.data(), h.size());
  out.insert(out.end(), f.begin() + long(old_start), f.end());
  return out;
}

// Rewrites the JSON header of a .tfm file, keeping the tensor data as it is.
inline std::vector<uint8_t> with_header(const std::vector<uint8_t>& f, const std::function<void(nlohmann::json&)>& edit) {
  const uint64_t hlen = header_length(f);
  nlohmann::json header = nlohmann::json::parse(f.begin() + 24, f.begin() + 24 + long(hlen));
  edit(header);
  return with_raw_header(f, header.dump());
}

struct Golden {
  nlohmann::json json;
  std::vector<uint8_t> blob;

  explicit Golden(const std::string& variant)
      : json(nlohmann::json::parse(read_file(fixture_path(variant, "golden.json")))),
        blob(read_file(fixture_path(variant, "golden.bin"))) {}

  // A float array stored in golden.bin ({"offset", "shape"}), flattened.
  std::vector<float> array(const nlohmann::json& ref) const {
    size_t n = 1;
    for (auto& d : ref["shape"]) n *= d.get<size_t>();
    std::vector<float> out(n);
    const size_t offset = ref["offset"].get<size_t>();
    if (offset + 4 * n > blob.size()) throw std::runtime_error("golden.bin too short");
    std::memcpy(out.data(), blob.data() + offset, 4 * n);
    return out;
  }
};

// Largest absolute difference; +inf when sizes differ.
inline double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 1e30;
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a[i]) - double(b[i])));
  return m;
}

}  // namespace tformer::testing

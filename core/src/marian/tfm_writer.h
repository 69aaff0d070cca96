// Writes a .tfm image (docs/FORMAT.md) as models/tformer/tfm.py's write() does: the tensors in
// the order given, each at a 64-byte aligned offset, the JSON header compact with ASCII escapes
// (Python's json.dumps(separators=(",", ":"))), the last tensor unpadded.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tformer::marian {

struct TfmTensor {
  std::string dtype;  // "f32", "f16", "i8", "u8"
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;  // little-endian values, row-major
  std::string scales;          // i8: the name of its row scales
};

std::vector<uint8_t> write_tfm(const nlohmann::ordered_json& config, const nlohmann::ordered_json& tokenizer,
                               const std::vector<std::pair<std::string, TfmTensor>>& tensors,
                               const nlohmann::ordered_json& metadata);

}  // namespace tformer::marian

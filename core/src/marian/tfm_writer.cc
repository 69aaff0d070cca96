#include "marian/tfm_writer.h"

#include <cstring>

namespace tformer::marian {
namespace {

constexpr uint64_t kAlign = 64;
uint64_t align(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

}  // namespace

std::vector<uint8_t> write_tfm(const nlohmann::ordered_json& config, const nlohmann::ordered_json& tokenizer,
                               const std::vector<std::pair<std::string, TfmTensor>>& tensors,
                               const nlohmann::ordered_json& metadata) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  std::vector<uint64_t> offsets;
  uint64_t offset = 0, data_end = 0;
  for (const auto& [name, t] : tensors) {
    nlohmann::ordered_json e;
    e["name"] = name;
    e["dtype"] = t.dtype;
    e["shape"] = t.shape;
    e["offset"] = offset;
    e["nbytes"] = t.bytes.size();
    if (!t.scales.empty()) e["scales"] = t.scales;
    entries.push_back(std::move(e));
    offsets.push_back(offset);
    data_end = offset + t.bytes.size();
    offset = align(data_end);
  }
  nlohmann::ordered_json header;
  header["format"] = "tformer";
  header["version"] = 1;
  header["config"] = config;
  header["tokenizer"] = tokenizer;
  header["tensors"] = std::move(entries);
  header["metadata"] = metadata;
  // ensure_ascii: Python's json.dumps escapes every non-ASCII character as \uXXXX.
  const std::string h = header.dump(-1, ' ', true);
  const uint64_t data_start = align(24 + h.size());
  std::vector<uint8_t> out;
  out.reserve(data_start + data_end);
  const char magic[8] = {'T', 'F', 'M', 'O', 'D', 'E', 'L', '\0'};
  out.insert(out.end(), magic, magic + 8);
  put_u32(out, 1);
  put_u32(out, 0);
  put_u64(out, h.size());
  out.insert(out.end(), h.begin(), h.end());
  out.resize(data_start + data_end, 0);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& b = tensors[i].second.bytes;
    if (!b.empty()) std::memcpy(out.data() + data_start + offsets[i], b.data(), b.size());
  }
  return out;
}

}  // namespace tformer::marian

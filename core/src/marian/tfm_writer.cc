#include "marian/tfm_writer.h"

#include <cstring>

namespace tformer::marian {
namespace {

constexpr uint64_t kAlign = 64;
uint64_t align(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

void put_le(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = uint8_t(v >> (8 * i));
}

uint64_t nbytes(const Tensor& t) {
  if (t.dtype == "f32") return t.f.size() * 4;
  if (t.dtype == "f16") return t.h.size() * 2;
  if (t.dtype == "i8") return t.q.size();
  return t.u.size();
}

void encode(const Tensor& t, uint8_t* out) {
  if (t.dtype == "f32") {
    for (size_t i = 0; i < t.f.size(); ++i) {
      uint32_t v;
      std::memcpy(&v, &t.f[i], 4);
      put_le(out + 4 * i, v, 4);
    }
  } else if (t.dtype == "f16") {
    for (size_t i = 0; i < t.h.size(); ++i) put_le(out + 2 * i, t.h[i], 2);
  } else if (t.dtype == "i8") {
    std::memcpy(out, t.q.data(), t.q.size());
  } else {
    std::memcpy(out, t.u.data(), t.u.size());
  }
}

}  // namespace

std::vector<uint8_t> write_tfm(const Json& config, const Json& tokenizer, Tensors& tensors, const Json& metadata) {
  Json entries = Json::array();
  std::vector<uint64_t> offsets;
  uint64_t offset = 0, data_end = 0;
  for (const auto& [name, t] : tensors.list()) {
    Json e;
    e["name"] = name;
    e["dtype"] = t.dtype;
    e["shape"] = t.shape;
    e["offset"] = offset;
    e["nbytes"] = nbytes(t);
    if (!t.scales.empty()) e["scales"] = t.scales;
    entries.push_back(std::move(e));
    offsets.push_back(offset);
    data_end = offset + nbytes(t);
    offset = align(data_end);
  }
  Json header;
  header["format"] = "tformer";
  header["version"] = 1;
  header["config"] = config;
  header["tokenizer"] = tokenizer;
  header["tensors"] = std::move(entries);
  header["metadata"] = metadata;
  const std::string h = header.dump(-1, ' ', true);  // compact, ASCII
  const uint64_t data_start = align(24 + h.size());
  std::vector<uint8_t> out(data_start + data_end, 0);
  std::memcpy(out.data(), "TFMODEL", 8);  // the magic, NUL included
  put_le(out.data() + 8, 1, 4);           // format version
  put_le(out.data() + 12, 0, 4);          // flags
  put_le(out.data() + 16, h.size(), 8);   // header length
  std::memcpy(out.data() + 24, h.data(), h.size());
  auto& list = tensors.list();
  for (size_t i = 0; i < list.size(); ++i) {
    encode(list[i].second, out.data() + data_start + offsets[i]);
    list[i].second = Tensor();
  }
  return out;
}

}  // namespace tformer::marian

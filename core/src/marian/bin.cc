#include "marian/bin.h"

#include <cstdio>
#include <cstring>
#include <set>

#include "tformer/error.h"
#include "util/little_endian.h"
#include "util/printable.h"
#include "util/utf8.h"

namespace tformer::marian {
namespace {

constexpr uint64_t kBinVersion = 1;
constexpr uint64_t kBinAlign = 256;

// Marian's Type codes (src/common/types.h): the size class in the low byte.
const char* type_name(uint64_t code) {
  switch (code) {
    case 0x0101: return "int8";
    case 0x0102: return "int16";
    case 0x0104: return "int32";
    case 0x0108: return "int64";
    case 0x0201: return "uint8";
    case 0x0202: return "uint16";
    case 0x0204: return "uint32";
    case 0x0208: return "uint64";
    case 0x0402: return "float16";
    case 0x0404: return "float32";
    case 0x0408: return "float64";
    case 0x4101: return "intgemm8";
    case 0x4102: return "intgemm16";
    default: return nullptr;
  }
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::vector<MarianItem> parse_bin(const uint8_t* data, size_t size, const std::string& what) {
  auto bad = [&](const std::string& msg) -> Error {
    return Error(what + ": not a valid Marian .bin model: " + msg);
  };
  if (size < 16) throw bad("the file has " + std::to_string(size) + " bytes (truncated?)");
  const uint64_t version = load_u64_le(data), count = load_u64_le(data + 8);
  if (version != kBinVersion) {
    throw bad("binary format version " + std::to_string(version) + ", expected 1 (is this a Marian .bin file?)");
  }
  if (count == 0 || count > (size - 16) / 32) {
    throw bad("it claims " + std::to_string(count) + " items, impossible in a file of " + std::to_string(size) +
              " bytes (corrupted or truncated header)");
  }
  if (count > kMaxItems) {
    throw bad("it claims " + std::to_string(count) + " items, more than any Marian model has (" +
              std::to_string(kMaxItems) + ")");
  }
  struct Header { uint64_t name_len, type, ndim, nbytes; };
  std::vector<Header> headers(count);
  size_t pos = 16;
  for (uint64_t i = 0; i < count; ++i, pos += 32) {
    headers[i] = {load_u64_le(data + pos), load_u64_le(data + pos + 8), load_u64_le(data + pos + 16), load_u64_le(data + pos + 24)};
  }
  std::vector<MarianItem> items(count);
  for (uint64_t i = 0; i < count; ++i) {
    const Header& h = headers[i];
    if (h.name_len < 1 || h.name_len > 4096 || h.name_len > size - pos) {
      throw bad("item " + std::to_string(i) + ": name length " + std::to_string(h.name_len) +
                " is implausible or runs past the end of the file");
    }
    if (data[pos + h.name_len - 1] != 0) throw bad("item " + std::to_string(i) + ": name is not NUL-terminated");
    std::string name(reinterpret_cast<const char*>(data + pos), h.name_len - 1);
    if (find_invalid_utf8(name) != std::string::npos) throw bad("item " + std::to_string(i) + ": name is not UTF-8");
    if (name.find('\0') != std::string::npos) throw bad("item " + std::to_string(i) + ": name holds a NUL byte");
    pos += h.name_len;
    const char* type = type_name(h.type);
    if (!type) {
      throw bad("item " + printable(name) + ": unknown or unsupported type code " + hex(h.type) +
                " (supported: float16, float32, float64, int16, int32, int64, int8, intgemm16, intgemm8, "
                "uint16, uint32, uint64, uint8)");
    }
    if (h.ndim < 1 || h.ndim > 8) throw bad("item " + printable(name) + ": " + std::to_string(h.ndim) + " dimensions");
    items[i].name = std::move(name);
    items[i].type = type;
  }
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t ndim = headers[i].ndim;
    if (4 * ndim > size - pos) throw bad("truncated in the shape of item " + printable(items[i].name));
    for (uint64_t k = 0; k < ndim; ++k, pos += 4) items[i].shape.push_back(load_i32_le(data + pos));
    for (int64_t d : items[i].shape) {
      if (d <= 0) throw bad("item " + printable(items[i].name) + ": shape " + items[i].shape_string() +
                            " has a dimension that is not positive");
    }
  }
  if (8 > size - pos) throw bad("truncated before the data section");
  const uint64_t padding = load_u64_le(data + pos);
  pos += 8;
  if (padding > kBinAlign || padding > size - pos) {
    throw bad("data padding of " + std::to_string(padding) + " bytes is implausible");
  }
  pos += padding;
  std::set<std::string> seen;
  for (uint64_t i = 0; i < count; ++i) {
    MarianItem& it = items[i];
    const uint64_t nbytes = headers[i].nbytes;
    const uint64_t need = needed_bytes(it.type, it.shape);
    if (nbytes < need) {
      throw bad("item " + printable(it.name) + ": " + std::to_string(nbytes) + " data bytes, but a " + it.type +
                " tensor of shape " + it.shape_string() + " " + needs_text(need));
    }
    if (nbytes > size - pos) {
      throw bad("truncated at item " + printable(it.name) + ": it needs " + std::to_string(nbytes) + " bytes at offset " +
                std::to_string(pos) + ", the file has " + std::to_string(size));
    }
    if (!seen.insert(it.name).second) throw bad("item " + printable(it.name) + " occurs twice");
    it.data = data + pos;
    it.size = need;
    pos += nbytes;
  }
  return items;
}

}  // namespace tformer::marian

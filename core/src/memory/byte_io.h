// Little-endian numbers and length-prefixed strings written to and read from a byte string, for
// the translation memory's entries and image. The reader checks every length against what is
// left, so bytes from outside (a file, IndexedDB) can never make it read past their end.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "tformer/error.h"
#include "util/little_endian.h"

namespace tformer {

class ByteWriter {
 public:
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_ += char((v >> (8 * i)) & 0xff);
  }
  void u64(uint64_t v) {
    u32(uint32_t(v));
    u32(uint32_t(v >> 32));
  }
  void i32(int32_t v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u32(u);
  }
  void f32(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u32(u);
  }
  void string(const std::string& s) {
    u32(uint32_t(s.size()));
    out_ += s;
  }
  void raw(const std::string& s) { out_ += s; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads `bytes` in place: they must outlive the reader.
class ByteReader {
 public:
  explicit ByteReader(const std::string& bytes) : p_(reinterpret_cast<const uint8_t*>(bytes.data())), left_(bytes.size()) {}

  uint32_t u32() { return load_u32_le(take(4)); }
  uint64_t u64() { return load_u64_le(take(8)); }
  int32_t i32() { return load_i32_le(take(4)); }
  float f32() { return load_f32_le(take(4)); }
  std::string string() {
    const uint32_t n = u32();
    const uint8_t* at = take(n);
    return std::string(reinterpret_cast<const char*>(at), n);
  }
  // A count of items of at least `item_bytes` each, refused when the bytes left cannot hold them.
  uint32_t count(size_t item_bytes) {
    const uint32_t n = u32();
    if (item_bytes && n > left_ / item_bytes) throw Error("a count of " + std::to_string(n) + " is more than the bytes left hold");
    return n;
  }
  void skip(size_t n) { take(n); }
  size_t left() const { return left_; }

 private:
  const uint8_t* take(size_t n) {
    if (n > left_) throw Error("truncated: " + std::to_string(n) + " bytes wanted, " + std::to_string(left_) + " left");
    const uint8_t* at = p_;
    p_ += n;
    left_ -= n;
    return at;
  }

  const uint8_t* p_;
  size_t left_;
};

}  // namespace tformer

// The protocol buffer wire format (protobuf's encoding guide), for the SentencePiece messages the
// engine reads itself: Debian's SentencePiece installs no generated headers for its ModelProto
// and SentencePieceText. Each field is a varint key (number << 3 | wire type) and a payload whose
// size the wire type gives.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "tformer/error.h"

namespace tformer {

enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

class WireReader {
 public:
  // `what` starts the message of every error ("<what> (<the fault>)").
  WireReader(std::string_view message, std::string what) : s_(message), what_(std::move(what)) {}

  // The next field: false at the end of the message. `value` is set for varint fields,
  // `payload` for length-delimited ones; fixed-size ones are skipped.
  bool next(uint64_t& number, uint64_t& type, std::string_view& payload, uint64_t& value) {
    if (pos_ == s_.size()) return false;
    const uint64_t key = varint();
    number = key >> 3;
    type = key & 7;
    if (number == 0) fail("a field numbered 0");
    switch (type) {
      case kVarint: value = varint(); break;
      case kFixed64: skip(8); break;
      case kFixed32: skip(4); break;
      case kLengthDelimited: {
        const uint64_t n = varint();
        if (n > s_.size() - pos_) fail("a field runs past the end of its message");
        payload = s_.substr(pos_, size_t(n));
        pos_ += size_t(n);
        break;
      }
      default: fail("wire type " + std::to_string(type) + " (groups are not used by SentencePiece)");
    }
    return true;
  }

  [[noreturn]] void fail(const std::string& msg) const { throw Error(what_ + " (" + msg + ")"); }

 private:
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ == s_.size()) fail("truncated");
      const uint8_t b = uint8_t(s_[pos_++]);
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("a varint longer than 10 bytes");
  }
  void skip(size_t n) {
    if (n > s_.size() - pos_) fail("truncated");
    pos_ += n;
  }

  std::string_view s_;
  std::string what_;
  size_t pos_ = 0;
};

}  // namespace tformer

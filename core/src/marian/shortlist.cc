#include "marian/shortlist.h"

namespace tformer::marian {
namespace {

constexpr uint64_t kMagic = 0xF11A48D5013417F5ull;
constexpr size_t kHeaderBytes = 48;

uint64_t u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint32_t u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

}  // namespace

bool is_binary_shortlist(const uint8_t* data, size_t size) { return size >= 8 && u64(data) == kMagic; }

MarianShortlist read_shortlist(const uint8_t* data, size_t size, const std::string& what, size_t source_vocab,
                               size_t target_vocab, bool& checksum_ok) {
  auto bad = [&](const std::string& msg) { return Error(what + ": not a valid binary lexical shortlist: " + msg); };
  if (size < kHeaderBytes) throw bad("the file has " + std::to_string(size) + " bytes (truncated?)");
  if (u64(data) != kMagic) throw bad("wrong magic number (text shortlists are not supported)");
  MarianShortlist s;
  s.first = u64(data + 16);
  s.best = u64(data + 24);
  const uint64_t offsets = u64(data + 32);
  s.candidates = u64(data + 40);
  if (offsets < 1 || offsets > size / 8 || s.candidates > size / 4 ||
      kHeaderBytes + offsets * 8 + s.candidates * 4 != size) {
    throw bad("its header claims " + std::to_string(offsets) + " offsets and " + std::to_string(s.candidates) +
              " candidates, which do not make up the file's " + std::to_string(size) + " bytes");
  }
  s.source_words = offsets - 1;
  // marian-dev's hashMem<uint64_t, uint64_t>: boost's hash_combine over the u64 words after the
  // checksum field (std::hash of an integer is the integer itself).
  uint64_t seed = 0;
  for (size_t pos = 16; pos + 8 <= size; pos += 8) seed ^= u64(data + pos) + 0x9e3779b9 + (seed << 6) + (seed >> 2);
  checksum_ok = seed == u64(data + 8);
  if (s.source_words != source_vocab) {
    throw bad("it is made for a source vocabulary of " + std::to_string(s.source_words) +
              " pieces, the model's has " + std::to_string(source_vocab));
  }
  const uint8_t* offset = data + kHeaderBytes;
  const uint8_t* ids = offset + offsets * 8;
  uint64_t previous = 0;
  for (uint64_t i = 0; i < offsets; ++i) {
    const uint64_t o = u64(offset + 8 * i);
    if (o < previous || o > s.candidates || (i + 1 == offsets && o != s.candidates)) {
      throw bad("offset " + std::to_string(i) + " (" + std::to_string(o) + ") is out of order or out of range");
    }
    previous = o;
  }
  for (uint64_t j = 0; j < s.candidates; ++j) {
    const uint32_t id = u32(ids + 4 * j);
    if (id >= target_vocab) {
      throw bad("candidate " + std::to_string(j) + " is target id " + std::to_string(id) +
                ", beyond the target vocabulary of " + std::to_string(target_vocab));
    }
  }
  return s;
}

}  // namespace tformer::marian

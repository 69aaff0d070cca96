#include "decoding/shortlist.h"

#include <cstring>
#include <string>

#include "tformer/error.h"
#include "util/little_endian.h"

namespace tformer {
namespace {

constexpr uint64_t kMagic = 0xF11A48D5013417F5ull;
constexpr size_t kHeaderWords = 6;

[[noreturn]] void fail(const std::string& what) { throw Error("lexical shortlist: " + what); }

}  // namespace

bool LexicalShortlist::is_binary(const uint8_t* data, size_t size) {
  return data != nullptr && size >= 8 && load_u64_le(data) == kMagic;
}

uint64_t LexicalShortlist::checksum(const uint8_t* data, size_t size) {
  // util::hashMem<uint64_t, uint64_t>: every whole uint64 after magic and checksum.
  uint64_t seed = 0;
  for (size_t w = 2; w < size / 8; ++w) seed ^= load_u64_le(data + w * 8) + 0x9e3779b9ull + (seed << 6) + (seed >> 2);
  return seed;
}

LexicalShortlist::LexicalShortlist(const uint8_t* data, size_t size, int source_vocab, int target_vocab,
                                   bool shared_vocab)
    : target_vocab_(target_vocab), shared_(shared_vocab) {
  if (source_vocab <= 0 || target_vocab <= 0) fail("the model has no vocabulary");
  if (data == nullptr || size < kHeaderWords * 8)
    fail("the file is " + std::to_string(size) + " bytes, shorter than its 48-byte header");
  if (!is_binary(data, size)) fail("not a Marian binary shortlist (its first 8 bytes are not the magic number)");
  const uint64_t stored_checksum = load_u64_le(data + 8);
  first_num_ = load_u64_le(data + 16);
  best_num_ = load_u64_le(data + 24);
  const uint64_t offset_count = load_u64_le(data + 32), list_size = load_u64_le(data + 40);
  if (offset_count != uint64_t(source_vocab) + 1)
    fail("it has lists for " + std::to_string(offset_count ? offset_count - 1 : 0) +
         " source words, but the model's source vocabulary has " + std::to_string(source_vocab));
  if (shared_vocab && source_vocab != target_vocab) fail("a shared vocabulary of two sizes");
  const size_t remaining = size - kHeaderWords * 8;
  if (offset_count > remaining / 8 || list_size > (remaining - offset_count * 8) / 4 ||
      list_size * 4 != remaining - offset_count * 8)
    fail("the file is " + std::to_string(size) + " bytes, but its header describes " + std::to_string(offset_count) +
         " offsets and " + std::to_string(list_size) + " target ids (truncated or corrupted)");

  if (LexicalShortlist::checksum(data, size) != stored_checksum) fail("checksum mismatch (the file is corrupted)");

  const uint8_t* p = data + kHeaderWords * 8;
  offsets_.resize(size_t(offset_count));
  for (size_t i = 0; i < offsets_.size(); ++i) offsets_[i] = load_u64_le(p + i * 8);
  p += offsets_.size() * 8;
  if (offsets_.front() != 0 || offsets_.back() != list_size) fail("its offsets do not span its lists");
  for (size_t i = 0; i + 1 < offsets_.size(); ++i)
    if (offsets_[i] > offsets_[i + 1]) fail("its offsets decrease at source word " + std::to_string(i));
  lists_.resize(size_t(list_size));
  for (size_t j = 0; j < lists_.size(); ++j) {
    lists_[j] = load_u32_le(p + j * 4);
    if (lists_[j] >= uint32_t(target_vocab))
      fail("target id " + std::to_string(lists_[j]) + " is outside the model's target vocabulary of " +
           std::to_string(target_vocab));
  }
}

std::vector<int> LexicalShortlist::words(const int* source_ids, size_t count) const {
  if (empty()) throw Error("lexical shortlist: words() of an empty shortlist");
  const size_t V = size_t(target_vocab_), S = offsets_.size() - 1;
  std::vector<char> chosen(V, 0), seen(S, 0);
  for (size_t i = 0; i < first_num_ && i < V; ++i) chosen[i] = 1;
  for (size_t k = 0; k < count; ++k) {
    const int id = source_ids[k];
    if (id < 0 || size_t(id) >= S)
      throw Error("lexical shortlist: source id " + std::to_string(id) + " outside the source vocabulary");
    if (shared_) chosen[size_t(id)] = 1;
    if (seen[size_t(id)]) continue;
    seen[size_t(id)] = 1;
    for (uint64_t j = offsets_[size_t(id)]; j < offsets_[size_t(id) + 1]; ++j) chosen[lists_[size_t(j)]] = 1;
  }
  size_t ones = 0;
  for (char c : chosen) ones += size_t(c);
  for (size_t i = size_t(first_num_); i < V && ones % 8 != 0; ++i)
    if (!chosen[i]) {
      chosen[i] = 1;
      ++ones;
    }
  std::vector<int> out;
  out.reserve(ones);
  for (size_t i = 0; i < V; ++i)
    if (chosen[i]) out.push_back(int(i));
  return out;
}

}  // namespace tformer

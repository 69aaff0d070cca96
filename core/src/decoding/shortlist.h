// The lexical shortlist of Marian and Firefox Translations models (lex.*.s2t.bin): for each source
// word, the target words it usually translates to. Decoding a sentence then scores only the words
// its source words list (plus the most frequent ones), so the output projection, the largest
// product of a small model's decoder step, shrinks from the whole vocabulary to a few hundred
// rows.
//
// The file is Marian's binary shortlist (marian/src/data/shortlist.{h,cpp},
// BinaryShortlistGenerator): a header of six uint64 (magic 0xF11A48D5013417F5, checksum,
// firstNum, bestNum, wordToOffsetSize, shortListsSize), then wordToOffset [source vocabulary + 1]
// uint64, then shortLists [shortListsSize] uint32 target ids, every number little-endian. The
// checksum is Marian's util::hashMem over the uint64 words after the first two (boost's
// hash_combine with the identity hash of native 64-bit builds, which wrote every released file).
//
// words() follows BinaryShortlistGenerator::generate for a batch of one sentence, so that the
// engine scores exactly the words Bergamot scores when it translates that sentence alone: the
// firstNum most frequent target words, the source ids themselves when source and target share a
// vocabulary, every source word's list, then more ids from firstNum upwards until the count is a
// multiple of 8 (a rule Marian keeps for its int8 kernels), ascending. The engine applies it per
// sentence, also in batches of several sentences (where Marian takes the union over the batch),
// so a sentence's translation does not depend on the sentences batched with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tformer {

class LexicalShortlist {
 public:
  LexicalShortlist() = default;
  // Reads and checks the whole file (header, sizes, offsets, target ids, checksum) against the
  // model's vocabularies; throws tformer::Error saying what is wrong.
  LexicalShortlist(const uint8_t* data, size_t size, int source_vocab, int target_vocab, bool shared_vocab);

  // Whether the bytes start with the binary shortlist's magic number (Marian also reads a text
  // format, which this is not).
  static bool is_binary(const uint8_t* data, size_t size);
  // Marian's checksum of a whole file (what its second uint64 must hold).
  static uint64_t checksum(const uint8_t* data, size_t size);

  // The target ids to score for a sentence of source ids, sorted ascending.
  std::vector<int> words(const int* source_ids, size_t count) const;

  bool empty() const { return offsets_.empty(); }
  uint64_t first_num() const { return first_num_; }
  uint64_t best_num() const { return best_num_; }
  size_t entries() const { return lists_.size(); }  // (source word, target word) pairs
  bool shared_vocab() const { return shared_; }

 private:
  std::vector<uint64_t> offsets_;  // [source vocab + 1]
  std::vector<uint32_t> lists_;
  uint64_t first_num_ = 0, best_num_ = 0;
  int target_vocab_ = 0;
  bool shared_ = false;
};

}  // namespace tformer

#include "text/sentencepiece_check.h"

#include <sentencepiece_processor.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "text/protobuf_wire.h"
#include "tformer/error.h"
#include "util/little_endian.h"
#include "util/printable.h"

namespace tformer {
namespace {

// ---- the model proto --------------------------------------------------------------------------
// ModelProto, its SentencePiece and NormalizerSpec (sentencepiece src/sentencepiece_model.proto).
constexpr uint64_t kPieces = 1, kNormalizerSpec = 3, kDenormalizerSpec = 5;
constexpr uint64_t kPieceText = 1, kPrecompiledCharsmap = 2;

// ---- the precompiled charsmap --------------------------------------------------------------------
// Layout (sentencepiece Normalizer::EncodePrecompiledCharsMap): u32 trie size in bytes, the
// darts-clone double array (u32 units), then the replacement strings, each NUL-terminated.
// A unit (darts_clone DoubleArrayUnit): bit 8 has_leaf; label = bits 0-7 and bit 31 (set in leaf
// units, so that they never match a byte); offset = bits 10-31, shifted left by 8 when bit 9 is
// set; a leaf unit's value = bits 0-30, the position of its replacement string.
constexpr size_t kBlock = 256;          // darts-clone allocates units in blocks of 256
constexpr int kMaxMatchesOnAPath = 32;  // Normalizer::kMaxTrieResultsSize: its results array
constexpr size_t kMaxTrieBytes = size_t(8) << 20;

uint32_t offset_of(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }
uint32_t label_of(uint32_t u) { return u & ((1u << 31) | 0xFF); }
bool has_leaf(uint32_t u) { return (u >> 8) & 1; }
uint32_t value_of(uint32_t u) { return u & ((1u << 31) - 1); }

void check_charsmap(std::string_view blob, const std::string& what) {
  if (blob.empty()) return;  // no table: identity normalisation
  auto bad = [&](const std::string& msg) {
    return Error(what + ": the SentencePiece model's normalisation table (precompiled_charsmap) is corrupt: " + msg);
  };
  if (blob.size() < 4) throw bad("it has " + std::to_string(blob.size()) + " bytes");
  const uint32_t trie_bytes = load_u32_le(reinterpret_cast<const uint8_t*>(blob.data()));
  if (trie_bytes > blob.size() - 4) {
    throw bad("its trie claims " + std::to_string(trie_bytes) + " bytes, the table holds " + std::to_string(blob.size() - 4));
  }
  if (trie_bytes % (4 * kBlock) != 0 || trie_bytes == 0) {
    throw bad("its trie has " + std::to_string(trie_bytes) + " bytes, not whole blocks of 256 units");
  }
  if (trie_bytes > kMaxTrieBytes) throw bad("its trie has " + std::to_string(trie_bytes) + " bytes");
  const auto* trie = reinterpret_cast<const uint8_t*>(blob.data()) + 4;
  const std::string_view strings = blob.substr(4 + trie_bytes);
  const size_t units = trie_bytes / 4;
  auto unit = [&](size_t i) { return load_u32_le(trie + 4 * i); };
  // The replacement strings are read up to their NUL: a value must start before the last NUL.
  const size_t last_nul = strings.rfind('\0');

  // Every state reachable from the root: the normalizer reads unit (state ^ byte) for any input
  // byte, so the state's whole block must be in the array. A depth-first walk (explicit stack:
  // a crafted trie may be deep) also counts the matches (leaves) along the longest path, and
  // refuses a cycle, along which matches would be unbounded.
  enum : uint8_t { kNew, kOnPath, kDone };
  std::vector<uint8_t> state(units, kNew), matches(units, 0);
  struct Frame {
    size_t base;
    int next_byte;
    int most;       // matches along the longest path below this state so far
    bool via_leaf;  // whether the edge into this state is a match
  };
  auto enter = [&](std::vector<Frame>& path, size_t base, bool via_leaf) {
    if ((base | (kBlock - 1)) >= units) throw bad("a state of its trie lies outside the trie");
    state[base] = kOnPath;
    path.push_back({base, 0, 0, via_leaf});
  };
  std::vector<Frame> path;
  enter(path, offset_of(unit(0)), false);
  while (!path.empty()) {
    Frame& f = path.back();
    if (f.next_byte == 256) {
      const Frame done = f;
      path.pop_back();
      state[done.base] = kDone;
      matches[done.base] = uint8_t(done.most);
      if (!path.empty()) path.back().most = std::max(path.back().most, done.most + int(done.via_leaf));
      if (done.most + int(done.via_leaf) > kMaxMatchesOnAPath) {
        throw bad("an input would meet more than " + std::to_string(kMaxMatchesOnAPath) + " matches");
      }
      continue;
    }
    // The next byte with a transition (most bytes have none: a tight scan).
    uint32_t byte = uint32_t(f.next_byte);
    while (byte < 256 && label_of(unit(f.base ^ byte)) != byte) ++byte;
    f.next_byte = int(byte) + 1;
    if (byte == 256) {
      f.next_byte = 256;
      continue;
    }
    const size_t pos = f.base ^ byte;
    const uint32_t u = unit(pos);
    const size_t child = pos ^ offset_of(u);
    const bool leaf = has_leaf(u);
    if (leaf) {
      if (child >= units) throw bad("a match of its trie lies outside the trie");
      const uint32_t value = value_of(unit(child));
      if (last_nul == std::string_view::npos || value > last_nul) {
        throw bad("a replacement points outside its strings (at " + std::to_string(value) + " of " +
                  std::to_string(strings.size()) + " bytes)");
      }
    }
    if (child < units && state[child] == kOnPath) throw bad("its trie has a cycle");
    if (child < units && state[child] == kDone) {
      f.most = std::max(f.most, int(matches[child]) + int(leaf));
      if (f.most > kMaxMatchesOnAPath) {
        throw bad("an input would meet more than " + std::to_string(kMaxMatchesOnAPath) + " matches");
      }
      continue;
    }
    enter(path, child, leaf);
  }
}

}  // namespace

void check_sentencepiece_model(std::string_view model, const std::string& what) {
  if (model.size() > kMaxSentencePieceModelBytes) {
    throw Error(what + ": a SentencePiece model of " + std::to_string(model.size()) + " bytes (more than " +
                std::to_string(kMaxSentencePieceModelBytes >> 20) + " MiB; not a vocabulary)");
  }
  // A message's field may occur more than once (protobuf merges them); each charsmap found is
  // checked, so that whichever SentencePiece keeps is safe.
  const std::string not_a_model = what + ": not a SentencePiece model";
  WireReader proto(model, not_a_model);
  uint64_t number = 0, type = 0, value = 0;
  std::string_view payload;
  size_t piece = 0;
  while (proto.next(number, type, payload, value)) {
    if (number == kPieces && type == kLengthDelimited) {
      // SentencePiece builds darts-clone tries of the pieces, which take C strings: a NUL byte in
      // a piece makes darts throw from inside SentencePiece's loader.
      WireReader fields(payload, not_a_model);
      uint64_t n = 0, t = 0, v = 0;
      std::string_view text;
      while (fields.next(n, t, text, v)) {
        if (n == kPieceText && t == kLengthDelimited && text.find('\0') != std::string_view::npos) {
          throw Error(what + ": not a SentencePiece model (piece " + std::to_string(piece) + " holds a NUL byte)");
        }
      }
      ++piece;
      continue;
    }
    if ((number != kNormalizerSpec && number != kDenormalizerSpec) || type != kLengthDelimited) continue;
    WireReader spec(payload, not_a_model);
    uint64_t n = 0, t = 0, v = 0;
    std::string_view field;
    while (spec.next(n, t, field, v)) {
      if (n == kPrecompiledCharsmap && t == kLengthDelimited) check_charsmap(field, what);
    }
  }
}

void load_sentencepiece(sentencepiece::SentencePieceProcessor& processor, std::string_view model,
                        const std::string& what) {
  check_sentencepiece_model(model, what);
  std::string refusal;
  try {
    const auto status = processor.LoadFromSerializedProto(absl::string_view(model.data(), model.size()));
    if (!status.ok()) refusal = status.ToString();
  } catch (const std::exception& e) {  // darts-clone throws from inside SentencePiece's loader
    refusal = e.what();
  }
  if (!refusal.empty()) throw Error(what + ": not a SentencePiece model (" + printable(refusal) + ")");
}

}  // namespace tformer

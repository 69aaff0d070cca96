// SentencePiece models for the tests, written here rather than by the code under test: a model
// proto with its normalizer's (or denormalizer's) precompiled_charsmap replaced, at the protobuf
// wire level (field 3 or 5 of ModelProto, field 2 of NormalizerSpec), and darts-clone tries built
// unit by unit (the layout of darts_clone/darts.h, as sentencepiece/src/normalizer.cc reads it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tformer::testing {

inline void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char(0x80 | (v & 0x7F)));
    v >>= 7;
  }
  out.push_back(char(v));
}

inline uint64_t get_varint(const std::string& s, size_t& pos) {
  uint64_t v = 0;
  for (int shift = 0; pos < s.size(); shift += 7) {
    const uint8_t b = uint8_t(s[pos++]);
    v |= uint64_t(b & 0x7F) << shift;
    if (!(b & 0x80)) break;
  }
  return v;
}

// A length-delimited field.
inline std::string field(uint64_t number, const std::string& payload) {
  std::string out;
  put_varint(out, number << 3 | 2);
  put_varint(out, payload.size());
  return out + payload;
}

// `model` (a serialized ModelProto) with the charsmap of its normalizer spec (3) or denormalizer
// spec (5) replaced by `charsmap`; the spec's other fields are kept.
inline std::string with_charsmap(const std::string& model, const std::string& charsmap, uint64_t spec = 3) {
  std::string out, spec_payload;
  size_t pos = 0;
  while (pos < model.size()) {
    const size_t start = pos;
    const uint64_t key = get_varint(model, pos);
    const uint64_t type = key & 7;
    if (type == 0) get_varint(model, pos);
    else if (type == 1) pos += 8;
    else if (type == 5) pos += 4;
    else pos += size_t(get_varint(model, pos));  // type 2
    const std::string whole = model.substr(start, pos - start);
    if ((key >> 3) != spec || type != 2) {
      out += whole;
      continue;
    }
    // Keep the spec's fields other than the charsmap.
    size_t p = 0;
    get_varint(whole, p);  // the key
    const size_t length = size_t(get_varint(whole, p));
    const std::string payload = whole.substr(p, length);
    for (size_t q = 0; q < payload.size();) {
      const size_t s = q;
      const uint64_t k = get_varint(payload, q);
      if ((k & 7) == 0) get_varint(payload, q);
      else if ((k & 7) == 1) q += 8;
      else if ((k & 7) == 5) q += 4;
      else q += size_t(get_varint(payload, q));
      if ((k >> 3) != 2) spec_payload += payload.substr(s, q - s);
    }
  }
  return out + field(spec, spec_payload + field(2, charsmap));
}

// A charsmap: u32 trie size, the units, then the replacement strings.
inline std::string charsmap_bytes(const std::vector<uint32_t>& units, const std::string& strings) {
  std::string out;
  auto put32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(char(v >> (8 * i)));
  };
  put32(uint32_t(units.size() * 4));
  for (uint32_t u : units) put32(u);
  return out + strings;
}

// darts-clone units. A unit that never matches a byte: bit 31 set (leaf units carry it too).
constexpr uint32_t kNoMatch = 1u << 31;
inline uint32_t node_unit(uint8_t label, uint32_t offset, bool has_leaf) {
  return label | (has_leaf ? 1u << 8 : 0u) | (offset << 10);  // offsets below 2^21
}
inline uint32_t leaf_unit(uint32_t value) { return kNoMatch | value; }

// A trie of one rule, `from` (one byte) -> strings[value]: the root's state at unit 256, the
// state after `from` at unit 512, three blocks of 256 units.
inline std::vector<uint32_t> one_rule_trie(uint8_t from, uint32_t value) {
  std::vector<uint32_t> u(768, kNoMatch);
  u[0] = node_unit(0, 256, false);                                   // the root: state 256
  u[256 ^ from] = node_unit(from, (256u ^ from) ^ 512u, true);       // `from` -> state 512, a match
  u[512] = leaf_unit(value);                                         // the match's replacement
  return u;
}

// A chain of `n` matches: state 256k --`from`--> state 256(k+1), each a match.
inline std::vector<uint32_t> chain_trie(uint8_t from, int n) {
  std::vector<uint32_t> u(size_t(256) * (n + 2), kNoMatch);
  u[0] = node_unit(0, 256, false);
  for (int k = 1; k <= n; ++k) {
    const uint32_t state = 256u * k, next = 256u * (k + 1);
    u[state ^ from] = node_unit(from, (state ^ from) ^ next, true);
    u[next] = leaf_unit(0);
  }
  return u;
}

}  // namespace tformer::testing

#include "memory/sentence_entry.h"

#include "memory/byte_io.h"
#include "tformer/catalog.h"

namespace tformer {
namespace {

// A field added to one of these structs must be written and read here too, or a hit would answer
// without it: the sizes below stop the native build (libstdc++, 64-bit) until it is.
#if defined(__GLIBCXX__) && __SIZEOF_POINTER__ == 8
// SentenceTranslation::confidence is not stored: a request that asks for it does not use the memory.
static_assert(sizeof(SentenceTranslation) == 256, "a new SentenceTranslation field: store it in encode_entry()");
static_assert(sizeof(Hypothesis) == 64, "a new Hypothesis field: store it in encode_entry()");
static_assert(sizeof(TranslationBytes) == 88, "a new TranslationBytes field: store it in encode_entry()");
static_assert(sizeof(PutBack) == 40, "a new PutBack field: store it in encode_entry()");
#endif

constexpr uint32_t kEntryVersion = 2;  // 2: the sentences' token byte ranges

void write_ids(ByteWriter& w, const std::vector<int>& ids) {
  w.u32(uint32_t(ids.size()));
  for (int id : ids) w.i32(id);
}

void write_strings(ByteWriter& w, const std::vector<std::string>& strings) {
  w.u32(uint32_t(strings.size()));
  for (const std::string& s : strings) w.string(s);
}

void write_range(ByteWriter& w, const ByteRange& r) {
  w.u64(r.begin);
  w.u64(r.end);
}

std::vector<int> read_ids(ByteReader& r, int vocab) {
  std::vector<int> ids(r.count(4));
  for (int& id : ids) {
    id = r.i32();
    if (id < 0 || id >= vocab) throw Error("token id " + std::to_string(id) + " outside the vocabulary");
  }
  return ids;
}

std::vector<std::string> read_strings(ByteReader& r) {
  std::vector<std::string> out(r.count(4));
  for (std::string& s : out) s = r.string();
  return out;
}

ByteRange read_range(ByteReader& r, size_t limit) {
  ByteRange b;
  b.begin = size_t(r.u64());
  b.end = size_t(r.u64());
  if (b.begin > b.end || b.end > limit) throw Error("a byte range outside its text");
  return b;
}

void write_ranges(ByteWriter& w, const std::vector<ByteRange>& ranges) {
  w.u32(uint32_t(ranges.size()));
  for (const ByteRange& r : ranges) write_range(w, r);
}

std::vector<ByteRange> read_ranges(ByteReader& r, size_t limit) {
  std::vector<ByteRange> out(r.count(16));
  for (ByteRange& b : out) b = read_range(r, limit);
  return out;
}

}  // namespace

std::string sentence_key(const std::string& model_identity, const std::string& options_fingerprint, const Segment& u,
                         const std::string& text) {
  ByteWriter w;
  w.string(model_identity);
  w.string(options_fingerprint);
  w.string(text.substr(u.begin, u.end - u.begin));
  w.string(u.text);
  write_ids(w, u.source);
  w.u32(uint32_t(u.source_tokens.size()));
  for (const ByteRange& r : u.source_tokens) write_range(w, r);
  const std::string material = w.take();
  return catalog::sha256_hex(reinterpret_cast<const uint8_t*>(material.data()), material.size());
}

std::string encode_entry(const SentenceTranslation& s, const TranslationBytes* bytes) {
  ByteWriter w;
  w.u32(kEntryVersion);
  w.string(s.source);
  write_ids(w, s.source_tokens);
  write_strings(w, s.source_pieces);
  write_strings(w, s.target_pieces);
  w.u32(uint32_t(s.hypotheses.size()));
  for (const Hypothesis& h : s.hypotheses) {
    w.string(h.text);
    write_ids(w, h.tokens);
    w.f32(h.score);
  }
  w.u32(uint32_t(s.alignment.size()));
  for (float a : s.alignment) w.f32(a);
  write_ranges(w, s.source_ranges);
  write_ranges(w, s.target_ranges);
  w.u32(bytes ? 1 : 0);
  if (bytes) {
    w.string(bytes->model.text);
    w.u32(uint32_t(bytes->model.tokens.size()));
    for (const ByteRange& r : bytes->model.tokens) write_range(w, r);
    w.u32(uint32_t(bytes->put_back.size()));
    for (const PutBack& p : bytes->put_back) {
      w.u64(p.position);
      w.u64(p.length);
      write_range(w, p.text);
      w.u64(p.from);
    }
    w.u32(bytes->verbatim ? 1 : 0);
  }
  return w.take();
}

std::optional<SentenceEntry> decode_entry(const std::string& value, const Segment& u, const ModelConfig& config) {
  try {
    ByteReader r(value);
    if (r.u32() != kEntryVersion) return std::nullopt;
    SentenceEntry e;
    SentenceTranslation& s = e.sentence;
    s.source = r.string();
    s.source_tokens = read_ids(r, config.vocab_size);
    s.source_pieces = read_strings(r);
    s.target_pieces = read_strings(r);
    // It must answer this very segment.
    if (s.source != u.text || s.source_tokens != u.source || s.source_pieces.size() != u.source.size())
      return std::nullopt;
    s.hypotheses.resize(r.count(12));
    if (s.hypotheses.empty()) return std::nullopt;
    for (Hypothesis& h : s.hypotheses) {
      h.text = r.string();
      h.tokens = read_ids(r, config.vocab_size);
      h.score = r.f32();
    }
    const Hypothesis& best = s.hypotheses[0];
    if (s.target_pieces.size() != best.tokens.size()) return std::nullopt;
    s.alignment.resize(r.count(4));
    for (float& a : s.alignment) a = r.f32();
    if (!s.alignment.empty() && s.alignment.size() != best.tokens.size() * s.source_tokens.size()) return std::nullopt;
    s.source_ranges = read_ranges(r, s.source.size());
    s.target_ranges = read_ranges(r, best.text.size());
    if (r.u32() == 1) {
      TranslationBytes& b = e.bytes;
      b.model.text = r.string();
      b.model.tokens.resize(r.count(16));
      size_t last = 0;
      for (ByteRange& t : b.model.tokens) {
        t = read_range(r, b.model.text.size());
        if (t.begin < last) return std::nullopt;  // ranges follow each other
        last = t.end;
      }
      b.put_back.resize(r.count(40));
      size_t added = 0;
      for (PutBack& p : b.put_back) {
        p.position = size_t(r.u64());
        p.length = size_t(r.u64());
        p.text = read_range(r, best.text.size());
        p.from = size_t(r.u64());
        if (p.position > b.model.text.size() || p.length > best.text.size() || p.from > u.end - u.begin) return std::nullopt;
        added += p.length;
      }
      if (added > best.text.size()) return std::nullopt;
      b.verbatim = r.u32() == 1;
    }
    if (r.left() != 0) return std::nullopt;
    return e;
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace tformer

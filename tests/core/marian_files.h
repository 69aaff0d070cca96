// Marian model files written in memory for the importer's tests: a .bin writer that follows
// marian-dev's binary.cpp layout on its own (not the importer's reader), gzip and zip writers
// (zlib; the zip layout of PKWARE's APPNOTE, so that entries can claim any size or share data),
// and the fixture model (tests/fixtures/marian, from the PyTorch reference) spelled out as Marian
// parameters with a hand-written name map.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "model/model_file.h"
#include "tformer/error.h"
#include "tformer/marian.h"

namespace tformer::testing {


struct BinItem {
  std::string name;
  uint64_t type;  // Marian's type code: 0x0404 float32, 0x0101 int8, 0x4101 intgemm8, ...
  std::vector<int32_t> shape;
  std::vector<uint8_t> data;
};

inline void put64(std::vector<uint8_t>& o, uint64_t v) {
  for (int i = 0; i < 8; ++i) o.push_back(uint8_t(v >> (8 * i)));
}

inline std::vector<uint8_t> write_bin(const std::vector<BinItem>& items) {
  auto padded = [](size_t n) { return (n + 255) / 256 * 256; };  // each item's data fills 256-byte blocks
  std::vector<uint8_t> out;
  put64(out, 1);
  put64(out, items.size());
  for (const auto& it : items) {
    put64(out, it.name.size() + 1);
    put64(out, it.type);
    put64(out, it.shape.size());
    put64(out, padded(it.data.size()));
  }
  for (const auto& it : items) {
    out.insert(out.end(), it.name.begin(), it.name.end());
    out.push_back(0);
  }
  for (const auto& it : items) {
    for (int32_t d : it.shape) {
      for (int i = 0; i < 4; ++i) out.push_back(uint8_t(uint32_t(d) >> (8 * i)));
    }
  }
  const uint64_t pos = out.size();
  const uint64_t next = ((pos + 8) / 256 + 1) * 256;
  put64(out, next - pos - 8);
  out.resize(next, 0);
  for (const auto& it : items) {
    out.insert(out.end(), it.data.begin(), it.data.end());
    out.resize(out.size() + padded(it.data.size()) - it.data.size(), 0);
  }
  return out;
}

inline BinItem f32_item(const std::string& name, std::vector<int32_t> shape, const std::vector<float>& v) {
  BinItem it{name, 0x0404, std::move(shape), std::vector<uint8_t>(v.size() * 4)};
  std::memcpy(it.data.data(), v.data(), it.data.size());
  return it;
}

inline BinItem text_item(const std::string& name, const std::string& text) {
  BinItem it{name, 0x0101, {int32_t(text.size() + 1)}, std::vector<uint8_t>(text.begin(), text.end())};
  it.data.push_back(0);
  return it;
}

// zlib's deflate of `data` at `level`: windowBits 16 + MAX_WBITS writes a gzip file,
// -MAX_WBITS a raw deflate stream (a zip entry's body).
inline std::vector<uint8_t> deflate_bytes(const std::vector<uint8_t>& data, int level, int window_bits) {
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> out(deflateBound(&zs, uLong(data.size())) + 32);
  zs.next_in = const_cast<Bytef*>(data.data());
  zs.avail_in = uInt(data.size());
  zs.next_out = out.data();
  zs.avail_out = uInt(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

inline std::vector<uint8_t> gzip_bytes(const std::vector<uint8_t>& data) { return deflate_bytes(data, 6, 16 + MAX_WBITS); }

inline std::vector<uint8_t> deflate_raw(const std::vector<uint8_t>& data) { return deflate_bytes(data, 9, -MAX_WBITS); }

// The message of the tformer::Error an import of `files` raises, or "no error".
inline std::string import_error(const std::vector<MarianFile>& files, const MarianImportOptions& o = {}) {
  try {
    import_marian(files, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// One entry of a zip file as written: its name, its data as stored (deflated unless `stored`),
// and what the directory says of it. `shares` >= 0: no data of its own, the directory points at
// entry `shares`' local header (a zip bomb's trick).
struct ZipEntry {
  std::string name;
  std::vector<uint8_t> data;
  uint64_t uncompressed = 0;
  uint32_t crc = 0;
  bool stored = false;
  int shares = -1;
};

inline ZipEntry zip_entry(const std::string& name, const std::vector<uint8_t>& content) {
  ZipEntry e{name, deflate_raw(content), content.size(), uint32_t(crc32(0, content.data(), uInt(content.size()))), false, -1};
  return e;
}

inline std::vector<uint8_t> write_zip(const std::vector<ZipEntry>& entries) {
  std::vector<uint8_t> out, dir;
  auto put = [](std::vector<uint8_t>& o, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) o.push_back(uint8_t(v >> (8 * i)));
  };
  std::vector<uint32_t> offsets;
  for (const ZipEntry& e : entries) {
    if (e.shares >= 0) {
      offsets.push_back(offsets[size_t(e.shares)]);
      continue;
    }
    offsets.push_back(uint32_t(out.size()));
    put(out, 0x04034b50, 4);
    put(out, 20, 2);
    put(out, 0, 2);
    put(out, e.stored ? 0 : 8, 2);
    put(out, 0, 4);  // time, date
    put(out, e.crc, 4);
    put(out, e.data.size(), 4);
    put(out, uint32_t(e.uncompressed), 4);
    put(out, e.name.size(), 2);
    put(out, 0, 2);
    out.insert(out.end(), e.name.begin(), e.name.end());
    out.insert(out.end(), e.data.begin(), e.data.end());
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const ZipEntry& e = entries[i];
    const ZipEntry& d = e.shares >= 0 ? entries[size_t(e.shares)] : e;
    put(dir, 0x02014b50, 4);
    put(dir, 20, 2);
    put(dir, 20, 2);
    put(dir, 0, 2);
    put(dir, d.stored ? 0 : 8, 2);
    put(dir, 0, 4);
    put(dir, d.crc, 4);
    put(dir, d.data.size(), 4);
    put(dir, uint32_t(e.uncompressed), 4);
    put(dir, e.name.size(), 2);
    put(dir, 0, 2);
    put(dir, 0, 2);
    put(dir, 0, 2);
    put(dir, 0, 2);
    put(dir, 0, 4);
    put(dir, offsets[i], 4);
    dir.insert(dir.end(), e.name.begin(), e.name.end());
  }
  const uint32_t dir_offset = uint32_t(out.size());
  out.insert(out.end(), dir.begin(), dir.end());
  put(out, 0x06054b50, 4);
  put(out, 0, 4);
  put(out, entries.size(), 2);
  put(out, entries.size(), 2);
  put(out, dir.size(), 4);
  put(out, dir_offset, 4);
  put(out, 0, 2);
  return out;
}

// The Marian options of the fixture model (tests/fixtures/marian: d 32, 4 heads, ffn 64, 2+2
// layers, post-norm, relu, all embeddings tied).
inline std::string fixture_options() {
  return "type: transformer\ndim-emb: 32\nenc-depth: 2\ndec-depth: 2\ntransformer-heads: 4\n"
         "transformer-dim-ffn: 64\ntransformer-ffn-activation: relu\ntransformer-preprocess: \"\"\n"
         "transformer-postprocess: dan\ntransformer-postprocess-top: \"\"\ntied-embeddings-all: true\n"
         "dim-vocabs:\n  - 256\n  - 256\n";
}

// Marian's name of a fixture tensor ("" when it has none), and whether it is stored transposed.
inline std::string marian_name(const std::string& t, bool& transposed) {
  static const std::regex layer(R"((encoder|decoder)\.layers\.(\d+)\.(self_attn|cross_attn|ffn)\.?(q|k|v|o|w1|w2)?\.?(weight|bias)?)");
  static const std::regex norm(R"((encoder|decoder)\.layers\.(\d+)\.(self_attn_norm|cross_attn_norm|ffn_norm)\.(weight|bias))");
  transposed = false;
  if (t == "embedding.weight") return "Wemb";
  if (t == "output_bias") return "decoder_ff_logit_out_b";
  std::smatch m;
  if (std::regex_match(t, m, norm)) {
    const std::string L = m[1].str() + "_l" + std::to_string(std::stoi(m[2]) + 1);
    const std::string block = m[3] == "self_attn_norm" ? "_self_Wo" : m[3] == "cross_attn_norm" ? "_context_Wo" : "_ffn_ffn";
    return L + block + (m[4] == "weight" ? "_ln_scale" : "_ln_bias");
  }
  if (std::regex_match(t, m, layer)) {
    const std::string L = m[1].str() + "_l" + std::to_string(std::stoi(m[2]) + 1);
    const bool weight = m[5] == "weight";
    transposed = weight;
    if (m[3] == "ffn") return L + "_ffn_" + (weight ? "W" : "b") + (m[4] == "w1" ? "1" : "2");
    return L + (m[3] == "self_attn" ? "_self_" : "_context_") + (weight ? "W" : "b") + m[4].str();
  }
  return "";
}

// The fixture model's parameters as Marian items (float32, no special:model.yml) and its
// SentencePiece model.
inline std::vector<BinItem> fixture_marian_items(const std::string& model_path, std::string& spm) {
  const ModelFile f = ModelFile::from_path(model_path);
  std::vector<BinItem> items;
  for (const auto& t : f.tensors()) {
    bool transposed = false;
    const std::string name = marian_name(t.name, transposed);
    if (name.empty()) continue;
    std::vector<float> v = f.floats(t.name, t.shape);
    if (t.shape.size() == 1) {
      items.push_back(f32_item(name, {1, int32_t(t.shape[0])}, v));
    } else if (transposed) {
      const int64_t rows = t.shape[0], cols = t.shape[1];
      std::vector<float> w(v.size());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) w[size_t(c * rows + r)] = v[size_t(r * cols + c)];
      items.push_back(f32_item(name, {int32_t(cols), int32_t(rows)}, w));
    } else {
      items.push_back(f32_item(name, {int32_t(t.shape[0]), int32_t(t.shape[1])}, v));
    }
  }
  spm = f.bytes_of(f.tokenizer().source);
  return items;
}

// A small transformer's parameters as Marian names them (post-norm, all embeddings tied, an output
// bias; d 8, 2 heads, ffn 16, one encoder and one decoder layer) for a vocabulary of `vocab`
// pieces, with made-up values, and its options: a model that imports quickly (the fuzzers).
inline std::string tiny_options(int vocab) {
  return "type: transformer\ndim-emb: 8\nenc-depth: 1\ndec-depth: 1\ntransformer-heads: 2\n"
         "transformer-dim-ffn: 16\ntransformer-ffn-activation: relu\ntied-embeddings-all: true\n"
         "dim-vocabs: [" + std::to_string(vocab) + ", " + std::to_string(vocab) + "]\n";
}

inline std::vector<BinItem> tiny_marian_items(int vocab) {
  const int d = 8, ffn = 16;
  std::vector<BinItem> items;
  auto add = [&](const std::string& name, std::vector<int32_t> shape) {
    size_t n = 1;
    for (int32_t x : shape) n *= size_t(x);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = float((i * 7919 + name.size() * 31) % 17) / 17.0f - 0.5f;
    items.push_back(f32_item(name, std::move(shape), v));
  };
  add("Wemb", {vocab, d});
  auto attention = [&](const std::string& m) {
    for (const char* p : {"q", "k", "v", "o"}) {
      add(m + "_W" + p, {d, d});
      add(m + "_b" + p, {1, d});
    }
    add(m + "_Wo_ln_scale", {1, d});
    add(m + "_Wo_ln_bias", {1, d});
  };
  auto feed_forward = [&](const std::string& m) {
    add(m + "_W1", {d, ffn});
    add(m + "_b1", {1, ffn});
    add(m + "_W2", {ffn, d});
    add(m + "_b2", {1, d});
    add(m + "_ffn_ln_scale", {1, d});
    add(m + "_ffn_ln_bias", {1, d});
  };
  attention("encoder_l1_self");
  feed_forward("encoder_l1_ffn");
  attention("decoder_l1_self");
  attention("decoder_l1_context");
  feed_forward("decoder_l1_ffn");
  add("decoder_ff_logit_out_b", {1, vocab});
  return items;
}

#ifdef TFORMER_FIXTURES_DIR
// The fixture model as a Marian .bin (float32) plus its SentencePiece vocabulary.
inline std::vector<MarianFile> fixture_as_marian(const std::string& options = fixture_options()) {
  std::string spm;
  std::vector<BinItem> items = fixture_marian_items(std::string(TFORMER_FIXTURES_DIR) + "/marian/model.tfm", spm);
  items.push_back(text_item("special:model.yml", options));
  return {{"model.deen.bin", write_bin(items)}, {"vocab.deen.spm", std::vector<uint8_t>(spm.begin(), spm.end())}};
}
#endif

}  // namespace tformer::testing

// import_marian: the steps of models/tformer/marian.py's import_marian, in the same order and by
// the same rules: find the files (discover), read the model's items, options and vocabularies,
// validate them against each other, convert the parameters to the engine's tensors, cast them to
// the requested precision, and write the .tfm with the same tensors, config and metadata.
#include <fnmatch.h>
#include <sentencepiece_processor.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <set>

#include "decoding/shortlist.h"
#include "marian/architecture.h"
#include "marian/bin.h"
#include "marian/items.h"
#include "marian/npz.h"
#include "marian/tfm_writer.h"
#include "marian/yaml.h"
#include "tformer/marian.h"
#include "util/half.h"
#include "util/little_endian.h"

namespace tformer {
namespace marian {
namespace {

constexpr float kNegInf = -HUGE_VALF;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string basename(const std::string& path) {
  const size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
// A file's name in the folder: its last path component, without .gz (a .gz copy is known by the
// name of what it holds).
std::string logical_name(const std::string& path) {
  std::string n = basename(path);
  if (n.size() > 3 && ends_with(lower(n), ".gz")) n = n.substr(0, n.size() - 3);
  return n;
}
std::string stem(const std::string& name) {  // os.path.splitext(name)[0]
  const size_t dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}
std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// ---- the folder --------------------------------------------------------------------------------
// The files by name; a `.gz` copy is known by its name without `.gz` and decompressed when first
// read (a plain file of the same name wins).
class Folder {
 public:
  explicit Folder(const std::vector<MarianFile>& files) {
    for (const MarianFile& f : files) {
      std::string name = basename(f.name);
      if (name.empty()) throw Error("a model file has an empty name");
      const bool gz = ends_with(lower(name), ".gz") && name.size() > 3;
      if (gz) name = name.substr(0, name.size() - 3);
      auto it = files_.find(name);
      if (it != files_.end()) {
        if (it->second.gz == gz) throw Error("two files are named " + basename(f.name));
        if (gz) continue;  // the plain file is there already
      }
      files_[name] = Entry{&f, gz, nullptr};
    }
  }

  bool has(const std::string& name) const { return files_.count(name) != 0; }

  // Names matching a glob pattern (Python's glob: '*' does not match a leading dot), sorted.
  std::vector<std::string> glob(const std::string& pattern) const {
    std::vector<std::string> out;
    for (const auto& [name, e] : files_) {
      if (fnmatch(pattern.c_str(), name.c_str(), FNM_PERIOD) == 0) out.push_back(name);
    }
    return out;
  }
  // marian.py's _find: several patterns, in order, each name once.
  std::vector<std::string> find(std::initializer_list<const char*> patterns) const {
    std::vector<std::string> out;
    for (const char* p : patterns) {
      for (auto& n : glob(p)) {
        if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
      }
    }
    return out;
  }

  // The content (decompressed for a .gz copy).
  std::pair<const uint8_t*, size_t> bytes(const std::string& name) {
    Entry& e = files_.at(name);
    if (!e.gz) return {e.file->bytes.data(), e.file->bytes.size()};
    if (!e.inflated) {
      e.inflated = std::make_shared<std::vector<uint8_t>>(
          gunzip(e.file->bytes.data(), e.file->bytes.size(), basename(e.file->name)));
    }
    return {e.inflated->data(), e.inflated->size()};
  }
  std::string text(const std::string& name) {
    auto [p, n] = bytes(name);
    return std::string(reinterpret_cast<const char*>(p), n);
  }

 private:
  struct Entry {
    const MarianFile* file;
    bool gz;
    std::shared_ptr<std::vector<uint8_t>> inflated;
  };
  std::map<std::string, Entry> files_;
};

// ---- vocabularies ------------------------------------------------------------------------------
struct Vocab {
  std::string spm_name, table_name;  // table_name empty: SentencePiece ids
  std::string spm_bytes;
  std::vector<std::string> table;
  bool has_table = false;
  int eos_id = 0, unk_id = 0;
  size_t size() const { return has_table ? table.size() : piece_count; }
  size_t piece_count = 0;
  bool same_as(const Vocab& o) const { return spm_bytes == o.spm_bytes && table == o.table && has_table == o.has_table; }
};

Vocab read_vocab(Folder& folder, const std::string& spm, const std::string& table) {
  Vocab v;
  v.spm_name = spm;
  v.table_name = table;
  v.spm_bytes = folder.text(spm);
  sentencepiece::SentencePieceProcessor sp;
  const auto status = sp.LoadFromSerializedProto(v.spm_bytes);
  if (!status.ok()) throw Error(spm + ": not a SentencePiece model (" + status.ToString() + ")");
  if (!table.empty()) {
    v.has_table = true;
    v.table = read_vocab_yml(folder.text(table), table);
    int eos = -1, unk = -1;
    for (size_t i = 0; i < v.table.size(); ++i) {
      if (v.table[i] == "</s>" && eos < 0) eos = int(i);
      if (v.table[i] == "<unk>" && unk < 0) unk = int(i);
    }
    // Python's {piece: i} keeps the last id of a piece listed twice.
    for (size_t i = 0; i < v.table.size(); ++i) {
      if (v.table[i] == "</s>") eos = int(i);
      if (v.table[i] == "<unk>") unk = int(i);
    }
    if (eos < 0) throw Error(table + ": the vocabulary has no </s> entry (Marian requires it)");
    if (unk < 0) throw Error(table + ": the vocabulary has no <unk> entry (Marian requires it)");
    v.eos_id = eos;
    v.unk_id = unk;
  } else {
    v.piece_count = static_cast<size_t>(sp.GetPieceSize());
    v.eos_id = sp.PieceToId("</s>");
    v.unk_id = sp.unk_id();
    if (v.eos_id == v.unk_id) throw Error(spm + ": the SentencePiece model has no </s> piece (Marian requires it)");
  }
  return v;
}

// ---- discovery (marian.py's discover) ----------------------------------------------------------
struct Found {
  std::string model;
  std::vector<std::pair<std::string, std::string>> sides;  // (spm, table or "")
  Json decoder = Json::object();
  Json config = Json::object();
  std::vector<std::string> shortlists;
};

std::string listed_name(const Json& v, const char* what) {
  if (!v.is_string()) throw Error(std::string(what) + " lists " + repr(v) + ", not a file name");
  return logical_name(v.get<std::string>());
}

Found discover(Folder& folder, const MarianImportOptions& opt) {
  Found f;
  for (const char* name : {"decoder.yml", "config.yml", "config.intgemm8bitalpha.yml"}) {
    if (folder.has(name)) {
      f.decoder = parse_options(folder.text(name), name);
      break;
    }
  }
  std::string model = logical_name(opt.model);
  if (model.empty()) {
    const Json listed = f.decoder.contains("models") ? f.decoder["models"] : Json();
    if (truthy(listed)) {
      model = listed_name(listed.is_array() ? listed[0] : listed, "decoder.yml: models");
    } else {
      // Firefox Translations folders also hold a lexical shortlist (lex.*.s2t.bin) and maybe a
      // quality model (qualityModel.*.bin): not translation models.
      std::vector<std::string> cands;
      for (auto& c : folder.find({"*.npz", "*.bin"})) {
        if (!starts_with(c, "lex.") && !starts_with(c, "qualityModel") && c.find(".s2t.") == std::string::npos) {
          cands.push_back(c);
        }
      }
      if (cands.size() > 1 && std::any_of(cands.begin(), cands.end(), [](auto& c) { return starts_with(c, "model"); })) {
        cands.erase(std::remove_if(cands.begin(), cands.end(), [](auto& c) { return !starts_with(c, "model"); }),
                    cands.end());
      }
      if (cands.empty()) throw Error("the folder holds no Marian model (*.npz or *.bin)");
      if (cands.size() > 1) {
        throw Error("the folder holds several models (" + join(cands) + "); name one with --model");
      }
      model = cands[0];
    }
  }
  if (!folder.has(model)) throw Error("Marian model " + model + " is missing");
  f.model = model;

  std::vector<std::string> vocabs;
  for (const auto& v : opt.vocabs) vocabs.push_back(logical_name(v));
  if (vocabs.empty()) {
    const Json listed = f.decoder.contains("vocabs") ? f.decoder["vocabs"] : Json();
    if (truthy(listed)) {
      if (listed.is_array()) {
        for (const auto& v : listed) vocabs.push_back(listed_name(v, "decoder.yml: vocabs"));
      } else {
        throw Error("decoder.yml: vocabs is " + repr(listed) + ", not a list of files");
      }
    } else {
      auto yml = folder.find({"*.vocab.yml", "*.vocab.yaml", "vocab*.yml"});
      auto spm_vocabs = folder.find({"vocab*.spm", "*.vocab.spm"});
      auto src = folder.find({"srcvocab*.spm", "*.src.vocab.yml", "src*.vocab.yml"});
      auto trg = folder.find({"trgvocab*.spm", "*.trg.vocab.yml", "trg*.vocab.yml"});
      if (!src.empty() && !trg.empty()) {
        vocabs = {src[0], trg[0]};
      } else if (yml.size() == 1) {
        vocabs = {yml[0], yml[0]};
      } else if (spm_vocabs.size() == 1) {
        vocabs = {spm_vocabs[0], spm_vocabs[0]};
      } else if (!yml.empty() || !spm_vocabs.empty()) {
        std::vector<std::string> all = yml;
        all.insert(all.end(), spm_vocabs.begin(), spm_vocabs.end());
        throw Error("the folder holds several vocabularies (" + join(all) + "); name them with --vocabs SRC [TRG]");
      } else {
        throw Error("the folder holds no vocabulary (expected *.vocab.yml with source.spm/target.spm as OPUS-MT "
                    "ships them, or vocab.*.spm as Firefox Translations does)");
      }
    }
  }
  if (vocabs.size() == 1) vocabs.push_back(vocabs[0]);
  if (vocabs.size() != 2) {
    throw Error("a translation model needs 2 vocabularies (source, target), got " + std::to_string(vocabs.size()));
  }
  for (const auto& v : vocabs) {
    if (!folder.has(v)) throw Error("vocabulary " + v + " is missing");
  }
  for (size_t i = 0; i < 2; ++i) {
    const std::string lv = lower(vocabs[i]);
    const char* side = i == 0 ? "source" : "target";
    if (ends_with(lv, ".yml") || ends_with(lv, ".yaml") || ends_with(lv, ".json")) {
      std::string sp = opt.spms.empty() ? (i == 0 ? "source.spm" : "target.spm")
                                        : logical_name(opt.spms[std::min(i, opt.spms.size() - 1)]);
      if (!folder.has(sp)) {
        throw Error(vocabs[i] + " maps SentencePiece pieces to ids, but the " + side + " SentencePiece model " + sp +
                    " is missing (OPUS-MT ships source.spm and target.spm; or give --spm SRC [TRG])");
      }
      f.sides.emplace_back(sp, vocabs[i]);
    } else if (ends_with(lv, ".spm") || ends_with(lv, ".model")) {
      f.sides.emplace_back(vocabs[i], "");
    } else {
      throw Error("vocabulary " + vocabs[i] + ": expected a .yml table or a SentencePiece .spm model");
    }
  }
  f.shortlists = folder.find({"lex.*", "*.s2t.*"});
  if (!opt.config.empty()) {
    const std::string c = logical_name(opt.config);
    if (!folder.has(c)) throw Error("options file " + c + " is missing");
    f.config = parse_options(folder.text(c), c);
  }
  return f;
}

// ---- tensors -----------------------------------------------------------------------------------
// A tensor being converted: f32 values, or int8 values (the row scales are a tensor of their own).
struct Tensor {
  std::string dtype;  // "f32", "i8", "f16", "u8"
  std::vector<int64_t> shape;
  std::vector<float> f;
  std::vector<int8_t> q;
  std::vector<uint16_t> h;
  std::vector<uint8_t> u;
};

class Tensors {
 public:
  bool has(const std::string& n) const { return index_.count(n) != 0; }
  Tensor& at(const std::string& n) { return list_[index_.at(n)].second; }
  // Sets a tensor: replaced in place where it exists (a Python dict keeps the key's position).
  void set(const std::string& n, Tensor t) {
    auto it = index_.find(n);
    if (it != index_.end()) {
      list_[it->second].second = std::move(t);
    } else {
      index_[n] = list_.size();
      list_.emplace_back(n, std::move(t));
    }
  }
  void erase(const std::string& n) {
    auto it = index_.find(n);
    if (it == index_.end()) return;
    list_.erase(list_.begin() + long(it->second));
    index_.clear();
    for (size_t i = 0; i < list_.size(); ++i) index_[list_[i].first] = i;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (auto& [k, v] : list_) n.push_back(k);
    return n;
  }
  std::vector<std::pair<std::string, Tensor>>& list() { return list_; }

 private:
  std::vector<std::pair<std::string, Tensor>> list_;
  std::map<std::string, size_t> index_;
};

Tensor f32_tensor(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t;
  t.dtype = "f32";
  t.shape = std::move(shape);
  t.f = std::move(values);
  return t;
}

// A Marian item's values as float32 (plain float types).
std::vector<float> item_floats(const MarianItem& it) {
  const int64_t n = it.elements();
  std::vector<float> out(static_cast<size_t>(n));
  if (it.type == "float32") {
    for (int64_t i = 0; i < n; ++i) out[i] = load_f32_le(it.data + 4 * i);
  } else if (it.type == "float16") {
    for (int64_t i = 0; i < n; ++i) out[i] = half_to_float(uint16_t(it.data[2 * i] | it.data[2 * i + 1] << 8));
  } else {  // float64
    for (int64_t i = 0; i < n; ++i) {
      uint64_t v = 0;
      for (int k = 7; k >= 0; --k) v = (v << 8) | it.data[8 * i + k];
      double d;
      std::memcpy(&d, &v, 8);
      out[i] = static_cast<float>(d);
    }
  }
  return out;
}

// ---- the parameter map (marian.py's parameter_map) ---------------------------------------------
struct Param {
  std::string marian, tfm;
  char kind;  // 'W' [in, out] = the transposed Linear weight; 'b' [1, n] -> [n]; 'E' as it is
};

std::vector<Param> parameter_map(const Architecture& a) {
  const std::string sfx = a.norm == "pre" ? "_pre" : "";
  std::vector<Param> out;
  auto attention = [&](const std::string& m, const std::string& t, const std::string& norm) {
    for (char p : std::string("qkvo")) {
      out.push_back({m + "_W" + p, t + "." + p + ".weight", 'W'});
      out.push_back({m + "_b" + p, t + "." + p + ".bias", 'b'});
    }
    out.push_back({m + "_Wo_ln_scale" + sfx, norm + ".weight", 'b'});
    out.push_back({m + "_Wo_ln_bias" + sfx, norm + ".bias", 'b'});
  };
  auto ffn = [&](const std::string& m, const std::string& t) {
    out.push_back({m + "_W1", t + ".ffn.w1.weight", 'W'});
    out.push_back({m + "_b1", t + ".ffn.w1.bias", 'b'});
    out.push_back({m + "_W2", t + ".ffn.w2.weight", 'W'});
    out.push_back({m + "_b2", t + ".ffn.w2.bias", 'b'});
    out.push_back({m + "_ffn_ln_scale" + sfx, t + ".ffn_norm.weight", 'b'});
    out.push_back({m + "_ffn_ln_bias" + sfx, t + ".ffn_norm.bias", 'b'});
  };
  if (a.tie == "all") {
    out.push_back({"Wemb", "embedding.weight", 'E'});
  } else if (a.tie == "src") {
    out.push_back({"Wemb", "source_embedding.weight", 'E'});
  } else {
    out.push_back({"encoder_Wemb", "source_embedding.weight", 'E'});
    out.push_back({"decoder_Wemb", "target_embedding.weight", 'E'});
  }
  for (int i = 0; i < a.encoder_layers; ++i) {
    const std::string m = "encoder_l" + std::to_string(i + 1), t = "encoder.layers." + std::to_string(i);
    attention(m + "_self", t + ".self_attn", t + ".self_attn_norm");
    ffn(m + "_ffn", t);
  }
  for (int i = 0; i < a.decoder_layers; ++i) {
    const std::string m = "decoder_l" + std::to_string(i + 1), t = "decoder.layers." + std::to_string(i);
    if (a.decoder_layer_type == "ssru") {
      out.push_back({m + "_rnn_W", t + ".ssru.w.weight", 'W'});
      out.push_back({m + "_rnn_Wf", t + ".ssru.wf.weight", 'W'});
      out.push_back({m + "_rnn_bf", t + ".ssru.wf.bias", 'b'});
      const std::string ln = sfx.empty() ? m + "_rnn_ffn_ln_" : m + "_rnn_ln_";
      const std::string ln_end = sfx.empty() ? "" : "_pre";
      out.push_back({ln + "scale" + ln_end, t + ".ssru_norm.weight", 'b'});
      out.push_back({ln + "bias" + ln_end, t + ".ssru_norm.bias", 'b'});
    } else {
      attention(m + "_self", t + ".self_attn", t + ".self_attn_norm");
    }
    attention(m + "_context", t + ".cross_attn", t + ".cross_attn_norm");
    ffn(m + "_ffn", t);
  }
  if (a.norm == "pre") {
    for (const char* side : {"encoder", "decoder"}) {
      out.push_back({std::string(side) + "_top_ln_scale", std::string(side) + ".final_norm.weight", 'b'});
      out.push_back({std::string(side) + "_top_ln_bias", std::string(side) + ".final_norm.bias", 'b'});
    }
  }
  if (a.tie == "none" || a.tie == "src") out.push_back({"decoder_ff_logit_out_Wt", "output.weight", 'E'});
  if (a.output_bias) out.push_back({"decoder_ff_logit_out_b", "output_bias", 'b'});
  return out;
}

// ---- storage precision (tfm.py's store_weight and quantize_rows_int8) --------------------------
// Symmetric per-output-row int8: w ~ q * scale[row], scale = max|row| / 127 (float32 arithmetic
// and round-half-even, as numpy computes it).
void quantize_rows(const Tensor& w, Tensor& q, Tensor& scales) {
  const int64_t rows = w.shape[0], cols = w.shape[1];
  q.dtype = "i8";
  q.shape = w.shape;
  q.q.resize(size_t(rows * cols));
  scales = f32_tensor({rows}, std::vector<float>(size_t(rows)));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = w.f.data() + r * cols;
    float amax = 0.f;
    for (int64_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(row[c]));
    const float s = amax > 0.f ? amax / 127.0f : 1.0f;
    scales.f[size_t(r)] = s;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = std::nearbyint(row[c] / s);
      q.q[size_t(r * cols + c)] = static_cast<int8_t>(std::min(127.f, std::max(-127.f, v)));
    }
  }
}

Tensor dequantized(const Tensor& q, const std::vector<float>& row_scales) {
  const int64_t rows = q.shape[0], cols = q.shape[1];
  std::vector<float> out(q.q.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) out[size_t(r * cols + c)] = float(q.q[size_t(r * cols + c)]) * row_scales[size_t(r)];
  }
  return f32_tensor(q.shape, std::move(out));
}

// ---- the tokenizer section (tfm.py's tokenizer_section) ----------------------------------------
Tensor bytes_tensor(const std::string& bytes) {
  Tensor t;
  t.dtype = "u8";
  t.shape = {int64_t(bytes.size())};
  t.u.assign(bytes.begin(), bytes.end());
  return t;
}

Tensor table_tensor(const std::vector<std::string>& pieces, const std::string& what) {
  std::string out;
  std::set<std::string> seen;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const std::string& p = pieces[i];
    if (p.empty()) throw Error(what + ": vocabulary entry " + std::to_string(i) + " is empty");
    if (p.find('\0') != std::string::npos) {
      throw Error(what + ": vocabulary entry " + std::to_string(i) + " contains a NUL character");
    }
    if (!seen.insert(p).second) throw Error(what + ": vocabulary entry " + std::to_string(i) + " ('" + p + "') occurs twice");
    out += p;
    out += '\0';
  }
  if (out.empty()) throw Error(what + ": empty vocabulary");
  return bytes_tensor(out);
}

TfmTensor to_tfm(Tensor& t) {
  TfmTensor o;
  o.dtype = t.dtype;
  o.shape = t.shape;
  if (t.dtype == "f32") {
    o.bytes.resize(t.f.size() * 4);
    for (size_t i = 0; i < t.f.size(); ++i) {
      uint32_t v;
      std::memcpy(&v, &t.f[i], 4);
      for (int k = 0; k < 4; ++k) o.bytes[4 * i + k] = uint8_t(v >> (8 * k));
    }
  } else if (t.dtype == "f16") {
    o.bytes.resize(t.h.size() * 2);
    for (size_t i = 0; i < t.h.size(); ++i) {
      o.bytes[2 * i] = uint8_t(t.h[i]);
      o.bytes[2 * i + 1] = uint8_t(t.h[i] >> 8);
    }
  } else if (t.dtype == "i8") {
    o.bytes.assign(reinterpret_cast<const uint8_t*>(t.q.data()), reinterpret_cast<const uint8_t*>(t.q.data()) + t.q.size());
  } else {
    o.bytes = std::move(t.u);
  }
  t = Tensor();
  return o;
}

// marian.py's alignment_head_from_options: the first head of the cross-attention of layer
// transformer-guided-alignment-layer ("last" or 1-based) for a model trained with guided alignment.
Json alignment_head(const Json& opts, int decoder_layers, const std::string& what) {
  const Json ga = opts.contains("guided-alignment") ? opts["guided-alignment"] : Json("none");
  if (ga.is_null() || ga == false) return nullptr;
  std::string g = text_of(ga);
  auto trim = [](std::string s) {
    const size_t a = s.find_first_not_of(" \t\n\r"), b = s.find_last_not_of(" \t\n\r");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
  };
  g = trim(g);
  if (g.empty() || g == "none") return nullptr;
  const std::string layer =
      trim(opts.contains("transformer-guided-alignment-layer") ? text_of(opts["transformer-guided-alignment-layer"]) : "last");
  int index = -1;
  if (layer == "last") {
    index = decoder_layers - 1;
  } else {
    bool ok = !layer.empty() && layer.size() < 9;
    size_t i = (ok && (layer[0] == '-' || layer[0] == '+')) ? 1 : 0;
    ok = ok && i < layer.size();
    for (size_t k = i; ok && k < layer.size(); ++k) ok = std::isdigit(static_cast<unsigned char>(layer[k])) != 0;
    if (ok) index = std::stoi(layer) - 1;
    if (!ok || index < 0 || index >= decoder_layers) {
      throw Error(what + ": transformer-guided-alignment-layer '" + layer + "' is not 'last' or a decoder layer 1.." +
                  std::to_string(decoder_layers));
    }
  }
  Json head;
  head["layer"] = index;
  head["head"] = 0;
  return head;
}

}  // namespace
}  // namespace marian

using namespace marian;

bool is_marian_input(const std::string& path) {
  std::string n = lower(basename(path));
  if (ends_with(n, ".gz")) n = n.substr(0, n.size() - 3);
  for (const char* ext : {".npz", ".bin", ".yml", ".yaml", ".spm", ".model", ".json"}) {
    if (ends_with(n, ext)) return true;
  }
  return false;
}

namespace {
MarianImport import(const std::vector<MarianFile>& files, const MarianImportOptions& opt);
}  // namespace

MarianImport import_marian(const std::vector<MarianFile>& files, const MarianImportOptions& opt) {
  // Library errors that get past the readers' own checks still reach the caller as tformer::Error.
  try {
    return import(files, opt);
  } catch (Error& e) {
    throw e.in(Phase::kImport, ErrorCode::kInvalidModel);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::kInvalidModel, Phase::kImport, std::string("the Marian model's text is not valid (") + e.what() + ")");
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::kResources, Phase::kImport, "out of memory while importing the Marian model");
  }
}

namespace {
MarianImport import(const std::vector<MarianFile>& files, const MarianImportOptions& opt) {
  const std::string& weights = opt.weights;
  if (weights != "keep" && weights != "f32" && weights != "f16" && weights != "int8") {
    throw Error("--weights must be keep, f32, f16 or int8, not '" + weights + "'");
  }
  if (opt.max_positions < 1 || opt.max_positions > (1 << 20)) {
    throw Error("--max-positions must be between 1 and 1048576, got " + std::to_string(opt.max_positions));
  }
  MarianImport result;
  std::vector<std::string>& warnings = result.warnings;
  Folder folder(files);

  // Read: the files, the model's items, its options, the vocabularies.
  Found found = discover(folder, opt);
  const std::string what = found.model;
  std::vector<MarianItem> items;
  {
    const std::string lm = lower(what);
    auto [data, size] = folder.bytes(what);
    if (ends_with(lm, ".npz")) items = read_npz(data, size, what);
    else if (ends_with(lm, ".bin")) items = parse_bin(data, size, what);
    else throw Error(what + ": a Marian model must be a .npz or .bin file");
  }
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < items.size(); ++i) by_name[items[i].name] = i;
  Json opts;
  if (!found.config.empty()) {
    opts = found.config;
  } else if (by_name.count(kModelYml)) {
    opts = parse_options(item_text(items[by_name[kModelYml]]), what + ":" + kModelYml);
  } else {
    throw Error(what + " has no " + kModelYml + " item (the architecture); give the model's options with "
                "--config FILE (the training config.yml)");
  }
  Vocab src = read_vocab(folder, found.sides[0].first, found.sides[0].second);
  Vocab tgt = read_vocab(folder, found.sides[1].first, found.sides[1].second);

  // Validate.
  Architecture arch = architecture_from_options(opts, what, warnings);
  if (src.eos_id != tgt.eos_id || src.unk_id != tgt.unk_id) {
    throw Error("source and target vocabularies disagree on </s>/<unk> ids (" + std::to_string(src.eos_id) + "/" +
                std::to_string(src.unk_id) + " vs " + std::to_string(tgt.eos_id) + "/" + std::to_string(tgt.unk_id) +
                "); the engine needs them equal");
  }
  const int64_t vs = int64_t(src.size()), vt = int64_t(tgt.size());
  if (opts.contains("dim-vocabs") && truthy(opts["dim-vocabs"])) {
    const Json& dv = opts["dim-vocabs"];
    bool same = dv.is_array() && dv.size() == 2;
    if (same) same = int_of(dv[0], what, "dim-vocabs") == vs && int_of(dv[1], what, "dim-vocabs") == vt;
    if (!same) {
      throw Error(what + ": dim-vocabs " + dv.dump() + " does not match the vocabularies (" + std::to_string(vs) +
                  " source and " + std::to_string(vt) + " target entries)");
    }
  }
  if ((arch.tie == "all" || arch.tie == "src") && vs != vt) {
    throw Error(what + ": tied source/target embeddings need vocabularies of equal size (" + std::to_string(vs) +
                " vs " + std::to_string(vt) + ")");
  }
  for (const auto& p : src.table) {
    if (p.size() >= 4 && starts_with(p, ">>") && ends_with(p, "<<")) {
      warnings.push_back(what + ": the source vocabulary has target-language tokens (>>xx<<): a multilingual OPUS-MT "
                         "model. The engine tokenizes such a token as text; translating with it is not supported yet.");
      break;
    }
  }
  const int64_t V = std::max(vs, vt);
  bool output_bias = arch.output_bias;
  const std::vector<Param> pmap = parameter_map(arch);
  std::set<std::string> expected;
  for (const auto& p : pmap) expected.insert(p.marian);
  // Old Marian models: the output matrix untransposed, [d, V].
  const std::string legacy = "decoder_ff_logit_out_W";
  MarianItem legacy_item;
  std::vector<float> legacy_values;
  if (expected.count("decoder_ff_logit_out_Wt") && !by_name.count("decoder_ff_logit_out_Wt") && by_name.count(legacy)) {
    MarianItem& old = items[by_name[legacy]];
    if (old.type != "float32" && old.type != "float16") {
      throw Error(what + ": " + legacy + " of type " + old.type + " is not supported");
    }
    const std::vector<float> v = item_floats(old);
    std::vector<int64_t> shape = old.shape;
    std::reverse(shape.begin(), shape.end());
    const int64_t rows = shape.size() == 2 ? shape[0] : 0, cols = shape.size() == 2 ? shape[1] : 0;
    std::vector<uint8_t> t(v.size() * 4);
    if (shape.size() == 2) {
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) std::memcpy(t.data() + 4 * (r * cols + c), &v[size_t(c * rows + r)], 4);
      }
    } else {
      std::memcpy(t.data(), v.data(), t.size());
    }
    MarianItem n;
    n.name = "decoder_ff_logit_out_Wt";
    n.type = "float32";
    n.shape = shape;
    n.owned = std::move(t);
    n.data = n.owned.data();
    n.size = n.owned.size();
    items[by_name[legacy]] = std::move(n);
    by_name.erase(legacy);
    by_name["decoder_ff_logit_out_Wt"] = 0;
    for (size_t i = 0; i < items.size(); ++i) by_name[items[i].name] = i;
  }
  Json alphas = Json::object();
  std::vector<std::string> extra;
  for (const MarianItem& it : items) {
    if (expected.count(it.name) || starts_with(it.name, "special:")) continue;
    const bool scalar_shape = it.shape == std::vector<int64_t>{1} || it.shape == std::vector<int64_t>{1, 1};
    if (ends_with(it.name, "_QuantMultA") && it.type == "float32" && scalar_shape) {
      alphas[it.name.substr(0, it.name.size() - 11)] = double(load_f32_le(it.data));
    } else {
      extra.push_back(it.name);
    }
  }
  if (!extra.empty()) {
    std::sort(extra.begin(), extra.end());
    std::vector<std::string> shown(extra.begin(), extra.begin() + long(std::min<size_t>(8, extra.size())));
    throw Error(what + ": parameters this converter does not know: " + join(shown) + (extra.size() > 8 ? " ..." : "") +
                " (a Marian feature the engine lacks?)");
  }
  std::vector<std::string> missing;
  for (const auto& name : expected) {
    if (!by_name.count(name)) missing.push_back(name);
  }
  if (!missing.empty()) {
    std::vector<std::string> shown(missing.begin(), missing.begin() + long(std::min<size_t>(8, missing.size())));
    throw Error(what + ": missing parameters " + join(shown) + (missing.size() > 8 ? " ..." : "") +
                " for the architecture its options describe");
  }
  if (src.has_table != tgt.has_table) {
    throw Error("one vocabulary is a .yml table and the other a SentencePiece model: not supported");
  }

  // Convert: Marian's items -> the engine's tensors (names, layouts, tying, vocabulary padding).
  const bool keep_int8 = weights == "keep" || weights == "int8";
  Tensors tensors;
  std::map<std::string, std::string> scales;
  int quantized = 0;
  const int64_t d = arch.d_model, ffn = arch.ffn_dim;
  for (const Param& p : pmap) {
    const MarianItem& it = items[by_name.at(p.marian)];
    const bool is_float = it.type == "float32" || it.type == "float16" || it.type == "float64";
    if (!is_float && !it.is_intgemm()) {
      throw Error(what + ": item " + it.name + " has type " + it.type + ", not a weight type");
    }
    float mult = 0.f;
    if (it.is_intgemm()) {
      mult = load_f32_le(it.data + size_t(it.elements()) * type_size(it.type));
      if (!std::isfinite(mult) || mult <= 0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", double(mult));
        throw Error(what + ": item " + it.name + " has quantisation multiplier " + buf);
      }
      if (it.shape.size() != 2) {
        throw Error(what + ": " + it.type + " item " + it.name + " has shape " + it.shape_string() + ", expected 2-D");
      }
    }
    std::vector<int64_t> want;
    if (p.kind == 'E') {
      const int64_t rows = (p.marian == "Wemb" || p.marian == "encoder_Wemb") ? vs : vt;
      want = {rows, d};
    } else if (p.kind == 'W') {
      want = {ends_with(p.marian, "_W2") ? ffn : d, ends_with(p.marian, "_W1") ? ffn : d};
    } else {
      want = {1, p.marian == "decoder_ff_logit_out_b" ? vt : (ends_with(p.marian, "_b1") ? ffn : d)};
    }
    if (it.shape != want && !(p.kind == 'b' && it.shape == std::vector<int64_t>{want[1]})) {
      throw Error(what + ": parameter " + it.name + " has shape " + it.shape_string() + ", the options need [" +
                  std::to_string(want[0]) + ", " + std::to_string(want[1]) + "]");
    }
    if (it.is_intgemm()) {
      // marian-conv stores W^T (rows = output units), except embedding matrices, stored as they
      // are; the untied output matrix's [V, d] was transposed too, so it is transposed back.
      const bool emb = it.name.find("Wemb") != std::string::npos;
      int64_t rows = emb ? it.shape[0] : it.shape[1], cols = emb ? it.shape[1] : it.shape[0];
      const size_t esize = type_size(it.type);
      auto value = [&](int64_t r, int64_t c) -> int32_t {
        const uint8_t* e = it.data + size_t(r * cols + c) * esize;
        return esize == 1 ? int32_t(int8_t(e[0])) : int32_t(int16_t(uint16_t(e[0] | e[1] << 8)));
      };
      const bool transpose = p.marian == "decoder_ff_logit_out_Wt";
      const int64_t out_rows = transpose ? cols : rows, out_cols = transpose ? rows : cols;
      const float scale = 1.0f / mult;
      if (it.type == "intgemm8" && keep_int8) {
        Tensor t;
        t.dtype = "i8";
        t.shape = {out_rows, out_cols};
        t.q.resize(size_t(out_rows * out_cols));
        for (int64_t r = 0; r < out_rows; ++r) {
          for (int64_t c = 0; c < out_cols; ++c) {
            t.q[size_t(r * out_cols + c)] = int8_t(transpose ? value(c, r) : value(r, c));
          }
        }
        tensors.set(p.tfm, std::move(t));
        tensors.set(p.tfm + ".scales", f32_tensor({out_rows}, std::vector<float>(size_t(out_rows), scale)));
        scales[p.tfm] = p.tfm + ".scales";
        ++quantized;
        continue;
      }
      std::vector<float> v(size_t(out_rows * out_cols));
      for (int64_t r = 0; r < out_rows; ++r) {
        for (int64_t c = 0; c < out_cols; ++c) {
          v[size_t(r * out_cols + c)] = float(transpose ? value(c, r) : value(r, c)) * scale;
        }
      }
      tensors.set(p.tfm, f32_tensor({out_rows, out_cols}, std::move(v)));
      continue;
    }
    std::vector<float> v = item_floats(it);
    if (p.kind == 'W') {
      const int64_t in = it.shape[0], out = it.shape[1];
      std::vector<float> t(v.size());
      for (int64_t r = 0; r < out; ++r) {
        for (int64_t c = 0; c < in; ++c) t[size_t(r * in + c)] = v[size_t(c * out + r)];
      }
      tensors.set(p.tfm, f32_tensor({out, in}, std::move(t)));
    } else if (p.kind == 'b') {
      const int64_t n = int64_t(v.size());
      tensors.set(p.tfm, f32_tensor({n}, std::move(v)));
    } else {
      tensors.set(p.tfm, f32_tensor(it.shape, std::move(v)));
    }
  }
  std::set<std::string> item_types;
  for (const MarianItem& it : items) {
    if (expected.count(it.name)) item_types.insert(it.type);
  }
  items.clear();  // the model's bytes are no longer needed
  if (arch.tie == "src") {
    Tensor copy = tensors.at("source_embedding.weight");
    tensors.set("target_embedding.weight", std::move(copy));
    if (scales.count("source_embedding.weight")) {
      Tensor s = tensors.at("source_embedding.weight.scales");
      tensors.set("target_embedding.weight.scales", std::move(s));
      scales["target_embedding.weight"] = "target_embedding.weight.scales";
    }
  }
  // Vocabularies of different sizes: pad to V; target ids >= vt can never be chosen.
  if (vs != vt) {
    for (auto [name, n] : std::vector<std::pair<std::string, int64_t>>{
             {"source_embedding.weight", vs}, {"target_embedding.weight", vt}, {"output.weight", vt}}) {
      if (!tensors.has(name) || n >= V) continue;
      Tensor& t = tensors.at(name);
      const int64_t cols = t.shape[1];
      t.shape[0] = V;
      if (t.dtype == "i8") t.q.resize(size_t(V * cols), 0);
      else t.f.resize(size_t(V * cols), 0.f);
      if (scales.count(name)) {
        Tensor& s = tensors.at(scales[name]);
        s.shape[0] = V;
        s.f.resize(size_t(V), 1.f);
      }
    }
    if (vt < V) {
      std::vector<float> bias = tensors.has("output_bias") ? tensors.at("output_bias").f : std::vector<float>(size_t(vt), 0.f);
      bias.resize(size_t(V), kNegInf);
      tensors.set("output_bias", f32_tensor({V}, std::move(bias)));
      output_bias = true;
    }
  }

  // Cast: the requested storage precision of every matrix ("keep": as converted).
  if (weights != "keep") {
    for (const std::string& name : tensors.names()) {
      if (ends_with(name, ".scales")) continue;
      Tensor& t = tensors.at(name);
      if (t.shape.size() != 2 || (t.dtype != "f32" && t.dtype != "i8")) continue;
      if (t.dtype == "i8") {
        if (weights == "int8") continue;  // an int8 matrix stays as it is, with its scales
        Tensor f = dequantized(t, tensors.at(scales[name]).f);
        tensors.erase(scales[name]);
        scales.erase(name);
        tensors.at(name) = std::move(f);
      }
      Tensor& m = tensors.at(name);
      if (weights == "int8") {
        Tensor q, s;
        quantize_rows(m, q, s);
        tensors.at(name) = std::move(q);
        tensors.set(name + ".scales", std::move(s));
        scales[name] = name + ".scales";
      } else if (weights == "f16") {
        m.dtype = "f16";
        m.h.resize(m.f.size());
        for (size_t i = 0; i < m.f.size(); ++i) m.h[i] = float_to_half(m.f[i]);
        m.f = {};
      }
    }
  }

  // The engine's config (ModelConfig.to_dict() of marian_convention(...), in its field order).
  const std::string tied = arch.tie == "src" ? "none" : arch.tie;
  Json config;
  config["vocab_size"] = V;
  config["d_model"] = arch.d_model;
  config["heads"] = arch.heads;
  config["ffn_dim"] = arch.ffn_dim;
  config["encoder_layers"] = arch.encoder_layers;
  config["decoder_layers"] = arch.decoder_layers;
  config["norm"] = arch.norm;
  config["prenorm_raw_self_kv"] = arch.norm == "pre";
  config["activation"] = arch.activation;
  config["max_positions"] = opt.max_positions;
  config["positional_encoding"] = "marian";
  config["decoder_start"] = "zero";
  config["source_bos"] = false;
  config["source_eos"] = true;
  config["pad_id"] = src.eos_id;
  config["unk_id"] = src.unk_id;
  config["bos_id"] = -1;
  config["eos_id"] = src.eos_id;
  config["tied_embeddings"] = tied;
  config["output_bias"] = output_bias;
  config["layer_norm_eps"] = 1e-6;
  config["suppress_unk"] = true;
  config["decoder_layer_type"] = arch.decoder_layer_type;
  if (src.eos_id < 0 || src.eos_id >= V) throw Error("invalid model config: eos_id out of range");

  // The tokenizer section: SentencePiece models (and id tables), each side stored once when equal.
  Json tokenizer;
  tokenizer["type"] = src.has_table ? "sentencepiece_vocab" : "sentencepiece";
  tensors.set("tokenizer.source", bytes_tensor(src.spm_bytes));
  tokenizer["source"] = "tokenizer.source";
  if (tgt.spm_bytes == src.spm_bytes) {
    tokenizer["target"] = "tokenizer.source";
  } else {
    tensors.set("tokenizer.target", bytes_tensor(tgt.spm_bytes));
    tokenizer["target"] = "tokenizer.target";
  }
  if (src.has_table) {
    tensors.set("tokenizer.source_vocab", table_tensor(src.table, src.table_name));
    tokenizer["source_vocab"] = "tokenizer.source_vocab";
    if (tgt.table == src.table) {
      tokenizer["target_vocab"] = "tokenizer.source_vocab";
    } else {
      tensors.set("tokenizer.target_vocab", table_tensor(tgt.table, tgt.table_name));
      tokenizer["target_vocab"] = "tokenizer.target_vocab";
    }
  }

  // Metadata: where the model came from, its Marian options, its storage precision.
  std::string name = opt.name.empty() ? stem(what) : opt.name;
  Json metadata;
  metadata["name"] = name;
  metadata["converted_from"] = "marian";
  Json m;
  m["model"] = what;
  m["item_types"] = Json::array();
  for (const auto& t : item_types) m["item_types"].push_back(t);
  m["vocabs"] = Json::array({found.sides[0].second.empty() ? found.sides[0].first : found.sides[0].second,
                             found.sides[1].second.empty() ? found.sides[1].first : found.sides[1].second});
  m["vocab_sizes"] = Json::array({vs, vt});
  m["embeddings"] = arch.tie;
  Json kept = Json::object();
  std::vector<std::string> keys;
  for (const auto& [k, v] : opts.items()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  for (const auto& k : keys) {
    if (is_architecture_option(k) || k == "dim-vocabs") kept[k] = opts[k];
  }
  m["options"] = kept;
  metadata["marian"] = m;
  metadata["weights"] = weights != "keep" ? weights : (quantized ? "int8" : "f32");
  if (!alphas.empty()) metadata["marian"]["quant_mult_a"] = alphas;
  if (Json head = alignment_head(opts, arch.decoder_layers, what); !head.is_null()) metadata["alignment_head"] = head;

  // The lexical shortlist (lex.*.s2t.bin): checked as the engine checks it at load, and carried
  // in the .tfm as the u8 tensor "shortlist" (docs/FORMAT.md), the file unchanged.
  Json shortlist = nullptr;
  for (const std::string& lex : found.shortlists) {
    auto [data, size] = folder.bytes(lex);
    if (!LexicalShortlist::is_binary(data, size)) {
      warnings.push_back(lex + " is not a binary lexical shortlist (a text one?): not used");
      continue;
    }
    const bool shared = src.has_table ? src.table == tgt.table : src.spm_bytes == tgt.spm_bytes;
    try {
      const LexicalShortlist checked(data, size, int(vs), int(vt), shared);
      result.shortlist.first = checked.first_num();
      result.shortlist.best = checked.best_num();
      result.shortlist.candidates = checked.entries();
    } catch (const Error& e) {
      throw Error(lex + ": " + e.what());
    }
    result.shortlist.file = lex;
    result.shortlist.source_words = uint64_t(vs);
    result.has_shortlist = true;
    tensors.set("shortlist", bytes_tensor(std::string(reinterpret_cast<const char*>(data), size)));
    shortlist = {{"file", lex}, {"first", result.shortlist.first}, {"best", result.shortlist.best},
                 {"source_words", result.shortlist.source_words}, {"candidates", result.shortlist.candidates}};
    break;
  }

  std::vector<std::pair<std::string, TfmTensor>> out;
  for (auto& [tname, t] : tensors.list()) {
    TfmTensor o = to_tfm(t);
    if (scales.count(tname)) o.scales = scales[tname];
    out.emplace_back(tname, std::move(o));
  }
  result.tfm = write_tfm(config, tokenizer, out, metadata);
  result.name = name;
  result.model_file = what;

  Json ignored = Json::array(), unknown = Json::array();
  for (const auto& k : keys) {
    if (is_ignored_option(k)) ignored.push_back(k);
    else if (!is_architecture_option(k)) unknown.push_back(k);
  }
  Json summary;
  summary["name"] = name;
  summary["model"] = what;
  summary["vocabs"] = m["vocabs"];
  summary["vocab_sizes"] = m["vocab_sizes"];
  summary["joint_vocab"] = src.same_as(tgt);
  summary["config"] = config;
  summary["variant"] = std::string(arch.decoder_layer_type == "ssru" ? "SSRU" : "self-attention") + " decoder, " +
                       arch.norm + "-norm, " + arch.activation + ", embeddings tied " + arch.tie;
  summary["tokenizer"] = tokenizer["type"];
  summary["item_types"] = m["item_types"];
  summary["weights"] = metadata["weights"];
  summary["quantized_matrices"] = quantized;
  summary["alphas"] = alphas.size();
  summary["ignored_options"] = ignored;
  summary["unknown_options"] = unknown;
  summary["shortlist"] = shortlist;
  summary["warnings"] = warnings;
  summary["bytes"] = result.tfm.size();
  result.summary_json = summary.dump(-1, ' ', true);
  return result;
}

}  // namespace

}  // namespace tformer

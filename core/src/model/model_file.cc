#include "model/model_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#if !defined(__EMSCRIPTEN__)
#include <unistd.h>
#endif

#include "tformer/error.h"
#include "util/little_endian.h"
#include "util/half.h"

namespace tformer {
namespace {

using nlohmann::json;

uint64_t align_up(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }

[[noreturn]] void fail(const std::string& msg) { throw Error("invalid model file: " + msg); }

// A header value the reader did not expect, named by its kind and never dumped whole: a hostile
// header may hold a huge or deeply nested value, and printing it costs time and stack.
std::string describe(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array of " + std::to_string(v.size());
    case json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      return s.size() <= 32 ? json(s).dump(-1, ' ', false, json::error_handler_t::replace)
                            : "a string of " + std::to_string(s.size()) + " bytes";
    }
    case json::value_t::boolean: return v.get<bool>() ? "true" : "false";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return v.dump();
    default: return "an unexpected value";
  }
}

DType parse_dtype(const json& v, const std::string& tensor) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "f32") return DType::kF32;
    if (s == "f16") return DType::kF16;
    if (s == "i8") return DType::kI8;
    if (s == "u8") return DType::kU8;
  }
  fail("tensor " + tensor + ": unknown dtype " + describe(v) + " (expected f32, f16, i8 or u8)");
}

uint64_t get_u64(const json& e, const char* key, const std::string& tensor) {
  auto it = e.find(key);
  if (it == e.end() || !it->is_number_unsigned())
    fail("tensor " + tensor + ": '" + key + "' must be a non-negative integer");
  return it->get<uint64_t>();
}

}  // namespace

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kF32: return "f32";
    case DType::kF16: return "f16";
    case DType::kI8: return "i8";
    case DType::kU8: return "u8";
  }
  return "?";
}

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kF32: return 4;
    case DType::kF16: return 2;
    default: return 1;
  }
}

int64_t TensorEntry::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string TensorEntry::shape_string() const { return shape_to_string(shape); }

ModelFile::ModelFile(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) { parse(); }

ModelFile ModelFile::from_bytes(std::vector<uint8_t> bytes) { return ModelFile(std::move(bytes)); }

uint64_t platform_memory_limit() {
  // A wasm32 (or other 32-bit) engine addresses at most 4 GiB, its own code and stack included.
  if (sizeof(void*) <= 4) return 4ull << 30;
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return uint64_t(pages) * uint64_t(page);
#endif
  return std::numeric_limits<uint64_t>::max();
}

ModelFile ModelFile::from_path(const std::string& path) {
  // The OS's own words for a failure ("No such file or directory", "Permission denied").
  auto os_error = [&](const char* what, int err) {
    return Error(std::string(what) + " model file '" + path + "': " + std::strerror(err));
  };
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    const int err = errno;
    if (err == EISDIR) throw Error("cannot read model file '" + path + "': it is a directory, not a .tfm file");
    throw os_error("cannot open", err);
  }
  struct stat st {};
  if (fstat(fileno(file.get()), &st) != 0) throw os_error("cannot read", errno);
  if (S_ISDIR(st.st_mode)) throw Error("cannot read model file '" + path + "': it is a directory, not a .tfm file");
  std::vector<uint8_t> bytes;
  if (S_ISREG(st.st_mode)) {
    if (uint64_t(st.st_size) > std::numeric_limits<size_t>::max() || uint64_t(st.st_size) > platform_memory_limit())
      throw Error("cannot read model file '" + path + "': it has " + std::to_string(uint64_t(st.st_size)) +
                  " bytes, more than this platform can hold in memory");
    bytes.resize(size_t(st.st_size));
    if (!bytes.empty() && std::fread(bytes.data(), 1, bytes.size(), file.get()) != bytes.size())
      throw os_error("cannot read", std::ferror(file.get()) ? errno : EIO);
  } else {  // a pipe or a device: read to its end
    uint8_t chunk[1 << 16];
    for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, file.get())) > 0;) {
      if (bytes.size() + n > platform_memory_limit()) throw Error("cannot read model file '" + path + "': too large");
      bytes.insert(bytes.end(), chunk, chunk + n);
    }
    if (std::ferror(file.get())) throw os_error("cannot read", errno);
  }
  file.reset();
  try {
    return ModelFile(std::move(bytes));
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

void ModelFile::parse() {
  try {
    parse_unchecked();
  } catch (const nlohmann::json::exception& e) {
    // A header value of the wrong JSON type deep inside an entry.
    fail(std::string("malformed header: ") + e.what());
  }
}

void ModelFile::parse_unchecked() {
  const uint64_t size = bytes_.size();
  if (size < kPreambleBytes)
    fail("file is " + std::to_string(size) + " bytes, too small for a .tfm model (truncated?)");
  const uint8_t* p = bytes_.data();
  if (std::memcmp(p, kMagic, sizeof kMagic) != 0) fail("bad magic: this is not a .tfm model file");
  const uint32_t version = load_u32_le(p + 8);
  if (version != kVersion)
    fail("unsupported format version " + std::to_string(version) + " (this build reads version " +
         std::to_string(kVersion) + ")");
  const uint64_t header_bytes = load_u64_le(p + 16);
  if (header_bytes > kMaxHeaderBytes)
    fail("header length " + std::to_string(header_bytes) + " bytes is implausible (limit " +
         std::to_string(kMaxHeaderBytes) + ")");
  if (header_bytes > size - kPreambleBytes)
    fail("truncated: the header needs " + std::to_string(header_bytes) + " bytes but the file has " +
         std::to_string(size - kPreambleBytes) + " after the preamble");

  try {
    // The nesting depth is capped while parsing: copying, comparing or printing a json value
    // recurses once per level, and a header nested 60,000 deep would overflow the stack.
    const json::parser_callback_t cap_depth = [](int depth, json::parse_event_t event, json&) {
      if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
          depth >= kMaxJsonDepth)
        fail("header nests arrays or objects more than " + std::to_string(kMaxJsonDepth) + " levels deep");
      return true;
    };
    header_ = json::parse(p + kPreambleBytes, p + kPreambleBytes + header_bytes, cap_depth);
  } catch (const json::exception& e) {
    fail(std::string("header is not valid JSON: ") + e.what());
  }
  if (!header_.is_object()) fail("header is not a JSON object");
  if (header_.value("format", std::string()) != "tformer") fail("header 'format' is not \"tformer\"");
  if (!header_.contains("config")) fail("header has no 'config'");
  config_ = ModelConfig::from_json(header_["config"]);

  const uint64_t data_start = align_up(kPreambleBytes + header_bytes, kAlignment);
  const uint64_t data_size = size >= data_start ? size - data_start : 0;

  const json& list = header_.contains("tensors") ? header_["tensors"] : json();
  if (!list.is_array()) fail("header 'tensors' must be an array");
  tensors_.reserve(list.size());
  for (const json& e : list) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string() || e["name"].get<std::string>().empty())
      fail("a tensor entry has no name");
    TensorEntry t;
    t.name = e["name"].get<std::string>();
    if (index_.count(t.name)) fail("tensor " + t.name + " is listed twice");
    t.dtype = parse_dtype(e.value("dtype", json()), t.name);
    const json& shape = e.contains("shape") ? e["shape"] : json();
    if (!shape.is_array() || shape.empty() || shape.size() > 4)
      fail("tensor " + t.name + ": 'shape' must be an array of 1 to 4 dimensions");
    uint64_t elements = 1;
    for (const json& d : shape) {
      if (!d.is_number_unsigned() || d.get<uint64_t>() == 0 || d.get<uint64_t>() > (1ull << 31))
        fail("tensor " + t.name + ": shape has a dimension (" + describe(d) + ") that is not in [1, 2^31]");
      elements *= d.get<uint64_t>();
      if (elements > (1ull << 40)) fail("tensor " + t.name + ": its shape is implausibly large");
      t.shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
    }
    t.offset = get_u64(e, "offset", t.name);
    t.nbytes = get_u64(e, "nbytes", t.name);
    if (t.nbytes != elements * dtype_size(t.dtype))
      fail("tensor " + t.name + ": nbytes " + std::to_string(t.nbytes) + " does not match shape " +
           t.shape_string() + " of " + dtype_name(t.dtype) + " (" +
           std::to_string(elements * dtype_size(t.dtype)) + " bytes)");
    if (t.offset % kAlignment != 0)
      fail("tensor " + t.name + ": offset " + std::to_string(t.offset) + " is not 64-byte aligned");
    if (t.offset > data_size || t.nbytes > data_size - t.offset)
      fail("truncated at tensor " + t.name + ": expected " + std::to_string(t.nbytes) +
           " bytes at data offset " + std::to_string(t.offset) + ", the data section has " +
           std::to_string(data_size) + " bytes");
    if (e.contains("scales")) {
      if (!e["scales"].is_string()) fail("tensor " + t.name + ": 'scales' must be a tensor name");
      t.scales = e["scales"].get<std::string>();
    }
    t.data = p + data_start + t.offset;
    index_[t.name] = tensors_.size();
    tensors_.push_back(std::move(t));
  }
  // Each tensor has bytes of its own: tensors sharing bytes would let a small file claim many
  // times its size in weights (and the engine's memory).
  std::vector<const TensorEntry*> by_offset;
  for (const TensorEntry& t : tensors_) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorEntry* a, const TensorEntry* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const TensorEntry &a = *by_offset[i - 1], &b = *by_offset[i];
    if (a.offset + a.nbytes > b.offset)
      fail("tensors " + a.name + " (data bytes " + std::to_string(a.offset) + " to " + std::to_string(a.offset + a.nbytes) +
           ") and " + b.name + " (from byte " + std::to_string(b.offset) + ") overlap");
  }
  for (const TensorEntry& t : tensors_) {
    if (t.dtype == DType::kI8) {
      if (t.scales.empty()) fail("int8 tensor " + t.name + " has no 'scales'");
      const TensorEntry& s = tensor(t.scales);
      if (s.dtype != DType::kF32 || s.shape.size() != 1 || s.shape[0] != t.shape[0])
        fail("int8 tensor " + t.name + ": scales " + s.name + " must be f32 of shape [" +
             std::to_string(t.shape[0]) + "]");
    }
  }

  const json& tok = header_.contains("tokenizer") ? header_["tokenizer"] : json();
  if (!tok.is_object()) fail("header has no 'tokenizer' object");
  tokenizer_.type = tok.value("type", std::string());
  const bool vocab_tables = tokenizer_.type == "sentencepiece_vocab";
  if (tokenizer_.type != "sentencepiece" && !vocab_tables)
    fail("tokenizer type '" + tokenizer_.type + "' is not supported (expected sentencepiece or sentencepiece_vocab)");
  auto name_of = [&](const char* key, const std::string& fallback) {
    auto it = tok.find(key);
    if (it == tok.end()) return fallback;
    if (!it->is_string() || it->get<std::string>().empty())
      fail(std::string("tokenizer '") + key + "' must name a tensor");
    return it->get<std::string>();
  };
  tokenizer_.source = name_of("source", std::string());
  tokenizer_.target = name_of("target", tokenizer_.source);
  std::vector<const std::string*> names = {&tokenizer_.source, &tokenizer_.target};
  if (vocab_tables) {
    tokenizer_.source_vocab = name_of("source_vocab", std::string());
    tokenizer_.target_vocab = name_of("target_vocab", tokenizer_.source_vocab);
    if (tokenizer_.source_vocab.empty())
      fail("tokenizer type sentencepiece_vocab needs 'source_vocab' (the id -> piece table)");
    names.push_back(&tokenizer_.source_vocab);
    names.push_back(&tokenizer_.target_vocab);
  } else if (tok.contains("source_vocab") || tok.contains("target_vocab")) {
    fail("tokenizer vocabulary tables need type sentencepiece_vocab, not " + tokenizer_.type);
  }
  for (const std::string* name : names) {
    if (name->empty()) fail("tokenizer has no 'source' tensor");
    if (!has(*name)) fail("tokenizer tensor '" + *name + "' is missing");
    if (tensor(*name).dtype != DType::kU8) fail("tokenizer tensor '" + *name + "' must be u8");
  }
}

uint64_t ModelFile::memory_estimate() const {
  // The file itself (kept for the tensors read in place), each weight as the engine holds it
  // (f16 widened to f32; int8 and f32 as stored) and the positional table it computes.
  uint64_t total = size();
  for (const TensorEntry& t : tensors_) total += t.dtype == DType::kF16 ? t.nbytes * 2 : t.nbytes;
  total += uint64_t(config_.max_positions) * uint64_t(config_.d_model) * 4;
  return total;
}

void ModelFile::check_memory(uint64_t limit) const {
  // The positional table is the one thing the engine allocates for a model that the file does
  // not hold: a few MiB for real models (1024 x 1024 floats is 4 MiB). A table far larger than
  // the file is a crafted config, refused before it costs gigabytes and seconds.
  const uint64_t positions = uint64_t(config_.max_positions) * uint64_t(config_.d_model) * 4;
  if (positions > std::max<uint64_t>(kMaxPositionsBytes, size()))
    fail("the positional table of max_positions " + std::to_string(config_.max_positions) + " x d_model " +
         std::to_string(config_.d_model) + " would take " + std::to_string(positions >> 20) +
         " MiB, out of proportion to the " + std::to_string(size() >> 20) + " MiB file (limit " +
         std::to_string(kMaxPositionsBytes >> 20) + " MiB or the file's size)");
  if (limit == 0) limit = platform_memory_limit();
  const uint64_t need = memory_estimate();
  if (need > limit)
    fail("the model would need about " + std::to_string(need >> 20) + " MiB of memory (file, weights as used and " +
         std::to_string(config_.max_positions) + " x " + std::to_string(config_.d_model) +
         " positions), more than the " + std::to_string(limit >> 20) + " MiB allowed here");
}

const TensorEntry& ModelFile::tensor(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) fail("missing tensor " + name);
  return tensors_[it->second];
}

const TensorEntry& ModelFile::tensor(const std::string& name, const std::vector<int64_t>& expected) const {
  const TensorEntry& t = tensor(name);
  if (t.shape != expected)
    fail("tensor " + name + " has shape " + t.shape_string() + " but the config needs " +
         shape_to_string(expected));
  return t;
}

std::vector<float> ModelFile::floats(const std::string& name, const std::vector<int64_t>& expected) const {
  const TensorEntry& t = tensor(name, expected);
  const size_t n = static_cast<size_t>(t.elements());
  std::vector<float> out(n);
  switch (t.dtype) {
    case DType::kF32:
      std::memcpy(out.data(), t.data, n * 4);  // little-endian hosts only (x86, arm, wasm)
      break;
    case DType::kF16:
      for (size_t i = 0; i < n; ++i) out[i] = half_to_float(uint16_t(t.data[2 * i]) | uint16_t(t.data[2 * i + 1]) << 8);
      break;
    case DType::kI8: {
      const TensorEntry& s = tensor(t.scales);
      const size_t cols = n / static_cast<size_t>(t.shape[0]);
      for (size_t i = 0; i < n; ++i) {
        float scale;
        std::memcpy(&scale, s.data + 4 * (i / cols), 4);
        out[i] = static_cast<int8_t>(t.data[i]) * scale;
      }
      break;
    }
    case DType::kU8:
      fail("tensor " + name + " holds bytes, not numbers");
  }
  return out;
}

ModelFile::Int8Rows ModelFile::int8_rows(const std::string& name, const std::vector<int64_t>& expected) const {
  const TensorEntry& t = tensor(name, expected);
  if (t.dtype != DType::kI8) fail("tensor " + name + " is " + dtype_name(t.dtype) + ", not i8");
  const TensorEntry& s = tensor(t.scales);  // dtype and shape checked at parse time
  Int8Rows rows;
  rows.values = reinterpret_cast<const int8_t*>(t.data);
  rows.scales.resize(size_t(s.shape[0]));
  std::memcpy(rows.scales.data(), s.data, rows.scales.size() * 4);
  return rows;
}

std::string ModelFile::bytes_of(const std::string& name) const {
  const TensorEntry& t = tensor(name);
  return std::string(reinterpret_cast<const char*>(t.data), t.nbytes);
}

}  // namespace tformer

// The .tfm model file (specification: docs/FORMAT.md): a preamble, a JSON header and 64-byte
// aligned tensor data. Everything read is validated before use; any inconsistency becomes a
// tformer::Error that names the file part at fault.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/config.h"

namespace tformer {

enum class DType { kF32, kF16, kI8, kU8 };

const char* dtype_name(DType t);
size_t dtype_size(DType t);

struct TensorEntry {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  uint64_t offset = 0;  // from the start of the data section
  uint64_t nbytes = 0;
  std::string scales;   // int8: name of the f32 tensor of per-row scales
  const uint8_t* data = nullptr;

  int64_t elements() const;
  std::string shape_string() const;
};

struct TokenizerSpec {
  std::string type;    // "sentencepiece" or "sentencepiece_vocab"
  std::string source;  // tensor holding the source SentencePiece model
  std::string target;  // tensor holding the target SentencePiece model (may equal source)
  // "sentencepiece_vocab" only: u8 tensors holding the id -> piece tables (may be the same tensor).
  std::string source_vocab;
  std::string target_vocab;
};

class ModelFile {
 public:
  static constexpr char kMagic[8] = {'T', 'F', 'M', 'O', 'D', 'E', 'L', '\0'};
  static constexpr uint32_t kVersion = 1;
  static constexpr uint64_t kAlignment = 64;
  static constexpr uint64_t kPreambleBytes = 24;
  static constexpr uint64_t kMaxHeaderBytes = 64ull << 20;
  // Deepest nesting of arrays and objects the header may use (the format needs 4 levels; free-form
  // metadata gets some room).
  static constexpr int kMaxJsonDepth = 64;
  // The largest positional table (max_positions x d_model floats) a model smaller than it may ask for.
  static constexpr uint64_t kMaxPositionsBytes = 256ull << 20;

  static ModelFile from_path(const std::string& path);
  // Takes ownership of a buffer holding the whole file (no copy).
  static ModelFile from_bytes(std::vector<uint8_t> bytes);

  const ModelConfig& config() const { return config_; }
  const TokenizerSpec& tokenizer() const { return tokenizer_; }
  const nlohmann::json& header() const { return header_; }
  const std::vector<TensorEntry>& tensors() const { return tensors_; }
  uint64_t size() const { return bytes_.size(); }
  // The whole file (the translation memory's model identity is its sha256).
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  // About how many bytes the engine holds once it has loaded this model (before any translation).
  uint64_t memory_estimate() const;
  // Throws when memory_estimate() exceeds `limit` bytes (0: what this platform can address or has:
  // 4 GiB for wasm32, the physical memory natively).
  void check_memory(uint64_t limit = 0) const;

  bool has(const std::string& name) const { return index_.count(name) != 0; }
  // Throws when the tensor is absent or its shape differs from `expected_shape`.
  const TensorEntry& tensor(const std::string& name, const std::vector<int64_t>& expected_shape) const;
  const TensorEntry& tensor(const std::string& name) const;
  // The tensor's values as float32 (f16 widened, int8 multiplied by its row scales).
  std::vector<float> floats(const std::string& name, const std::vector<int64_t>& expected_shape) const;
  std::string bytes_of(const std::string& name) const;
  // An int8 matrix as stored: its values (in place, row-major) and its per-row scales.
  struct Int8Rows {
    const int8_t* values = nullptr;
    std::vector<float> scales;
  };
  bool is_int8(const std::string& name) const { return has(name) && tensor(name).dtype == DType::kI8; }
  // Throws when the tensor is absent, not i8 or of another shape.
  Int8Rows int8_rows(const std::string& name, const std::vector<int64_t>& expected_shape) const;

 private:
  explicit ModelFile(std::vector<uint8_t> bytes);
  void parse();
  void parse_unchecked();

  std::vector<uint8_t> bytes_;
  nlohmann::json header_;
  ModelConfig config_;
  TokenizerSpec tokenizer_;
  std::vector<TensorEntry> tensors_;
  std::unordered_map<std::string, size_t> index_;
};

std::string shape_to_string(const std::vector<int64_t>& shape);

// The memory this process can use at most: 4 GiB on 32-bit platforms (wasm32), else the
// machine's physical memory.
uint64_t platform_memory_limit();

}  // namespace tformer

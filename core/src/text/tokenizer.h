// SentencePiece tokenization (the library itself, loaded from the model bytes embedded in .tfm).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace tformer {

class Tokenizer {
 public:
  explicit Tokenizer(const std::string& serialized_model);
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;

  std::vector<int> encode(std::string_view text) const;
  std::string decode(const std::vector<int>& ids) const;
  std::string piece(int id) const;
  int vocab_size() const;

 private:
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
};

}  // namespace tformer

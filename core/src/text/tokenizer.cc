#include "text/tokenizer.h"

#include <sentencepiece_processor.h>

#include "tformer/error.h"

namespace sentencepiece::logging {
void SetMinLogLevel(int level);  // in the library, not in its public header
}

namespace tformer {

Tokenizer::Tokenizer(const std::string& serialized_model)
    : sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
  sentencepiece::logging::SetMinLogLevel(1);  // no INFO lines on stderr of a library user
  const auto status = sp_->LoadFromSerializedProto(serialized_model);
  if (!status.ok()) throw Error("invalid model file: embedded SentencePiece model: " + status.ToString());
}

Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;

std::vector<int> Tokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  const auto status = sp_->Encode(absl::string_view(text.data(), text.size()), &ids);
  if (!status.ok()) throw Error("tokenization failed: " + status.ToString());
  return ids;
}

std::string Tokenizer::decode(const std::vector<int>& ids) const {
  std::string text;
  const auto status = sp_->Decode(ids, &text);
  if (!status.ok()) throw Error("detokenization failed: " + status.ToString());
  return text;
}

std::string Tokenizer::piece(int id) const { return sp_->IdToPiece(id); }

int Tokenizer::vocab_size() const { return sp_->GetPieceSize(); }

}  // namespace tformer

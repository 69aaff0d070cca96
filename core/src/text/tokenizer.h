// SentencePiece tokenization (the library itself, loaded from the model bytes embedded in .tfm).
//
// Token ids come either from the SentencePiece model itself, or, with an explicit vocabulary
// table (Marian's *.vocab.yml as OPUS-MT ships it; docs/FORMAT.md, `sentencepiece_vocab`), from
// that table: SentencePiece splits the text into pieces, the table maps each piece to its id and
// a piece it lacks to the id of "<unk>". Decoding maps ids to pieces and lets SentencePiece join them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/annotated_text.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace tformer {

class Tokenizer {
 public:
  // `vocab_table`: empty, or the serialized id -> piece table (UTF-8 pieces, each followed by a
  // NUL byte). `what` names the table in error messages.
  explicit Tokenizer(const std::string& serialized_model, const std::string& vocab_table = std::string(),
                     const std::string& what = "vocabulary table");
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;

  std::vector<int> encode(std::string_view text) const;
  std::string decode(const std::vector<int>& ids) const;

  // The same, with the bytes each token stands for (SentencePiece's piece offsets): of the
  // original, unnormalised `text` for encode_annotated(), of the decoded text for decode_annotated().
  struct Encoded {
    std::vector<int> ids;
    std::vector<ByteRange> tokens;  // one per id, bytes of the encoded text
  };
  Encoded encode_annotated(std::string_view text) const;
  AnnotatedSentence decode_annotated(const std::vector<int>& ids) const;
  std::string piece(int id) const;
  int vocab_size() const;
  bool has_vocab_table() const { return !pieces_.empty(); }

  // Splits a serialized table into its pieces; throws tformer::Error when it is malformed
  // (empty, not NUL-terminated, an empty or duplicate piece, no "<unk>").
  static std::vector<std::string> parse_vocab_table(const std::string& bytes, const std::string& what);

 private:
  int table_id(const std::string& piece) const;                        // piece -> id of the table
  std::vector<std::string> table_pieces(const std::vector<int>& ids) const;  // throws on a bad id
  void check_model_ids(const std::vector<int>& ids) const;               // throws on a bad id

  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
  std::vector<std::string> pieces_;              // id -> piece; empty: SentencePiece ids
  std::unordered_map<std::string, int> ids_;     // piece -> id
  int unk_id_ = -1;
};

}  // namespace tformer

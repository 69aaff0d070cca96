#include "text/tokenizer.h"

#include <sentencepiece_processor.h>

#include "text/sentencepiece_check.h"
#include "text/sentencepiece_text.h"
#include "tformer/error.h"

namespace sentencepiece::logging {
void SetMinLogLevel(int level);  // in the library, not in its public header
}

namespace tformer {

std::vector<std::string> Tokenizer::parse_vocab_table(const std::string& bytes, const std::string& what) {
  auto bad = [&](const std::string& msg) { throw Error("invalid model file: " + what + ": " + msg); };
  if (bytes.empty()) bad("it is empty");
  if (bytes.back() != '\0') bad("it does not end with a NUL byte (expected NUL-terminated pieces)");
  std::vector<std::string> pieces;
  size_t start = 0;
  while (start < bytes.size()) {
    const size_t end = bytes.find('\0', start);
    if (end == start) bad("entry " + std::to_string(pieces.size()) + " is empty");
    pieces.emplace_back(bytes, start, end - start);
    start = end + 1;
  }
  return pieces;
}

Tokenizer::Tokenizer(const std::string& serialized_model, const std::string& vocab_table, const std::string& what)
    : sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
  sentencepiece::logging::SetMinLogLevel(1);  // no INFO lines on stderr of a library user
  load_sentencepiece(*sp_, serialized_model, "invalid model file: embedded SentencePiece model");
  if (vocab_table.empty()) return;
  pieces_ = parse_vocab_table(vocab_table, what);
  ids_.reserve(pieces_.size());
  for (size_t i = 0; i < pieces_.size(); ++i)
    if (!ids_.emplace(pieces_[i], int(i)).second)
      throw Error("invalid model file: " + what + ": the piece '" + pieces_[i] + "' occurs twice (ids " +
                  std::to_string(ids_[pieces_[i]]) + " and " + std::to_string(i) + ")");
  auto unk = ids_.find("<unk>");
  if (unk == ids_.end()) throw Error("invalid model file: " + what + " has no <unk> entry");
  unk_id_ = unk->second;
}

Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;

namespace {

// The pieces' byte ranges, checked against the text they are of.
std::vector<ByteRange> token_ranges(const SentencePieceText& spt, size_t text_size, const char* what) {
  std::vector<ByteRange> out;
  out.reserve(spt.pieces.size());
  for (const SentencePieceText::Piece& p : spt.pieces) {
    if (p.end > text_size) throw Error(std::string(what) + " failed: a piece's bytes lie past the end of the text");
    out.push_back({p.begin, p.end});
  }
  return out;
}

}  // namespace

std::vector<int> Tokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  if (pieces_.empty()) {
    const auto status = sp_->Encode(absl::string_view(text.data(), text.size()), &ids);
    if (!status.ok()) throw Error("tokenization failed: " + status.ToString());
    return ids;
  }
  std::vector<std::string> pieces;
  const auto status = sp_->Encode(absl::string_view(text.data(), text.size()), &pieces);
  if (!status.ok()) throw Error("tokenization failed: " + status.ToString());
  ids.reserve(pieces.size());
  for (const std::string& p : pieces) ids.push_back(table_id(p));
  return ids;
}

Tokenizer::Encoded Tokenizer::encode_annotated(std::string_view text) const {
  const SentencePieceText spt = parse_sentencepiece_text(sp_->EncodeAsSerializedProto(absl::string_view(text.data(), text.size())));
  Encoded out;
  out.tokens = token_ranges(spt, text.size(), "tokenization");
  out.ids.reserve(spt.pieces.size());
  for (const SentencePieceText::Piece& p : spt.pieces) out.ids.push_back(pieces_.empty() ? int(p.id) : table_id(p.piece));
  return out;
}

int Tokenizer::table_id(const std::string& piece) const {
  auto it = ids_.find(piece);
  return it == ids_.end() ? unk_id_ : it->second;
}

std::vector<std::string> Tokenizer::table_pieces(const std::vector<int>& ids) const {
  std::vector<std::string> pieces;
  pieces.reserve(ids.size());
  for (int id : ids) {
    if (id < 0 || size_t(id) >= pieces_.size())
      throw Error("detokenization failed: token id " + std::to_string(id) + " is outside the vocabulary of " +
                  std::to_string(pieces_.size()) + " pieces");
    pieces.push_back(pieces_[size_t(id)]);
  }
  return pieces;
}

void Tokenizer::check_model_ids(const std::vector<int>& ids) const {
  for (int id : ids)
    if (id < 0 || id >= sp_->GetPieceSize())
      throw Error("detokenization failed: token id " + std::to_string(id) + " is outside the vocabulary of " +
                  std::to_string(sp_->GetPieceSize()) + " pieces");
}

std::string Tokenizer::decode(const std::vector<int>& ids) const {
  std::string text;
  if (pieces_.empty()) {
    check_model_ids(ids);
    const auto status = sp_->Decode(ids, &text);
    if (!status.ok()) throw Error("detokenization failed: " + status.ToString());
    return text;
  }
  const auto status = sp_->Decode(table_pieces(ids), &text);
  if (!status.ok()) throw Error("detokenization failed: " + status.ToString());
  return text;
}

AnnotatedSentence Tokenizer::decode_annotated(const std::vector<int>& ids) const {
  std::string serialized;
  if (pieces_.empty()) {
    check_model_ids(ids);
    serialized = sp_->DecodeIdsAsSerializedProto(ids);
  } else {
    serialized = sp_->DecodePiecesAsSerializedProto(table_pieces(ids));
  }
  SentencePieceText spt = parse_sentencepiece_text(serialized);
  std::vector<ByteRange> tokens = token_ranges(spt, spt.text.size(), "detokenization");
  return AnnotatedSentence{std::move(spt.text), std::move(tokens)};
}

std::string Tokenizer::piece(int id) const {
  // SentencePiece CHECK-fails on an id past its end: out-of-range ids have no piece here.
  if (pieces_.empty()) return id >= 0 && id < sp_->GetPieceSize() ? sp_->IdToPiece(id) : std::string();
  return id >= 0 && size_t(id) < pieces_.size() ? pieces_[size_t(id)] : std::string();
}

int Tokenizer::vocab_size() const { return pieces_.empty() ? sp_->GetPieceSize() : int(pieces_.size()); }

}  // namespace tformer

#include "text/sentencepiece_text.h"

#include "text/protobuf_wire.h"

namespace tformer {
namespace {

// SentencePieceText and its SentencePiece (sentencepiece src/sentencepiece.proto).
constexpr uint64_t kText = 1, kPieces = 2;
constexpr uint64_t kPiece = 1, kId = 2, kBegin = 4, kEnd = 5;
const std::string kWhat = "SentencePiece's piece offsets cannot be read";

SentencePieceText::Piece parse_piece(std::string_view serialized) {
  SentencePieceText::Piece p;
  WireReader r(serialized, kWhat);
  uint64_t number = 0, type = 0, value = 0;
  std::string_view payload;
  while (r.next(number, type, payload, value)) {
    if (number == kPiece && type == kLengthDelimited) p.piece = std::string(payload);
    else if (number == kId && type == kVarint) p.id = uint32_t(value);
    else if (number == kBegin && type == kVarint) p.begin = uint32_t(value);
    else if (number == kEnd && type == kVarint) p.end = uint32_t(value);
  }
  if (p.begin > p.end) r.fail("a piece ends before it begins");
  return p;
}

}  // namespace

SentencePieceText parse_sentencepiece_text(std::string_view serialized) {
  SentencePieceText t;
  WireReader r(serialized, kWhat);
  uint64_t number = 0, type = 0, value = 0;
  std::string_view payload;
  while (r.next(number, type, payload, value)) {
    if (number == kText && type == kLengthDelimited) t.text = std::string(payload);
    else if (number == kPieces && type == kLengthDelimited) t.pieces.push_back(parse_piece(payload));
  }
  return t;
}

}  // namespace tformer

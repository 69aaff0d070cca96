// SentencePiece's SentencePieceText (its sentencepiece.proto): a text and its pieces, each with its
// id and the bytes of the text it stands for. Read from the serialized form that
// EncodeAsSerializedProto and Decode*AsSerializedProto return: that is the API every SentencePiece
// build here has (Debian's package installs no sentencepiece.pb.h, and the pinned release that the
// wasm builds compile has no ImmutableSentencePieceText wrapper yet).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tformer {

struct SentencePieceText {
  struct Piece {
    std::string piece;
    uint32_t id = 0;
    uint32_t begin = 0, end = 0;  // bytes of `text` (of the input when encoding, the output when decoding)
  };
  std::string text;
  std::vector<Piece> pieces;
};

// Parses the protocol buffer; throws tformer::Error when it is malformed.
SentencePieceText parse_sentencepiece_text(std::string_view serialized);

}  // namespace tformer

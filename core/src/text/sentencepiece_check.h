// A SentencePiece model from elsewhere, checked before SentencePiece loads it.
//
// SentencePiece parses the model proto and checks its pieces, but it trusts the precompiled
// normalisation table (`precompiled_charsmap` of the normalizer and denormalizer specs): a
// darts-clone double-array trie whose unit offsets and leaf values it follows without bounds
// checks (sentencepiece src/normalizer.cc, darts_clone/darts.h). A crafted table makes the
// normalizer read outside the model, natively a crash, in wasm a trap or a silent read of the
// heap. So every model the engine takes (a .tfm's tokenizer, a Marian vocab.spm) goes through
// this check first: every state of the trie that some input can reach is inside the table, every
// replacement string it points to is inside the table and NUL-terminated, and no input meets more
// matches than the normalizer has room for. Pieces must not hold a NUL byte (SentencePiece puts
// them in tries of C strings, whose builder throws from inside the loader).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace tformer {

// Throws tformer::Error naming `what` when the serialized ModelProto is malformed at the wire
// level, a piece holds a NUL byte, or a precompiled charsmap in it is unsafe to use.
void check_sentencepiece_model(std::string_view serialized_model, const std::string& what);

// Checks the model, then loads it into `processor`: SentencePiece's own refusals, and anything its
// loader throws, become a tformer::Error "<what>: not a SentencePiece model (...)".
void load_sentencepiece(sentencepiece::SentencePieceProcessor& processor, std::string_view serialized_model,
                        const std::string& what);

// The largest model accepted: more than any real vocabulary needs (a model of 250k pieces, as
// mBART's or NLLB's, is about 5 MB).
constexpr size_t kMaxSentencePieceModelBytes = size_t(16) << 20;

}  // namespace tformer

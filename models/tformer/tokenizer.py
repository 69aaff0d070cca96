"""SentencePiece tokenization as the engine applies it (the library itself, never re-implemented)."""
from __future__ import annotations

import sentencepiece as spm


class Tokenizer:
    def __init__(self, model_bytes: bytes):
        self.model_bytes = model_bytes
        self.sp = spm.SentencePieceProcessor(model_proto=model_bytes)

    @classmethod
    def from_file(cls, path: str) -> "Tokenizer":
        with open(path, "rb") as f:
            return cls(f.read())

    def __len__(self):
        return self.sp.get_piece_size()

    def encode(self, text: str) -> list:
        return self.sp.encode(text)

    def pieces(self, text: str) -> list:
        return self.sp.encode(text, out_type=str)

    def decode(self, ids) -> str:
        return self.sp.decode(list(ids))

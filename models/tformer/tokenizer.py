"""SentencePiece tokenization as the engine applies it (the library itself, never re-implemented).

Two kinds of token ids (docs/FORMAT.md, `tokenizer.type`):
- `sentencepiece`: the ids are the SentencePiece model's own ids.
- `sentencepiece_vocab`: SentencePiece only splits text into pieces; an explicit id -> piece table
  (Marian's `*.vocab.yml`, as OPUS-MT ships it) gives the ids. A piece missing from the table is
  `<unk>`. Decoding maps ids back to pieces and lets SentencePiece join them.
"""
from __future__ import annotations

import sentencepiece as spm

UNK_PIECE = "<unk>"


class Tokenizer:
    def __init__(self, model_bytes: bytes, vocab: list | None = None):
        self.model_bytes = model_bytes
        self.sp = spm.SentencePieceProcessor(model_proto=model_bytes)
        self.vocab = list(vocab) if vocab is not None else None
        if self.vocab is not None:
            self.index = {p: i for i, p in enumerate(self.vocab)}
            if len(self.index) != len(self.vocab):
                raise ValueError("vocabulary table has duplicate pieces")
            if UNK_PIECE not in self.index:
                raise ValueError(f"vocabulary table has no {UNK_PIECE} entry")
            self.unk_id = self.index[UNK_PIECE]

    @classmethod
    def from_file(cls, path: str, vocab: list | None = None) -> "Tokenizer":
        with open(path, "rb") as f:
            return cls(f.read(), vocab)

    @classmethod
    def from_tfm(cls, f, side: str) -> "Tokenizer":
        """The source or target tokenizer of a read .tfm file (tfm.TfmFile)."""
        from .tfm import vocab_from_bytes
        spec = f.tokenizer
        kind = spec.get("type")
        if kind not in ("sentencepiece", "sentencepiece_vocab"):
            raise ValueError(f"unsupported tokenizer type {kind!r}")
        model = f.tensors[spec[side]].tobytes()
        vocab = None
        if kind == "sentencepiece_vocab":
            vocab = vocab_from_bytes(f.tensors[spec[side + "_vocab"]])
        elif side + "_vocab" in spec:
            raise ValueError(f"tokenizer key '{side}_vocab' needs type 'sentencepiece_vocab'")
        return cls(model, vocab)

    def __len__(self):
        return len(self.vocab) if self.vocab is not None else self.sp.get_piece_size()

    def encode(self, text: str) -> list:
        if self.vocab is None:
            return self.sp.encode(text)
        return [self.index.get(p, self.unk_id) for p in self.sp.encode(text, out_type=str)]

    def pieces(self, text: str) -> list:
        return self.sp.encode(text, out_type=str)

    def piece(self, i: int) -> str:
        return self.vocab[i] if self.vocab is not None else self.sp.id_to_piece(i)

    def decode(self, ids) -> str:
        ids = [int(i) for i in ids]
        if self.vocab is None:
            return self.sp.decode(ids)
        bad = [i for i in ids if not 0 <= i < len(self.vocab)]
        if bad:
            raise ValueError(f"token id {bad[0]} is outside the vocabulary of {len(self.vocab)} pieces")
        return self.sp.decode_pieces([self.vocab[i] for i in ids])

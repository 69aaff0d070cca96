"""Where each SentencePiece piece stands, from Debian's SentencePiece for Python
(python3-sentencepiece): the golden values for the engine's annotated texts, which the CLI gives
in bytes (tests/models/test_annotated_text.py) and the package in string indices
(tests/web/annotated_text.test.mjs). Nothing of the engine is used: the model's SentencePiece
models are read from the .tfm by the model tools' own reader (models/tformer/tfm.py).

Python's SentencePiece gives offsets in characters (code points); `units` converts them to bytes
of UTF-8 or to UTF-16 code units (JS string indices).

As a program (for the JS tests): reads {"model": PATH, "sources": [sentence, ...], "targets":
[[piece, ...], ...]} as JSON on stdin and writes {"sources": [{"pieces", "ranges"}], "targets":
[{"text", "ranges"}]}, ranges in UTF-16 code units of the sentence or of the decoded text.
"""
import json
import os
import sys

import sentencepiece

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "models"))
from tformer import tfm  # noqa: E402


def load(model_path):
    """The source and target SentencePiece processors of a .tfm model."""
    model = tfm.read(model_path)
    if model.tokenizer.get("type") != "sentencepiece":
        raise ValueError(f"{model_path}: a tokenizer of type {model.tokenizer.get('type')}, not plain SentencePiece")
    side = lambda name: sentencepiece.SentencePieceProcessor(model_proto=bytes(model.tensors[model.tokenizer[name]]))
    return side("source"), side("target")


def units(text, offset, unit):
    """Character offset `offset` of `text` in bytes ("utf-8") or UTF-16 code units ("utf-16")."""
    prefix = text[:offset]
    return len(prefix.encode("utf-8")) if unit == "utf-8" else len(prefix.encode("utf-16-le")) // 2


def encoded(sp, sentence, unit):
    """(pieces, [(begin, end)]) of a source sentence, as SentencePiece encodes it: each piece as
    its id's piece ("<unk>" for a character outside the vocabulary, as the model sees it)."""
    proto = sp.encode(sentence, out_type="immutable_proto")
    return ([sp.id_to_piece(p.id) for p in proto.pieces],
            [(units(sentence, p.begin, unit), units(sentence, p.end, unit)) for p in proto.pieces])


def decoded(sp, pieces, unit):
    """(text, [(begin, end)]) of a translation's pieces, as SentencePiece decodes them."""
    proto = sp.decode_ids_as_immutable_proto([sp.piece_to_id(p) for p in pieces])
    return proto.text, [(units(proto.text, p.begin, unit), units(proto.text, p.end, unit)) for p in proto.pieces]


def main():
    request = json.load(sys.stdin)
    source, target = load(request["model"])
    out = {"sources": [], "targets": []}
    for sentence in request.get("sources", []):
        pieces, ranges = encoded(source, sentence, "utf-16")
        out["sources"].append({"pieces": pieces, "ranges": ranges})
    for pieces in request.get("targets", []):
        text, ranges = decoded(target, pieces, "utf-16")
        out["targets"].append({"text": text, "ranges": ranges})
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()

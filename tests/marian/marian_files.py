"""A small reader of Marian's files for the importer's tests, independent of the engine's importer
(core/src/marian): what a model folder holds, read with numpy, PyYAML and SentencePiece's Python
module, so that a converted .tfm can be checked against it by meaning.

- read_model(path) -> {name: Item}: `.npz` through numpy, `.bin` (format version 1, marian-dev
  src/common/binary.cpp) parsed here; an intgemm item keeps its integers and its multiplier.
- model_options(items) -> the special:model.yml item as a dict (PyYAML).
- read_vocab(spm_path, table_path) -> Vocab: the pieces by id (a .yml table's, else the
  SentencePiece model's), </s> and <unk>, and the SentencePiece model's bytes.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
import yaml

MODEL_YML = "special:model.yml"
TYPES = {0x0101: "int8", 0x0102: "int16", 0x0104: "int32", 0x0108: "int64", 0x0201: "uint8", 0x0202: "uint16",
         0x0204: "uint32", 0x0208: "uint64", 0x0402: "float16", 0x0404: "float32", 0x0408: "float64",
         0x4101: "intgemm8", 0x4102: "intgemm16"}
TYPE_CODES = {v: k for k, v in TYPES.items()}
INTGEMM = {"intgemm8": np.int8, "intgemm16": np.int16}


@dataclass
class Item:
    """One named tensor: `values` is the array of a plain type (Marian's shape), or for an intgemm
    type the integers as stored (marian-conv stores W^T: shape [out, in], an embedding as it is)
    with `mult`, the quantisation multiplier."""
    name: str
    type: str
    shape: tuple
    values: np.ndarray
    mult: float | None = None


def _bin_items(data: bytes) -> dict:
    version, count = struct.unpack_from("<QQ", data, 0)
    assert version == 1, f"a Marian .bin of format version {version}"
    headers = [struct.unpack_from("<QQQQ", data, 16 + 32 * i) for i in range(count)]
    pos = 16 + 32 * count
    names = []
    for name_len, _, _, _ in headers:
        names.append(data[pos:pos + name_len - 1].decode("utf-8"))
        pos += name_len
    shapes = []
    for _, _, ndim, _ in headers:
        shapes.append(struct.unpack_from(f"<{ndim}i", data, pos))
        pos += 4 * ndim
    (padding,) = struct.unpack_from("<Q", data, pos)
    pos += 8 + padding
    items = {}
    for name, (_, code, _, nbytes), shape in zip(names, headers, shapes):
        type_ = TYPES[code]
        n = int(np.prod(shape))
        if type_ in INTGEMM:
            q = np.frombuffer(data, dtype=np.dtype(INTGEMM[type_]).newbyteorder("<"), count=n, offset=pos)
            (mult,) = struct.unpack_from("<f", data, pos + q.nbytes)
            stored = shape if "Wemb" in name else (shape[1], shape[0])
            items[name] = Item(name, type_, tuple(shape), q.reshape(stored), mult)
        else:
            a = np.frombuffer(data, dtype=np.dtype(type_).newbyteorder("<"), count=n, offset=pos)
            items[name] = Item(name, type_, tuple(shape), a.reshape(shape))
        pos += nbytes
    return items


def read_model(path: str) -> dict:
    if path.endswith(".npz"):
        with np.load(path, allow_pickle=False) as z:
            return {n: Item(n, str(z[n].dtype), tuple(z[n].shape), z[n]) for n in z.files}
    with open(path, "rb") as f:
        return _bin_items(f.read())


def item_text(item: Item) -> str:
    return item.values.tobytes().split(b"\0", 1)[0].decode("utf-8")


def model_options(items: dict) -> dict:
    return yaml.safe_load(item_text(items[MODEL_YML])) or {}


@dataclass
class Vocab:
    pieces: list          # by id
    eos_id: int
    unk_id: int
    spm_bytes: bytes
    table: list | None    # the .yml table's pieces, None for SentencePiece ids


def read_vocab(spm_path: str, table_path: str | None = None) -> Vocab:
    import sentencepiece as spm
    with open(spm_path, "rb") as f:
        spm_bytes = f.read()
    if table_path:
        with open(table_path, encoding="utf-8") as f:
            table = yaml.load(f, Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader))  # every key as text
        pieces = [p for p, _ in sorted(table.items(), key=lambda kv: int(kv[1]))]
        return Vocab(pieces, pieces.index("</s>"), pieces.index("<unk>"), spm_bytes, pieces)
    sp = spm.SentencePieceProcessor(model_proto=spm_bytes)
    pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    return Vocab(pieces, sp.piece_to_id("</s>"), sp.unk_id(), spm_bytes, None)

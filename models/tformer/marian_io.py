"""Marian's files as `models/tfm export-marian` writes them: model `.npz`, binary model `.bin`
(format version 1), the `special:model.yml` architecture item, `*.vocab.yml` vocabularies and
`decoder.yml` options. (Reading them is the engine's importer, core/src/marian.)

`.bin` layout (marian-dev src/common/binary.cpp), little-endian:
  u64 version (1); u64 N; N headers {u64 name bytes incl. NUL, u64 type, u64 ndims, u64 data bytes};
  N NUL-terminated names; all shapes as int32; u64 padding length P and P zero bytes (the data then
  starts 256-aligned); each item's data, padded to a multiple of 256 (the padding counts in its data
  bytes). `intgemm8` data is the int8 matrix followed by its float32 quantisation multiplier.
"""
from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass

import numpy as np

BIN_VERSION = 1
BIN_ALIGN = 256
MODEL_YML = "special:model.yml"

# Marian's Type codes (src/common/types.h): size class in the low byte.
TYPES = {
    0x0101: "int8", 0x0102: "int16", 0x0104: "int32", 0x0108: "int64",
    0x0201: "uint8", 0x0202: "uint16", 0x0204: "uint32", 0x0208: "uint64",
    0x0402: "float16", 0x0404: "float32", 0x0408: "float64",
    0x4101: "intgemm8", 0x4102: "intgemm16",
}
TYPE_CODES = {v: k for k, v in TYPES.items()}
NUMPY = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
         "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
         "float16": np.float16, "float32": np.float32, "float64": np.float64}
INTGEMM = {"intgemm8": np.int8, "intgemm16": np.int16}


class MarianFormatError(ValueError):
    pass


@dataclass
class Item:
    """One named tensor of a Marian model file."""
    name: str
    type: str         # a value of TYPES
    shape: tuple
    data: bytes       # the item's bytes without the .bin padding

    def array(self) -> np.ndarray:
        """Plain types as a numpy array of `shape`."""
        if self.type in INTGEMM:
            raise MarianFormatError(f"item {self.name} is {self.type}, not an array type")
        return np.frombuffer(self.data, dtype=np.dtype(NUMPY[self.type]).newbyteorder("<"),
                             count=int(np.prod(self.shape, dtype=np.int64))).reshape(self.shape)


def needed_bytes(type_: str, shape) -> int:
    n = int(np.prod(shape, dtype=np.int64))
    if type_ in INTGEMM:
        return n * np.dtype(INTGEMM[type_]).itemsize + 4
    return n * np.dtype(NUMPY[type_]).itemsize


def item_from_array(name: str, arr: np.ndarray) -> Item:
    arr = np.ascontiguousarray(arr)
    type_ = next((k for k, v in NUMPY.items() if arr.dtype == v), None)
    if type_ is None:
        raise MarianFormatError(f"{name}: dtype {arr.dtype} has no Marian type")
    return Item(name, type_, tuple(int(d) for d in arr.shape),
                arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes())


def yml_item(text: str) -> Item:
    raw = text.encode("utf-8") + b"\0"
    return Item(MODEL_YML, "int8", (len(raw),), raw)


# ---- .bin ---------------------------------------------------------------------------------------
def write_bin(path: str, items) -> int:
    """Writes items (iterable of Item) as Marian would (marian-conv). Returns the file size."""
    items = list(items)
    blobs = []
    for it in items:
        raw = bytes(it.data)
        if len(raw) != needed_bytes(it.type, it.shape):
            raise MarianFormatError(f"item {it.name}: {len(raw)} bytes for {it.type} {list(it.shape)}")
        blobs.append(raw + b"\0" * (-len(raw) % BIN_ALIGN))
    out = bytearray(struct.pack("<QQ", BIN_VERSION, len(items)))
    for it, blob in zip(items, blobs):
        out += struct.pack("<QQQQ", len(it.name.encode("utf-8")) + 1, TYPE_CODES[it.type], len(it.shape), len(blob))
    for it in items:
        out += it.name.encode("utf-8") + b"\0"
    for it in items:
        out += struct.pack(f"<{len(it.shape)}i", *it.shape)
    pos = len(out)
    nextpos = ((pos + 8) // BIN_ALIGN + 1) * BIN_ALIGN
    padding = nextpos - pos - 8
    out += struct.pack("<Q", padding) + b"\0" * padding
    for blob in blobs:
        out += blob
    with open(path, "wb") as f:
        f.write(out)
    return len(out)


# ---- .npz ---------------------------------------------------------------------------------------
def write_npz(path: str, items) -> int:
    arrays = {}
    for it in items:
        if it.type in INTGEMM:
            raise MarianFormatError(f"{it.name}: {it.type} cannot be stored in .npz")
        arrays[it.name] = it.array()
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return os.path.getsize(path)


# ---- YAML -----------------------------------------------------------------------------------------
def dump_options(opts: dict) -> str:
    """YAML that yaml-cpp (Marian) and PyYAML read back to the same values."""
    lines = []
    for key, value in opts.items():
        if isinstance(value, bool):
            lines.append(f"{key}: {'true' if value else 'false'}")
        elif isinstance(value, (int, float)):
            lines.append(f"{key}: {value}")
        elif isinstance(value, str):
            lines.append(f"{key}: {json.dumps(value)}")
        elif isinstance(value, (list, tuple)):
            if not value:
                lines.append(f"{key}: []")
            else:
                lines.append(f"{key}:")
                lines.extend(f"  - {json.dumps(v) if isinstance(v, str) else v}" for v in value)
        else:
            raise ValueError(f"option {key}: cannot write {value!r}")
    return "\n".join(lines) + "\n"


def _yaml_quote(s: str) -> str:
    """A YAML double-quoted scalar: JSON escapes, and \\u escapes for what YAML may not hold raw."""
    def escape(ch):
        c = ord(ch)
        if 0x7F <= c <= 0x9F or c in (0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF) or 0xD800 <= c <= 0xDFFF:
            return f"\\u{c:04x}"
        return ch
    return "".join(escape(ch) for ch in json.dumps(s, ensure_ascii=False))


def write_vocab_yml(path: str, pieces) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for i, p in enumerate(pieces):
            f.write(f"{_yaml_quote(p)}: {i}\n")

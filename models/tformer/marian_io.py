"""Marian's files: model `.npz`, binary model `.bin` (format version 1), the `special:model.yml`
architecture item, and `*.vocab.yml` vocabularies. Readers validate everything and raise
MarianFormatError with a message naming the file and the part at fault.

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
import zipfile
from dataclasses import dataclass

import numpy as np
import yaml

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
        """Plain types as a numpy array of `shape` (intgemm types: see intgemm())."""
        if self.type in INTGEMM:
            raise MarianFormatError(f"item {self.name} is {self.type}; use intgemm()")
        return np.frombuffer(self.data, dtype=np.dtype(NUMPY[self.type]).newbyteorder("<"),
                             count=int(np.prod(self.shape, dtype=np.int64))).reshape(self.shape)

    def intgemm(self):
        """(integers as stored, quantMult). The integers have `shape`'s element count."""
        n = int(np.prod(self.shape, dtype=np.int64))
        dt = np.dtype(INTGEMM[self.type]).newbyteorder("<")
        q = np.frombuffer(self.data, dtype=dt, count=n)
        (mult,) = struct.unpack_from("<f", self.data, n * dt.itemsize)
        return q, mult


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


def item_text(item: Item) -> str:
    return bytes(item.data).split(b"\0", 1)[0].decode("utf-8")


# ---- .bin ---------------------------------------------------------------------------------------
def read_bin(path: str) -> dict:
    """name -> Item, in file order. Raises MarianFormatError on any inconsistency."""
    with open(path, "rb") as f:
        data = f.read()
    return parse_bin(data, path)


def parse_bin(data: bytes, path: str = "<bytes>") -> dict:
    size = len(data)

    def bad(msg):
        raise MarianFormatError(f"{path}: not a valid Marian .bin model: {msg}")

    if size < 16:
        bad(f"the file has {size} bytes (truncated?)")
    version, count = struct.unpack_from("<QQ", data, 0)
    if version != BIN_VERSION:
        bad(f"binary format version {version}, expected {BIN_VERSION} (is this a Marian .bin file?)")
    if count == 0 or count > (size - 16) // 32:
        bad(f"it claims {count} items, impossible in a file of {size} bytes (corrupted or truncated header)")
    pos = 16
    headers = [struct.unpack_from("<QQQQ", data, pos + 32 * i) for i in range(count)]
    pos += 32 * count
    names = []
    for i, (name_len, type_code, ndim, nbytes) in enumerate(headers):
        if not 1 <= name_len <= 4096 or pos + name_len > size:
            bad(f"item {i}: name length {name_len} is implausible or runs past the end of the file")
        raw = data[pos:pos + name_len]
        if raw[-1:] != b"\0":
            bad(f"item {i}: name is not NUL-terminated")
        try:
            names.append(raw[:-1].decode("utf-8"))
        except UnicodeDecodeError:
            bad(f"item {i}: name is not UTF-8")
        pos += name_len
        if type_code not in TYPES:
            bad(f"item {names[-1]}: unknown or unsupported type code 0x{type_code:x} "
                f"(supported: {', '.join(sorted(TYPES.values()))})")
        if not 1 <= ndim <= 8:
            bad(f"item {names[-1]}: {ndim} dimensions")
    shapes = []
    for name, (_, _, ndim, _) in zip(names, headers):
        if pos + 4 * ndim > size:
            bad(f"truncated in the shape of item {name}")
        shape = struct.unpack_from(f"<{ndim}i", data, pos)
        pos += 4 * ndim
        if any(d <= 0 for d in shape):
            bad(f"item {name}: shape {list(shape)} has a dimension that is not positive")
        shapes.append(tuple(shape))
    if pos + 8 > size:
        bad("truncated before the data section")
    (padding,) = struct.unpack_from("<Q", data, pos)
    pos += 8
    if padding > BIN_ALIGN or pos + padding > size:
        bad(f"data padding of {padding} bytes is implausible")
    pos += padding
    items = {}
    for name, (_, type_code, _, nbytes), shape in zip(names, headers, shapes):
        type_ = TYPES[type_code]
        need = needed_bytes(type_, shape)
        if nbytes < need:
            bad(f"item {name}: {nbytes} data bytes, but a {type_} tensor of shape {list(shape)} needs {need}")
        if pos + nbytes > size:
            bad(f"truncated at item {name}: it needs {nbytes} bytes at offset {pos}, the file has {size}")
        if name in items:
            bad(f"item {name} occurs twice")
        items[name] = Item(name, type_, shape, data[pos:pos + need])
        pos += nbytes
    return items


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
def read_npz(path: str) -> dict:
    """name -> Item (plain types only; Marian's .npz holds float32 and the int8 model.yml)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {name: z[name] for name in z.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        raise MarianFormatError(f"{path}: not a readable .npz file ({e})") from None
    items = {}
    for name, arr in arrays.items():
        if arr.dtype.kind not in "iuf":
            raise MarianFormatError(f"{path}: item {name} has dtype {arr.dtype}")
        items[name] = item_from_array(name, arr)
    return items


def write_npz(path: str, items) -> int:
    arrays = {}
    for it in items:
        if it.type in INTGEMM:
            raise MarianFormatError(f"{it.name}: {it.type} cannot be stored in .npz")
        arrays[it.name] = it.array()
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return os.path.getsize(path)


def read_model(path: str) -> dict:
    lower = path.lower()
    if lower.endswith(".npz"):
        return read_npz(path)
    if lower.endswith(".bin"):
        return read_bin(path)
    raise MarianFormatError(f"{path}: a Marian model must be a .npz or .bin file")


# ---- YAML -----------------------------------------------------------------------------------------
def parse_options(text: str, what: str) -> dict:
    try:
        opts = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise MarianFormatError(f"{what}: invalid YAML ({e})") from None
    if opts is None:
        return {}
    if not isinstance(opts, dict):
        raise MarianFormatError(f"{what}: expected a YAML mapping of options")
    return opts


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


def read_vocab_yml(path: str) -> list:
    """Marian's DefaultVocab file (piece: id) -> list of pieces by id. Every key is read as a string
    (a piece like `1` or `yes` stays text, as in Marian's yaml-cpp reading)."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except OSError as e:
        raise MarianFormatError(f"{path}: cannot read vocabulary ({e.strerror})") from None
    except UnicodeDecodeError:
        raise MarianFormatError(f"{path}: vocabulary is not UTF-8") from None
    loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
    try:
        table = yaml.load(text, Loader=loader)
    except yaml.YAMLError as e:
        raise MarianFormatError(f"{path}: invalid vocabulary YAML ({e})") from None
    if not isinstance(table, dict) or not table:
        raise MarianFormatError(f"{path}: a vocabulary must be a non-empty mapping piece: id")
    by_id = {}
    for piece, value in table.items():
        try:
            i = int(value)
        except (TypeError, ValueError):
            raise MarianFormatError(f"{path}: piece {piece!r} has id {value!r}, not an integer") from None
        if i in by_id:
            raise MarianFormatError(f"{path}: id {i} is given to both {by_id[i]!r} and {piece!r}")
        by_id[i] = piece
    n = len(by_id)
    if min(by_id) != 0 or max(by_id) != n - 1:
        missing = next(i for i in range(max(by_id) + 1) if i not in by_id)
        raise MarianFormatError(f"{path}: ids must be 0..{n - 1} without gaps (id {missing} is missing)")
    return [by_id[i] for i in range(n)]


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

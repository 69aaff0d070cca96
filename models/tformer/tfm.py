"""Reading and writing `.tfm` model files (specification: docs/FORMAT.md)."""
from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field

import numpy as np

MAGIC = b"TFMODEL\0"
VERSION = 1
ALIGN = 64
PREAMBLE = struct.Struct("<8sIIQ")  # magic, version, flags, header length

DTYPES = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "u8": np.uint8}


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


@dataclass
class TfmFile:
    config: dict
    tokenizer: dict
    tensors: dict  # name -> numpy array (dtype from DTYPES)
    metadata: dict = field(default_factory=dict)
    scales: dict = field(default_factory=dict)  # int8 tensor name -> name of its f32 row scales


def quantize_rows_int8(w: np.ndarray):
    """Symmetric per-output-row int8: w ~ q * scale[row], scale = max|row| / 127."""
    w = np.asarray(w, dtype=np.float32)
    amax = np.abs(w).max(axis=1)
    scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(w / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale


# Storage precisions of weight matrices (export --weights, quantize, import-marian --weights).
WEIGHT_DTYPES = ("f32", "f16", "int8")


def store_weight(arr: np.ndarray, weights: str, scales: np.ndarray | None = None):
    """The one storage-precision policy of export, quantize and the Marian importer: how a tensor is
    stored at precision `weights`. Returns (array, per-row scales or None).

    Matrices (2-D float or int8) are cast: "f32" and "f16" store them as such, an int8 matrix (given
    with its row scales) dequantised first; "int8" stores per-output-row symmetric int8
    (quantize_rows_int8), an int8 matrix as it is. Anything else (vectors, u8 bytes) is never cast:
    the engine reads vectors in f32, and the file's bytes are not weights."""
    if weights not in WEIGHT_DTYPES:
        raise ValueError(f"weights must be one of {WEIGHT_DTYPES}, not {weights!r}")
    arr = np.asarray(arr)
    if arr.ndim != 2 or not (arr.dtype == np.int8 or np.issubdtype(arr.dtype, np.floating)):
        return arr, None
    if arr.dtype == np.int8:
        if scales is None:
            raise ValueError("an int8 matrix needs its row scales")
        if weights == "int8":
            return arr, scales
        arr = arr.astype(np.float32) * scales[:, None]
    if weights == "int8":
        return quantize_rows_int8(arr)
    return arr.astype(np.float16 if weights == "f16" else np.float32), None


def tokenizer_section(tensors: dict, source_spm: bytes, target_spm: bytes | None = None,
                      source_vocab=None, target_vocab=None) -> dict:
    """The header's `tokenizer` object, adding its tensors to `tensors` (docs/FORMAT.md):
    SentencePiece models (`sentencepiece`), plus id -> piece tables when the vocabularies are
    Marian's .yml ones (`sentencepiece_vocab`). A side equal to the source side is stored once."""
    if (source_vocab is None) != (target_vocab is None):
        raise ValueError("either both sides have an id table or neither does")
    tokenizer = {"type": "sentencepiece" if source_vocab is None else "sentencepiece_vocab"}
    tensors["tokenizer.source"] = np.frombuffer(source_spm, dtype=np.uint8)
    tokenizer["source"] = "tokenizer.source"
    if target_spm is None or target_spm == source_spm:
        tokenizer["target"] = "tokenizer.source"
    else:
        tensors["tokenizer.target"] = np.frombuffer(target_spm, dtype=np.uint8)
        tokenizer["target"] = "tokenizer.target"
    if source_vocab is not None:
        tensors["tokenizer.source_vocab"] = vocab_to_bytes(source_vocab)
        tokenizer["source_vocab"] = "tokenizer.source_vocab"
        if target_vocab == source_vocab:
            tokenizer["target_vocab"] = "tokenizer.source_vocab"
        else:
            tensors["tokenizer.target_vocab"] = vocab_to_bytes(target_vocab)
            tokenizer["target_vocab"] = "tokenizer.target_vocab"
    return tokenizer


def write(path: str, model: TfmFile) -> int:
    """Writes the file; returns its size in bytes."""
    entries, blobs, offset, data_end = [], [], 0, 0
    for name, arr in model.tensors.items():
        arr = np.ascontiguousarray(arr)
        dtype = next((k for k, v in DTYPES.items() if arr.dtype == v), None)
        if dtype is None:
            raise ValueError(f"tensor {name}: unsupported dtype {arr.dtype}")
        entry = {"name": name, "dtype": dtype, "shape": list(arr.shape), "offset": offset,
                 "nbytes": int(arr.nbytes)}
        if name in model.scales:
            entry["scales"] = model.scales[name]
        entries.append(entry)
        blobs.append((offset, arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()))
        data_end = offset + arr.nbytes
        offset = _align(data_end)
    header = {"format": "tformer", "version": VERSION, "config": model.config,
              "tokenizer": model.tokenizer, "tensors": entries, "metadata": model.metadata}
    hbytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    data_start = _align(PREAMBLE.size + len(hbytes))
    with open(path, "wb") as f:
        f.write(PREAMBLE.pack(MAGIC, VERSION, 0, len(hbytes)))
        f.write(hbytes)
        f.write(b"\0" * (data_start - PREAMBLE.size - len(hbytes)))
        for off, raw in blobs:
            f.seek(data_start + off)
            f.write(raw)
        end = data_start + data_end  # the last tensor is not padded
        f.truncate(end)
    return end


def read(path: str) -> TfmFile:
    with open(path, "rb") as f:
        data = f.read()
    magic, version, _flags, hlen = PREAMBLE.unpack_from(data, 0)
    if magic != MAGIC:
        raise ValueError(f"{path}: not a .tfm file (bad magic)")
    if version != VERSION:
        raise ValueError(f"{path}: unsupported .tfm version {version}")
    header = json.loads(data[PREAMBLE.size:PREAMBLE.size + hlen].decode("utf-8"))
    data_start = _align(PREAMBLE.size + hlen)
    tensors, scales = {}, {}
    for e in header["tensors"]:
        start = data_start + e["offset"]
        arr = np.frombuffer(data, dtype=np.dtype(DTYPES[e["dtype"]]).newbyteorder("<"),
                            count=int(np.prod(e["shape"], dtype=np.int64)), offset=start)
        tensors[e["name"]] = arr.reshape(e["shape"])
        if "scales" in e:
            scales[e["name"]] = e["scales"]
    return TfmFile(header["config"], header["tokenizer"], tensors, header.get("metadata", {}), scales)


def vocab_to_bytes(pieces) -> np.ndarray:
    """An id -> piece table as a `u8` tensor: UTF-8 pieces, each followed by a NUL byte."""
    out = bytearray()
    seen = set()
    for i, p in enumerate(pieces):
        if not isinstance(p, str) or not p:
            raise ValueError(f"vocabulary entry {i} is empty or not a string")
        if "\0" in p:
            raise ValueError(f"vocabulary entry {i} ({p!r}) contains a NUL character")
        if p in seen:
            raise ValueError(f"vocabulary entry {i} ({p!r}) occurs twice")
        seen.add(p)
        out += p.encode("utf-8") + b"\0"
    if not out:
        raise ValueError("empty vocabulary")
    return np.frombuffer(bytes(out), dtype=np.uint8)


def vocab_from_bytes(data) -> list:
    raw = bytes(np.asarray(data, dtype=np.uint8).tobytes())
    if not raw or raw[-1] != 0:
        raise ValueError("vocabulary table must be NUL-terminated UTF-8 pieces")
    return [p.decode("utf-8") for p in raw[:-1].split(b"\0")]


def dequantize(model: TfmFile, name: str) -> np.ndarray:
    t = model.tensors[name]
    if t.dtype == np.int8:
        s = model.tensors[model.scales[name]]
        return t.astype(np.float32) * s[:, None]
    return t.astype(np.float32)

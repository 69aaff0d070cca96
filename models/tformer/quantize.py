"""`models/tfm quantize IN.tfm -o OUT.tfm`: f32/f16 matrices -> int8 with per-row scales.

Every 2-D f32 or f16 tensor becomes `i8` plus an f32 `<name>.scales` tensor (symmetric per-output-row,
tfm.store_weight, the policy of `export --weights int8`); everything else (vectors, u8
tokenizer data, tensors already int8) is copied unchanged. The config and tokenizer are kept; the
metadata records the conversion.
"""
from __future__ import annotations

import os

import numpy as np

from . import tfm


def quantize_file(src: str, dst: str) -> dict:
    f = tfm.read(src)
    tensors, scales = {}, dict(f.scales)
    counts = {"quantized": 0, "kept": 0}
    taken = set(f.tensors)
    for name, arr in f.tensors.items():
        if arr.ndim == 2 and arr.dtype in (np.float32, np.float16) and name not in f.scales.values():
            q, s = tfm.store_weight(arr, "int8")
            scale_name = name + ".scales"
            if scale_name in taken:
                raise ValueError(f"{src}: cannot name the scales of {name}: {scale_name} exists")
            tensors[name], tensors[scale_name] = q, s
            scales[name] = scale_name
            counts["quantized"] += 1
        else:
            tensors[name] = np.array(arr)  # a copy: tfm.read's arrays view the input file's bytes
            counts["kept"] += 1
    meta = dict(f.metadata)
    meta["weights"] = "int8"
    meta["quantized_from"] = os.path.basename(src)
    size = tfm.write(dst, tfm.TfmFile(f.config, f.tokenizer, tensors, meta, scales))
    return {"bytes_in": os.path.getsize(src), "bytes_out": size, **counts}


def register(sub):
    s = sub.add_parser("quantize", help="convert a .tfm file's f32/f16 matrices to int8 (per-row scales)")
    s.add_argument("input")
    s.add_argument("-o", "--output", required=True)
    s.set_defaults(func=cmd_quantize)


def cmd_quantize(args):
    if os.path.abspath(args.input) == os.path.abspath(args.output):
        raise SystemExit("quantize: the output must be another file than the input")
    r = quantize_file(args.input, args.output)
    print(f"wrote {args.output}: {r['quantized']} matrices to int8, {r['kept']} tensors kept; "
          f"{r['bytes_in']} -> {r['bytes_out']} bytes ({r['bytes_out'] / r['bytes_in']:.3f}x)")

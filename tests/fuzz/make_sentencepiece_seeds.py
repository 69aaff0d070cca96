#!/usr/bin/env python3
"""Seeds of fuzz_sentencepiece (tests/fuzz/fuzz_sentencepiece.cc), each prefixed with the byte that
tells the harness what it is: 0 a whole model (the fixtures'), 1 a normalizer charsmap (a rule
"a" -> "b"), 2 a denormalizer charsmap, 3 trie units. (Real NFKC tables, 237 KB, would slow the
fuzzer tenfold; tests/core/test_sentencepiece_check.cc checks one.) Standard library only.
Usage: make_sentencepiece_seeds.py ROOT OUT_DIR"""
import json
import os
import struct
import sys

root, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "tests", "cli"))
import sentencepiece_proto as sp  # noqa: E402

os.makedirs(out, exist_ok=True)


def write(name, selector, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes([selector]) + data)


def tokenizer_model(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[16:24])[0]
    header = json.loads(b[24:24 + n])
    start = (24 + n + 63) // 64 * 64
    t = next(t for t in header["tensors"] if t["name"] == header["tokenizer"]["source"])
    return b[start + t["offset"]:start + t["offset"] + t["nbytes"]]


for variant in ("marian", "tutorial"):
    write(f"{variant}.spm", 0, tokenizer_model(os.path.join(root, "tests", "fixtures", variant, "model.tfm")))
rule = sp.charsmap(sp.one_rule(ord("a"), 0), b"b\0")
write("rule.charsmap", 1, rule)
write("rule-denormalizer.charsmap", 2, rule)
write("rule.units", 3, struct.pack("<768I", *sp.one_rule(ord("a"), 0)))
print(f"fuzz_sentencepiece seeds in {out}")

#!/usr/bin/python3
"""Seeds of fuzz_marian (tests/fuzz/fuzz_marian.cc): a small Marian model (the harness's: d 8, one
layer each side, made-up values, the fixture's 256-piece vocabulary) written as Marian files, each
prefixed with the byte that tells the harness what it is: 0 model .bin, 1 model .npz, 2 .gz of the
.bin, 3 special:model.yml options, 4 decoder.yml / vocabulary YAML, 5 a lexical shortlist, 6 a
SentencePiece vocabulary, 7 an OPUS-MT vocabulary table. Needs numpy and sentencepiece
(/usr/bin/python3). Usage: make_marian_seeds.py FIXTURES_DIR OUT_DIR"""
import gzip
import json
import os
import struct
import sys
import tempfile

import numpy as np
import sentencepiece

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models"))
from tformer import marian_io, shortlist  # noqa: E402

fixtures, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
V, D, FFN = 256, 8, 16
OPTIONS = (f"type: transformer\ndim-emb: {D}\nenc-depth: 1\ndec-depth: 1\ntransformer-heads: 2\n"
           f"transformer-dim-ffn: {FFN}\ntransformer-ffn-activation: relu\ntied-embeddings-all: true\n"
           f"dim-vocabs: [{V}, {V}]\n")


def write(name, selector, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes([selector]) + (data.encode() if isinstance(data, str) else data))


def fixture_spm():
    b = open(os.path.join(fixtures, "marian", "model.tfm"), "rb").read()
    n = struct.unpack("<Q", b[16:24])[0]
    header = json.loads(b[24:24 + n])
    start = (24 + n + 63) // 64 * 64
    t = next(t for t in header["tensors"] if t["name"] == header["tokenizer"]["source"])
    return b[start + t["offset"]:start + t["offset"] + t["nbytes"]]


def tiny_items():
    rng = np.random.default_rng(3)
    shapes = {"Wemb": (V, D), "decoder_ff_logit_out_b": (1, V)}
    for m in ("encoder_l1_self", "decoder_l1_self", "decoder_l1_context"):
        for p in "qkvo":
            shapes[f"{m}_W{p}"], shapes[f"{m}_b{p}"] = (D, D), (1, D)
        shapes[f"{m}_Wo_ln_scale"] = shapes[f"{m}_Wo_ln_bias"] = (1, D)
    for m in ("encoder_l1_ffn", "decoder_l1_ffn"):
        shapes.update({f"{m}_W1": (D, FFN), f"{m}_b1": (1, FFN), f"{m}_W2": (FFN, D), f"{m}_b2": (1, D),
                       f"{m}_ffn_ln_scale": (1, D), f"{m}_ffn_ln_bias": (1, D)})
    items = [marian_io.item_from_array(n, rng.standard_normal(s).astype(np.float32)) for n, s in shapes.items()]
    return items + [marian_io.yml_item(OPTIONS)]


spm = fixture_spm()
with tempfile.TemporaryDirectory() as work:
    marian_io.write_bin(os.path.join(work, "model.bin"), tiny_items())
    marian_io.write_npz(os.path.join(work, "model.npz"), tiny_items())
    model_bin = open(os.path.join(work, "model.bin"), "rb").read()
    model_npz = open(os.path.join(work, "model.npz"), "rb").read()
write("model.bin", 0, model_bin)
write("model.npz", 1, model_npz)
write("model.bin.gz", 2, gzip.compress(model_bin))
write("options.yml", 3, OPTIONS)
write("options-pre.yml", 3, OPTIONS + 'transformer-preprocess: "n"\n')
write("options-bad.yml", 3, "type: transformer\ndim-emb: [32\n")
write("decoder.yml", 4, "models:\n  - model.deen.bin\nvocabs:\n  - vocab.deen.spm\n  - vocab.deen.spm\n"
      "beam-size: 1\nrelative-paths: true\n")
write("vocab.yml", 4, '"</s>": 0\n"<unk>": 1\n"\\u2581a": 2\n"yes": 3\n')
write("lex.s2t.bin", 5, shortlist.write([[(3 * i) % V, (3 * i + 1) % V] for i in range(V)], 100, 50))
write("vocab.spm", 6, spm)
sp = sentencepiece.SentencePieceProcessor(model_proto=spm)
write("opus.vocab.yml", 7, "".join(f"{json.dumps(sp.id_to_piece(i))}: {i}\n" for i in range(sp.get_piece_size())))
print(f"fuzz_marian seeds in {out}")

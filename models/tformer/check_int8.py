"""Checks of the int8 model tools (tests/run_all's int8-tools suite):
- `tfm quantize` turns exactly the f32/f16 matrices into i8 + f32 row scales and keeps the rest;
- qd8_quantize follows XNNPACK's rules on hand-made rows;
- the PyTorch int8 reference reproduces the marian-int8 fixture's golden tokens and scores.
Run: /usr/bin/python3 models/tformer/check_int8.py
"""
from __future__ import annotations

import json
import os
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tformer import tfm  # noqa: E402
from tformer.decode import beam_search, greedy  # noqa: E402
from tformer.export import load_tfm_model  # noqa: E402
from tformer.model import qd8_quantize  # noqa: E402
from tformer.quantize import quantize_file  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures")


def check_quantize():
    src = os.path.join(FIXTURES, "marian", "model.tfm")
    with tempfile.TemporaryDirectory() as work:
        dst = os.path.join(work, "int8.tfm")
        r = quantize_file(src, dst)
        a, b = tfm.read(src), tfm.read(dst)
        for name, arr in a.tensors.items():
            if arr.ndim == 2 and arr.dtype in (np.float32, np.float16):
                assert b.tensors[name].dtype == np.int8 and b.scales[name] == name + ".scales", name
                s = b.tensors[name + ".scales"]
                assert s.dtype == np.float32 and s.shape == (arr.shape[0],), name
                err = np.abs(tfm.dequantize(b, name) - arr.astype(np.float32)).max(axis=1)
                assert np.all(err <= s / 2 * 1.001), name  # half a step per row at most
            else:
                assert b.tensors[name].dtype == arr.dtype and np.array_equal(b.tensors[name], arr), name
        assert b.config == a.config and b.tokenizer == a.tokenizer
        assert r["bytes_out"] < 0.75 * r["bytes_in"]
    print(f"quantize: ok ({r['quantized']} matrices, {r['bytes_in']} -> {r['bytes_out']} bytes)")


def check_qd8():
    q, zp, scale = qd8_quantize(torch.tensor([[0.5, 2.55, 1.0], [0.0, 0.0, 0.0], [-1.0, 0.0, 1.0]]))
    assert zp.flatten().tolist() == [-128.0, 127.0, 0.0], zp  # a row of zeros: zero point 127, as XNNPACK
    assert abs(scale[0].item() - 2.55 / 255) < 1e-8 and scale[1].item() == 1.0
    assert q[0].tolist()[1] == 127.0 and q[1].tolist() == [127.0, 127.0, 127.0]
    assert q[2].tolist() == [-127.0, 0.0, 127.0]  # the multiplier 1 / (1 / 127.5) is a hair below 127.5
    print("qd8 rules: ok")


def check_fixture():
    model, _, _, _ = load_tfm_model(os.path.join(FIXTURES, "marian-int8", "model.tfm"))
    with open(os.path.join(FIXTURES, "marian-int8", "golden.json"), encoding="utf-8") as f:
        golden = json.load(f)
    for s in golden["sentences"]:
        g = greedy(model, [s["source_ids"]], [s["max_length"]])[0]
        assert g.tokens == s["greedy"]["tokens"], s["text"]
        assert abs(g.raw_score - s["greedy"]["raw_score"]) < 1e-4, s["text"]
        beams = beam_search(model, s["source_ids"], beam=4, max_length=s["max_length"], alpha=1.0, nbest=4)
        assert [h.tokens for h in beams] == [h["tokens"] for h in s["beam"]], s["text"]
    print(f"PyTorch int8 reference = marian-int8 golden data: ok ({len(golden['sentences'])} sentences)")


if __name__ == "__main__":
    check_quantize()
    check_qd8()
    check_fixture()

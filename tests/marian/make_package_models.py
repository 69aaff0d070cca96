#!/usr/bin/python3
"""Inputs of the npm package's Marian-folder tests (tests/marian/package.test.mjs).

Usage: tests/marian/make_package_models.py MODELS OUT
  MODELS  a folder of tests/marian/make_models.py (each model's marian/ folder: model.bin, the
          intgemm8 model.intgemm.alphas.bin, vocabularies, decoder.yml)
  OUT     gets, per model, the .tfm of its Marian files written by the native CLI's importer
          (`tformer convert`; NAME.f32.tfm from model.bin, NAME.int8.tfm from the intgemm8 file):
          the "converted once" side the package's direct load (the same importer, in wasm) must
          equal; and two OPUS-MT style folders (model .npz with
          special:model.yml, decoder.yml, source.spm/target.spm, *.vocab.yml tables whose ids
          are a shuffled permutation of the SentencePiece ids, tests/marian/test_roundtrip.py's
          OpusModel) with their imported .tfm and the PyTorch reference's translations; and
          a Firefox-style folder with a lexical shortlist (lex.8.12.deen.s2t.bin, random lists
          over d64-std-post-relu's vocabulary) with its imported .tfm, which carries it;
          index.json lists it all. And hostile/crafted.vocab.spm: that model's vocabulary with a
          normalisation table pointing outside itself, which the package must refuse.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_roundtrip as rt  # noqa: E402  (OpusModel, SENTENCES; sets up models/ on sys.path)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cli"))
import sentencepiece_proto  # noqa: E402

import torch  # noqa: E402

from tformer import marian, shortlist  # noqa: E402


def main(argv):
    models_dir, out = argv
    torch.set_num_threads(1)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(models_dir, "index.json"), encoding="utf-8") as f:
        names = json.load(f)["models"]
    entries = []
    for name in names:
        folder = os.path.join(models_dir, name, "marian")
        for kind, file in (("f32", "model.bin"), ("int8", "model.intgemm.alphas.bin")):
            if not os.path.exists(os.path.join(folder, file)):
                continue
            tfm_path = os.path.join(out, f"{name}.{kind}.tfm")
            marian.import_marian(folder, tfm_path, model=os.path.join(folder, file))
            entries.append({"name": name, "kind": kind, "folder": folder, "model_file": file, "tfm": tfm_path})
    for opus, kwargs in (("opus-post", dict(seed=7)),
                         ("opus-pre-ssru-separate", dict(seed=11, norm="pre", act="relu", dec="ssru", tie="target",
                                                         separate=True))):
        folder = os.path.join(out, opus)
        ref = rt.OpusModel(folder, **kwargs)
        tfm_path = os.path.join(out, f"{opus}.tfm")
        marian.import_marian(folder, tfm_path)
        expected, _ = ref.translate(rt.SENTENCES)
        entries.append({"name": opus, "kind": "opus", "folder": folder, "model_file": None, "tfm": tfm_path,
                        "sentences": rt.SENTENCES, "reference": expected})
    # A Firefox folder with its shortlist: per source id 12 target ids, ids 0-7 always (firstNum).
    base = os.path.join(models_dir, "d64-std-post-relu", "marian")
    if os.path.exists(base):
        folder = os.path.join(out, "d64-std-post-relu-lex")
        os.makedirs(folder, exist_ok=True)
        for f in ("model.bin", "vocab.spm"):
            shutil.copy(os.path.join(base, f), os.path.join(folder, f))
        rng = random.Random(21)
        with open(os.path.join(folder, "lex.8.12.deen.s2t.bin"), "wb") as f:
            f.write(shortlist.write([rng.sample(range(256), 12) for _ in range(256)], 8, 12))
        tfm_path = os.path.join(out, "d64-std-post-relu-lex.tfm")
        marian.import_marian(folder, tfm_path)
        entries.append({"name": "d64-std-post-relu-lex", "kind": "shortlist", "folder": folder, "model_file": "model.bin",
                        "tfm": tfm_path, "plan_of": "d64-std-post-relu"})
    if os.path.exists(base):
        os.makedirs(os.path.join(out, "hostile"), exist_ok=True)
        with open(os.path.join(base, "vocab.spm"), "rb") as f:
            spm = f.read()
        charsmap = sentencepiece_proto.charsmap(sentencepiece_proto.one_rule(ord("a"), 0x7FFFFF00), b"b\0")
        with open(os.path.join(out, "hostile", "crafted.vocab.spm"), "wb") as f:
            f.write(sentencepiece_proto.with_charsmap(spm, charsmap))
    with open(os.path.join(out, "index.json"), "w", encoding="utf-8") as f:
        json.dump({"models": entries}, f, ensure_ascii=False, indent=1)
    print(f"{len(entries)} models in {out}")


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/python3
"""A Marian model folder in the shape of the Firefox Translations "tiny" models, for the peers
benchmark (tests/bench/peers.mjs) against Bergamot's wasm on the same files.

  tests/bench/firefox_tiny.py OUT [--sentences 100]

Shape (Firefox Translations' tiny config): d_model 256, 6 encoder and 2 decoder layers, 8 heads,
feed-forward 1536, relu, post-norm (`transformer-postprocess: dan`), SSRU decoder
(`transformer-decoder-autoreg: rnn`, `dec-cell: ssru`), all embeddings tied, the 32k SentencePiece
vocabulary of the Firefox de-en models (../shared/data/spm/bergamot.vocab.deen.spm). Random weights
(tests/marian/make_models.py's recipe, with its EOS bias so that about half the outputs end before
the length limit): no trained Firefox model can be downloaded here.

OUT/firefox-tiny-ssru/ gets model.tfm (the f32 reference), marian/ (model.bin float32;
model.intgemm.alphas.bin: intgemm8 with activation multipliers calibrated on FLORES dev lines;
vocab.spm; decoder.yml) and plan.json (tests/marian/parity.mjs's sentences); and a binary lexical
shortlist beside them, shortlist/lex.50.50.deen.s2t.bin (firstNum 50, bestNum 50: for each source
piece 50 target pieces, random as the weights are). The intgemm8 file is what Firefox ships; the
engine imports it as downloaded (`tformer convert`, the npm package's `model: {files}`: the same
C++ importer). A model already made is kept (the shortlist is rewritten).
"""
import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "marian"))
import make_models as mm  # noqa: E402

import torch  # noqa: E402

from tformer import shortlist  # noqa: E402  (make_models put models/ on the path)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--sentences", type=int, default=100)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    os.makedirs(args.out, exist_ok=True)
    with open(mm.FIREFOX_SPM, "rb") as f:
        spm = f.read()
    flores = os.path.join(mm.DATA, "deen", "dev", "flores-dev.de")
    name = "firefox-tiny-ssru"
    if not os.path.exists(os.path.join(args.out, name, "plan.json")):
        mm.make(args.out, name, spm, None, mm.D256, "ssru", "post", "relu", "all", 3000, flores, args.sentences, flores)
    # Marian's binary shortlist: per source id, its candidate target ids (the first firstNum ids are
    # always candidates, as Marian adds them).
    rng = random.Random(3001)
    V = 32000
    lists = [rng.sample(range(V), 50) for _ in range(V)]
    os.makedirs(os.path.join(args.out, name, "shortlist"), exist_ok=True)
    with open(os.path.join(args.out, name, "shortlist", "lex.50.50.deen.s2t.bin"), "wb") as f:
        f.write(shortlist.write(lists, 50, 50))
    with open(os.path.join(args.out, "index.json"), "w", encoding="utf-8") as f:
        json.dump({"models": [name]}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])

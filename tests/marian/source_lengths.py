#!/usr/bin/python3
"""Prints, for each line of stdin, the model's source length W in tokens (EOS included), as the
PyTorch reference counts it: the length rules of tformer and Marian are functions of W.

Usage: tests/marian/source_lengths.py MODEL.tfm < LINES
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "models"))

from tformer import tfm  # noqa: E402
from tformer.config import ModelConfig  # noqa: E402
from tformer.decode import source_ids  # noqa: E402
from tformer.tokenizer import Tokenizer  # noqa: E402


def main(path):
    f = tfm.read(path)
    cfg = ModelConfig.from_dict(f.config)
    tok = Tokenizer.from_tfm(f, "source")
    for line in sys.stdin:
        print(len(source_ids(cfg, tok.encode(line.rstrip("\r\n")))))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])

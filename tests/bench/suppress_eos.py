#!/usr/bin/python3
"""Copies a .tfm with the output bias of EOS set to -1e4, so that every sentence decodes to its
length limit: random-weight models end at different steps under different settings (with and
without a lexical shortlist), which would make their tokens/s incomparable.

  tests/bench/suppress_eos.py IN.tfm OUT.tfm
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
from tformer import tfm  # noqa: E402


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    f = tfm.read(argv[0])
    if "output_bias" not in f.tensors:
        sys.exit(f"{argv[0]}: the model has no output bias to change")
    bias = f.tensors["output_bias"].copy()
    bias[int(f.config["eos_id"])] = -1e4
    f.tensors["output_bias"] = bias
    tfm.write(argv[1], f)


if __name__ == "__main__":
    main(sys.argv[1:])

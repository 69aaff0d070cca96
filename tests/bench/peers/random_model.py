#!/usr/bin/python3
"""A random model of the tiny class for speed comparisons before a trained one exists.

  random_model.py -o models/work/peers/tiny-random.tfm [--int8 models/work/peers/tiny-random.i8.tfm]

Shape of models/configs/tiny.deen.yaml (Marian conventions, d_model 256, ffn 1536, 6 encoder and 2
decoder layers, 8 heads, joint 16k vocabulary; SentencePiece trained here with Debian's spm_train on
part of the training text, cached beside the model). Weights are random with the fixtures' spread
(models/tformer/fixtures.py), so that greedy and beam choices are well separated and implementations
agree token for token; nothing favours EOS, so most outputs run to the length limit.
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "models"))

import torch  # noqa: E402

from tformer import tfm  # noqa: E402
from tformer.config import marian_convention  # noqa: E402
from tformer.export import build_tfm  # noqa: E402
from tformer.fixtures import randomize  # noqa: E402
from tformer.model import Transformer  # noqa: E402
from tformer.tokenizer import Tokenizer  # noqa: E402

TRAIN = os.path.join(ROOT, "..", "shared", "data", "deen", "train")
TINY = dict(d_model=256, heads=8, ffn_dim=1536, encoder_layers=6, decoder_layers=2, activation="relu",
            norm="post", max_positions=512)


def train_spm(path: str, vocab_size: int = 16000) -> None:
    inputs = [os.path.join(TRAIN, f"{n}.{l}") for n in ("multi30k", "tatoeba", "europarl", "news") for l in ("de", "en")]
    prefix = path[:-len(".spm")] if path.endswith(".spm") else path
    subprocess.run(["spm_train", f"--input={','.join(inputs)}", f"--model_prefix={prefix}",
                    f"--vocab_size={vocab_size}", "--model_type=unigram", "--character_coverage=1.0",
                    "--input_sentence_size=200000", "--shuffle_input_sentence=true", "--num_threads=1",
                    "--eos_id=0", "--unk_id=1", "--bos_id=-1", "--pad_id=-1"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.replace(prefix + ".model", path)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--spm", help="SentencePiece model (default: deen.16k.spm beside the output, trained if absent)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--int8", help="also write the same weights with int8 matrices (per-row scales, as "
                   "`models/tfm export --weights int8` does) to this path")
    args = p.parse_args()
    spm_path = args.spm or os.path.join(os.path.dirname(os.path.abspath(args.output)), "deen.16k.spm")
    if not os.path.exists(spm_path):
        os.makedirs(os.path.dirname(spm_path), exist_ok=True)
        train_spm(spm_path)
    with open(spm_path, "rb") as f:
        spm_bytes = f.read()
    cfg = marian_convention(vocab_size=len(Tokenizer(spm_bytes)), **TINY)
    torch.manual_seed(args.seed)
    model = Transformer(cfg)
    randomize(model, args.seed, eos_bias=0.0)
    meta = {"name": "tiny-random", "note": "random weights, for speed comparisons only"}
    size = tfm.write(args.output, build_tfm(cfg, model.state_dict(), spm_bytes, None, "f32", meta))
    print(f"wrote {args.output} ({size} bytes)")
    if args.int8:
        size = tfm.write(args.int8, build_tfm(cfg, model.state_dict(), spm_bytes, None, "int8",
                                              {**meta, "weights": "int8"}))
        print(f"wrote {args.int8} ({size} bytes)")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Token ids in and out of the peers that have no SentencePiece (ONNX Runtime in node).

  ids.py encode MODEL.tfm INPUT -o IDS.json   non-empty lines -> source ids (BOS/EOS as the config says)
  ids.py decode MODEL.tfm RESULT.json         a runner's output ids -> one text line per input line
  ids.py count MODEL.tfm TEXTS.json           {"texts": [...]} (a text-only peer's outputs) -> JSON list
                                              of target token counts (target SentencePiece + EOS)

Tokenization happens here, before any runner starts its clock, so no peer's timing includes it
(tformer's own bench includes its C++ SentencePiece calls; `encode` prints what they cost in Python).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "models"))

from tformer import tfm  # noqa: E402
from tformer.config import ModelConfig  # noqa: E402
from tformer.decode import source_ids  # noqa: E402
from tformer.tokenizer import Tokenizer  # noqa: E402


def tokenizers(model_path):
    f = tfm.read(model_path)
    src = Tokenizer(f.tensors[f.tokenizer["source"]].tobytes())
    tgt = Tokenizer(f.tensors[f.tokenizer["target"]].tobytes())
    return ModelConfig.from_dict(f.config), src, tgt


def read_lines(path):
    """The lines `tformer bench` reads: CR stripped, empty lines dropped."""
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n").rstrip("\r") for l in f]
    return [l for l in lines if l]


def encode_lines(cfg, tok, lines):
    limit = cfg.max_positions - int(cfg.source_bos) - int(cfg.source_eos)
    out = []
    for line in lines:
        ids = tok.encode(line.strip())
        out.append(source_ids(cfg, ids[:limit]) if ids else [])
    return out


def cmd_encode(args):
    cfg, src, tgt = tokenizers(args.model)
    lines = read_lines(args.input)
    t0 = time.perf_counter()
    sources = encode_lines(cfg, src, lines)
    encode_ms = 1000 * (time.perf_counter() - t0)
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump({"model": os.path.abspath(args.model), "input": os.path.abspath(args.input),
                   "lines": len(lines), "source_tokens": sum(len(s) for s in sources),
                   "encode_ms": encode_ms, "sources": sources}, f)
    print(f"{len(lines)} lines, {sum(len(s) for s in sources)} source tokens, SentencePiece encode "
          f"{encode_ms:.1f} ms", file=sys.stderr)


def cmd_decode(args):
    cfg, _, tgt = tokenizers(args.model)
    with open(args.result, encoding="utf-8") as f:
        outputs = json.load(f)["outputs"]
    for o in outputs:
        print(tgt.decode([t for t in o["tokens"] if t != cfg.eos_id]) if o else "")


def cmd_count(args):
    cfg, _, tgt = tokenizers(args.model)
    with open(args.texts, encoding="utf-8") as f:
        texts = json.load(f)["texts"]
    print(json.dumps([len(tgt.encode(t)) + 1 if t else 1 for t in texts]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("encode")
    s.add_argument("model")
    s.add_argument("input")
    s.add_argument("-o", "--output", required=True)
    s.set_defaults(func=cmd_encode)
    s = sub.add_parser("decode")
    s.add_argument("model")
    s.add_argument("result")
    s.set_defaults(func=cmd_decode)
    s = sub.add_parser("count")
    s.add_argument("model")
    s.add_argument("texts")
    s.set_defaults(func=cmd_count)
    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()

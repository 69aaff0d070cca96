#!/usr/bin/python3
"""Random-weight models in Marian's conventions for the Bergamot parity harness (parity.mjs).

For each variant this writes, under OUT/<name>/:
  model.tfm                 the model (f32), from the PyTorch reference with random weights
  marian/                   the same model exported by `models/tfm export-marian` (model.bin float32,
                            model.intgemm.alphas.bin with calibrated activation multipliers, vocabularies)
  plan.json                 the test sentences, their source length W (tokens incl. EOS) and the
                            PyTorch reference's greedy output under three length rules:
                              ours     tformer's rule: at most 2W tokens incl. EOS, EOS forced at the last step
                              marian   Marian's rule (beam_search.cpp): stop after 2W tokens, none forced
                              matched  both at the same cap: ceil(1.5 W) free tokens (Bergamot with
                                       max-length-factor 1.5; tformer with --max-length ceil(1.5 W) + 1)
Variants: every combination of decoder (self-attention, SSRU) x norm (post, pre) x activation
(relu, swish) at d=64 (the fixtures' 256-piece SentencePiece model), plus untied embeddings with
separate source/target vocabularies of different sizes and target-tied embeddings; at d=256 with
the 32k SentencePiece model of the Firefox Translations de-en models, four variants that cover
every pair of those choices; and the three Marian-convention fixtures of tests/fixtures (d=32,
float32 only: intgemm8 needs sizes that are multiples of 64). The weights are random (there is no trained model here), scaled so
that greedy choices are well separated; an EOS bias makes some outputs end before the limit.

Usage: tests/marian/make_models.py OUT [--quick] [--sentences N]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models"))
import tformer  # noqa: E402,F401  (names OpenBLAS kernels for this CPU before torch loads)

import torch  # noqa: E402

from tformer import tfm  # noqa: E402
from tformer.config import marian_convention  # noqa: E402
from tformer.decode import greedy, source_ids  # noqa: E402
from tformer.export import build_tfm, load_tfm_model  # noqa: E402
from tformer.fixtures import random_weights  # noqa: E402
from tformer.marian import export_marian  # noqa: E402
from tformer.model import Transformer  # noqa: E402
from tformer.tokenizer import Tokenizer  # noqa: E402

DATA = os.path.join(ROOT, "..", "shared", "data")
FIREFOX_SPM = os.path.join(DATA, "spm", "bergamot.vocab.deen.spm")
SMALL_SPM_FIXTURE = os.path.join(ROOT, "tests", "fixtures", "marian", "model.tfm")

D64 = dict(d_model=64, heads=4, ffn_dim=256, encoder_layers=2, decoder_layers=2)
D256 = dict(d_model=256, heads=8, ffn_dim=1536, encoder_layers=6, decoder_layers=2)

COMBOS = [(dec, norm, act) for dec in ("transformer", "ssru") for norm in ("post", "pre") for act in ("relu", "swish")]
D256_COMBOS = [("transformer", "post", "relu"), ("transformer", "pre", "swish"),
               ("ssru", "post", "swish"), ("ssru", "pre", "relu")]

EXTRA_SENTENCES = [
    "Ja.",
    "Warum?",
    "Das Wort Ελληνικά und ein Zeichen ✓ sind hier unbekannt.",
    "Zwei Hunde spielen im Schnee, und   drei Katzen schauen zu.",
]


def variant_name(d, dec, norm, act, tie="all"):
    return f"d{d}-{'ssru' if dec == 'ssru' else 'std'}-{norm}-{act}" + ("" if tie == "all" else f"-tie{tie}")


def small_target_spm(work: str) -> bytes:
    """A second, smaller SentencePiece model (English only, 192 pieces, Marian's ids)."""
    text = os.path.join(work, "en.txt")
    with open(os.path.join(DATA, "deen", "train", "multi30k.en"), encoding="utf-8") as f, \
            open(text, "w", encoding="utf-8") as out:
        for i, line in enumerate(f):
            if i >= 3000:
                break
            out.write(line)
    prefix = os.path.join(work, "en192")
    subprocess.run(["spm_train", f"--input={text}", f"--model_prefix={prefix}", "--vocab_size=192",
                    "--model_type=unigram", "--character_coverage=1.0", "--num_threads=1",
                    "--normalization_rule_name=identity", "--shuffle_input_sentence=false",
                    "--eos_id=0", "--unk_id=1", "--bos_id=-1", "--pad_id=-1"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(prefix + ".model", "rb") as f:
        return f.read()


def randomize(model: Transformer, seed: int, target_size: int):
    random_weights(model, seed)
    with torch.no_grad():
        V = model.cfg.vocab_size
        if target_size < V:  # a smaller target vocabulary: its missing ids can never be chosen
            model.output_bias[target_size:] = float("-inf")
            for t in ("target_embedding", "output"):
                if hasattr(model, t):
                    getattr(model, t).weight[target_size:] = 0.0


def greedy_texts(model, tok_src, tok_tgt, sentences, rule):
    cfg = model.cfg
    srcs = [source_ids(cfg, tok_src.encode(s)) for s in sentences]
    out = [None] * len(srcs)
    order = sorted(range(len(srcs)), key=lambda i: len(srcs[i]))
    for start in range(0, len(order), 32):
        idx = order[start:start + 32]
        lens = [rule(len(srcs[i])) for i in idx]
        hyps = greedy(model, [srcs[i] for i in idx], lens)
        for i, h, n in zip(idx, hyps, lens):
            toks = h.tokens
            free = [t for t in toks if t != cfg.eos_id]
            out[i] = {"tokens": toks, "text": tok_tgt.decode(free), "hit_limit": len(toks) == n}
    return srcs, out


def rule_ours(W):
    return 2 * W


def rule_marian(W):  # 2W free tokens (Marian stops after them; nothing forced) + the EOS we force
    return 2 * W + 1


def rule_matched(W):
    return math.ceil(1.5 * W) + 1


def pick_eos_bias(model, tok, sentences):
    """An EOS logit bias with which about half of the sentences end before the length limit
    (bisection: more bias, earlier ends)."""
    cfg = model.cfg
    srcs = [source_ids(cfg, tok.encode(s)) for s in sentences[:12]]
    base = float(model.output_bias[cfg.eos_id])

    def early(bias):
        with torch.no_grad():
            model.output_bias[cfg.eos_id] = base + bias
        hyps = greedy(model, srcs, [rule_ours(len(s)) for s in srcs])
        return sum(len(h.tokens) < rule_ours(len(s)) for h, s in zip(hyps, srcs)) / len(srcs)

    lo, hi = -10.0, 160.0  # a 32k vocabulary with unit-variance embeddings needs a large bias
    bias = 10.0
    for _ in range(9):
        e = early(bias)
        if 0.3 <= e <= 0.7:
            break
        lo, hi = (bias, hi) if e < 0.3 else (lo, bias)
        bias = (lo + hi) / 2
    with torch.no_grad():
        model.output_bias[cfg.eos_id] = base + bias
    return bias


def load_sentences(path, tok, n, max_tokens, skip=0):
    out = []
    with open(path, encoding="utf-8") as f:
        lines = [l.strip() for l in f if l.strip()]
    for line in lines[skip:]:
        if len(tok.encode(line)) + 1 <= max_tokens:
            out.append(line)
        if len(out) >= n:
            break
    return out


def make(out_root, name, spm_src, spm_tgt, shape, dec, norm, act, tie, seed, sentences_file, n, calib_file,
         int8=True):
    t0 = time.time()
    tok_src = Tokenizer(spm_src)
    tok_tgt = Tokenizer(spm_tgt) if spm_tgt is not None else tok_src
    V = max(len(tok_src), len(tok_tgt))
    cfg = marian_convention(vocab_size=V, decoder_layer_type=dec, norm=norm, prenorm_raw_self_kv=norm == "pre",
                            activation=act, tied_embeddings=tie, max_positions=512, **shape)
    torch.manual_seed(seed)
    model = Transformer(cfg)
    randomize(model, seed, len(tok_tgt))
    model.eval()
    sentences = load_sentences(sentences_file, tok_src, n, max_tokens=120) + EXTRA_SENTENCES
    bias = pick_eos_bias(model, tok_src, sentences)

    folder = os.path.join(out_root, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.tfm")
    meta = {"name": name, "note": "random weights, for the Marian/Bergamot parity harness only"}
    tfm.write(path, build_tfm(cfg, model.state_dict(), spm_src, spm_tgt, "f32", meta))
    with open(calib_file, encoding="utf-8") as f:
        calib = [l.strip() for l in f if l.strip()][500:600]
    return finish(folder, name, sentences, calib, int8, {"eos_bias": bias}, t0)


def finish(folder, name, sentences, calib, int8, extra, t0):
    """Exports the folder's model.tfm to Marian and writes plan.json with the reference outputs."""
    path = os.path.join(folder, "model.tfm")
    model, tok_src, tok_tgt, f = load_tfm_model(path)
    cfg = model.cfg
    # Marian has no position limit; the engine caps target length at max_positions. Keep the
    # sentences both decode without that cap.
    sentences = [s for s in sentences if rule_marian(len(source_ids(cfg, tok_src.encode(s)))) <= cfg.max_positions]
    calib_path = os.path.join(folder, "calibration.txt")
    with open(calib_path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(calib) + "\n")
    export_marian(path, os.path.join(folder, "marian"), formats=("bin",), int8=int8, calibrate=calib_path,
                  calibrate_lines=len(calib))
    joint = f.tokenizer["source"] == f.tokenizer["target"]
    plan = {"name": name, "d_model": cfg.d_model, "decoder": cfg.decoder_layer_type, "norm": cfg.norm,
            "activation": cfg.activation, "tied_embeddings": cfg.tied_embeddings,
            "vocab_sizes": [len(tok_src), len(tok_tgt)], **extra, "marian_dir": "marian", "model": "model.tfm",
            "vocabs": ["vocab.spm"] if joint else ["srcvocab.spm", "trgvocab.spm"],
            "int8_model": "model.intgemm.alphas.bin" if int8 else None, "sentences": []}
    srcs, ours = greedy_texts(model, tok_src, tok_tgt, sentences, rule_ours)
    _, marian = greedy_texts(model, tok_src, tok_tgt, sentences, rule_marian)
    _, matched = greedy_texts(model, tok_src, tok_tgt, sentences, rule_matched)
    for text, src, o, m, x in zip(sentences, srcs, ours, marian, matched):
        W = len(src)
        plan["sentences"].append({"text": text, "W": W, "matched_max_length": rule_matched(W),
                                  "ours": o, "marian": m, "matched": x})
    with open(os.path.join(folder, "plan.json"), "w", encoding="utf-8") as fh:
        json.dump(plan, fh, ensure_ascii=False, indent=1)
    size = os.path.getsize(os.path.join(folder, "marian", "model.bin"))
    hits = sum(s["ours"]["hit_limit"] for s in plan["sentences"])
    print(f"{name}: d={cfg.d_model} V={cfg.vocab_size}, {len(sentences)} sentences ({hits} reach the length "
          f"limit), model.bin {size / 1e6:.1f} MB, {time.time() - t0:.1f} s", flush=True)
    return plan


def from_fixture(out_root, variant, sentences):
    """A Marian-convention fixture of tests/fixtures (d=32: too small for intgemm8, float32 only)."""
    t0 = time.time()
    name = f"fixture-{variant}"
    folder = os.path.join(out_root, name)
    os.makedirs(folder, exist_ok=True)
    shutil.copy(os.path.join(ROOT, "tests", "fixtures", variant, "model.tfm"), os.path.join(folder, "model.tfm"))
    with open(os.path.join(ROOT, "tests", "fixtures", variant, "input.txt"), encoding="utf-8") as fh:
        own = [l.strip() for l in fh if l.strip()]
    return finish(folder, name, own + sentences, [], False, {"fixture": variant}, t0)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--quick", action="store_true", help="d=64 variants only")
    ap.add_argument("--sentences", type=int, default=100)
    ap.add_argument("--only", help="comma-separated variant names")
    ap.add_argument("--no-int8", action="store_true")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    os.makedirs(args.out, exist_ok=True)
    small = tfm.read(SMALL_SPM_FIXTURE)
    spm64 = small.tensors[small.tokenizer["source"]].tobytes()
    with open(FIREFOX_SPM, "rb") as f:
        spm256 = f.read()
    with tempfile.TemporaryDirectory() as work:
        spm64_target = small_target_spm(work)
    m30k = os.path.join(DATA, "deen", "test", "multi30k-test2016.de")
    flores = os.path.join(DATA, "deen", "dev", "flores-dev.de")
    jobs = []
    for i, (dec, norm, act) in enumerate(COMBOS):
        jobs.append((variant_name(64, dec, norm, act), spm64, None, D64, dec, norm, act, "all", 1000 + i, m30k))
    jobs.append((variant_name(64, "transformer", "post", "swish", "none"), spm64, spm64_target, D64,
                 "transformer", "post", "swish", "none", 1100, m30k))
    jobs.append((variant_name(64, "ssru", "pre", "relu", "target"), spm64, None, D64,
                 "ssru", "pre", "relu", "target", 1101, m30k))
    if not args.quick:
        for i, (dec, norm, act) in enumerate(D256_COMBOS):
            jobs.append((variant_name(256, dec, norm, act), spm256, None, D256, dec, norm, act, "all", 2000 + i, flores))
    only = set(args.only.split(",")) if args.only else None
    names = []
    with open(m30k, encoding="utf-8") as fh:
        short = [l.strip() for l in fh if l.strip()][:args.sentences // 2]
    for variant in ("marian", "marian-prenorm-swish", "marian-ssru"):
        if only and f"fixture-{variant}" not in only:
            continue
        from_fixture(args.out, variant, short + EXTRA_SENTENCES)
        names.append(f"fixture-{variant}")
    for (name, s, t, shape, dec, norm, act, tie, seed, sents) in jobs:
        if only and name not in only:
            continue
        make(args.out, name, s, t, shape, dec, norm, act, tie, seed, sents, args.sentences, sents,
             int8=not args.no_int8)
        names.append(name)
    index = os.path.join(args.out, "index.json")
    if only and os.path.exists(index):  # a partial run adds to the folder's models
        with open(index, encoding="utf-8") as f:
            names = [n for n in json.load(f)["models"] if n not in names] + names
    with open(index, "w", encoding="utf-8") as f:
        json.dump({"models": names}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/python3
"""The engine's Marian importer (core/src/marian; `tformer convert`, `tformer translate -m FOLDER`,
`models/tfm import-marian`) checked by meaning: every .tfm it writes must hold what the Marian
files hold, read here with tests/marian/marian_files.py (numpy, PyYAML, SentencePiece's module)
and this file's own map of Marian's parameter names.

- Models: every variant tests/marian/make_models.py writes (d=64: decoder self-attention / SSRU x
  post / pre-norm x relu / swish, untied with separate vocabularies of different sizes,
  target-tied; the three d=32 Marian fixtures), exported by models/tfm export-marian as model.npz,
  model.bin (float32) and model.intgemm.alphas.bin (intgemm8 with activation multipliers; d=64
  only), OPUS-MT style folders (.npz with special:model.yml, decoder.yml, *.vocab.yml tables with
  source.spm/target.spm) from tests/marian/test_roundtrip.py's independent writer, and .gz copies.
- For each model file and --weights keep/f32/f16/int8: the config (shape, norm, activation,
  decoder, tying, output bias, special ids) against the options and vocabularies; every tensor's
  name, shape and values against its Marian parameter (float32 exactly, f16 as float16 rounds,
  int8 within half a step of its row scale max|row|/127, intgemm8 as stored with scale 1/quantMult);
  the vocabulary padding; the tokenizer's SentencePiece models and id tables; the metadata
  (model, vocabularies, item types, activation multipliers); a shortlist carried byte for byte.
- `tformer translate -m FOLDER/MODEL` (imported in memory) gives the lines of the converted .tfm.
- Bad input through the CLI: truncated and corrupted .npz, .bin, .yml, .gz, vocabularies, refused
  options, bad parameters, missing files: exit status 1 and a message naming the file or option.
(Tokens against PyTorch on the converted file: test_roundtrip.py; against Bergamot: parity.test.mjs.)

Usage: tests/marian/test_import.py [--quick] [--keep DIR]    (ends with "N passed, N failed")
"""
from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: checks.py
import tformer  # noqa: E402,F401  (names OpenBLAS kernels for this CPU before torch loads)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import yaml  # noqa: E402

import make_models as mm  # noqa: E402
import marian_files as mf  # noqa: E402
from checks import check, closing  # noqa: E402
import test_roundtrip as rt  # noqa: E402
from tformer import marian_io, tfm  # noqa: E402
from tformer.config import marian_convention  # noqa: E402
from tformer.export import build_tfm  # noqa: E402
from tformer.marian import export_marian  # noqa: E402
from tformer.model import Transformer  # noqa: E402

TFORMER = os.environ.get("TFORMER", os.path.join(ROOT, "build", "tformer"))
SENTENCES = ["Ein Mann fährt Fahrrad.", "Zwei Hunde spielen im Schnee.", "Warum?",
             "Das Wort Ελληνικά und ein Zeichen ✓ sind hier unbekannt."]
WORK = None


def run(*args, stdin=None):
    return subprocess.run([TFORMER, *args], input=stdin, capture_output=True, text=True)


def convert(target, out, *extra):
    r = run("convert", target, "-o", out, *extra)
    assert r.returncode == 0, f"tformer convert {target} {' '.join(extra)} failed: {r.stderr}"
    return tfm.read(out)


# ---- the models ------------------------------------------------------------------------------------
def make_variant(name, spm_src, spm_tgt, dec, norm, act, tie, seed, int8=True):
    """A make_models.py variant (d=64), exported as .npz, .bin and (int8) intgemm8 .bin."""
    from tformer.tokenizer import Tokenizer
    tok_src = Tokenizer(spm_src)
    tok_tgt = Tokenizer(spm_tgt) if spm_tgt is not None else tok_src
    V = max(len(tok_src), len(tok_tgt))
    cfg = marian_convention(vocab_size=V, decoder_layer_type=dec, norm=norm, prenorm_raw_self_kv=norm == "pre",
                            activation=act, tied_embeddings=tie, max_positions=512, **mm.D64)
    torch.manual_seed(seed)
    model = Transformer(cfg)
    mm.randomize(model, seed, len(tok_tgt))
    model.eval()
    folder = os.path.join(WORK, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.tfm")
    tfm.write(path, build_tfm(cfg, model.state_dict(), spm_src, spm_tgt, "f32", {"name": name}))
    calib = os.path.join(folder, "calibration.txt")
    with open(calib, "w", encoding="utf-8") as f:
        f.write("\n".join(SENTENCES) + "\n")
    export_marian(path, os.path.join(folder, "marian"), formats=("npz", "bin"), int8=int8, calibrate=calib,
                  calibrate_lines=len(SENTENCES))
    return os.path.join(folder, "marian")


def make_fixture_variant(variant):
    folder = os.path.join(WORK, f"fixture-{variant}")
    os.makedirs(folder, exist_ok=True)
    export_marian(os.path.join(ROOT, "tests", "fixtures", variant, "model.tfm"), os.path.join(folder, "marian"),
                  formats=("npz", "bin"))
    return os.path.join(folder, "marian")


def make_models(quick):
    small = tfm.read(mm.SMALL_SPM_FIXTURE)
    spm64 = small.tensors[small.tokenizer["source"]].tobytes()
    with tempfile.TemporaryDirectory() as work:
        spm64_target = mm.small_target_spm(work)
    folders = {}
    for variant in ("marian", "marian-prenorm-swish", "marian-ssru"):
        folders[f"fixture-{variant}"] = make_fixture_variant(variant)
    combos = mm.COMBOS if not quick else [("transformer", "post", "relu"), ("ssru", "pre", "swish")]
    for i, (dec, norm, act) in enumerate(combos):
        name = mm.variant_name(64, dec, norm, act)
        folders[name] = make_variant(name, spm64, None, dec, norm, act, "all", 1000 + i)
    name = mm.variant_name(64, "transformer", "post", "swish", "none")
    folders[name] = make_variant(name, spm64, spm64_target, "transformer", "post", "swish", "none", 1100)
    name = mm.variant_name(64, "ssru", "pre", "relu", "target")
    folders[name] = make_variant(name, spm64, None, "ssru", "pre", "relu", "target", 1101)
    # OPUS-MT style: .npz + decoder.yml + *.vocab.yml tables + source.spm/target.spm.
    rt.OpusModel(os.path.join(WORK, "opus-post"), seed=5)
    folders["opus-post"] = os.path.join(WORK, "opus-post")
    rt.OpusModel(os.path.join(WORK, "opus-pre-ssru"), seed=6, norm="pre", act="relu", dec="ssru", tie="target",
                 separate=True)
    folders["opus-pre-ssru"] = os.path.join(WORK, "opus-pre-ssru")
    return folders


def gz_copy(folder, out):
    """Every file of the folder as a .gz copy (as Firefox Translations ships them)."""
    os.makedirs(out, exist_ok=True)
    for n in os.listdir(folder):
        with open(os.path.join(folder, n), "rb") as f, gzip.open(os.path.join(out, n + ".gz"), "wb") as g:
            g.write(f.read())
    return out


def model_files(folder):
    return sorted(n for n in os.listdir(folder) if n.endswith((".npz", ".bin")) and not n.startswith("lex."))


# ---- what the Marian files hold ----------------------------------------------------------------------
def engine_names(name, tie):
    """A Marian parameter -> ([the engine's tensor names], layout): 'W' Marian's [in, out] is the
    transposed [out, in], 'b' a [1, n] row is [n], 'E' as it is."""
    if name == "Wemb":
        return (["embedding.weight"] if tie == "all" else ["source_embedding.weight", "target_embedding.weight"]), "E"
    fixed = {"encoder_Wemb": "source_embedding.weight", "decoder_Wemb": "target_embedding.weight",
             "decoder_ff_logit_out_Wt": "output.weight"}
    if name in fixed:
        return [fixed[name]], "E"
    if name == "decoder_ff_logit_out_b":
        return ["output_bias"], "b"
    norm = {"scale": "weight", "bias": "bias"}
    m = re.fullmatch(r"(encoder|decoder)_top_ln_(scale|bias)", name)
    if m:
        return [f"{m[1]}.final_norm.{norm[m[2]]}"], "b"
    m = re.fullmatch(r"(encoder|decoder)_l(\d+)_(.+)", name)
    assert m, f"not a parameter of a Marian transformer: {name}"
    layer, rest = f"{m[1]}.layers.{int(m[2]) - 1}", m[3]
    attn = {"self": "self_attn", "context": "cross_attn"}
    rules = [
        (r"(self|context)_W([qkvo])", lambda g: (f"{attn[g[1]]}.{g[2]}.weight", "W")),
        (r"(self|context)_b([qkvo])", lambda g: (f"{attn[g[1]]}.{g[2]}.bias", "b")),
        (r"(self|context)_Wo_ln_(scale|bias)(_pre)?", lambda g: (f"{attn[g[1]]}_norm.{norm[g[2]]}", "b")),
        (r"ffn_W([12])", lambda g: (f"ffn.w{g[1]}.weight", "W")),
        (r"ffn_b([12])", lambda g: (f"ffn.w{g[1]}.bias", "b")),
        (r"ffn_ffn_ln_(scale|bias)(_pre)?", lambda g: (f"ffn_norm.{norm[g[1]]}", "b")),
        (r"rnn_W", lambda g: ("ssru.w.weight", "W")),
        (r"rnn_Wf", lambda g: ("ssru.wf.weight", "W")),
        (r"rnn_bf", lambda g: ("ssru.wf.bias", "b")),
        (r"rnn_ffn_ln_(scale|bias)|rnn_ln_(scale|bias)_pre", lambda g: (f"ssru_norm.{norm[g[1] or g[2]]}", "b")),
    ]
    for pattern, to in rules:
        g = re.fullmatch(pattern, rest)
        if g:
            t, kind = to(g)
            return [f"{layer}.{t}"], kind
    raise AssertionError(f"not a parameter of a Marian transformer: {name}")


def marian_vocabs(folder):
    """Each side's (SentencePiece model, .yml table or None), as decoder.yml lists them."""
    with open(os.path.join(folder, "decoder.yml"), encoding="utf-8") as f:
        listed = yaml.safe_load(f)["vocabs"]
    sides = []
    for i, v in enumerate(listed):
        if v.endswith(".yml"):
            sides.append((os.path.join(folder, ("source.spm", "target.spm")[i]), os.path.join(folder, v)))
        else:
            sides.append((os.path.join(folder, v), None))
    return sides


def expected_config(opts, src, tgt, max_positions):
    pre = "n" in (opts.get("transformer-preprocess") or "")
    tie = ("all" if opts.get("tied-embeddings-all") or (opts.get("tied-embeddings-src") and opts.get("tied-embeddings"))
           else "src" if opts.get("tied-embeddings-src") else "target" if opts.get("tied-embeddings") else "none")
    return tie, {
        "vocab_size": max(len(src.pieces), len(tgt.pieces)), "d_model": opts["dim-emb"],
        "heads": opts["transformer-heads"], "ffn_dim": opts["transformer-dim-ffn"],
        "encoder_layers": opts["enc-depth"], "decoder_layers": opts["dec-depth"], "norm": "pre" if pre else "post",
        "prenorm_raw_self_kv": pre, "activation": opts["transformer-ffn-activation"],
        "decoder_layer_type": "ssru" if opts.get("transformer-decoder-autoreg") == "rnn" else "transformer",
        "tied_embeddings": "none" if tie == "src" else tie, "max_positions": max_positions,
        "positional_encoding": "marian", "decoder_start": "zero", "source_bos": False, "source_eos": True,
        "eos_id": src.eos_id, "pad_id": src.eos_id, "unk_id": src.unk_id, "bos_id": -1, "layer_norm_eps": 1e-6}


def as_engine_layout(item, kind):
    """(float32 values in the engine's layout, int8 values or None, their scale or None)."""
    if item.mult is not None:  # intgemm8: stored as [out, in] (an embedding as it is)
        q = item.values.T if item.name == "decoder_ff_logit_out_Wt" else item.values
        scale = np.float32(1.0) / np.float32(item.mult)
        return q.astype(np.float32) * scale, q.astype(np.int8), scale
    a = item.values.astype(np.float32)
    return (a.T if kind == "W" else a.reshape(-1) if kind == "b" else a), None, None


def check_matrix(name, actual, scales, want, q, q_scale, weights):
    """One 2-D tensor against its Marian values, for the --weights it was converted with."""
    keep_int8 = q is not None and weights in ("keep", "int8")
    if keep_int8:
        assert actual.dtype == np.int8 and np.array_equal(actual, q), f"{name}: not the stored int8 values"
        assert scales is not None and np.all(scales == q_scale), f"{name}: row scales are not 1/quantMult"
    elif weights == "int8":
        assert actual.dtype == np.int8 and scales is not None, f"{name}: not stored as int8"
        amax = np.abs(want).max(axis=1)
        expect_scales = np.where(amax > 0, amax / np.float32(127), np.float32(1)).astype(np.float32)
        assert np.allclose(scales, expect_scales, rtol=1e-6, atol=0), f"{name}: row scales are not max|row|/127"
        err = np.abs(actual.astype(np.float32) * scales[:, None] - want)
        assert np.all(err <= scales[:, None] * (0.5 + 1e-5)), f"{name}: int8 values more than half a step away"
    elif weights == "f16":
        assert actual.dtype == np.float16 and np.array_equal(actual, want.astype(np.float16)), f"{name}: not its float16"
    else:
        assert actual.dtype == np.float32 and np.array_equal(actual, want), f"{name}: values differ"


def check_meaning(folder, model, f, weights, max_positions=512):
    """The converted .tfm `f` against the Marian files of `folder` (model file `model`)."""
    items = mf.read_model(os.path.join(folder, model))
    opts = mf.model_options(items)
    (src_spm, src_table), (tgt_spm, tgt_table) = marian_vocabs(folder)
    src, tgt = mf.read_vocab(src_spm, src_table), mf.read_vocab(tgt_spm, tgt_table)
    vs, vt = len(src.pieces), len(tgt.pieces)
    V = max(vs, vt)
    tie, config = expected_config(opts, src, tgt, max_positions)
    params = {n: it for n, it in items.items() if not n.startswith("special:") and not n.endswith("_QuantMultA")}
    config["output_bias"] = "decoder_ff_logit_out_b" in params or vt < V
    for key, value in config.items():
        assert f.config[key] == value, f"config {key}: {f.config[key]!r}, the Marian files give {value!r}"

    # Every parameter, under its engine name(s), and nothing else.
    expected = {}
    for n, it in params.items():
        names, kind = engine_names(n, tie)
        for t in names:
            expected[t] = (it, kind)
    if vt < V and "output_bias" not in expected:
        expected["output_bias"] = (None, "b")
    weights_in_file = {n for n in f.tensors if not n.startswith("tokenizer.") and n != "shortlist"
                       and not n.endswith(".scales")}
    assert weights_in_file == set(expected), f"tensor names: {sorted(weights_in_file ^ set(expected))[:6]}"
    for t, (it, kind) in expected.items():
        actual = f.tensors[t]
        scales = f.tensors[f.scales[t]] if t in f.scales else None
        if it is None:  # the bias a smaller target vocabulary needs
            want, q, q_scale = np.zeros(vt, np.float32), None, None
        else:
            want, q, q_scale = as_engine_layout(it, kind)
        rows = {"source_embedding.weight": vs, "target_embedding.weight": vt, "output.weight": vt,
                "embedding.weight": V, "output_bias": vt}.get(t)
        if rows is not None and rows < V:  # padded to the larger vocabulary
            assert actual.shape[0] == V, f"{t}: {actual.shape[0]} rows, not {V}"
            pad = actual[rows:]
            if t == "output_bias":
                assert np.all(np.isneginf(pad)), "output_bias: ids past the target vocabulary are not -inf"
            else:
                assert np.all(pad == 0), f"{t}: the padding rows are not zero"
                if scales is not None:
                    assert np.all(scales[rows:] == 1), f"{t}: the padding rows' scales are not 1"
                    scales = scales[:rows]
            actual = actual[:rows]
        assert actual.shape == want.shape, f"{t}: shape {actual.shape}, Marian's gives {want.shape}"
        if actual.ndim == 2:
            check_matrix(t, actual, scales, want, q, q_scale, weights)
        else:
            assert actual.dtype == np.float32 and np.array_equal(actual, want), f"{t}: values differ"

    # The tokenizer: each side's SentencePiece model (and id table), stored once when shared.
    tok = f.tokenizer
    assert tok["type"] == ("sentencepiece_vocab" if src.table is not None else "sentencepiece"), tok
    assert f.tensors[tok["source"]].tobytes() == src.spm_bytes and f.tensors[tok["target"]].tobytes() == tgt.spm_bytes
    assert (tok["source"] == tok["target"]) == (src.spm_bytes == tgt.spm_bytes)
    if src.table is not None:
        assert tfm.vocab_from_bytes(f.tensors[tok["source_vocab"]]) == src.table
        assert tfm.vocab_from_bytes(f.tensors[tok["target_vocab"]]) == tgt.table

    # Metadata: where it came from, and what int8 Marian needs again on export.
    meta = f.metadata
    assert meta["converted_from"] == "marian" and meta["marian"]["model"] == model
    assert meta["marian"]["vocab_sizes"] == [vs, vt]
    assert meta["marian"]["item_types"] == sorted({it.type for it in params.values()})
    alphas = {n[:-len("_QuantMultA")]: float(it.values.reshape(-1)[0]) for n, it in items.items()
              if n.endswith("_QuantMultA")}
    assert meta["marian"].get("quant_mult_a", {}) == alphas
    any_int8 = any(it.mult is not None for it in params.values())
    assert meta["weights"] == (weights if weights != "keep" else "int8" if any_int8 else "f32")
    for key in ("dim-emb", "enc-depth", "dec-depth", "transformer-heads"):
        assert meta["marian"]["options"][key] == opts[key], f"metadata option {key}"


# ---- the checks ------------------------------------------------------------------------------------
def test_meaning(folders, quick):
    def one(folder):
        for model in model_files(folder):
            for w in (["keep"] if quick else ["keep", "f32", "f16", "int8"]):
                out = os.path.join(WORK, "out", f"{os.path.basename(os.path.dirname(folder))}.{model}.{w}.tfm")
                os.makedirs(os.path.dirname(out), exist_ok=True)
                try:
                    check_meaning(folder, model, convert(os.path.join(folder, model), out, "--weights", w), w)
                except AssertionError as e:
                    raise AssertionError(f"{model} --weights {w}: {e}") from None
    for name, folder in folders.items():
        check(f"by meaning: {name} (every model file{'' if quick else ' x --weights keep/f32/f16/int8'})",
              lambda folder=folder: one(folder))


def test_gz(folders):
    for name in ("d64-std-post-relu", "opus-post"):
        if name not in folders:
            continue
        folder = folders[name]
        gz = gz_copy(folder, os.path.join(WORK, f"{name}-gz"))

        def one(folder=folder, gz=gz, name=name):
            for model in model_files(folder):
                out = os.path.join(WORK, "out", f"{name}-gz.{model}.tfm")
                check_meaning(folder, model, convert(os.path.join(gz, model + ".gz"), out), "keep")
        check(f"by meaning: {name} as .gz copies", one)


def test_max_positions(folders):
    def one():
        folder = folders["fixture-marian-ssru"]
        out = os.path.join(WORK, "out", "max-positions.tfm")
        check_meaning(folder, "model.bin", convert(os.path.join(folder, "model.bin"), out, "--max-positions", "96"),
                      "keep", max_positions=96)
    check("by meaning: --max-positions", one)


def test_models_tfm(folders):
    def one():
        folder = folders["opus-pre-ssru"]
        out = os.path.join(WORK, "out", "via-models-tfm.tfm")
        r = subprocess.run([sys.executable, os.path.join(ROOT, "models", "tfm"), "import-marian", folder, "-o", out,
                            "--weights", "f16", "--tformer", TFORMER], capture_output=True, text=True)
        assert r.returncode == 0 and "wrote" in r.stdout, r.stderr
        check_meaning(folder, model_files(folder)[0], tfm.read(out), "f16")
        r = subprocess.run([sys.executable, os.path.join(ROOT, "models", "tfm"), "import-marian",
                            os.path.join(WORK, "nowhere"), "-o", out], capture_output=True, text=True)
        assert r.returncode == 1 and "import-marian: " in r.stderr and "no such file or folder" in r.stderr, r.stderr
    check("models/tfm import-marian runs the engine's importer", one)


def test_translate(folders):
    def one(name, folder):
        model = "model.intgemm.alphas.bin" if os.path.exists(os.path.join(folder, "model.intgemm.alphas.bin")) \
            else model_files(folder)[0]
        out = os.path.join(WORK, "out", f"translate.{name}.tfm")
        convert(os.path.join(folder, model), out)
        text = "\n".join(SENTENCES) + "\n"
        direct = run("translate", "--threads", "1", "-m", os.path.join(folder, model), stdin=text)
        converted = run("translate", "--threads", "1", "-m", out, stdin=text)
        assert direct.returncode == 0 and converted.returncode == 0, direct.stderr + converted.stderr
        assert direct.stdout == converted.stdout, f"{direct.stdout!r} != {converted.stdout!r}"
        assert len(direct.stdout.splitlines()) == len(SENTENCES)
    for name in ("fixture-marian-ssru", "d64-ssru-pre-swish", "d64-std-post-swish-tienone", "opus-pre-ssru"):
        if name in folders:
            check(f"translate: {name} folder = its converted .tfm", lambda n=name: one(n, folders[n]))


# ---- Firefox's version-2 models -------------------------------------------------------------------
# Every option Marian (marian-dev, EncoderDecoder::modelFeatures_) writes into special:model.yml, with
# the value a Firefox student trained by mozilla/translations (pipeline/train/configs/model/
# student.*.yml) has where the model's own options leave it out.
MARIAN_MODEL_FEATURES = {
    "dim-rnn": 1024, "enc-cell": "gru", "enc-type": "bidirectional", "enc-cell-depth": 1, "dec-cell-base-depth": 2,
    "dec-cell-high-depth": 1, "skip": False, "layer-normalization": False, "right-left": False, "input-types": [],
    "special-vocab": [], "transformer-no-projection": False, "transformer-decoder-dim-ffn": 0,
    "transformer-ffn-depth": 2, "transformer-decoder-ffn-depth": 0, "transformer-dim-aan": 2048,
    "transformer-aan-depth": 2, "transformer-aan-activation": "swish", "transformer-aan-nogate": False,
    "transformer-tied-layers": [], "transformer-guided-alignment-layer": "last",
    "transformer-train-position-embeddings": False, "transformer-pool": False, "bert-train-type-embeddings": True,
    "bert-type-vocab-size": 2, "ulr": False, "ulr-trainable-transformation": False, "ulr-dim-emb": 0,
    "lemma-dim-emb": 0, "output-omit-bias": False, "lemma-dependency": "", "factors-combine": "sum",
    "factors-dim-emb": 0, "version": "v1.12.14 2d067afb 2024-02-16 11:44:13 -0500",
}


def test_firefox_v2(folders):
    """A model laid out as Firefox's version-2 records ship it: model.<pair>.intgemm8.bin without
    activation multipliers (Firefox runs a file so named with gemm-precision int8shiftAll, its
    activations quantised as they come: translations-engine.worker.js), srcvocab/trgvocab (the CJK
    models' layout), and the whole option set Marian writes, special-vocab included."""
    name = next((n for n in sorted(folders) if "ssru" in n and os.path.exists(os.path.join(folders[n], "model.intgemm.alphas.bin"))), None)

    def one():
        assert name, "no intgemm8 SSRU variant was made"
        source = folders[name]
        folder = os.path.join(WORK, "firefox-v2")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        items = mf.read_model(os.path.join(source, "model.intgemm.alphas.bin"))
        opts = mf.model_options(items)
        for key, value in MARIAN_MODEL_FEATURES.items():
            opts.setdefault(key, value)
        out = [marian_io.yml_item(marian_io.dump_options(opts))]
        for n, it in items.items():
            if n == marian_io.MODEL_YML or n.endswith("_QuantMultA"):
                continue
            if it.mult is not None:
                data = np.ascontiguousarray(it.values).astype("<i1").tobytes() + struct.pack("<f", it.mult)
                out.append(marian_io.Item(n, it.type, tuple(it.shape), data))
            else:
                out.append(marian_io.item_from_array(n, it.values))
        marian_io.write_bin(os.path.join(folder, "model.xxen.intgemm8.bin"), out)
        vocabs = sorted(n for n in os.listdir(source) if n.endswith(".spm"))
        src_vocab = next(n for n in vocabs if "src" in n or n.startswith("vocab"))
        trg_vocab = next((n for n in vocabs if "trg" in n), src_vocab)
        shutil.copy(os.path.join(source, src_vocab), os.path.join(folder, "srcvocab.xxen.spm"))
        shutil.copy(os.path.join(source, trg_vocab), os.path.join(folder, "trgvocab.xxen.spm"))
        converted = os.path.join(WORK, "out", "firefox-v2.tfm")
        r = run("convert", folder, "-o", converted)
        assert r.returncode == 0, r.stderr
        assert "does not know" not in r.stderr and "ignored" not in r.stderr, r.stderr
        text = "\n".join(SENTENCES) + "\n"
        v2 = run("translate", "--threads", "1", "-m", folder, stdin=text)
        v1 = run("translate", "--threads", "1", "-m", os.path.join(source, "model.intgemm.alphas.bin"), stdin=text)
        assert v2.returncode == 0 and v1.returncode == 0, v2.stderr + v1.stderr
        assert v2.stdout == v1.stdout, f"{v2.stdout!r} != {v1.stdout!r}"
    check(f"Firefox version-2 layout ({name}): intgemm8 without activation multipliers, srcvocab/trgvocab, "
          "every option Marian writes: imported without warnings, translating as the version-1 file", one)


# ---- bad input -------------------------------------------------------------------------------------
def expect_refusal(folder, fragments, model=None, extra=()):
    target = os.path.join(folder, model) if model else folder
    r = run("convert", target, "-o", os.path.join(WORK, "refused.tfm"), *extra)
    assert r.returncode == 1, f"exit status {r.returncode} (expected 1: a clear error) for {target}: {r.stderr}"
    for frag in fragments:
        assert frag in r.stderr, f"message {r.stderr!r} lacks {frag!r}"
    return r.stderr


def variant_copy(folder, name, keep_decoder_yml=False):
    """A copy to break; without decoder.yml (which names one model file) unless asked."""
    out = os.path.join(WORK, "bad", name)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(folder, out)
    if not keep_decoder_yml and os.path.exists(os.path.join(out, "decoder.yml")):
        os.remove(os.path.join(out, "decoder.yml"))
    return out


def corrupt_file(path, how, rng):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if how == "truncate":
        data = data[:rng.randrange(0, max(1, len(data)))]
    elif how == "flip":
        for _ in range(8):
            data[rng.randrange(len(data))] ^= 0xFF
    with open(path, "wb") as f:
        f.write(bytes(data))


def test_bad_files(folders):
    import random
    base = folders["fixture-marian"]

    def truncated_and_corrupted():
        rng = random.Random(7)
        for fname in ("model.bin", "model.npz", "vocab.spm"):
            for how in ("truncate", "flip"):
                for k in range(6):
                    folder = variant_copy(base, "corrupt")
                    for other in model_files(folder):
                        if other != fname and fname.endswith((".npz", ".bin")):
                            os.remove(os.path.join(folder, other))
                    corrupt_file(os.path.join(folder, fname), how, rng)
                    r = run("convert", folder, "-o", os.path.join(WORK, "corrupt.tfm"))
                    # A flipped byte may land in weights (a valid model with other values): exit 0.
                    assert r.returncode in (0, 1), f"{fname} {how} {k}: exit {r.returncode}: {r.stderr}"
                    if r.returncode == 1:
                        assert "tformer: " in r.stderr and len(r.stderr) < 2000, r.stderr
        # Truncated model files are always refused, naming the file.
        for fname in ("model.bin", "model.npz"):
            folder = variant_copy(base, "truncated")
            for other in model_files(folder):
                if other != fname:
                    os.remove(os.path.join(folder, other))
            with open(os.path.join(folder, fname), "rb") as f:
                data = f.read()
            with open(os.path.join(folder, fname), "wb") as f:
                f.write(data[:len(data) // 2])
            expect_refusal(folder, [fname])
    check("bad input: truncated / corrupted .bin, .npz, .spm: exit 1 with a message, never a crash",
          truncated_and_corrupted)

    def gz():
        folder = gz_copy(base, os.path.join(WORK, "bad", "gz"))
        for n in os.listdir(folder):
            if n.startswith(("model.npz", "decoder.yml")):
                os.remove(os.path.join(folder, n))
        p = os.path.join(folder, "model.bin.gz")
        with open(p, "rb") as f:
            data = f.read()
        with open(p, "wb") as f:
            f.write(data[:len(data) // 2])
        expect_refusal(folder, ["model.bin.gz", "truncated"])
        with open(p, "wb") as f:
            f.write(b"not gzip at all, but named .gz")
        expect_refusal(folder, ["model.bin.gz", "not a gzip file"])
        bad = bytearray(data)
        bad[len(bad) // 2] ^= 0x55
        with open(p, "wb") as f:
            f.write(bytes(bad))
        expect_refusal(folder, ["model.bin.gz"])
    check("bad input: truncated, corrupted and non-gzip .gz", gz)

    def yml():
        opus = folders["opus-post"]
        folder = variant_copy(opus, "yml")
        vocab = os.path.join(folder, "opus.spm32k-spm32k.vocab.yml")
        with open(vocab, "a", encoding="utf-8") as f:
            f.write("\"x\": [unclosed\n")
        expect_refusal(folder, ["opus.spm32k-spm32k.vocab.yml", "YAML"])
        folder = variant_copy(opus, "yml-gap")
        with open(os.path.join(folder, "opus.spm32k-spm32k.vocab.yml"), "a", encoding="utf-8") as f:
            f.write("\"zzz-new\": 100000\n")
        expect_refusal(folder, ["without gaps"])
        folder = variant_copy(opus, "decoder-yml", keep_decoder_yml=True)
        with open(os.path.join(folder, "decoder.yml"), "w", encoding="utf-8") as f:
            f.write("models: [unclosed\n")
        expect_refusal(folder, ["decoder.yml", "invalid YAML"])
        folder = variant_copy(opus, "no-vocab")
        os.remove(os.path.join(folder, "source.spm"))
        expect_refusal(folder, ["source.spm", "missing"])
    check("bad input: broken vocabulary .yml, decoder.yml, missing source.spm", yml)

    def options():
        opus = folders["opus-post"]
        npz_name = [n for n in os.listdir(opus) if n.endswith(".npz")][0]
        cases = [({"transformer-ffn-activation": "gelu"}, "transformer-ffn-activation 'gelu'"),
                 ({"type": "s2s"}, "type is 's2s'"),
                 ({"transformer-decoder-autoreg": "average-attention"}, "transformer-decoder-autoreg"),
                 ({"transformer-train-position-embeddings": True}, "transformer-train-position-embeddings"),
                 ({"transformer-tied-layers": [1, 1]}, "transformer-tied-layers"),
                 ({"factors-dim-emb": 8}, "factored vocabularies"),
                 ({"right-left": True}, "right-left"),
                 ({"transformer-postprocess-emb": "dn"}, "transformer-postprocess-emb"),
                 ({"transformer-preprocess": "n"}, "transformer-preprocess"),
                 ({"dec-cell": "lstm", "transformer-decoder-autoreg": "rnn"}, "dec-cell 'lstm'"),
                 ({"dim-emb": 48}, "shape"),
                 ({"dim-emb": "wide"}, "option dim-emb is 'wide', not an integer"),
                 ({"right-left": "perhaps"}, "option right-left is 'perhaps', not true or false"),
                 ({"dim-vocabs": [10, 10]}, "dim-vocabs")]
        for edit, frag in cases:
            folder = variant_copy(opus, "options")
            path = os.path.join(folder, npz_name)
            with np.load(path) as z:
                arrays = {k: z[k] for k in z.files}
            opts = yaml.safe_load(bytes(arrays["special:model.yml"]).split(b"\0")[0].decode())
            opts.update(edit)
            arrays["special:model.yml"] = np.frombuffer(marian_io.dump_options(opts).encode() + b"\0", dtype=np.int8)
            np.savez(path, **arrays)
            expect_refusal(folder, [npz_name, frag])
    check("refused options: each named", options)

    def parameters():
        folder = variant_copy(base, "params")
        os.remove(os.path.join(folder, "model.npz"))

        def refused_after(edit, words):
            # The base model.bin with one edit, as the folder's only model.
            items = {n: marian_io.item_from_array(n, it.values)
                     for n, it in mf.read_model(os.path.join(base, "model.bin")).items()}
            edit(items)
            marian_io.write_bin(os.path.join(folder, "model.bin"), items.values())
            expect_refusal(folder, words)

        def put(name, array):
            return lambda items: items.__setitem__(name, marian_io.item_from_array(name, array))

        refused_after(lambda items: items.pop("decoder_l1_context_Wq"), ["missing parameters", "decoder_l1_context_Wq"])
        refused_after(put("mystery_W", np.zeros((2, 2), np.float32)), ["does not know", "mystery_W"])
        refused_after(put("encoder_l1_ffn_W1", np.zeros((32, 63), np.float32)), ["encoder_l1_ffn_W1", "shape"])
        refused_after(put("encoder_l1_ffn_W1", np.zeros((32, 64), np.int32)), ["encoder_l1_ffn_W1", "int32"])
    check("bad parameters: missing, unknown, misshaped, wrong type", parameters)

    def files():
        folder = variant_copy(base, "several")
        expect_refusal(folder, ["several models", "model.bin", "model.npz"])
        os.remove(os.path.join(folder, "vocab.spm"))
        expect_refusal(folder, ["no vocabulary"], model="model.bin")
        empty = os.path.join(WORK, "bad", "empty")
        os.makedirs(empty, exist_ok=True)
        expect_refusal(empty, ["no Marian model"])
        r = run("convert", os.path.join(WORK, "bad", "nonexistent"), "-o", os.path.join(WORK, "x.tfm"))
        assert r.returncode == 1 and "no such file or folder" in r.stderr, r.stderr
    check("missing files: several models, no vocabulary, an empty folder, no folder", files)


def test_info_and_shortlist(folders):
    from tformer import shortlist

    def one():
        folder = variant_copy(folders["d64-std-post-relu"], "shortlist")
        vs = 256
        # A binary lexical shortlist (marian-dev's format): source word i lists target ids 3i, 3i+1.
        lex = shortlist.write([[(3 * i) % vs, (3 * i + 1) % vs] for i in range(vs)], 100, 50)
        with open(os.path.join(folder, "lex.50.50.deen.s2t.bin"), "wb") as f:
            f.write(lex)
        # Carried in the .tfm (the tensor "shortlist") byte for byte.
        for model in ("model.bin", "model.intgemm.alphas.bin"):
            f = convert(os.path.join(folder, model), os.path.join(WORK, "out", f"shortlist.{model}.tfm"))
            assert f.tensors["shortlist"].tobytes() == lex
        r = run("info", os.path.join(folder, "model.intgemm.alphas.bin"))
        assert r.returncode == 0, r.stderr
        for frag in ("variant:    self-attention decoder, post-norm, relu", "lex.50.50.deen.s2t.bin: 256 source words, "
                     "512 (source, target) pairs, firstNum 100, bestNum 50", "intgemm8", "shape:"):
            assert frag in r.stdout, f"info lacks {frag!r}:\n{r.stdout}"
        # Translating the folder directly equals translating the converted file (shortlist applied).
        text = "\n".join(SENTENCES) + "\n"
        direct = run("translate", "--threads", "1", "-m", os.path.join(folder, "model.bin"), stdin=text)
        converted = run("translate", "--threads", "1", "-m", os.path.join(WORK, "out", "shortlist.model.bin.tfm"),
                        stdin=text)
        assert direct.returncode == 0 and direct.stdout == converted.stdout, direct.stderr
        with open(os.path.join(folder, "lex.50.50.deen.s2t.bin"), "r+b") as f:
            f.seek(48 + 8 * (vs + 1))
            f.write(struct.pack("<I", 100000))
        r = run("info", os.path.join(folder, "model.bin"))
        assert r.returncode == 1 and "lex.50.50.deen.s2t.bin" in r.stderr and "checksum" in r.stderr, r.stderr
    check("shortlist: carried in the .tfm byte for byte, shown by info, checked", one)


def main(argv):
    global WORK
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer variants and only --weights keep")
    ap.add_argument("--keep", help="work folder to keep (default: a temporary one)")
    args = ap.parse_args(argv)
    if not os.path.exists(TFORMER):
        print(f"{TFORMER} is not built\n0 passed, 1 failed")
        return 1
    torch.set_num_threads(1)
    rt.WORK = WORK = args.keep or tempfile.mkdtemp(prefix="tformer-marian-import-")
    os.makedirs(WORK, exist_ok=True)
    try:
        t0 = time.time()
        folders = make_models(args.quick)
        print(f"made {len(folders)} Marian model folders in {time.time() - t0:.1f} s", flush=True)
        test_meaning(folders, args.quick)
        test_gz(folders)
        test_max_positions(folders)
        test_models_tfm(folders)
        test_translate(folders)
        test_firefox_v2(folders)
        test_bad_files(folders)
        test_info_and_shortlist(folders)
    finally:
        if not args.keep:
            shutil.rmtree(WORK, ignore_errors=True)
    return closing()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

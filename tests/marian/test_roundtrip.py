#!/usr/bin/python3
"""Marian import/export checks, runnable as a script: `tests/marian/test_roundtrip.py [-k NAME]`.

- An OPUS-MT-style folder written here from a random PyTorch model, with this file's own
  parameter naming (not models/tformer/marian.py's): model .npz with special:model.yml,
  decoder.yml, source.spm/target.spm and a *.vocab.yml whose ids are a shuffled permutation of
  the SentencePiece ids with some pieces left out (they become <unk>). Imported by the engine's
  importer (`models/tfm import-marian` runs `build/tformer convert`), it must translate exactly as
  the original model does, in PyTorch and in the C++ engine (build/tformer).
- The same with pre-norm, an SSRU decoder, target-tied embeddings and separate source/target
  tables of different sizes.
- Round trips: .tfm -> Marian .npz / .bin -> .tfm gives the same tensors and translations;
  intgemm8 export -> import -> export -> import is a fixed point.
- Bad input: missing files, unsupported Marian options, missing/extra/misshaped parameters,
  corrupted .bin files, corrupted vocabulary tables in a .tfm; each must fail with a clear message.
  Marian's files are read back here with tests/marian/marian_files.py.

No real OPUS-MT or Firefox Translations files can be downloaded here; these inputs are built from
the formats' specification (models/MARIAN-IMPORT.md).
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tformer  # noqa: E402,F401  (names OpenBLAS kernels for this CPU before torch loads)

import marian_files as mf  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import yaml  # noqa: E402

from tformer import fixtures, marian, marian_io, tfm  # noqa: E402
from tformer.config import marian_convention  # noqa: E402
from tformer.decode import greedy, max_target_length, source_ids  # noqa: E402
from tformer.export import build_tfm, load_tfm_model  # noqa: E402
from tformer.model import Transformer  # noqa: E402
from tformer.tokenizer import Tokenizer  # noqa: E402
from tformer.translate import translate_lines  # noqa: E402

TFM_CLI = os.path.join(ROOT, "models", "tfm")
TFORMER = os.environ.get("TFORMER", os.path.join(ROOT, "build", "tformer"))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SENTENCES = [
    "Ein Mann fährt Fahrrad.",
    "Zwei Hunde spielen im Schnee.",
    "Die Katze schläft, während draußen die Sonne scheint.",
    "Warum?",
    "Straßenbahn über die Brücke",
    "Quixotisch: Ωμέγα und ✓ sind selten.",
]
WORK = None


def fixture_spm() -> bytes:
    f = tfm.read(os.path.join(FIXTURES, "marian", "model.tfm"))
    return f.tensors[f.tokenizer["source"]].tobytes()


def randomize(model, seed):
    fixtures.randomize(model, seed, eos_bias=8.0)


# ---- an OPUS-MT folder, written independently of models/tformer/marian.py -------------------------
def marian_names(model) -> dict:
    """Marian parameter name -> float32 array, spelled out by hand from marian-dev's transformer.h."""
    cfg, sd = model.cfg, {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    pre = "_pre" if cfg.norm == "pre" else ""
    out = {}

    def lin(mname, tname, bname=None):
        out[mname] = sd[tname + ".weight"].T.copy()
        if bname:
            out[bname] = sd[tname + ".bias"][None, :].copy()

    def ln(prefix, tname):
        out[f"{prefix}_ln_scale{pre}"] = sd[tname + ".weight"][None, :]
        out[f"{prefix}_ln_bias{pre}"] = sd[tname + ".bias"][None, :]

    for side, n in (("encoder", cfg.encoder_layers), ("decoder", cfg.decoder_layers)):
        for i in range(n):
            L, t = f"{side}_l{i + 1}", f"{side}.layers.{i}"
            blocks = [("self", "self_attn")] if side == "encoder" or cfg.decoder_layer_type == "transformer" else []
            if side == "decoder":
                blocks.append(("context", "cross_attn"))
            for mb, tb in blocks:
                for p in "qkvo":
                    lin(f"{L}_{mb}_W{p}", f"{t}.{tb}.{p}", f"{L}_{mb}_b{p}")
                ln(f"{L}_{mb}_Wo", f"{t}.{tb}_norm")
            if side == "decoder" and cfg.decoder_layer_type == "ssru":
                out[f"{L}_rnn_W"] = sd[f"{t}.ssru.w.weight"].T.copy()
                out[f"{L}_rnn_Wf"] = sd[f"{t}.ssru.wf.weight"].T.copy()
                out[f"{L}_rnn_bf"] = sd[f"{t}.ssru.wf.bias"][None, :]
                if pre:
                    out[f"{L}_rnn_ln_scale_pre"] = sd[f"{t}.ssru_norm.weight"][None, :]
                    out[f"{L}_rnn_ln_bias_pre"] = sd[f"{t}.ssru_norm.bias"][None, :]
                else:
                    out[f"{L}_rnn_ffn_ln_scale"] = sd[f"{t}.ssru_norm.weight"][None, :]
                    out[f"{L}_rnn_ffn_ln_bias"] = sd[f"{t}.ssru_norm.bias"][None, :]
            lin(f"{L}_ffn_W1", f"{t}.ffn.w1", f"{L}_ffn_b1")
            lin(f"{L}_ffn_W2", f"{t}.ffn.w2", f"{L}_ffn_b2")
            ln(f"{L}_ffn_ffn", f"{t}.ffn_norm")
        if cfg.norm == "pre":
            out[f"{side}_top_ln_scale"] = sd[f"{side}.final_norm.weight"][None, :]
            out[f"{side}_top_ln_bias"] = sd[f"{side}.final_norm.bias"][None, :]
    return out, sd


def opus_options(cfg, vocab_sizes, tie):
    return {
        "version": "v1.9.0 (tests)", "type": "transformer", "dim-vocabs": list(vocab_sizes), "dim-emb": cfg.d_model,
        "dim-rnn": 1024, "enc-type": "bidirectional", "enc-cell": "gru", "enc-cell-depth": 1,
        "enc-depth": cfg.encoder_layers, "dec-cell": "ssru" if cfg.decoder_layer_type == "ssru" else "gru",
        "dec-cell-base-depth": 2, "dec-cell-high-depth": 1, "dec-depth": cfg.decoder_layers, "skip": False,
        "layer-normalization": False, "right-left": False, "input-types": [], "best-deep": False,
        "tied-embeddings": tie == "target", "tied-embeddings-src": False, "tied-embeddings-all": tie == "all",
        "transformer-heads": cfg.heads, "transformer-no-projection": False, "transformer-pool": False,
        "transformer-dim-ffn": cfg.ffn_dim, "transformer-ffn-depth": 2,
        "transformer-ffn-activation": cfg.activation, "transformer-dim-aan": 2048, "transformer-aan-depth": 2,
        "transformer-aan-activation": "swish", "transformer-aan-nogate": False,
        "transformer-decoder-autoreg": "rnn" if cfg.decoder_layer_type == "ssru" else "self-attention",
        "transformer-tied-layers": [], "transformer-guided-alignment-layer": "last",
        "transformer-preprocess": "n" if cfg.norm == "pre" else "",
        "transformer-postprocess": "da" if cfg.norm == "pre" else "dan",
        "transformer-postprocess-emb": "d", "transformer-postprocess-top": "n" if cfg.norm == "pre" else "",
        "transformer-train-position-embeddings": False, "transformer-depth-scaling": False,
        "bert-train-type-embeddings": True, "bert-type-vocab-size": 2, "ulr": False, "ulr-dim-emb": 0,
    }


def make_table(sp, rng, drop, size_cut=None):
    """A Marian .yml table over the SentencePiece pieces: </s>=0, <unk>=1, the rest shuffled,
    some left out."""
    pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    rest = [p for p in pieces if p not in ("</s>", "<unk>")]
    rng.shuffle(rest)
    rest = [p for p in rest if p not in drop]
    if size_cut:
        rest = rest[:size_cut - 2]
    return ["</s>", "<unk>"] + rest


class OpusModel:
    """A random PyTorch model in the id space of .yml tables, plus its own tokenization."""

    def __init__(self, folder, seed, norm="post", act="swish", dec="transformer", tie="all", separate=False):
        rng = random.Random(seed)
        spm_bytes = fixture_spm()
        sp = Tokenizer(spm_bytes).sp
        drop = {"ü", "ß", "▁über"}
        self.src_table = make_table(sp, rng, drop)
        self.tgt_table = make_table(sp, rng, drop, size_cut=200) if separate else self.src_table
        vs, vt = len(self.src_table), len(self.tgt_table)
        V = max(vs, vt)
        cfg = marian_convention(vocab_size=V, d_model=32, heads=4, ffn_dim=64, encoder_layers=2, decoder_layers=2,
                                norm=norm, prenorm_raw_self_kv=norm == "pre", activation=act,
                                decoder_layer_type=dec, tied_embeddings=tie, max_positions=128)
        torch.manual_seed(seed)
        self.model = Transformer(cfg)
        randomize(self.model, seed)
        if vt < V:
            with torch.no_grad():
                self.model.output_bias[vt:] = float("-inf")
                self.model.target_embedding.weight[vt:] = 0.0
        self.model.eval()
        self.sp = sp
        params, sd = marian_names(self.model)
        if tie == "all":
            params["Wemb"] = sd["embedding.weight"]
        else:
            params["encoder_Wemb"] = sd["source_embedding.weight"][:vs]
            params["decoder_Wemb"] = sd["target_embedding.weight"][:vt]
        params["decoder_ff_logit_out_b"] = sd["output_bias"][None, :vt]
        yml = marian_io.dump_options(opus_options(cfg, (vs, vt), tie))
        os.makedirs(folder, exist_ok=True)
        npz = "opus.spm32k-spm32k.transformer-align.model1.npz.best-perplexity.npz"
        arrays = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in params.items()}
        arrays["special:model.yml"] = np.frombuffer(yml.encode() + b"\0", dtype=np.int8)
        np.savez(os.path.join(folder, npz), **arrays)
        for name in ("source.spm", "target.spm"):
            with open(os.path.join(folder, name), "wb") as f:
                f.write(spm_bytes)
        if separate:
            vocabs = ["opus.src.vocab.yml", "opus.trg.vocab.yml"]
            marian_io.write_vocab_yml(os.path.join(folder, vocabs[0]), self.src_table)
            marian_io.write_vocab_yml(os.path.join(folder, vocabs[1]), self.tgt_table)
        else:
            vocabs = ["opus.spm32k-spm32k.vocab.yml"] * 2
            marian_io.write_vocab_yml(os.path.join(folder, vocabs[0]), self.src_table)
        with open(os.path.join(folder, "decoder.yml"), "w") as f:
            f.write(f"models:\n  - {npz}\nvocabs:\n  - {vocabs[0]}\n  - {vocabs[1]}\n"
                    "beam-size: 6\nnormalize: 0.6\nword-penalty: 0\nmini-batch: 1\nmaxi-batch: 1\n"
                    "maxi-batch-sort: src\nrelative-paths: true\n")
        self.src_index = {p: i for i, p in enumerate(self.src_table)}

    def translate(self, sentences):
        """Reference: spm pieces -> table ids (missing -> <unk>=1), greedy, ids -> pieces -> text."""
        cfg = self.model.cfg
        out = []
        for s in sentences:
            ids = [self.src_index.get(p, 1) for p in self.sp.encode(s, out_type=str)]
            src = source_ids(cfg, ids)
            h = greedy(self.model, [src], [max_target_length(cfg, len(src))])[0]
            out.append(self.sp.decode_pieces([self.tgt_table[t] for t in h.tokens if t != cfg.eos_id]))
        return out, [self.src_index.get(p, 1) for s in sentences for p in self.sp.encode(s, out_type=str)]


# ---- helpers ---------------------------------------------------------------------------------------
def run_cli(*args, expect_ok=True):
    r = subprocess.run([sys.executable, TFM_CLI, *args], capture_output=True, text=True)
    if expect_ok and r.returncode != 0:
        raise AssertionError(f"models/tfm {' '.join(args)} failed:\n{r.stderr}")
    return r


def tformer_translate(model_path, lines):
    if not os.path.exists(TFORMER):
        return None
    r = subprocess.run([TFORMER, "translate", "-m", model_path, "--no-split", "--no-passthrough", "--no-repetition-guard"],
                       input="\n".join(lines) + "\n",
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"tformer failed on {model_path}:\n{r.stderr}")
    return r.stdout.split("\n")[:-1]


def pytorch_translate(model_path, lines):
    model, s, t, _ = load_tfm_model(model_path)
    return translate_lines(model, s, t, lines)


def assert_same(a, b, what):
    if a != b:
        diff = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y][:3]
        raise AssertionError(f"{what} differ: {diff}")


def expect_error(fn, *fragments):
    try:
        fn()
    except (marian.MarianError, ValueError) as e:
        msg = str(e)
        for frag in fragments:
            if frag not in msg:
                raise AssertionError(f"error message {msg!r} lacks {frag!r}")
        return msg
    raise AssertionError(f"no error (expected one mentioning {fragments})")


def same_tensors(a: tfm.TfmFile, b: tfm.TfmFile, exact=True):
    names = [n for n in a.tensors if not n.endswith(".scales") and not n.startswith("tokenizer.")]
    for n in names:
        x, y = tfm.dequantize(a, n), tfm.dequantize(b, n)
        if x.shape != y.shape or not (np.array_equal(x, y) if exact else np.allclose(x, y, atol=1e-6)):
            raise AssertionError(f"tensor {n} differs after the round trip")


# ---- tests -----------------------------------------------------------------------------------------
def test_opus_folder_post_norm_joint_vocab():
    folder = os.path.join(WORK, "opus-post")
    ref = OpusModel(folder, seed=7)
    out = os.path.join(WORK, "opus-post.tfm")
    run_cli("import-marian", folder, "-o", out)
    f = tfm.read(out)
    assert f.tokenizer["type"] == "sentencepiece_vocab", f.tokenizer
    assert f.tokenizer["source_vocab"] == f.tokenizer["target_vocab"]
    assert f.config["activation"] == "swish" and f.config["norm"] == "post" and f.config["tied_embeddings"] == "all"
    expected, ids = ref.translate(SENTENCES)
    assert 1 in ids, "the test sentences should contain a piece missing from the table"
    assert_same(pytorch_translate(out, SENTENCES), expected, "PyTorch on the imported model vs the original")
    cpp = tformer_translate(out, SENTENCES)
    if cpp is not None:
        assert_same(cpp, expected, "C++ engine on the imported model vs the original")
    # The C++ tokenizer maps pieces through the table too: an sentence whose ids only make sense
    # through the table (shuffled ids) was translated identically above.


def test_opus_folder_prenorm_ssru_separate_vocabs():
    folder = os.path.join(WORK, "opus-pre")
    ref = OpusModel(folder, seed=11, norm="pre", act="relu", dec="ssru", tie="target", separate=True)
    out = os.path.join(WORK, "opus-pre.tfm")
    run_cli("import-marian", folder, "-o", out)
    f = tfm.read(out)
    assert f.tokenizer["source_vocab"] != f.tokenizer["target_vocab"]
    assert f.config["decoder_layer_type"] == "ssru" and f.config["norm"] == "pre"
    assert f.config["vocab_size"] == len(ref.src_table) > len(ref.tgt_table)
    assert np.all(np.isneginf(f.tensors["output_bias"][len(ref.tgt_table):]))
    expected, _ = ref.translate(SENTENCES)
    assert_same(pytorch_translate(out, SENTENCES), expected, "PyTorch on the imported model vs the original")
    cpp = tformer_translate(out, SENTENCES)
    if cpp is not None:
        assert_same(cpp, expected, "C++ engine on the imported model vs the original")
    # And back: export keeps the two tables and strips the padding.
    exported = os.path.join(WORK, "opus-pre-export")
    run_cli("export-marian", out, "-o", exported)
    items = mf.read_model(os.path.join(exported, "model.npz"))
    assert items["decoder_Wemb"].shape == (len(ref.tgt_table), 32)
    assert items["encoder_Wemb"].shape == (len(ref.src_table), 32)
    assert mf.read_vocab(os.path.join(exported, "target.spm"), os.path.join(exported, "target.vocab.yml")).pieces == ref.tgt_table
    back = os.path.join(WORK, "opus-pre-back.tfm")
    run_cli("import-marian", exported, "-o", back)
    same_tensors(tfm.read(out), tfm.read(back))


def roundtrip(model_path, name):
    lines = SENTENCES
    before = pytorch_translate(model_path, lines)
    cpp_before = tformer_translate(model_path, lines)
    out = os.path.join(WORK, f"rt-{name}")
    run_cli("export-marian", model_path, "-o", out)
    for file in ("model.npz", "model.bin"):
        back = os.path.join(WORK, f"rt-{name}-{file}.tfm")
        run_cli("import-marian", out, "--model", os.path.join(out, file), "-o", back)
        same_tensors(tfm.read(model_path), tfm.read(back))
        assert_same(pytorch_translate(back, lines), before, f"{name} via {file} (PyTorch)")
        if cpp_before is not None:
            assert_same(tformer_translate(back, lines), cpp_before, f"{name} via {file} (C++)")
    opts = mf.model_options(mf.read_model(os.path.join(out, "model.bin")))
    for key in ("type", "dim-emb", "enc-depth", "dec-depth", "transformer-heads", "transformer-dim-ffn",
                "transformer-ffn-activation", "transformer-postprocess", "tied-embeddings-all",
                "transformer-decoder-autoreg"):
        assert key in opts, f"model.yml lacks {key}"


def test_roundtrip_fixtures():
    for name in ("marian", "marian-prenorm-swish", "marian-ssru"):
        roundtrip(os.path.join(FIXTURES, name, "model.tfm"), name)


def test_roundtrip_imported_opus():
    path = os.path.join(WORK, "opus-post.tfm")
    if not os.path.exists(path):
        OpusModel(os.path.join(WORK, "opus-post"), seed=7)
        run_cli("import-marian", os.path.join(WORK, "opus-post"), "-o", path)
    roundtrip(path, "opus")
    assert os.path.exists(os.path.join(WORK, "rt-opus", "vocab.yml"))
    # Storage conversions at import.
    for weights, dtype in (("f16", np.float16), ("int8", np.int8)):
        p = os.path.join(WORK, f"opus-{weights}.tfm")
        run_cli("import-marian", os.path.join(WORK, "rt-opus"), "--model", os.path.join(WORK, "rt-opus", "model.npz"),
                "--weights", weights, "-o", p)
        assert tfm.read(p).tensors["decoder.layers.0.ffn.w1.weight"].dtype == dtype
        cpp = tformer_translate(p, SENTENCES)
        if cpp is not None:
            assert_same(cpp, pytorch_translate(p, SENTENCES), f"C++ vs PyTorch with {weights} weights")


def d64_model(tie="all", dec="transformer", norm="post"):
    spm_bytes = fixture_spm()
    V = Tokenizer(spm_bytes).sp.get_piece_size()
    cfg = marian_convention(vocab_size=V, d_model=64, heads=4, ffn_dim=128, encoder_layers=1, decoder_layers=1,
                            decoder_layer_type=dec, norm=norm, prenorm_raw_self_kv=norm == "pre", activation="relu",
                            tied_embeddings=tie, max_positions=128)
    torch.manual_seed(3)
    m = Transformer(cfg)
    randomize(m, 3)
    path = os.path.join(WORK, f"d64-{tie}-{dec}-{norm}.tfm")
    tfm.write(path, build_tfm(cfg, m.state_dict(), spm_bytes))
    return path


def test_int8_export_import_fixed_point():
    for tie, dec, norm in (("all", "transformer", "post"), ("none", "ssru", "pre")):
        path = d64_model(tie, dec, norm)
        calib = os.path.join(WORK, "calib.txt")
        with open(calib, "w") as f:
            f.write("\n".join(SENTENCES * 3) + "\n")
        out1 = os.path.join(WORK, f"int8-a-{tie}")
        run_cli("export-marian", path, "-o", out1, "--format", "bin", "--int8", "--calibrate", calib)
        items = mf.read_model(os.path.join(out1, "model.intgemm.alphas.bin"))
        types = {n: it.type for n, it in items.items()}
        assert types["encoder_l1_self_Wq"] == "intgemm8" and types["encoder_l1_self_Wo_ln_scale" +
                                                                    ("_pre" if norm == "pre" else "")] == "float32"
        out_matrix = "Wemb" if tie == "all" else "decoder_ff_logit_out_Wt"
        assert f"{out_matrix}_QuantMultA" in items and "encoder_l1_ffn_W2_QuantMultA" in items
        if tie == "none":
            assert types["decoder_ff_logit_out_Wt"] == "float32" and types["encoder_Wemb"] == "intgemm8"
        # marian-conv's quantisation of one matrix, checked by hand.
        w = mf.read_model(os.path.join(out1, "model.bin"))["encoder_l1_self_Wq"].values
        q, mult = items["encoder_l1_self_Wq"].values, items["encoder_l1_self_Wq"].mult
        assert np.isclose(mult, 127.0 / np.abs(w).max())
        assert np.array_equal(q, np.clip(np.rint(w.T * np.float32(mult)), -127, 127))
        a = os.path.join(WORK, f"int8-a-{tie}.tfm")
        run_cli("import-marian", out1, "--model", os.path.join(out1, "model.intgemm.alphas.bin"), "-o", a)
        fa = tfm.read(a)
        assert fa.tensors["encoder.layers.0.self_attn.q.weight"].dtype == np.int8
        assert "quant_mult_a" in fa.metadata["marian"]
        # Re-export from the int8 model reuses the stored multipliers; import again: same tensors.
        out2 = os.path.join(WORK, f"int8-b-{tie}")
        run_cli("export-marian", a, "-o", out2, "--format", "bin", "--int8")
        b = os.path.join(WORK, f"int8-b-{tie}.tfm")
        run_cli("import-marian", out2, "--model", os.path.join(out2, "model.intgemm.alphas.bin"), "-o", b)
        fb = tfm.read(b)
        for n in fa.tensors:
            if not n.startswith("tokenizer."):
                assert np.array_equal(fa.tensors[n], fb.tensors[n]), f"{n} changed in the int8 round trip"
        cpp = tformer_translate(a, SENTENCES)
        if cpp is not None:
            assert_same(cpp, pytorch_translate(a, SENTENCES), "C++ vs PyTorch on the int8 import")
        # A folder laid out as Firefox Translations ships models: found without naming files.
        ff = os.path.join(WORK, f"firefox-{tie}")
        os.makedirs(ff, exist_ok=True)
        shutil.copy(os.path.join(out1, "model.intgemm.alphas.bin"), os.path.join(ff, "model.deen.intgemm.alphas.bin"))
        with open(os.path.join(ff, "lex.50.50.deen.s2t.bin"), "wb") as f:
            f.write(b"\0" * 64)
        if tie == "all":
            shutil.copy(os.path.join(out1, "vocab.spm"), os.path.join(ff, "vocab.deen.spm"))
        else:
            shutil.copy(os.path.join(out1, "srcvocab.spm") if os.path.exists(os.path.join(out1, "srcvocab.spm"))
                        else os.path.join(out1, "vocab.spm"), os.path.join(ff, "srcvocab.deen.spm"))
            shutil.copy(os.path.join(out1, "trgvocab.spm") if os.path.exists(os.path.join(out1, "trgvocab.spm"))
                        else os.path.join(out1, "vocab.spm"), os.path.join(ff, "trgvocab.deen.spm"))
        c = os.path.join(WORK, f"firefox-{tie}.tfm")
        run_cli("import-marian", ff, "-o", c)
        fc = tfm.read(c)
        for n in fa.tensors:
            if not n.startswith("tokenizer."):
                assert np.array_equal(fa.tensors[n], fc.tensors[n]), f"{n} differs in the Firefox-style import"


def test_missing_files():
    folder = os.path.join(WORK, "missing")
    OpusModel(folder, seed=5)
    out = os.path.join(WORK, "missing.tfm")
    expect_error(lambda: marian.import_marian(os.path.join(WORK, "nowhere"), out), "no such file or folder")
    os.remove(os.path.join(folder, "target.spm"))
    expect_error(lambda: marian.import_marian(folder, out), "target SentencePiece model", "target.spm", "missing")
    os.remove(os.path.join(folder, "decoder.yml"))
    shutil.copy(os.path.join(folder, "source.spm"), os.path.join(folder, "target.spm"))
    marian.import_marian(folder, out)  # discovery without decoder.yml works
    os.remove(os.path.join(folder, "opus.spm32k-spm32k.vocab.yml"))
    expect_error(lambda: marian.import_marian(folder, out), "no vocabulary")
    for f in os.listdir(folder):
        if f.endswith(".npz"):
            os.remove(os.path.join(folder, f))
    expect_error(lambda: marian.import_marian(folder, out), "no Marian model")
    r = run_cli("import-marian", folder, "-o", out, expect_ok=False)
    assert r.returncode == 1 and "import-marian: " in r.stderr and "Traceback" not in r.stderr, r.stderr


def rewrite_npz(src_folder, dst_folder, edit_items=None, edit_options=None):
    shutil.rmtree(dst_folder, ignore_errors=True)
    shutil.copytree(src_folder, dst_folder)
    npz = next(os.path.join(dst_folder, f) for f in os.listdir(dst_folder) if f.endswith(".npz"))
    with np.load(npz) as z:
        arrays = {k: z[k] for k in z.files}
    opts = yaml.safe_load(bytes(arrays["special:model.yml"]).split(b"\0")[0].decode())
    if edit_options:
        edit_options(opts)
    arrays["special:model.yml"] = np.frombuffer(marian_io.dump_options(opts).encode() + b"\0", dtype=np.int8)
    if edit_items:
        edit_items(arrays)
    np.savez(npz, **arrays)
    return dst_folder


def test_unsupported_options():
    base = os.path.join(WORK, "opts-base")
    OpusModel(base, seed=9)
    out = os.path.join(WORK, "opts.tfm")
    cases = [
        ({"type": "s2s"}, "type is 's2s'"),
        ({"transformer-ffn-activation": "gelu"}, "transformer-ffn-activation 'gelu'"),
        ({"transformer-tied-layers": [1, 1]}, "transformer-tied-layers"),
        ({"lemma-dim-emb": 8}, "factored vocabularies"),
        ({"transformer-decoder-autoreg": "average-attention"}, "average-attention"),
        ({"transformer-decoder-autoreg": "rnn", "dec-cell": "gru"}, "dec-cell 'gru'"),
        ({"transformer-preprocess": "n", "transformer-postprocess": "da"}, "pre-norm"),
        ({"transformer-postprocess-emb": "dn"}, "transformer-postprocess-emb"),
        ({"transformer-train-position-embeddings": True}, "transformer-train-position-embeddings"),
        ({"right-left": True}, "right-left"),
        ({"transformer-ffn-depth": 3}, "depth 2"),
        ({"dim-vocabs": [100, 100]}, "dim-vocabs"),
    ]
    for i, (change, fragment) in enumerate(cases):
        folder = rewrite_npz(base, os.path.join(WORK, f"opts-{i}"), edit_options=lambda o, c=change: o.update(c))
        expect_error(lambda: marian.import_marian(folder, out), fragment)
    # Unknown keys only warn; guided-alignment leftovers are ignored.
    folder = rewrite_npz(base, os.path.join(WORK, "opts-ok"),
                         edit_options=lambda o: o.update({"some-future-option": 3, "guided-alignment": "align.txt"}))
    marian.import_marian(folder, out)


def test_bad_parameters():
    base = os.path.join(WORK, "opts-base")
    if not os.path.exists(base):
        OpusModel(base, seed=9)
    out = os.path.join(WORK, "params.tfm")
    folder = rewrite_npz(base, os.path.join(WORK, "p-missing"), edit_items=lambda a: a.pop("decoder_l2_ffn_W1"))
    expect_error(lambda: marian.import_marian(folder, out), "missing parameters", "decoder_l2_ffn_W1")
    folder = rewrite_npz(base, os.path.join(WORK, "p-extra"),
                         edit_items=lambda a: a.update({"encoder_emb_ln_scale_pre": np.ones((1, 32), np.float32)}))
    expect_error(lambda: marian.import_marian(folder, out), "does not know", "encoder_emb_ln_scale_pre")
    folder = rewrite_npz(base, os.path.join(WORK, "p-shape"),
                         edit_items=lambda a: a.update({"encoder_l1_ffn_W1": np.ones((32, 65), np.float32)}))
    expect_error(lambda: marian.import_marian(folder, out), "encoder_l1_ffn_W1", "shape [32, 65]")
    folder = rewrite_npz(base, os.path.join(WORK, "p-noyml"), edit_items=lambda a: a.pop("special:model.yml"))
    expect_error(lambda: marian.import_marian(folder, out), "no special:model.yml", "--config")


def test_corrupted_bin():
    src_folder = os.path.join(WORK, "rt-marian")
    if not os.path.exists(os.path.join(src_folder, "model.bin")):
        run_cli("export-marian", os.path.join(FIXTURES, "marian", "model.tfm"), "-o", src_folder)
    data = open(os.path.join(src_folder, "model.bin"), "rb").read()
    items = mf.read_model(os.path.join(src_folder, "model.bin"))
    folder = os.path.join(WORK, "bin-bad")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    shutil.copy(os.path.join(src_folder, "vocab.spm"), os.path.join(folder, "vocab.spm"))

    def check(blob, *frags):
        with open(os.path.join(folder, "model.bin"), "wb") as f:
            f.write(blob)
        return expect_error(lambda: marian.import_marian(folder, os.path.join(WORK, "x.tfm")), "model.bin", *frags)

    check(data[:10], "truncated")
    check(struct.pack("<Q", 2) + data[8:], "version 2")
    check(data[:8] + struct.pack("<Q", 10 ** 9) + data[16:], "claims 1000000000 items")
    check(data[:len(data) - 1000], "truncated at item")
    hdr = bytearray(data)
    struct.pack_into("<Q", hdr, 16 + 8, 0x1234)  # first item's type
    check(bytes(hdr), "unknown or unsupported type code 0x1234")
    hdr = bytearray(data)
    struct.pack_into("<Q", hdr, 16 + 24, 3)  # first item's data length
    check(bytes(hdr), "data bytes")
    # A .bin that parses but lacks a parameter: the import names it.
    keep = [marian_io.item_from_array(name, it.values) for name, it in items.items() if name != "decoder_l1_context_Wk"]
    marian_io.write_bin(os.path.join(folder, "model.bin"), keep)
    expect_error(lambda: marian.import_marian(folder, os.path.join(WORK, "x.tfm")),
                 "missing parameters", "decoder_l1_context_Wk")
    # decoder.yml names a model that is not there.
    with open(os.path.join(folder, "decoder.yml"), "w") as f:
        f.write("models: [model.npz]\nvocabs: [vocab.spm, vocab.spm]\n")
    expect_error(lambda: marian.import_marian(folder, os.path.join(WORK, "x.tfm")), "model.npz is missing")
    assert len(items) > 10


def test_export_refusals():
    out = os.path.join(WORK, "refused")
    expect_error(lambda: marian.export_marian(os.path.join(FIXTURES, "tutorial", "model.tfm"), out),
                 "positional_encoding must be 'marian'", "decoder_start")
    expect_error(lambda: marian.export_marian(os.path.join(FIXTURES, "marian", "model.tfm"), out, int8=True),
                 "--calibrate")
    calib = os.path.join(WORK, "calib.txt")
    with open(calib, "w") as f:
        f.write("\n".join(SENTENCES) + "\n")
    expect_error(lambda: marian.export_marian(os.path.join(FIXTURES, "marian", "model.tfm"), out, int8=True,
                                              calibrate=calib), "multiple of 64")


def corrupt_tfm_table(src, dst, mutate):
    f = tfm.read(src)
    tensors = dict(f.tensors)
    tensors["tokenizer.source_vocab"] = np.frombuffer(mutate(tensors["tokenizer.source_vocab"].tobytes()), np.uint8)
    tfm.write(dst, tfm.TfmFile(f.config, f.tokenizer, tensors, f.metadata, f.scales))


def test_cpp_rejects_bad_vocab_tables():
    if not os.path.exists(TFORMER):
        print("  (skipped: build/tformer not built)")
        return
    src = os.path.join(WORK, "opus-post.tfm")
    if not os.path.exists(src):
        OpusModel(os.path.join(WORK, "opus-post"), seed=7)
        run_cli("import-marian", os.path.join(WORK, "opus-post"), "-o", src)
    cases = [
        (lambda b: b[:-1], "does not end with a NUL byte"),
        (lambda b: b"\0" + b, "entry 0 is empty"),
        (lambda b: b.replace(b"<unk>\0", b"<unx>\0"), "has no <unk> entry"),
        (lambda b: b.replace(b"<unk>\0", b"</s>\0"), "occurs twice"),
    ]
    for i, (mutate, fragment) in enumerate(cases):
        dst = os.path.join(WORK, f"badtable-{i}.tfm")
        corrupt_tfm_table(src, dst, mutate)
        r = subprocess.run([TFORMER, "translate", "-m", dst], input="Hallo\n", capture_output=True, text=True)
        assert r.returncode != 0 and fragment in r.stderr, (fragment, r.returncode, r.stderr)
    # A table larger than vocab_size, and a vocab type the reader must refuse to guess.
    f = tfm.read(src)
    tensors = dict(f.tensors)
    tensors["tokenizer.source_vocab"] = tfm.vocab_to_bytes(tfm.vocab_from_bytes(tensors["tokenizer.source_vocab"]) +
                                                           ["▁extra1", "▁extra2"])
    tok = dict(f.tokenizer, target_vocab="tokenizer.source_vocab")
    dst = os.path.join(WORK, "badtable-big.tfm")
    tfm.write(dst, tfm.TfmFile(f.config, tok, tensors, f.metadata, f.scales))
    r = subprocess.run([TFORMER, "translate", "-m", dst], input="Hallo\n", capture_output=True, text=True)
    assert r.returncode != 0 and "vocabulary table has" in r.stderr and "vocab_size" in r.stderr, r.stderr
    tok = dict(f.tokenizer, type="sentencepiece")
    dst = os.path.join(WORK, "badtable-type.tfm")
    tfm.write(dst, tfm.TfmFile(f.config, tok, dict(f.tensors), f.metadata, f.scales))
    r = subprocess.run([TFORMER, "translate", "-m", dst], input="Hallo\n", capture_output=True, text=True)
    assert r.returncode != 0 and "need type sentencepiece_vocab" in r.stderr, r.stderr


TESTS = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
ORDER = ["test_opus_folder_post_norm_joint_vocab", "test_opus_folder_prenorm_ssru_separate_vocabs",
         "test_roundtrip_fixtures", "test_roundtrip_imported_opus", "test_int8_export_import_fixed_point",
         "test_missing_files", "test_unsupported_options", "test_bad_parameters", "test_corrupted_bin",
         "test_export_refusals", "test_cpp_rejects_bad_vocab_tables"]


def main(argv):
    global WORK
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-k", help="run tests whose name contains this")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    WORK = tempfile.mkdtemp(prefix="tformer-marian-")
    if not os.path.exists(TFORMER):
        print(f"note: {TFORMER} not built; C++ engine checks are skipped")
    failed = ran = 0
    tests = [globals()[n] for n in ORDER]
    assert {t.__name__ for t in tests} == {t.__name__ for t in TESTS}
    for t in tests:
        if args.k and args.k not in t.__name__:
            continue
        ran += 1
        try:
            t()
            print(f"PASS {t.__name__}")
        except Exception:
            failed += 1
            print(f"FAIL {t.__name__}")
            traceback.print_exc()
    if args.keep:
        print(f"work folder: {WORK}")
    else:
        shutil.rmtree(WORK, ignore_errors=True)
    print(f"{ran - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

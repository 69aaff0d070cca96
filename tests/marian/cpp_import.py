#!/usr/bin/python3
"""The engine's own Marian importer (C++, core/src/marian; `tformer convert`, `tformer translate -m
FOLDER`) against the Python one (models/tformer/marian.py, `models/tfm import-marian`).

- Random-weight models of every variant tests/marian/make_models.py writes (d=64: decoder
  self-attention / SSRU x post / pre-norm x relu / swish, untied with separate vocabularies of
  different sizes, target-tied; the three d=32 Marian fixtures), exported to Marian by
  models/tfm export-marian as model.npz, model.bin (float32) and model.intgemm.alphas.bin
  (intgemm8 with activation multipliers; d=64 only), plus OPUS-MT style folders (.npz with
  special:model.yml, decoder.yml, *.vocab.yml tables with source.spm/target.spm) written by
  tests/marian/test_roundtrip.py's independent writer, and .gz copies of every file of a folder.
  For each model file and --weights keep/f32/f16/int8, `tformer convert` must write the same bytes
  as the Python importer.
- `tformer translate -m FOLDER/MODEL` (imported in memory) gives the same lines as translating the
  Python-converted .tfm.
- Bad input through the CLI: truncated and corrupted .npz, .bin, .yml, .gz, vocabularies, refused
  options: exit status 1 and a message naming the file or option, never a crash.

Usage: tests/marian/cpp_import.py [--quick] [--keep DIR]    (ends with "N passed, N failed")
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tformer  # noqa: E402,F401  (names OpenBLAS kernels for this CPU before torch loads)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import make_models as mm  # noqa: E402
import test_roundtrip as rt  # noqa: E402
from tformer import marian, marian_io, tfm  # noqa: E402
from tformer.config import marian_convention  # noqa: E402
from tformer.export import build_tfm  # noqa: E402
from tformer.marian import export_marian  # noqa: E402
from tformer.model import Transformer  # noqa: E402

TFORMER = os.environ.get("TFORMER", os.path.join(ROOT, "build", "tformer"))
SENTENCES = ["Ein Mann fährt Fahrrad.", "Zwei Hunde spielen im Schnee.", "Warum?",
             "Das Wort Ελληνικά und ein Zeichen ✓ sind hier unbekannt."]
WORK = None
RESULTS = {"passed": 0, "failed": 0}


def check(name, fn):
    t0 = time.time()
    try:
        fn()
    except Exception:  # a test's failure is reported, the others still run
        RESULTS["failed"] += 1
        print(f"FAIL {name}\n{traceback.format_exc()}", flush=True)
        return
    RESULTS["passed"] += 1
    print(f"ok   {name} ({time.time() - t0:.1f} s)", flush=True)


def run(*args, stdin=None):
    return subprocess.run([TFORMER, *args], input=stdin, capture_output=True, text=True)


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
    return sorted(n for n in os.listdir(folder) if n.endswith((".npz", ".bin")))


# ---- equality --------------------------------------------------------------------------------------
def describe_difference(a_path, b_path):
    a, b = tfm.read(a_path), tfm.read(b_path)
    problems = []
    for key in ("config", "tokenizer", "metadata"):
        if getattr(a, key) != getattr(b, key):
            problems.append(f"{key}: {getattr(a, key)} != {getattr(b, key)}")
    if list(a.tensors) != list(b.tensors):
        problems.append(f"tensor names/order: {list(a.tensors)} != {list(b.tensors)}")
    for n in a.tensors:
        if n in b.tensors and (a.tensors[n].dtype != b.tensors[n].dtype or a.tensors[n].shape != b.tensors[n].shape
                               or not np.array_equal(a.tensors[n], b.tensors[n], equal_nan=True)):
            problems.append(f"tensor {n} differs")
    return "; ".join(problems[:6]) or "bytes differ (header formatting)"


def convert_both(folder, model, weights, tag, cpp_folder=None):
    py = os.path.join(WORK, "out", f"{tag}.py.tfm")
    cpp = os.path.join(WORK, "out", f"{tag}.cpp.tfm")
    os.makedirs(os.path.dirname(py), exist_ok=True)
    marian.import_marian(folder, py, model=os.path.join(folder, model), weights=weights)
    src = cpp_folder or folder
    cpp_model = model + (".gz" if cpp_folder else "")
    r = run("convert", os.path.join(src, cpp_model), "-o", cpp, "--weights", weights)
    assert r.returncode == 0, f"tformer convert {src}/{cpp_model} failed: {r.stderr}"
    with open(py, "rb") as f1, open(cpp, "rb") as f2:
        if f1.read() != f2.read():
            raise AssertionError(f"{tag}: the C++ import differs from the Python import: {describe_difference(py, cpp)}")
    return py, cpp


def test_equal(folders, quick):
    def one(name, folder):
        for model in model_files(folder):
            weights = ["keep"] if quick else ["keep", "f32", "f16", "int8"]
            for w in weights:
                convert_both(folder, model, w, f"{name}.{model}.{w}")
    for name, folder in folders.items():
        check(f"equal: {name} (every model file{'' if quick else ' x --weights keep/f32/f16/int8'})",
              lambda name=name, folder=folder: one(name, folder))


def test_gz(folders):
    for name in ("d64-std-post-relu", "opus-post"):
        folder = folders[name]
        gz = gz_copy(folder, os.path.join(WORK, f"{name}-gz"))

        def one(folder=folder, gz=gz, name=name):
            for model in model_files(folder):
                convert_both(folder, model, "keep", f"{name}-gz.{model}", cpp_folder=gz)
        check(f"equal: {name} as .gz copies", one)


def test_max_positions(folders):
    def one():
        folder = folders["fixture-marian-ssru"]
        py = os.path.join(WORK, "out", "max-positions.py.tfm")
        cpp = os.path.join(WORK, "out", "max-positions.cpp.tfm")
        marian.import_marian(folder, py, model=os.path.join(folder, "model.bin"), max_positions=96)
        r = run("convert", os.path.join(folder, "model.bin"), "-o", cpp, "--max-positions", "96")
        assert r.returncode == 0, r.stderr
        with open(py, "rb") as f1, open(cpp, "rb") as f2:
            assert f1.read() == f2.read(), describe_difference(py, cpp)
        assert tfm.read(cpp).config["max_positions"] == 96
    check("equal: --max-positions", one)


def test_translate(folders):
    def one(name, folder):
        model = "model.intgemm.alphas.bin" if os.path.exists(os.path.join(folder, "model.intgemm.alphas.bin")) \
            else model_files(folder)[0]
        py, _ = convert_both(folder, model, "keep", f"translate.{name}")
        text = "\n".join(SENTENCES) + "\n"
        direct = run("translate", "--threads", "1", "-m", os.path.join(folder, model), stdin=text)
        converted = run("translate", "--threads", "1", "-m", py, stdin=text)
        assert direct.returncode == 0 and converted.returncode == 0, direct.stderr + converted.stderr
        assert direct.stdout == converted.stdout, f"{direct.stdout!r} != {converted.stdout!r}"
        assert len(direct.stdout.splitlines()) == len(SENTENCES)
    for name in ("fixture-marian-ssru", "d64-ssru-pre-swish", "d64-std-post-swish-tienone", "opus-pre-ssru"):
        if name in folders:
            check(f"translate: {name} folder = its Python .tfm", lambda n=name: one(n, folders[n]))


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
        runs = 0
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
                    runs += 1
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
        cases = [({"transformer-ffn-activation": "gelu"}, "transformer-ffn-activation"),
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
                 ({"dim-vocabs": [10, 10]}, "dim-vocabs")]
        for edit, frag in cases:
            folder = variant_copy(opus, "options")
            path = os.path.join(folder, npz_name)
            with np.load(path) as z:
                arrays = {k: z[k] for k in z.files}
            opts = marian_io.parse_options(bytes(arrays["special:model.yml"]).split(b"\0")[0].decode(), "yml")
            opts.update(edit)
            arrays["special:model.yml"] = np.frombuffer(marian_io.dump_options(opts).encode() + b"\0", dtype=np.int8)
            np.savez(path, **arrays)
            msg = expect_refusal(folder, [frag])
            # The Python importer refuses the same model.
            try:
                marian.import_marian(folder, os.path.join(WORK, "refused.py.tfm"))
            except (marian.MarianError, marian_io.MarianFormatError):
                pass
            else:
                raise AssertionError(f"the Python importer accepts {edit} which tformer refuses: {msg}")
    check("refused options: each named, as the Python importer refuses them", options)

    def parameters():
        folder = variant_copy(base, "params")
        os.remove(os.path.join(folder, "model.npz"))

        def refused_after(edit, words):
            # The base model.bin with one edit, as the folder's only model.
            items = marian_io.read_bin(os.path.join(base, "model.bin"))
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
        with open(os.path.join(folder, "lex.50.50.deen.s2t.bin"), "wb") as f:
            f.write(shortlist.write([[(3 * i) % vs, (3 * i + 1) % vs] for i in range(vs)], 100, 50))
        # Both importers carry it in the .tfm (the tensor "shortlist"), byte for byte alike.
        for model in ("model.bin", "model.intgemm.alphas.bin"):
            py, _ = convert_both(folder, model, "keep", f"shortlist.{model}")
            assert "shortlist" in tfm.read(py).tensors
        r = run("info", os.path.join(folder, "model.intgemm.alphas.bin"))
        assert r.returncode == 0, r.stderr
        for frag in ("variant:    self-attention decoder, post-norm, relu", "lex.50.50.deen.s2t.bin: 256 source words, "
                     "512 (source, target) pairs, firstNum 100, bestNum 50", "intgemm8", "shape:"):
            assert frag in r.stdout, f"info lacks {frag!r}:\n{r.stdout}"
        # Translating the folder directly equals translating the converted file (shortlist applied).
        text = "\n".join(SENTENCES) + "\n"
        direct = run("translate", "--threads", "1", "-m", os.path.join(folder, "model.bin"), stdin=text)
        converted = run("translate", "--threads", "1", "-m", py, stdin=text)
        assert direct.returncode == 0 and direct.stdout == converted.stdout, direct.stderr
        with open(os.path.join(folder, "lex.50.50.deen.s2t.bin"), "r+b") as f:
            f.seek(48 + 8 * (vs + 1))
            f.write(struct.pack("<I", 100000))
        r = run("info", os.path.join(folder, "model.bin"))
        assert r.returncode == 1 and "lex.50.50.deen.s2t.bin" in r.stderr and "checksum" in r.stderr, r.stderr
    check("shortlist: carried in the .tfm as by the Python importer, shown by info, checked", one)


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
    rt.WORK = WORK = args.keep or tempfile.mkdtemp(prefix="tformer-cpp-import-")
    os.makedirs(WORK, exist_ok=True)
    try:
        t0 = time.time()
        folders = make_models(args.quick)
        print(f"made {len(folders)} Marian model folders in {time.time() - t0:.1f} s", flush=True)
        test_equal(folders, args.quick)
        test_gz(folders)
        test_max_positions(folders)
        test_translate(folders)
        test_bad_files(folders)
        test_info_and_shortlist(folders)
    finally:
        if not args.keep:
            shutil.rmtree(WORK, ignore_errors=True)
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

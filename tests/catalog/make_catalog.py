#!/usr/bin/python3
"""A model catalogue in exactly Firefox's format, for the catalogue tests (CLI, npm package, demo).

Writes, under OUT/:
  folders/<pair>/      the Marian models as Firefox ships them (file names model.<pair>.intgemm.alphas.bin,
                       vocab.<pair>.spm or srcvocab/trgvocab, lex.50.50.<pair>.s2t.bin), written by the
                       project's Marian exporter from random-weight PyTorch models:
                         fren          tiny shape: SSRU decoder, intgemm8, lexical shortlist, one vocab
                         fren-nightly  the same shape, other weights: a newer version only Nightly sees
                         ende          transformer decoder, intgemm8, srcvocab/trgvocab of different sizes
  catalog/records.json the Kinto document {"data": [...]} of the collection translations-models-v2
  catalog/attachments/ the zstd attachments (as the zstd tool writes them), at each record's location
  catalog/faults.json  the locations the server breaks on purpose ({"truncate": [...]})
  index.json           the pairs, folders and what each failure pair is for

Records, as Firefox's tooling writes them: version "1.0" (filter_expression "", every channel) for
fr->en and en->de; "1.1a1" for fr->en's newer model (filter_expression "env.channel == 'default' ||
env.channel == 'nightly'"); a qualityModel record for fr->en whose attachment does not exist (a
client that fetched it would fail). Failure pairs into English, copies of fr->en with one thing
wrong: xa (the model's attachment.hash is another file's), xb (the model's location is missing:
404), xc (the server cuts the model's download short), xd (a zstd bomb: the model's .zst, written
from a pipe so that its frame states no size, decompresses to more than decompressedSize), xe (the
same with the size stated in the frame), xf (decompressedHash is another file's).

With --with-ja, the catalogue also has en->ja (version "1.0", every channel): fr->en's model files under
en->ja's names, a pair for the browser vendors' web-platform-tests, which ask for English to Japanese
(tests/wpt). Its translations are not Japanese; what else the catalogue holds is the same.

Usage: tests/catalog/make_catalog.py OUT [--with-ja]
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.join(ROOT, "tests", "marian"))
import tformer  # noqa: E402,F401  (names OpenBLAS kernels for this CPU before torch loads)

import torch  # noqa: E402

import make_models as mm  # noqa: E402
from tformer import shortlist, tfm  # noqa: E402
from tformer.config import marian_convention  # noqa: E402
from tformer.export import build_tfm  # noqa: E402
from tformer.marian import export_marian  # noqa: E402
from tformer.model import Transformer  # noqa: E402
from tformer.tokenizer import Tokenizer  # noqa: E402

CALIBRATION = ["Ein Mann fährt Fahrrad.", "Zwei Hunde spielen im Schnee.", "Warum?",
               "Eine Frau liest ein Buch im Park."]
NIGHTLY = "env.channel == 'default' || env.channel == 'nightly'"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def marian_model(work, name, spm_src, spm_tgt, dec, seed):
    """A random-weight model (d=64) exported as Marian's intgemm8 .bin with its vocabularies."""
    tok_src = Tokenizer(spm_src)
    tok_tgt = Tokenizer(spm_tgt) if spm_tgt is not None else tok_src
    V = max(len(tok_src), len(tok_tgt))
    cfg = marian_convention(vocab_size=V, decoder_layer_type=dec, norm="post", prenorm_raw_self_kv=False,
                            activation="relu", tied_embeddings="all" if spm_tgt is None else "none",
                            max_positions=512, **mm.D64)
    torch.manual_seed(seed)
    model = Transformer(cfg)
    mm.randomize(model, seed, len(tok_tgt))
    model.eval()
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.tfm")
    tfm.write(path, build_tfm(cfg, model.state_dict(), spm_src, spm_tgt, "f32", {"name": name}))
    calib = os.path.join(folder, "calibration.txt")
    with open(calib, "w", encoding="utf-8") as f:
        f.write("\n".join(CALIBRATION) + "\n")
    out = os.path.join(folder, "marian")
    export_marian(path, out, formats=("bin",), int8=True, calibrate=calib, calibrate_lines=len(CALIBRATION))
    return out, len(tok_src)


def firefox_folder(marian_dir, dest, pair, source_words=None, lex_seed=None):
    """The exported model under Firefox's file names (and a shortlist when asked)."""
    os.makedirs(dest, exist_ok=True)
    shutil.copy(os.path.join(marian_dir, "model.intgemm.alphas.bin"), os.path.join(dest, f"model.{pair}.intgemm.alphas.bin"))
    if os.path.exists(os.path.join(marian_dir, "vocab.spm")):
        shutil.copy(os.path.join(marian_dir, "vocab.spm"), os.path.join(dest, f"vocab.{pair}.spm"))
    else:
        shutil.copy(os.path.join(marian_dir, "srcvocab.spm"), os.path.join(dest, f"srcvocab.{pair}.spm"))
        shutil.copy(os.path.join(marian_dir, "trgvocab.spm"), os.path.join(dest, f"trgvocab.{pair}.spm"))
    if lex_seed is not None:
        rng = random.Random(lex_seed)
        lists = [rng.sample(range(source_words), 24) for _ in range(source_words)]
        with open(os.path.join(dest, f"lex.50.50.{pair}.s2t.bin"), "wb") as f:
            f.write(shortlist.write(lists, 50, 50))
    return dest


def relabel_folder(source, dest, old, new):
    """A copy of a folder of Firefox's files with the pair in their names replaced (fren -> enja)."""
    os.makedirs(dest, exist_ok=True)
    for name in sorted(os.listdir(source)):
        shutil.copy(os.path.join(source, name), os.path.join(dest, name.replace(f".{old}.", f".{new}.")))
    return dest


def file_type(name):
    return name.split(".")[0]


def zstd(data: bytes, from_pipe=False) -> bytes:
    """The zstd tool's output; from a pipe it cannot state the content size in the frame."""
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in"), os.path.join(d, "out.zst")
        with open(src, "wb") as f:
            f.write(data)
        if from_pipe:
            with open(src, "rb") as f:
                subprocess.run(["zstd", "-q", "-3", "-c", "-"], stdin=f, stdout=open(dst, "wb"), check=True)
        else:
            subprocess.run(["zstd", "-q", "-3", src, "-o", dst], check=True)
        with open(dst, "rb") as f:
            return f.read()


class Catalog:
    def __init__(self, out):
        self.out = out
        self.records = []
        self.faults = {"truncate": []}
        os.makedirs(os.path.join(out, "attachments"), exist_ok=True)

    def add_file(self, source, target, version, name, data, *, architecture="tiny", filter_expression="",
                 attachment=None, location=None, decompressed_hash=None, store=True):
        rid = str(uuid.UUID(int=random.Random(f"{source}{target}{version}{name}").getrandbits(128)))
        packed = zstd(data) if attachment is None else attachment
        location = location or f"main-workspace/translations-models-v2/{rid}.zst"
        if store:
            path = os.path.join(self.out, "attachments", location)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(packed)
        record = {
            "id": rid, "name": name, "schema": 1700000000000, "last_modified": 1700000000000 + len(self.records),
            "sourceLanguage": source, "targetLanguage": target, "architecture": architecture, "version": version,
            "fileType": file_type(name), "filter_expression": filter_expression,
            "decompressedHash": decompressed_hash or sha256(data), "decompressedSize": len(data),
            "attachment": {"hash": sha256(packed), "size": len(packed), "filename": name + ".zst",
                           "location": location, "mimetype": "application/zstd"},
        }
        self.records.append(record)
        return record

    def add_folder(self, source, target, version, folder, **kw):
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as f:
                self.add_file(source, target, version, name, f.read(), **kw)

    def write(self):
        with open(os.path.join(self.out, "records.json"), "w", encoding="utf-8") as f:
            json.dump({"data": self.records}, f, indent=1)
        with open(os.path.join(self.out, "faults.json"), "w", encoding="utf-8") as f:
            json.dump(self.faults, f, indent=1)


def main(argv):
    with_ja = "--with-ja" in argv
    args = [a for a in argv if a != "--with-ja"]
    if len(args) != 1 or args[0].startswith("-"):
        sys.exit("usage: make_catalog.py OUT [--with-ja]")
    out = args[0]
    torch.set_num_threads(1)
    work = os.path.join(out, "work")
    os.makedirs(work, exist_ok=True)
    small = tfm.read(mm.SMALL_SPM_FIXTURE)
    spm64 = small.tensors[small.tokenizer["source"]].tobytes()
    spm_en = mm.small_target_spm(work)

    folders = {}
    m, words = marian_model(work, "fren", spm64, None, "ssru", 3101)
    folders["fren"] = firefox_folder(m, os.path.join(out, "folders", "fren"), "fren", words, lex_seed=31)
    m, words = marian_model(work, "fren-nightly", spm64, None, "ssru", 3102)
    folders["fren-nightly"] = firefox_folder(m, os.path.join(out, "folders", "fren-nightly"), "fren", words, lex_seed=32)
    m, _ = marian_model(work, "ende", spm64, spm_en, "transformer", 3103)
    folders["ende"] = firefox_folder(m, os.path.join(out, "folders", "ende"), "ende")
    shutil.rmtree(work)

    c = Catalog(os.path.join(out, "catalog"))
    c.add_folder("fr", "en", "1.0", folders["fren"])
    c.add_folder("fr", "en", "1.1a1", folders["fren-nightly"], filter_expression=NIGHTLY)
    c.add_file("fr", "en", "1.0", "qualityModel.fren.bin", b"never fetched" * 100, store=False)
    c.add_folder("en", "de", "1.0", folders["ende"], architecture="base")
    if with_ja:
        folders["enja"] = relabel_folder(folders["fren"], os.path.join(out, "folders", "enja"), "fren", "enja")
        c.add_folder("en", "ja", "1.0", folders["enja"])

    def model_bytes():
        with open(os.path.join(folders["fren"], "model.fren.intgemm.alphas.bin"), "rb") as f:
            return f.read()

    def failure_pair(lang, tamper=None, **model_kw):
        for name in sorted(os.listdir(folders["fren"])):
            with open(os.path.join(folders["fren"], name), "rb") as f:
                data = f.read()
            is_model = file_type(name) == "model"
            rec = c.add_file(lang, "en", "1.0", name.replace("fren", lang + "en"), data, **(model_kw if is_model else {}))
            if is_model and tamper:
                tamper(rec)

    other = zstd(b"another file")
    failure_pair("xa", tamper=lambda r: r["attachment"].update(hash=sha256(other)))
    failure_pair("xb", store=False)
    failure_pair("xc", tamper=lambda r: c.faults["truncate"].append(r["attachment"]["location"]))
    bomb = model_bytes() + bytes(4 << 20)
    failure_pair("xd", attachment=zstd(bomb, from_pipe=True))
    failure_pair("xe", attachment=zstd(bomb))
    failure_pair("xf", decompressed_hash=sha256(b"another file"))
    c.write()
    index = {"folders": folders, "catalog": os.path.join(out, "catalog"),
             "failures": {"xa": "wrong hash", "xb": "404", "xc": "truncated download", "xd": "zstd bomb (no size in frame)",
                          "xe": "zstd bomb (size in frame)", "xf": "wrong decompressedHash"}}
    with open(os.path.join(out, "index.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, indent=1)
    print(f"catalogue of {len(c.records)} records in {out}")


if __name__ == "__main__":
    main(sys.argv[1:])

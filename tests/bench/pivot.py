#!/usr/bin/python3
"""Throughput of a pair translated through English against a direct pair of the same shape, natively.

  tests/bench/pivot.py [--lines 200] [--threads 1] [--runs 3] [--json OUT] [--work DIR]

Both pairs come from a local catalogue in Firefox's format (tests/catalog/server.py) made of the
shipped models exported as Firefox ships its own (`models/tfm export-marian --int8`: intgemm8 with
activation multipliers, the lexical shortlist, one vocabulary): de->en is models/tiny.deen, and
en->xx is models/tiny.ende under another name, so that de->xx goes through English: de->en->de,
two models of the shape de->en runs one of, on real translations (random weights would feed the
second step outputs twice as long as their inputs). `tformer bench` translates FLORES devtest German
lines with each pair, direct and pivot alternating; the best of --runs is kept. The figure: pivot
sentences/s over direct sentences/s (about 0.5 when the second step costs what the first does).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "catalog"))
from make_catalog import Catalog  # noqa: E402
from server import CatalogServer  # noqa: E402

TFORMER = os.environ.get("TFORMER", os.path.join(ROOT, "build", "tformer"))
FLORES = os.path.join(ROOT, "..", "shared", "data", "deen", "test", "flores-devtest.de")


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--lines", type=int, default=200)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--json")
    p.add_argument("--work", help="keep the models here (made once)")
    a = p.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="tformer-pivot-bench-")
    calibration = os.path.join(ROOT, "..", "shared", "data", "deen", "dev")
    folders = {}
    for name, pair in (("tiny.deen", "deen"), ("tiny.ende", "enxx")):
        marian = os.path.join(work, name)
        if not os.path.exists(os.path.join(marian, "model.intgemm.alphas.bin")):
            source = pair[:2]
            calib = [os.path.join(calibration, f) for f in sorted(os.listdir(calibration)) if f.endswith("." + source)][0]
            subprocess.run([os.path.join(ROOT, "models", "tfm"), "export-marian", os.path.join(ROOT, "models", name, "model.tfm"),
                            "-o", marian, "--format", "bin", "--int8", "--calibrate", calib, "--calibrate-lines", "500"],
                           check=True, stdout=subprocess.DEVNULL)
        folder = os.path.join(work, "firefox-" + pair)
        os.makedirs(folder, exist_ok=True)
        shutil.copy(os.path.join(marian, "model.intgemm.alphas.bin"), os.path.join(folder, f"model.{pair}.intgemm.alphas.bin"))
        shutil.copy(os.path.join(marian, "vocab.spm"), os.path.join(folder, f"vocab.{pair}.spm"))
        for f in os.listdir(marian):
            if f.startswith("lex") or f.endswith(".s2t.bin"):
                shutil.copy(os.path.join(marian, f), os.path.join(folder, f"lex.50.50.{pair}.s2t.bin"))
        folders[pair] = folder
    catalog = Catalog(os.path.join(work, "catalog"))
    catalog.add_folder("de", "en", "1.0", folders["deen"])
    catalog.add_folder("en", "xx", "1.0", folders["enxx"])
    catalog.write()
    lines = os.path.join(work, "lines.de")
    with open(FLORES, encoding="utf-8") as f, open(lines, "w", encoding="utf-8") as out:
        out.write("".join(f.readlines()[:a.lines]))
    server = CatalogServer(os.path.join(work, "catalog")).start()
    cache = os.path.join(work, "cache")
    results = {"direct": [], "pivot": []}
    try:
        for run in range(a.runs):
            for name, target in (("direct", "en"), ("pivot", "xx")):
                out = os.path.join(work, f"{name}.json")
                subprocess.run([TFORMER, "bench", "--from", "de", "--to", target, "--catalog", server.url, "--cache", cache,
                                "-i", lines, "--threads", str(a.threads), "--json", out], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                results[name].append(json.load(open(out)))
    finally:
        server.stop()
    best = {k: max(v, key=lambda r: r["sentences_per_s"]) for k, v in results.items()}
    ratio = best["pivot"]["sentences_per_s"] / best["direct"]["sentences_per_s"]
    for k, r in best.items():
        print(f"{k:7s} {r['sentences_per_s']:8.1f} sentences/s  {r['ms_per_sentence']:7.2f} ms/sentence  "
              f"latency median {r['latency_median_ms']:.2f} ms")
    print(f"pivot / direct throughput: {ratio:.2f}")
    if a.json:
        json.dump({"direct": best["direct"], "pivot": best["pivot"], "ratio": ratio, "lines": a.lines,
                   "threads": a.threads}, open(a.json, "w"), indent=1)
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/python3
"""`models/tfm variants` (models/tformer/variants.py): a shipped folder's int8 file is rebuilt from its
f16 file byte for byte as recorded in eval.json, a stale file is replaced, a recorded sha256 that the
rebuild does not give is an error (nothing written), and --check fails on a missing file. Uses a copy
of a test fixture as the "shipped" model. Prints "N passed, N failed"."""
import hashlib
import json
import os
import shutil
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "models"))
from tformer.quantize import quantize_file  # noqa: E402
from tformer.variants import make_variants  # noqa: E402


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def check(name, ok, detail=""):
    print(f"{'ok ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))
    return bool(ok)


def main():
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        models = os.path.join(tmp, "models")
        folder = os.path.join(models, "fixture")
        os.makedirs(folder)
        shutil.copy(os.path.join(REPO, "tests", "fixtures", "marian", "model.tfm"), os.path.join(folder, "model.tfm"))
        target = os.path.join(folder, "model.int8.tfm")
        # The expected bytes: quantize run directly, once, into another folder with the same file name.
        ref_dir = os.path.join(tmp, "ref")
        os.makedirs(ref_dir)
        shutil.copy(os.path.join(folder, "model.tfm"), os.path.join(ref_dir, "model.tfm"))
        quantize_file(os.path.join(ref_dir, "model.tfm"), os.path.join(ref_dir, "model.int8.tfm"))
        expected = sha(os.path.join(ref_dir, "model.int8.tfm"))
        spec = {"files": {"model.int8.tfm": {"made_by": "quantize", "from": "model.tfm", "sha256": expected}},
                "rows": []}
        with open(os.path.join(folder, "eval.json"), "w") as f:
            json.dump(spec, f)

        try:
            make_variants(models, check_only=True)
            results.append(check("--check fails while the int8 file is missing", False))
        except ValueError as e:
            results.append(check("--check fails while the int8 file is missing", "missing or stale" in str(e), str(e)))
        report = make_variants(models)
        results.append(check("writes the int8 file with the recorded sha256",
                             os.path.isfile(target) and sha(target) == expected and "written" in report[0], report))
        results.append(check("a second run finds it current", make_variants(models) == [report[0].split(":")[0] + ": current"]))
        with open(target, "r+b") as f:
            f.seek(-1, os.SEEK_END)
            f.write(b"\x7f")
        make_variants(models)
        results.append(check("a stale (changed) file is rebuilt", sha(target) == expected))

        spec["files"]["model.int8.tfm"]["sha256"] = "0" * 64
        with open(os.path.join(folder, "eval.json"), "w") as f:
            json.dump(spec, f)
        os.remove(target)
        try:
            make_variants(models)
            results.append(check("a rebuild that does not match the recorded sha256 is an error", False))
        except ValueError as e:
            results.append(check("a rebuild that does not match the recorded sha256 is an error",
                                 "records" in str(e) and not os.path.exists(target)
                                 and not os.path.exists(target + ".part"), str(e)))

    # The shipped folders: every eval.json names an int8 file made from model.tfm, and its rows
    # cover both files on the four test sets, greedy and beam 4.
    for name in sorted(os.listdir(os.path.join(REPO, "models"))):
        path = os.path.join(REPO, "models", name, "eval.json")
        if not os.path.isfile(path):
            continue
        spec = json.load(open(path))
        got = {(r["file"], r["set"], r["search"]) for r in spec["rows"]}
        want = {(f, s, b) for f in ("model.tfm", "model.int8.tfm") for b in ("greedy", "beam4")
                for s in ("flores-devtest", "newstest2019", "newstest2020", "multi30k-test2016")}
        results.append(check(f"models/{name}/eval.json scores both files on the 4 sets, greedy and beam 4",
                             want <= got and spec["files"]["model.int8.tfm"]["from"] == "model.tfm", sorted(want - got)[:3]))
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The training recipe's plumbing for machines that receive only the repository (models/gpu/):
../shared/ paths follow TFORMER_SHARED, a recipe's `gpu:` keys apply on CUDA only, and
models/gpu/stage.sh packs every file the recipes read (and nothing that is missing). Prints
"N passed, N failed"."""
import os
import subprocess
import sys
import tarfile
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "models"))
import numpy as np  # noqa: E402
from tformer import tfm  # noqa: E402
from tformer.data import STAGED_IDS, STAGED_META, token_file  # noqa: E402
from tformer.tokenizer import Tokenizer  # noqa: E402
from tformer.train import guided_alignment, load_recipe, model_config, repo_path, train_settings  # noqa: E402

CONFIGS = [os.path.join(REPO, "models", "configs", f"tiny.{d}.yaml") for d in ("deen", "ende")]
# The long-sentence sets (news, parliament, Wikipedia), upsampled 2x against captions and Tatoeba.
LONG_SETS = {"europarl", "wmt-mix", "news", "comtrans", "europarl-wmt0608", "ud-pud", "xquad", "xnli", "pawsx"}


def check(name, ok, detail=""):
    print(f"{'ok ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))
    return bool(ok)


def main():
    results = []
    saved = os.environ.pop("TFORMER_SHARED", None)
    try:
        results.append(check("../shared paths sit beside the checkout by default",
                             repo_path("../shared/data/x.de") == os.path.join(REPO, "../shared/data/x.de")))
        os.environ["TFORMER_SHARED"] = "/staged"
        results.append(check("TFORMER_SHARED moves ../shared paths",
                             repo_path("../shared/data/x.de") == "/staged/data/x.de", repo_path("../shared/data/x.de")))
        results.append(check("TFORMER_SHARED leaves repository paths alone",
                             repo_path("models/tiny.deen/model.tfm") == os.path.join(REPO, "models/tiny.deen/model.tfm")))
        results.append(check("absolute paths stay", repo_path("/a/b") == "/a/b"))
    finally:
        os.environ.pop("TFORMER_SHARED", None)
        if saved is not None:
            os.environ["TFORMER_SHARED"] = saved

    for path in CONFIGS:
        recipe = load_recipe(path)
        cpu, gpu = train_settings(recipe, "cpu"), train_settings(recipe, "cuda")
        name = os.path.basename(path)
        results.append(check(f"{name}: CPU settings are the train: keys without gpu:",
                             "gpu" not in cpu and cpu["batch_tokens"] == recipe["train"]["batch_tokens"]))
        results.append(check(f"{name}: on CUDA the gpu: keys replace them, the rest stays",
                             all(gpu[k] == v for k, v in recipe["train"]["gpu"].items())
                             and gpu["batch_tokens"] != cpu["batch_tokens"] and "gpu" not in gpu
                             and all(gpu[k] == cpu[k] for k in cpu if k not in recipe["train"]["gpu"])))
        cfg = model_config(recipe, 16000)
        results.append(check(f"{name}: the GPU run trains with guided alignment on head 0 of the last decoder "
                             "layer (weight 0.1, Marian's defaults); the CPU keys without",
                             guided_alignment(gpu, cfg) == {"weight": 0.1, "layer": cfg.decoder_layers - 1, "head": 0}
                             and guided_alignment(cpu, cfg) is None, gpu.get("guided_alignment")))
        # tiny.ende's last run took the best keys of the side-by-side comparison: a 32k-token batch
        # at the square-root-scaled rate (docs/BENCHMARKS.md, "Training on the GPU machine").
        want_gpu = ({"batch_tokens": 32768, "lr": 0.001414, "warmup": 1000, "dropout": 0.1} if name == "tiny.ende.yaml"
                    else {"batch_tokens": 16384, "lr": 1e-3, "warmup": 1000, "dropout": 0.1})
        results.append(check(f"{name}: the GPU keys are the settings of the run that trained the shipped models",
                             {k: gpu[k] for k in want_gpu} == want_gpu, {k: gpu.get(k) for k in want_gpu}))
        # Every training set in ../shared/data/deen/train, the long-sentence ones twice (2x upsampling).
        listed = [os.path.basename(p) for p in recipe["data"]["train"]]
        counts = {n: listed.count(n) for n in set(listed)}
        results.append(check(f"{name}: the long-sentence sets are listed twice, the others once",
                             all(counts.get(n) == 2 for n in LONG_SETS)
                             and all(c == 1 for n, c in counts.items() if n not in LONG_SETS), counts))
        shared_train = os.path.join(REPO, "..", "shared", "data", "deen", "train")
        if os.path.isdir(shared_train):
            present = {f.rsplit(".", 1)[0] for f in os.listdir(shared_train) if f.endswith((".de", ".en"))}
            results.append(check(f"{name}: trains on every set in ../shared/data/deen/train",
                                 present == set(counts), sorted(present ^ set(counts))))

    # stage.sh on a fake ../shared holding what the recipes name (one-line files): the archive holds
    # exactly those, the training files as token ids, the dev files as text; with one missing, it fails.
    train_files, dev_files = set(), set()
    for path in CONFIGS:
        r = load_recipe(path)
        for p in r["data"]["train"] + r["vocab"]["train"]:
            train_files.update(f"{p[len('../shared/'):]}.{lang}" for lang in r["vocab"]["languages"])
        dev_files.update(f"{r['data']['dev'][len('../shared/'):]}.{lang}" for lang in r["vocab"]["languages"])
    wanted = dev_files | {f + ext for f in train_files for ext in (STAGED_IDS, STAGED_META)}
    with tempfile.TemporaryDirectory() as tmp:
        shared = os.path.join(tmp, "shared")
        for f in train_files | dev_files:
            os.makedirs(os.path.dirname(os.path.join(shared, f)), exist_ok=True)
            open(os.path.join(shared, f), "w").write(f"Ein Hund {f} läuft.\nZwei Katzen.\n")
        env = {**os.environ, "TFORMER_SHARED": shared, "TFORMER_STAGE_NO_LIMIT": "1", "TFORMER_STAGE_KEEP_MODELS": "1"}
        stage = [os.path.join(REPO, "models/gpu/stage.sh"), os.path.join(tmp, "out")]
        run = subprocess.run(stage, env=env, capture_output=True, text=True)
        archive = os.path.join(tmp, "out", "shared.tar.xz")
        packed = set(tarfile.open(archive).getnames()) if run.returncode == 0 and os.path.exists(archive) else set()
        results.append(check("stage.sh packs every file the recipes read (training text as ids), and only those",
                             packed == wanted, f"rc {run.returncode} {run.stderr.strip()[-200:]} {sorted(packed ^ wanted)[:4]}"))
        # Where only the staged ids are (the GPU machine), the corpus loads with the same token ids.
        unpacked = os.path.join(tmp, "unpacked")
        if packed:
            tarfile.open(archive).extractall(unpacked)
            tok = Tokenizer.from_tfm(tfm.read(os.path.join(REPO, "models", "tiny.deen", "model.tfm")), "source")
            one = sorted(train_files)[0]
            from_text = token_file(os.path.join(shared, one), tok, os.path.join(tmp, "cache"))
            from_ids = token_file(os.path.join(unpacked, one), tok, os.path.join(tmp, "cache2"))
            results.append(check("a staged token file gives the ids of its text", not os.path.exists(os.path.join(unpacked, one))
                                 and from_ids.dtype == np.int32 and np.array_equal(np.asarray(from_text), from_ids)))
        os.remove(os.path.join(shared, sorted(train_files)[0]))
        run = subprocess.run(stage, env=env, capture_output=True, text=True)
        results.append(check("stage.sh fails when a file is missing", run.returncode != 0 and "missing" in run.stderr,
                             run.stderr[-200:]))

    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())

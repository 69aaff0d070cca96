#!/usr/bin/env python3
"""On the GPU machine: which training keys work best, with both directions trained on by them.

    models/gpu/compare.py --minutes 4 [--bench-steps 10] [--bench-timeout 90]

(the run tool: carry ["models/work/gpu"], after models/gpu/stage.sh here; then models/gpu/collect.sh
FILES_AT here). Steps, each logged to $OUT:

1. The data is prepared once (token ids, guided-alignment links) for both directions.
2. `models/tfm train --benchmark` of the de->en recipe at 16k, 32k and 64k target tokens a batch,
   one process alone on the device: target tokens/s and peak GPU memory.
3. Runs side by side for the same wall time, on the recipe's data, in both directions:
     base     the recipe's gpu: keys (lr 1e-3, warm-up 1000, 16k tokens), from the shipped model;
     lr       peak lr 5e-4 with warm-up 2000, from the shipped model;
     batch    32k tokens with Adam's square-root rule (lr sqrt(2) * 1e-3), from the shipped model;
     prenorm  (de->en only) a pre-norm model from scratch with guided alignment and the base keys.
   The inverse-square-root schedule gives lr(step) = peak * sqrt(warmup / step) past warm-up, so for
   a run that goes on from the shipped model's step (17,174) only peak * sqrt(warmup) matters: "lr"
   runs at 0.71x base's rate (a warm-up of 4000 would have made it base again), "batch" at 1.41x
   base's rate a step, with twice the tokens a step.
4. Each run is scored on FLORES dev: the dev NLL of --export-best's candidates (last checkpoint,
   average, best) and the greedy BLEU of its choice (the PyTorch reference, on the CPUs).
5. In each direction the warm-started run with the lowest dev NLL is the continued model: its f16
   export goes into $OUT as NAME.tfm.part-* (collect.sh joins them), beside results.json (every
   figure above) and logs.tar.xz (each run's output and train.log).

The warm-started runs are the continuation itself: a separate continuation after the comparison
would pay start-up, compilation and export again, which a window of minutes cannot afford.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tarfile
import time

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = sys.executable
TFM = os.path.join(REPO, "models", "tfm")
START = time.time()

# The variants of step 3: the gpu: keys each changes, and whether it starts from the shipped model.
VARIANTS = {
    "base": {"gpu": {}, "model": {}, "warm": True},
    "lr": {"gpu": {"lr": 5e-4, "warmup": 2000}, "model": {}, "warm": True},
    "batch": {"gpu": {"batch_tokens": 32768, "lr": round(1e-3 * math.sqrt(2), 6), "warmup": 1000},
              "model": {}, "warm": True},
    "prenorm": {"gpu": {}, "model": {"norm": "pre"}, "warm": False},
}


def log(msg, **fields):
    print(json.dumps({"t": round(time.time() - START, 1), "msg": msg, **fields}), flush=True)


def write_recipe(base_path, name, work_dir, variant, folder, file_name):
    """A copy of a recipe with a variant's keys and its own work folder (the model keeps its name)."""
    with open(base_path) as f:
        recipe = yaml.safe_load(f)
    recipe["name"] = name
    recipe["work_dir"] = work_dir
    recipe["train"].setdefault("gpu", {}).update(variant["gpu"])
    recipe["model"].update(variant["model"])
    if not variant["warm"]:
        recipe["train"].pop("init_from", None)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{file_name}.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(recipe, f, sort_keys=False)
    return path


def start(args, log_path):
    out = open(log_path, "a")
    return subprocess.Popen([PY, TFM, *args], cwd=REPO, stdout=out, stderr=subprocess.STDOUT)


def run(args, log_path, timeout=None):
    with open(log_path, "a") as out:
        try:
            return subprocess.run([PY, TFM, *args], cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            out.write(f"\n[compare.py: stopped after {timeout} s]\n")
            return 124


BLEU_SCRIPT = """
import json, sys, torch
sys.path.insert(0, 'models')
from tformer.bleu import corpus_bleu
from tformer.export import load_tfm_model
from tformer.translate import translate_lines
model_path, src_path, ref_path, out_path = sys.argv[1:5]
torch.set_num_threads(3)
model, s, t, _ = load_tfm_model(model_path)
src = [l.rstrip('\\n') for l in open(src_path, encoding='utf-8')]
ref = [l.rstrip('\\n') for l in open(ref_path, encoding='utf-8')]
hyp = translate_lines(model, s, t, src, beam=1, batch_size=64)
json.dump({'bleu': corpus_bleu(hyp, [ref]).score, 'lines': len(hyp)}, open(out_path, 'w'))
"""


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=4.0, help="each run's training time (side by side)")
    p.add_argument("--bench-steps", type=int, default=10, help="0: no benchmark")
    p.add_argument("--bench-timeout", type=float, default=90)
    p.add_argument("--configs", default=os.path.join(REPO, "models", "configs"), help="(tests)")
    p.add_argument("--variants", default=",".join(VARIANTS), help="(tests) which variants of step 3")
    a = p.parse_args()
    out = os.environ.get("OUT") or sys.exit("OUT: the folder whose files come back")
    work = os.path.join(REPO, "models", "work")
    logs = os.path.join(work, "compare-logs")
    recipes = os.path.join(work, "compare-recipes")
    os.makedirs(logs, exist_ok=True)
    results = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "args": vars(a)}

    def save_results():
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump(results, f, indent=1)
        with tarfile.open(os.path.join(out, "logs.tar.xz"), "w:xz") as tar:
            tar.add(logs, arcname="logs")
            for name in sorted(os.listdir(work)):
                train_log = os.path.join(work, name, "train.log")
                if os.path.isfile(train_log):
                    tar.add(train_log, arcname=f"train-logs/{name}.train.log")

    shared = subprocess.run([os.path.join(REPO, "models", "gpu", "unpack.sh")], cwd=REPO, check=True,
                            capture_output=True, text=True).stdout.strip().splitlines()[-1]
    os.environ["TFORMER_SHARED"] = shared
    if shutil.which("nvidia-smi"):
        results["gpu"] = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                                         "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    configs = {name: os.path.join(a.configs, f"{name}.yaml") for name in ("tiny.deen", "tiny.ende")}

    log("preparing the data")
    for cfg in configs.values():
        if run(["train", cfg, "--max-minutes", "0"], os.path.join(logs, "prepare.log")) != 0:
            save_results()
            sys.exit("preparing the data failed: logs/prepare.log")
    results["prepared_s"] = round(time.time() - START)

    if a.bench_steps:
        log("benchmark")
        bench_log = os.path.join(logs, "benchmark.log")
        run(["train", configs["tiny.deen"], "--benchmark", str(a.bench_steps), "--batch-tokens", "16384,32768,65536"],
            bench_log, timeout=a.bench_timeout)
        results["benchmark"] = [json.loads(l) for l in open(bench_log) if l.startswith('{"steps"')]
        results["benchmark_s"] = round(time.time() - START)
        save_results()

    log("runs", minutes=a.minutes)
    runs = {}
    for name, cfg in configs.items():
        for v in a.variants.split(","):
            if v and (VARIANTS[v]["warm"] or name == "tiny.deen"):
                key = f"{name}.{v}"
                runs[key] = {"name": name, "variant": v, "log": os.path.join(logs, f"{key}.log"),
                             "recipe": write_recipe(cfg, name, f"models/work/{key}", VARIANTS[v], recipes, key)}
    procs = {k: start(["train", r["recipe"], "--max-minutes", str(a.minutes)], r["log"]) for k, r in runs.items()}
    for k, proc in procs.items():
        runs[k]["rc"] = proc.wait()
    results["trained_s"] = round(time.time() - START)

    log("exports")
    exported = os.path.join(work, "compare-models")
    os.makedirs(exported, exist_ok=True)
    for k, r in runs.items():
        r["tfm"] = os.path.join(exported, f"{k}.tfm")
    procs = {k: start(["train", r["recipe"], "--max-minutes", "0", "--export-best", r["tfm"], "--weights", "f16"], r["log"])
             for k, r in runs.items()}
    for k, proc in procs.items():
        rc = proc.wait()
        lines = [json.loads(l) for l in open(runs[k]["log"]) if l.startswith("{") and '"msg": "export"' in l]
        runs[k]["export"] = lines[-1] if rc == 0 and lines else None
        runs[k]["train_log"] = [json.loads(l) for l in open(os.path.join(work, k, "train.log"))
                                if any(f'"msg": "{m}"' in l for m in ("dev", "time limit", "warm start"))]
    results["runs"] = {k: {f: r[f] for f in ("name", "variant", "rc", "export", "train_log")} for k, r in runs.items()}
    results["exported_s"] = round(time.time() - START)
    save_results()

    # In each direction, the continued model: the warm-started run with the lowest dev NLL.
    dev_nll = lambda k: min(runs[k]["export"]["dev_nll"].values())  # noqa: E731
    for name in configs:
        warm = [k for k, r in runs.items() if r["name"] == name and VARIANTS[r["variant"]]["warm"] and r["export"]]
        if warm:
            best = min(warm, key=dev_nll)
            results.setdefault("chosen", {})[name] = best
            subprocess.run(["split", "-b", "15M", runs[best]["tfm"], os.path.join(out, f"{name}.tfm.part-")], check=True)
            log("chosen", name=name, run=best, dev_nll=dev_nll(best))
    save_results()

    log("FLORES dev BLEU")
    dev = os.path.join(shared, "data", "deen", "dev", "flores-dev")
    procs = {}
    for k, r in runs.items():
        if r["export"]:
            src, tgt = (".de", ".en") if r["name"] == "tiny.deen" else (".en", ".de")
            procs[k] = subprocess.Popen([PY, "-c", BLEU_SCRIPT, r["tfm"], dev + src, dev + tgt,
                                         os.path.join(logs, f"bleu-{k}.json")], cwd=REPO, stdout=subprocess.DEVNULL,
                                        stderr=open(os.path.join(logs, f"bleu-{k}.err"), "w"))
    for k, proc in procs.items():
        proc.wait()
        path = os.path.join(logs, f"bleu-{k}.json")
        if os.path.exists(path):
            results["runs"][k]["flores_dev_bleu"] = json.load(open(path))["bleu"]
    results["finished_s"] = round(time.time() - START)
    save_results()
    log("done", files=sorted(os.listdir(out)))


if __name__ == "__main__":
    main()

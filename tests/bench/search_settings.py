#!/usr/bin/python3
"""The search settings by measurement: BLEU and chrF of each setting on the public test sets, and
what a request of each size costs with it.

  tests/bench/search_settings.py [--cli build/tformer] [--models tiny.deen,tiny.ende] [--work DIR]
                                 [--rounds 3] [--json FILE] [--skip-quality] [--skip-latency]

Settings: beam 1, 2 and 4 (length penalty 1.0, the engine's), beam 4 with length penalty 0.6 and
1.4, and the defaults with the repetition guard or the lexical shortlist off. The model's int8 file
(what the package, the demo and the registry load), one thread, passthrough on.

Quality: each setting on the four public test sets (../shared/data/deen/test), one line one sentence
(--no-split, as models/tfm evaluate), BLEU and chrF2 (models/tformer/bleu.py, chrf.py: sacreBLEU's
definitions), and the batch's seconds.

Latency: `tformer bench --json` (load, warm-up, then each line of its input as one request: median
and p90 ms) on three inputs built from FLORES devtest: a sentence (each of 60 lines of 15-30
words), a paragraph (5 consecutive lines in one request, 20 of them) and a page (40 consecutive
lines, one line each, in one request: a document, as translatePage sends blocks; 8 of them). The
settings of one input run back to back in each of --rounds rounds, in turn, so that a change of
the machine's load meets every setting alike; the table gives each setting's median over rounds
and its ratio to greedy's median of the same round (the median of those ratios).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, HERE)

from tformer.bleu import corpus_bleu  # noqa: E402
from tformer.chrf import corpus_chrf  # noqa: E402
import passthrough_sets as ps  # noqa: E402

DIRECTIONS = {"tiny.deen": ("de", "en"), "tiny.ende": ("en", "de")}

# name: flags
SETTINGS = {
    "greedy": ["--beam", "1"],
    "beam 2": ["--beam", "2"],
    "beam 4": ["--beam", "4"],
    "beam 4, lp 0.6": ["--beam", "4", "--length-penalty", "0.6"],
    "beam 4, lp 1.4": ["--beam", "4", "--length-penalty", "1.4"],
    "greedy, no guard": ["--beam", "1", "--no-repetition-guard"],
    "beam 4, no guard": ["--beam", "4", "--no-repetition-guard"],
    "greedy, no shortlist": ["--beam", "1", "--no-shortlist"],
    "beam 4, no shortlist": ["--beam", "4", "--no-shortlist"],
}
LATENCY_SETTINGS = ["greedy", "beam 2", "beam 4", "greedy, no shortlist", "beam 4, no shortlist"]


def translate(cli, model, flags, lines):
    cmd = [cli, "translate", "-m", model, "--threads", "1", "--no-split", *flags]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return r.stdout.split("\n")[:len(lines)], seconds


def quality(args, rows):
    for model_name in args.models.split(","):
        src, tgt = DIRECTIONS[model_name]
        model = os.path.join(ROOT, "models", model_name, "model.int8.tfm")
        print(f"\n{model_name} ({src}->{tgt}), model.int8.tfm: BLEU / chrF2, and seconds for the set (1 thread)\n")
        print("| setting | " + " | ".join(ps.TEST_SETS) + " | mean BLEU | s, all sets |")
        print("|---|" + "---|" * len(ps.TEST_SETS) + "---|---|")
        for name, flags in SETTINGS.items():
            cells, bleus, total = [], [], 0.0
            for set_name in ps.TEST_SETS:
                sources, refs = ps.load_set(set_name, src, tgt, args.lines)
                path = os.path.join(args.work, f"{model_name}.{set_name}.{name.replace(' ', '_').replace(',', '')}.txt")
                seconds = None
                if os.path.exists(path) and os.path.getmtime(path) >= os.path.getmtime(args.cli):
                    out = ps.read_lines(path)
                else:
                    out, seconds = translate(args.cli, model, flags, sources)
                    with open(path, "w", encoding="utf-8") as f:
                        f.write("\n".join(out) + "\n")
                bleu = corpus_bleu(out, [refs]).score
                chrf = corpus_chrf(out, [refs]).score
                bleus.append(bleu)
                total += seconds or 0.0
                cells.append(f"{bleu:.2f} / {chrf:.2f}")
                rows.append({"kind": "quality", "model": model_name, "setting": name, "set": set_name, "bleu": round(bleu, 2),
                             "chrf": round(chrf, 2), "seconds": None if seconds is None else round(seconds, 2)})
            print(f"| {name} | " + " | ".join(cells) + f" | {statistics.mean(bleus):.2f} | {total:.1f} |", flush=True)


def latency_inputs(work, src):
    lines = ps.read_lines(os.path.join(ps.DATA, f"flores-devtest.{src}"))
    sentence = [l for l in lines if 15 <= len(l.split()) <= 30][:60]
    paragraph = [" ".join(lines[i:i + 5]) for i in range(0, 100, 5)]
    page = [" ".join(lines[i:i + 40]) for i in range(0, 320, 40)]
    out = {}
    for name, content in (("sentence", sentence), ("paragraph", paragraph), ("page", page)):
        path = os.path.join(work, f"latency.{src}.{name}.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(content) + "\n")
        words = statistics.mean(len(c.split()) for c in content)
        out[name] = (path, len(content), words)
    return out


def bench(cli, model, flags, path, work):
    js = os.path.join(work, "bench.json")
    cmd = [cli, "bench", "-m", model, "-i", path, "--threads", "1", "--json", js, *flags]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr}")
    with open(js, encoding="utf-8") as f:
        return json.load(f)


def latency(args, rows):
    for model_name in args.models.split(","):
        src, _ = DIRECTIONS[model_name]
        model = os.path.join(ROOT, "models", model_name, "model.int8.tfm")
        inputs = latency_inputs(args.work, src)
        print(f"\n{model_name}, model.int8.tfm, native, 1 thread: ms per request, median over {args.rounds} rounds "
              f"(x greedy, median of the rounds' ratios)\n")
        print("| setting | " + " | ".join(f"{n} ({count} requests, {words:.0f} words)" for n, (_, count, words) in inputs.items()) + " |")
        print("|---|" + "---|" * len(inputs))
        results = {name: {s: [] for s in LATENCY_SETTINGS} for name in inputs}
        loads = []
        for _ in range(args.rounds):
            for name, (path, _, _) in inputs.items():
                for setting in LATENCY_SETTINGS:
                    flags = [f for f in SETTINGS[setting] if f != "--no-split"]
                    loads.append(os.getloadavg()[0])
                    results[name][setting].append(bench(args.cli, model, flags, path, args.work)["latency_median_ms"])
        for setting in LATENCY_SETTINGS:
            cells = []
            for name in inputs:
                ms = results[name][setting]
                ratio = statistics.median(a / b for a, b in zip(ms, results[name]["greedy"]))
                cells.append(f"{statistics.median(ms):.1f} ({ratio:.2f}x)")
                rows.append({"kind": "latency", "model": model_name, "setting": setting, "input": name,
                             "median_ms": round(statistics.median(ms), 2), "rounds_ms": [round(x, 2) for x in ms],
                             "x_greedy": round(ratio, 3)})
            print(f"| {setting} | " + " | ".join(cells) + " |", flush=True)
        print(f"\nload average (1 min) during the runs: {min(loads):.1f}-{max(loads):.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "tformer"))
    ap.add_argument("--models", default="tiny.deen,tiny.ende")
    ap.add_argument("--lines", type=int, default=None, help="the first N lines of each test set")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "search-bench"))
    ap.add_argument("--json", default=None)
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--skip-latency", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rows = []
    if not args.skip_quality:
        quality(args, rows)
    if not args.skip_latency:
        latency(args, rows)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

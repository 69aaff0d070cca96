#!/usr/bin/python3
"""Passthrough against the model's own output: the share of numbers, URLs, e-mail addresses and
emoji each keeps, and BLEU / chrF, per set, per model, greedy and beam 4.

  tests/bench/passthrough.py [--cli build/tformer] [--variant LABEL=CLI[:FLAGS]]... [--beams 1,4]
                             [--models tiny.deen,tiny.ende] [--lines N] [--work DIR] [--json FILE]

Each variant is an engine binary with its flags; the default pair is `off` (--no-passthrough) and
`on` (the engine's default), both from --cli, run in the same invocation so that the table compares
them on the same sentences. A variant from another build (an earlier engine) is named with
--variant, e.g. `--variant before=/tmp/tformer.old`. Sets (tests/bench/passthrough_sets.py): the
four public test sets, `numbers` (every test line with a digit) and `symbols` (test lines with a
URL, an address or an emoji put in). The model's int8 file (the package's and the demo's), the
repetition guard on, as by default, one line one sentence (--no-split, as models/tfm evaluate).

Prints one Markdown table per model and search: per set and variant, BLEU, chrF, its BLEU minus the
first variant's, numbers kept (%), URLs, addresses and emoji kept (kept/all). Outputs are kept in
--work, keyed by variant, model, set and search, and reused while newer than the binary.
"""
from __future__ import annotations

import argparse
import json
import os
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


def translate(cli, flags, model, lines, beam, threads):
    cmd = [cli, "translate", "-m", model, "--beam", str(beam), "--threads", str(threads), "--no-split", *flags]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr}")
    out = r.stdout.split("\n")[:len(lines)]
    if len(out) != len(lines):
        raise RuntimeError(f"{cli} wrote {len(out)} lines for {len(lines)}")
    return out, seconds


def cached(work, key, binary, compute):
    path = os.path.join(work, key + ".txt")
    if os.path.exists(path) and os.path.getmtime(path) >= os.path.getmtime(binary):
        return ps.read_lines(path), None
    out, seconds = compute()
    os.makedirs(work, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return out, seconds


def parse_variant(text):
    label, _, rest = text.partition("=")
    cli, _, flags = rest.partition(":")
    return label, cli, flags.split() if flags else []


def pct(kept, total):
    return "-" if total == 0 else f"{100.0 * kept / total:.1f}"


def frac(kept, total):
    return "-" if total == 0 else f"{kept}/{total}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "tformer"))
    ap.add_argument("--variant", action="append", default=[], help="LABEL=CLI[:FLAGS] (instead of off and on)")
    ap.add_argument("--beams", default="1,4")
    ap.add_argument("--models", default="tiny.deen,tiny.ende")
    ap.add_argument("--file", default="model.int8.tfm", help="the model file in each model folder")
    ap.add_argument("--lines", type=int, default=None, help="the first N lines of each set")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "passthrough-bench"))
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    variants = [parse_variant(v) for v in args.variant] or [("off", args.cli, ["--no-passthrough"]), ("on", args.cli, [])]
    rows = []
    for model_name in args.models.split(","):
        src, tgt = DIRECTIONS[model_name]
        model = os.path.join(ROOT, "models", model_name, args.file)
        sets = ps.build_sets(src, tgt, args.lines)
        for beam in [int(b) for b in args.beams.split(",")]:
            print(f"\n{model_name} ({src}->{tgt}), {args.file}, beam {beam}\n")
            print("| set | variant | BLEU | chrF | BLEU - " + variants[0][0] + " | numbers kept % | URLs | e-mails | emoji | s |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            for set_name, (sources, refs) in sets.items():
                base = None
                for label, cli, flags in variants:
                    key = f"{label}.{model_name}.{args.file}.{set_name}{'' if args.lines is None else f'.first{args.lines}'}.b{beam}"
                    out, seconds = cached(args.work, key, cli,
                                          lambda: translate(cli, flags, model, sources, beam, args.threads))
                    bleu = corpus_bleu(out, [refs]).score
                    chrf = corpus_chrf(out, [refs]).score
                    k = ps.keeping(sources, out)
                    if base is None:
                        base = bleu
                    row = {"model": model_name, "file": args.file, "beam": beam, "set": set_name, "variant": label,
                           "lines": len(sources), "bleu": round(bleu, 2), "chrf": round(chrf, 2),
                           "bleu_delta": round(bleu - base, 2), "seconds": None if seconds is None else round(seconds, 2),
                           **{f"{kind}": list(v) for kind, v in k.items()}}
                    rows.append(row)
                    print(f"| {set_name} ({len(sources)}) | {label} | {bleu:.2f} | {chrf:.2f} | {bleu - base:+.2f} | "
                          f"{pct(k['numbers'][1], k['numbers'][0])} ({frac(k['numbers'][1], k['numbers'][0])}) | "
                          f"{frac(k['urls'][1], k['urls'][0])} | {frac(k['emails'][1], k['emails'][0])} | "
                          f"{frac(k['emoji'][1], k['emoji'][0])} | {'' if seconds is None else f'{seconds:.1f}'} |",
                          flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

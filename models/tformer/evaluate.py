"""Evaluation of a .tfm model on the test sets: BLEU per engine, and the engines' agreement.

    models/tfm evaluate -m MODEL.tfm [-m OTHER.tfm ...] [--sets flores-devtest,newstest2019,...]
                        [--engines pytorch,tformer] [--beam 1[,4]] [--lines N] [--out DIR] [--json FILE]
                        [--card-json FILE]

Engines: `pytorch` (the reference decode of translate.py) and `tformer` (the native CLI,
build/tformer translate --no-split: one line is one segment, as the reference does). Each model
given with -m is evaluated with every engine (an int8 .tfm with the `tformer` engine is the int8 row).
Hypotheses are written to DIR/<model>.<set>.<engine>.b<beam>.txt and reused when newer than
the model (delete them to recompute). Prints a Markdown table of BLEU (sacreBLEU defaults:
13a, case-sensitive; see bleu.py) and chrF2 (sacreBLEU's chrF2, chrf.py), and, per set, how many
lines the engines disagree on. `--card-json` writes the engine's rows in the form a model folder's
`eval.json` takes (the registry reads it to choose a default variant: web/scripts/registry.mjs).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from .bleu import corpus_bleu
from .chrf import corpus_chrf

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(REPO, "..", "shared", "data", "deen", "test")
DEFAULT_SETS = ("flores-devtest", "newstest2019", "newstest2020", "multi30k-test2016")


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def model_languages(path):
    from . import tfm
    meta = tfm.read(path).metadata
    return meta.get("source_language"), meta.get("target_language")


def run_pytorch(model_path, src_lines, beam, threads):
    import torch
    from .export import load_tfm_model
    from .translate import translate_lines
    torch.set_num_threads(threads)
    model, src_tok, tgt_tok, _ = load_tfm_model(model_path)
    return translate_lines(model, src_tok, tgt_tok, src_lines, beam=beam)


def run_tformer(model_path, src_lines, beam, threads, binary):
    if not os.path.exists(binary):
        raise FileNotFoundError(f"{binary} not found: build the engine first (cmake --build build)")
    # The model's own output (passthrough and the repetition guard, on by default, off), so that
    # scores stay comparable with the reference's and with earlier evaluations.
    cmd = [binary, "translate", "-m", model_path, "--beam", str(beam), "--threads", str(threads), "--no-split",
           "--no-passthrough", "--no-repetition-guard"]
    r = subprocess.run(cmd, input="\n".join(src_lines) + "\n", capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr}")
    out = r.stdout.split("\n")[:len(src_lines)]
    if len(out) != len(src_lines):
        raise RuntimeError(f"tformer wrote {len(out)} lines for {len(src_lines)} inputs")
    return out


def hypotheses(engine, model_path, set_name, src_lang, beam, threads, out_dir, binary, lines=None):
    tag = os.path.splitext(os.path.basename(model_path))[0]
    parent = os.path.basename(os.path.dirname(os.path.abspath(model_path)))
    part = f".first{lines}" if lines else ""
    path = os.path.join(out_dir, f"{parent}.{tag}.{set_name}{part}.{engine}.b{beam}.txt")
    if os.path.exists(path) and os.path.getmtime(path) >= os.path.getmtime(model_path):
        return read_lines(path), None
    src = read_lines(os.path.join(DATA, f"{set_name}.{src_lang}"))[:lines]
    t0 = time.time()
    if engine == "pytorch":
        hyp = run_pytorch(model_path, src, beam, threads)
    elif engine == "tformer":
        hyp = run_tformer(model_path, src, beam, threads, binary)
    else:
        raise ValueError(f"unknown engine {engine!r}")
    seconds = time.time() - t0
    os.makedirs(out_dir, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(hyp) + "\n")
    return hyp, seconds


def evaluate(models, sets, engines, beams, threads, out_dir, binary, lines=None):
    rows = []
    for model_path in models:
        src_lang, tgt_lang = model_languages(model_path)
        if not src_lang or not tgt_lang:
            raise ValueError(f"{model_path}: metadata has no source_language/target_language")
        for beam in beams:
            for set_name in sets:
                rows += evaluate_set(model_path, src_lang, tgt_lang, set_name, engines, beam, threads, out_dir,
                                     binary, lines)
    return rows


def evaluate_set(model_path, src_lang, tgt_lang, set_name, engines, beam, threads, out_dir, binary, lines):
    rows = []
    ref = read_lines(os.path.join(DATA, f"{set_name}.{tgt_lang}"))[:lines]
    outputs = {}
    for engine in engines:
        hyp, seconds = hypotheses(engine, model_path, set_name, src_lang, beam, threads, out_dir, binary, lines)
        outputs[engine] = hyp
        bleu = corpus_bleu(hyp, [ref])
        chrf = corpus_chrf(hyp, [ref])
        rows.append({"model": model_path, "direction": f"{src_lang}-{tgt_lang}", "set": set_name,
                     "engine": engine, "beam": beam, "bleu": round(bleu.score, 2), "chrf": round(chrf.score, 2),
                     "signature": bleu.format(), "seconds": None if seconds is None else round(seconds, 1)})
        print(f"{os.path.relpath(model_path, REPO)} {set_name} {engine} beam {beam}: {bleu.format()}, "
              f"{chrf.format()}", file=sys.stderr, flush=True)
    names = list(outputs)
    for other in names[1:]:
        diff = [i for i, (a, b) in enumerate(zip(outputs[names[0]], outputs[other])) if a != b]
        rows.append({"model": model_path, "set": set_name, "beam": beam, "agreement": f"{names[0]} vs {other}",
                     "lines": len(ref), "differing_lines": len(diff), "first_differences": diff[:10]})
    return rows


def markdown(rows):
    scored = [r for r in rows if "bleu" in r]
    sets = list(dict.fromkeys(r["set"] for r in scored))
    keys = list(dict.fromkeys((os.path.relpath(r["model"], REPO), r["engine"], r["beam"]) for r in scored))
    lines = ["BLEU / chrF2", "",
             "| model | engine | beam | " + " | ".join(sets) + " |", "|---|---|---|" + "---|" * len(sets)]
    for model, engine, beam in keys:
        cells = []
        for s in sets:
            hit = [r for r in scored if (os.path.relpath(r["model"], REPO), r["engine"], r["beam"], r["set"]) ==
                   (model, engine, beam, s)]
            cells.append(f"{hit[0]['bleu']:.2f} / {hit[0]['chrf']:.2f}" if hit else "")
        lines.append(f"| {model} | {engine} | {beam} | " + " | ".join(cells) + " |")
    for r in rows:
        if "agreement" in r:
            lines.append(f"\n{os.path.relpath(r['model'], REPO)} {r['set']} beam {r['beam']}: {r['agreement']}: "
                         f"{r['differing_lines']} of {r['lines']} lines differ")
    return "\n".join(lines)


def card_rows(rows, engine="tformer"):
    """The rows of one engine in a model folder's eval.json form (the folder's files by name)."""
    out = []
    for r in rows:
        if "bleu" not in r or r["engine"] != engine:
            continue
        from . import tfm
        weights = tfm.read(r["model"]).metadata.get("weights")
        out.append({"file": os.path.basename(r["model"]), "weights": weights, "set": r["set"],
                    "search": "greedy" if r["beam"] == 1 else f"beam{r['beam']}", "bleu": r["bleu"],
                    "chrf": r["chrf"]})
    return {"metrics": "sacreBLEU BLEU (13a, case-sensitive) and chrF2, whole test sets, the native engine",
            "rows": out}


def register(sub):
    s = sub.add_parser("evaluate", help="BLEU of .tfm models on the test sets, PyTorch vs the engine")
    s.add_argument("-m", "--model", action="append", required=True)
    s.add_argument("--sets", default=",".join(DEFAULT_SETS))
    s.add_argument("--engines", default="pytorch,tformer")
    s.add_argument("--beam", default="1", help="beam size, or several separated by commas (1,4)")
    s.add_argument("--threads", type=int, default=2)
    s.add_argument("--out", default=os.path.join(REPO, "models", "work", "eval"))
    s.add_argument("--tformer", default=os.path.join(REPO, "build", "tformer"), help="the native CLI")
    s.add_argument("--lines", type=int, help="only the first N lines of each set (quick checks)")
    s.add_argument("--json", help="also write the rows as JSON here")
    s.add_argument("--card-json", help="write the engine's rows in a model folder's eval.json form here")
    s.set_defaults(func=cmd_evaluate)


def cmd_evaluate(args):
    beams = [int(b) for b in str(args.beam).split(",")]
    rows = evaluate(args.model, args.sets.split(","), args.engines.split(","), beams, args.threads,
                    args.out, args.tformer, args.lines)
    print(markdown(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.card_json:
        with open(args.card_json, "w") as f:
            json.dump(card_rows(rows), f, indent=1)
            f.write("\n")

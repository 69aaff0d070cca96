#!/usr/bin/python3
"""Does word confidence mean something? Candidate sentence measures against sentence chrF, and word
measures against whether the word is in the reference, on FLORES devtest with the shipped models.

  tests/bench/confidence_chrf.py [--lines 1012] [--threads 1] [--models tiny.deen,tiny.ende] [--json OUT]

`tformer translate --confidence` (greedy, the default options otherwise) translates the FLORES
devtest lines of each shipped model (models/tiny.deen: German -> English, models/tiny.ende: English
-> German, their int8 files). Per line, the measures come from the tokens'
log-probabilities the CLI writes (a line of several sentences pools their tokens and words):
- mean log-prob: the mean of the tokens' log-probabilities, EOS included (the engine's sentence
  score; Bergamot's "log-prob average" baseline); without EOS (Bergamot's overall mean); the mean
  over words of their tokens' mean log-prob (Bergamot's LogprobQualityEstimator);
- means over words of a word measure: its tokens' mean probability, its least probable token's
  probability, its probability (the product of its tokens': the engine's word confidence);
- the least probable word's probability, and the share of words under the demos' threshold;
- the summed log-prob (not normalised by length: long lines score lower whatever their quality).
Each is set against the line's chrF2 to the reference (models/tformer/chrf.py, sacreBLEU's chrF2:
character 6-grams, beta 2), by Pearson's r (and Spearman's rho).

Word measures (from its tokens' probabilities: their product, mean, minimum, the first token's, the
exp of their mean log-prob) are set against a word-level signal that needs no word alignment:
whether the word (lowercased, punctuation stripped) occurs in the reference; reported as the
point-biserial r and the area under the ROC curve. For the demos' threshold: per candidate, the
share of words under it and how many of those, and of the others, are not in the reference.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "models"))
from tformer.chrf import corpus_chrf  # noqa: E402

TFORMER = os.environ.get("TFORMER", os.path.join(ROOT, "build", "tformer"))
DATA = os.path.join(ROOT, "..", "shared", "data", "deen", "test")
PAIRS = [("tiny.deen", "flores-devtest.de", "flores-devtest.en"),
         ("tiny.ende", "flores-devtest.en", "flores-devtest.de")]
THRESHOLDS = [0.1, 0.2, 0.3, 0.4, 0.5]
DEMO_THRESHOLD = 0.1  # web/demo/confidence-marks.js: UNSURE_BELOW


def translate(model, lines, threads):
    out = subprocess.run([TFORMER, "translate", "-m", model, "--confidence", "--threads", str(threads)],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    rows = [json.loads(l) for l in out.stdout.splitlines()]
    if len(rows) != len(lines):
        raise SystemExit(f"{len(rows)} JSON lines for {len(lines)} input lines")
    return rows


def pearson(x, y):
    return float(np.corrcoef(np.asarray(x, float), np.asarray(y, float))[0, 1])


def ranks(x):
    x = np.asarray(x, float)
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x))
    r[order] = np.arange(len(x))
    for v in np.unique(x):  # ties share their mean rank
        where = x == v
        r[where] = r[where].mean()
    return r


def spearman(x, y):
    return pearson(ranks(x), ranks(y))


def auc(scores, labels):
    """The probability that a word in the reference scores above one not in it (ties count half)."""
    r = ranks(scores) + 1
    labels = np.asarray(labels, bool)
    n_pos, n_neg = labels.sum(), (~labels).sum()
    return float((r[labels].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def normalised(word):
    return re.sub(r"[^\w]", "", word.lower())


def line_measures(row):
    """The line's sentence measures, and its words as (text, their tokens' log-probabilities)."""
    lps, words = [], []
    eos = []
    for s in row["sentences"]:
        lp = s["logProbs"]
        eos.append(len(lps) + len(lp) - 1)
        lps += lp
        for w in s["words"]:
            words.append((w["text"], lp[w["tokens"][0]:w["tokens"][1]]))
    if not lps or not words:
        return None
    no_eos = [v for i, v in enumerate(lps) if i not in eos]
    mean_p = [float(np.mean(np.exp(t))) for _, t in words]
    word_p = [math.exp(sum(t)) for _, t in words]
    return {
        "mean log-prob (the engine's score; Bergamot's baseline)": float(np.mean(lps)),
        "mean log-prob without EOS": float(np.mean(no_eos)) if no_eos else float(np.mean(lps)),
        "mean word log-prob (Bergamot's LogprobQualityEstimator)": float(np.mean([np.mean(t) for _, t in words])),
        "mean over words of their tokens' mean probability": float(np.mean(mean_p)),
        "mean over words of their least probable token's probability": float(np.mean([math.exp(min(t)) for _, t in words])),
        "mean word probability (the engine's word confidence)": float(np.mean(word_p)),
        "least probable word's probability": float(min(word_p)),
        f"minus the share of words under {DEMO_THRESHOLD}": -float(np.mean([p < DEMO_THRESHOLD for p in word_p])),
        "summed log-prob (not normalised)": float(np.sum(lps)),
    }, words


WORD_MEASURES = {
    "product of token probabilities (the engine's)": lambda t: math.exp(sum(t)),
    "mean token probability": lambda t: float(np.mean(np.exp(t))),
    "minimum token probability": lambda t: math.exp(min(t)),
    "first token probability": lambda t: math.exp(t[0]),
    "exp(mean token log-prob) (Bergamot's word score)": lambda t: math.exp(float(np.mean(t))),
}
THRESHOLD_MEASURES = ["product of token probabilities (the engine's)", "mean token probability"]


def evaluate(name, sources, references, threads):
    model = os.path.join(ROOT, "models", name, "model.int8.tfm")
    rows = translate(model, sources, threads)
    table, chrf = {}, []
    word_scores = {k: [] for k in WORD_MEASURES}
    in_reference = []
    for row, ref in zip(rows, references):
        m = line_measures(row)
        if m is None:
            continue
        measures, words = m
        chrf.append(corpus_chrf([row["text"]], [[ref]]).score)
        for k, v in measures.items():
            table.setdefault(k, []).append(v)
        ref_words = {normalised(w) for w in ref.split()}
        for text, t in words:
            key = normalised(text)
            if not key:
                continue  # punctuation alone
            in_reference.append(key in ref_words)
            for k, f in WORD_MEASURES.items():
                word_scores[k].append(f(t))
    sentence = {k: {"pearson": pearson(v, chrf), "spearman": spearman(v, chrf)} for k, v in table.items()}
    words = {k: {"point_biserial": pearson(v, in_reference), "auc": auc(v, in_reference)}
             for k, v in word_scores.items()}
    ok = np.asarray(in_reference, bool)
    thresholds = {}
    for measure in THRESHOLD_MEASURES:
        conf = np.asarray(word_scores[measure])
        thresholds[measure] = {t: {"share_under": float((conf < t).mean()),
                                   "not_in_reference_under": float((~ok[conf < t]).mean()) if (conf < t).any() else None,
                                   "not_in_reference_at_or_over": float((~ok[conf >= t]).mean())} for t in THRESHOLDS}
    return {"model": name, "lines": len(chrf), "words": len(in_reference), "mean_chrf": float(np.mean(chrf)),
            "sentence": sentence, "word": words, "thresholds": thresholds}


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--lines", type=int, default=1012)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--models", default=",".join(name for name, _, _ in PAIRS))
    p.add_argument("--json")
    a = p.parse_args(argv)
    results = []
    for name, src, ref in PAIRS:
        if name not in a.models.split(","):
            continue
        sources = open(os.path.join(DATA, src), encoding="utf-8").read().splitlines()[:a.lines]
        references = open(os.path.join(DATA, ref), encoding="utf-8").read().splitlines()[:a.lines]
        r = evaluate(name, sources, references, a.threads)
        results.append(r)
        print(f"\n{name}: {r['lines']} lines, {r['words']} words, mean sentence chrF2 {r['mean_chrf']:.1f}")
        print("  sentence measure against sentence chrF2: Pearson r / Spearman rho")
        for k, v in r["sentence"].items():
            print(f"    {k:55s} {v['pearson']:+.3f} / {v['spearman']:+.3f}")
        print("  word measure against 'the word is in the reference': point-biserial r / ROC AUC")
        for k, v in r["word"].items():
            print(f"    {k:55s} {v['point_biserial']:+.3f} / {v['auc']:.3f}")
        for measure, rows in r["thresholds"].items():
            print(f"  thresholds of {measure}: share of words under it; not in the reference under it / at or over it")
            for t, v in rows.items():
                under = "-" if v["not_in_reference_under"] is None else f"{v['not_in_reference_under']:.1%}"
                print(f"    {t:.1f}: {v['share_under']:.1%}; {under} / {v['not_in_reference_at_or_over']:.1%}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])

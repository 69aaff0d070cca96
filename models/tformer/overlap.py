"""`models/tfm overlap`: do the evaluation sets leak into the training data?

    models/tfm overlap [CONFIG ...] [--n 8] [--json FILE]

For every dev and test set (FLORES dev and devtest, newstest2019 and 2020, Multi30k test2016) and
every training file the recipes name (both languages), counts the evaluation lines that share a
sequence of N words (default 8) with some training line of the same language. Words are runs of
letters and digits, lowercased, so punctuation, case and spacing do not hide a copy. An exact
duplicate shows up as an overlap too. Prints one row per training file with overlaps, and the totals.
"""
from __future__ import annotations

import json
import os
import re

from .evaluate import DEFAULT_SETS

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORD = re.compile(r"[^\W_]+")
EVAL_SETS = {"flores-dev": "dev"} | {name: "test" for name in DEFAULT_SETS}


def ngrams(line: str, n: int):
    words = WORD.findall(line.lower())
    return {hash(tuple(words[i:i + n])) for i in range(len(words) - n + 1)}


def eval_index(data_dir: str, languages, n: int):
    """{lang: {ngram hash: {(set, line number), ...}}} over the evaluation sets."""
    index = {lang: {} for lang in languages}
    for name, folder in EVAL_SETS.items():
        for lang in languages:
            path = os.path.join(data_dir, folder, f"{name}.{lang}")
            if not os.path.exists(path):
                continue
            with open(path, encoding="utf-8") as f:
                for k, line in enumerate(f):
                    for g in ngrams(line, n):
                        index[lang].setdefault(g, set()).add((name, k))
    return index


def overlaps(train_files, data_dir: str, languages=("de", "en"), n: int = 8) -> dict:
    """{training file: {lang: {eval set: number of its lines sharing an n-gram with that file}}}."""
    index = eval_index(data_dir, languages, n)
    found = {}
    for prefix in train_files:
        for lang in languages:
            hits = set()
            with open(f"{prefix}.{lang}", encoding="utf-8", errors="replace") as f:
                for line in f:
                    for g in ngrams(line, n):
                        hits |= index[lang].get(g, set())
            per_set = {}
            for name, _ in hits:
                per_set[name] = per_set.get(name, 0) + 1
            if per_set:
                found.setdefault(os.path.basename(prefix), {})[lang] = per_set
    return found


def register(sub):
    p = sub.add_parser("overlap", help="evaluation lines that share an N-word sequence with training files")
    p.add_argument("configs", nargs="*", help="recipes (default: models/configs/*.yaml)")
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--json", help="also write the counts here")
    p.set_defaults(func=cmd_overlap)


def cmd_overlap(args):
    import glob
    from .train import load_recipe, repo_path
    configs = args.configs or sorted(glob.glob(os.path.join(REPO, "models", "configs", "*.yaml")))
    if args.n < 1:
        raise SystemExit("models/tfm overlap: --n must be at least 1")
    files, languages = [], set()
    for path in configs:
        recipe = load_recipe(path)
        languages |= set(recipe["vocab"]["languages"])
        for p in recipe["data"]["train"]:
            if repo_path(p) not in files:
                files.append(repo_path(p))
        data_dir = os.path.dirname(os.path.dirname(repo_path(recipe["data"]["dev"])))
    found = overlaps(files, data_dir, sorted(languages), args.n)
    print(f"{len(files)} training files, {args.n}-word sequences shared with the evaluation sets "
          f"({', '.join(EVAL_SETS)}):")
    totals = {}
    for name, per_lang in sorted(found.items()):
        for lang, per_set in sorted(per_lang.items()):
            print(f"  {name}.{lang}: " + ", ".join(f"{s} {c}" for s, c in sorted(per_set.items())))
            for s, c in per_set.items():
                totals[(s, lang)] = totals.get((s, lang), 0) + c
    if not found:
        print("  none")
    print("lines with an overlap, summed over files: " +
          (", ".join(f"{s}.{lang} {c}" for (s, lang), c in sorted(totals.items())) or "0"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(found, f, indent=1)

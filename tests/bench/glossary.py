#!/usr/bin/python3
"""What a glossary does to translations: the share of its terms that come out, and BLEU.

For each shipped model (tiny.deen, tiny.ende) and the first --lines pairs of FLORES devtest:
1. a glossary of --terms terms is drawn from the references (glossary_terms.py: nouns and names of
   the reference, with the source word the statistical aligner links them to);
2. the CLI translates the source lines without and with `--glossary` (greedy, the model's int8 file
   as the demo and registry choose it, passthrough and the repetition guard on, as by default);
3. term share: of the places where a glossary term stands in a source line (whole words, as the
   engine matches) and its wanted form (target, or the term itself) stands in the reference, the
   share where the wanted form stands in the output; BLEU of the output against the references
   (models/tformer/bleu.py, sacreBLEU's 13a rules).

  tests/bench/glossary.py [--cli build/tformer] [--json build/glossary-bench.json]

Prints a Markdown table (docs/BENCHMARKS.md keeps it); the glossaries go to --work.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "models"))

from tformer.bleu import corpus_bleu  # noqa: E402
from tformer.data import read_lines  # noqa: E402

DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "deen"))
PAIRS = {"tiny.deen": ("de", "en"), "tiny.ende": ("en", "de")}


def read_glossary(path):
    entries = []
    for line in read_lines(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        source = fields[0].strip()
        target = fields[1].strip() if len(fields) > 1 and fields[1].strip() else source
        entries.append((source, target))
    return entries


def occurrences(text, term):
    """Whole-word occurrences of a term, case as written (the engine's rule, for these terms)."""
    return len(re.findall(r"(?<![\w])" + re.escape(term) + r"(?![\w])", text))


def term_share(glossary, sources, references, outputs):
    wanted = found = 0
    for src, ref, out in zip(sources, references, outputs):
        for source, target in glossary:
            n = min(occurrences(src, source), occurrences(ref, target))
            wanted += n
            found += min(n, occurrences(out, target))
    return found, wanted


def translate(cli, model, lines, glossary=None):
    cmd = [cli, "translate", "-m", model]
    if glossary:
        cmd += ["--glossary", glossary]
    r = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    out = r.stdout.split("\n")[:-1]
    if len(out) != len(lines):
        raise SystemExit(f"{model}: {len(out)} lines out for {len(lines)} in")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cli", default=os.path.join(ROOT, "build", "tformer"))
    p.add_argument("--lines", type=int, default=200)
    p.add_argument("--terms", type=int, default=100)
    p.add_argument("--file", default="model.int8.tfm", help="the model file of each folder (default model.int8.tfm)")
    p.add_argument("--work", default=os.path.join(ROOT, "build", "glossary-bench"), help="where the glossaries go")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args(argv)
    os.makedirs(args.work, exist_ok=True)
    rows = []
    for name, (src_lang, tgt_lang) in PAIRS.items():
        model = os.path.join(ROOT, "models", name, args.file)
        source_file = os.path.join(DATA, "test", f"flores-devtest.{src_lang}")
        reference_file = os.path.join(DATA, "test", f"flores-devtest.{tgt_lang}")
        glossary_file = os.path.join(args.work, f"{name}.tsv")
        subprocess.run([sys.executable, os.path.join(HERE, "glossary_terms.py"), "--source", source_file, "--reference",
                        reference_file, "--model", os.path.join(ROOT, "models", name, "model.tfm"), "--lines", str(args.lines),
                        "--terms", str(args.terms),
                        "--extra-source", os.path.join(DATA, "dev", f"flores-dev.{src_lang}"), os.path.join(DATA, "train", f"news.{src_lang}"),
                        "--extra-target", os.path.join(DATA, "dev", f"flores-dev.{tgt_lang}"), os.path.join(DATA, "train", f"news.{tgt_lang}"),
                        # One alignment serves both directions (the same pairs, the same vocabulary).
                        "--links", os.path.join(args.work, f"flores-devtest.{args.lines}.links.json"), *(["--swap"] if src_lang == "en" else []),
                        "-o", glossary_file], check=True)
        sources = read_lines(source_file)[:args.lines]
        references = read_lines(reference_file)[:args.lines]
        glossary = read_glossary(glossary_file)
        row = {"model": f"{name}/{args.file}", "sentences": len(sources), "terms": len(glossary)}
        for label, gl in (("without", None), ("with", glossary_file)):
            outputs = translate(args.cli, model, sources, gl)
            found, wanted = term_share(glossary, sources, references, outputs)
            bleu = corpus_bleu(outputs, [references])
            row[label] = {"found": found, "wanted": wanted, "share": found / wanted if wanted else 0.0, "bleu": round(bleu.score, 2)}
            with open(os.path.join(args.work, f"{name}.{label}.txt"), "w", encoding="utf-8") as f:
                f.write("\n".join(outputs) + "\n")
        rows.append(row)
    print("| model | terms (places) | terms in output: without | with | BLEU without | with | change |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        w, g = r["without"], r["with"]
        print(f"| {r['model']} | {r['terms']} ({w['wanted']}) | {w['found']}/{w['wanted']} ({100 * w['share']:.1f}%) | "
              f"{g['found']}/{g['wanted']} ({100 * g['share']:.1f}%) | {w['bleu']:.2f} | {g['bleu']:.2f} | {g['bleu'] - w['bleu']:+.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

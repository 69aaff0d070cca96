#!/usr/bin/python3
"""A glossary drawn from a test set's references, for measuring the engine's glossary (glossary.py).

For the first N pairs of a test set (source lines, reference lines) it picks terms as a terminologist
would from a bilingual text: nouns and names of the reference with the source word they translate.

1. The statistical aligner of the model tools (models/tfm align: fast_align's IBM Model 2, both
   directions, grow-diag-final-and) links the words of all pairs of the test set, with the dev set
   and the first --extra lines of a training set added for its statistics.
2. Candidates: a reference word that begins with a capital letter, does not begin a sentence (it is
   not the line's first word, nor the first after ".", "!", "?", ":" or a quotation mark), has at
   least 3 letters and no digit, and is linked to exactly one source word, which is linked to that
   reference word only and is such a word too.
   In German every noun is capitalised, in English names are: the candidates are nouns and names.
3. Each source word keeps its most frequent reference word (ties: the first seen); the terms are
   ranked by the number of the N pairs they stand in (then by first appearance) and the first
   --terms are written. A term whose target equals its source is written without a target (do not
   translate).

Output: the glossary as the CLI reads it (TSV: source, target; case-sensitive). Deterministic: the same
files give the same glossary.

  tests/bench/glossary_terms.py --source flores-devtest.de --reference flores-devtest.en \\
      --model models/tiny.deen/model.tfm -o deen.tsv
"""
import argparse
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))

from tformer import tfm  # noqa: E402
from tformer.aer import WORDS  # noqa: E402
from tformer.align import align_text  # noqa: E402
from tformer.data import read_lines  # noqa: E402
from tformer.tokenizer import Tokenizer  # noqa: E402

LETTERS = re.compile(r"^[^\W\d_]{3,}$")
# After these a capital letter may only say that a sentence begins.
OPENERS = set('.!?:"\u201e\u201c\u201d\u00bb\u00ab\u2018\u2019\'')


def terms_of(words):
    """For each word of a line: whether it may be a term (capitalised where a sentence cannot begin)."""
    out = []
    for k, word in enumerate(words):
        first = all(not LETTERS.match(w) and not w.isalnum() for w in words[:k])
        after_opener = k > 0 and words[k - 1] in OPENERS
        out.append(bool(LETTERS.match(word)) and word[0].isupper() and not first and not after_opener)
    return out


def extract(src_lines, ref_lines, links, terms):
    counts = collections.Counter()  # source word -> pairs it is a candidate in
    targets = collections.defaultdict(collections.Counter)
    first_seen = {}
    for k, (src, ref) in enumerate(zip(src_lines, ref_lines)):
        s_words, t_words = WORDS.findall(src), WORDS.findall(ref)
        s_terms, t_terms = terms_of(s_words), terms_of(t_words)
        by_target, by_source = collections.defaultdict(set), collections.defaultdict(set)
        for i, j in links[k]:
            by_target[j].add(i)
            by_source[i].add(j)
        seen_here = set()
        for j, word in enumerate(t_words):
            if not t_terms[j] or len(by_target[j]) != 1:
                continue
            (i,) = by_target[j]
            if by_source[i] != {j} or not s_terms[i]:
                continue
            source = s_words[i]
            targets[source][word] += 1
            first_seen.setdefault(source, (k, i))
            first_seen.setdefault((source, word), (k, j))
            if source not in seen_here:
                counts[source] += 1
                seen_here.add(source)
    ranked = sorted(counts, key=lambda s: (-counts[s], first_seen[s]))
    out = []
    for source in ranked[:terms]:
        # The most frequent target; ties: the first seen.
        target = min(targets[source], key=lambda t: (-targets[source][t], first_seen[(source, t)]))
        out.append((source, target, counts[source]))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", required=True, help="the test set's source side, one sentence a line")
    p.add_argument("--reference", required=True, help="its reference translations")
    p.add_argument("--model", required=True, help="the .tfm whose tokenizers split the text for the aligner")
    p.add_argument("--lines", type=int, default=200, help="the first LINES pairs are the ones measured (default 200)")
    p.add_argument("--terms", type=int, default=100, help="how many terms (default 100)")
    p.add_argument("--extra-source", nargs="*", default=[], help="more pairs for the aligner's statistics: sources")
    p.add_argument("--extra-target", nargs="*", default=[], help="... and their translations")
    p.add_argument("--extra", type=int, default=20000, help="at most this many lines of each extra file (default 20000)")
    p.add_argument("--links", help="a file of the aligner's links: read if it exists, else written (the aligner is slow "
                                    "on a CPU); its pairs must be these files' lines, in this order or, with --swap, the other")
    p.add_argument("--swap", action="store_true", help="the links file was made with source and reference swapped")
    p.add_argument("-o", "--output", required=True, help="the glossary (TSV)")
    args = p.parse_args(argv)
    src_all, ref_all = read_lines(args.source), read_lines(args.reference)
    f = tfm.read(args.model)
    src_tok, tgt_tok = Tokenizer.from_tfm(f, "source"), Tokenizer.from_tfm(f, "target")
    extra = ([x for q in args.extra_source for x in read_lines(q)[:args.extra]],
             [x for q in args.extra_target for x in read_lines(q)[:args.extra]])
    if args.links and os.path.exists(args.links):
        with open(args.links) as f:
            links = [[tuple(link) for link in pair] for pair in json.load(f)]
        if args.swap:
            links = [sorted((j, i) for i, j in pair) for pair in links]
        if len(links) != len(src_all):
            raise SystemExit(f"{args.links}: {len(links)} pairs, not {len(src_all)}")
    else:
        links = align_text(src_all, ref_all, src_tok, tgt_tok, "cpu", words=True, extra=extra)
        if args.links:
            with open(args.links, "w") as f:
                json.dump([sorted((j, i) for i, j in pair) if args.swap else pair for pair in links], f)
    n = args.lines
    terms = extract(src_all[:n], ref_all[:n], links[:n], args.terms)
    if len(terms) < args.terms:
        print(f"glossary_terms: only {len(terms)} terms found", file=sys.stderr)
    with open(args.output, "w", encoding="utf-8") as out:
        out.write(f"# {len(terms)} terms of the first {n} pairs of {os.path.basename(args.source)} -> "
                  f"{os.path.basename(args.reference)} (tests/bench/glossary_terms.py)\n")
        for source, target, count in terms:
            out.write(f"{source}\t{'' if target == source else target}\n")
    print(f"{args.output}: {len(terms)} terms", file=sys.stderr)


if __name__ == "__main__":
    main()

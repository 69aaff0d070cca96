"""Corpus BLEU with sacreBLEU's default settings: 13a tokenization, case-sensitive, 'exp'
smoothing, n-grams up to 4, one reference stream (or several). Written to give the same numbers
as `sacrebleu` (tests/models/test_bleu.py checks it against sacreBLEU's own test values)."""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

_REGEXES = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),  # punctuation and symbols
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),  # period and comma unless preceded by a digit
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),  # period and comma unless followed by a digit
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),  # dash after a digit
]


def tokenize_13a(line: str) -> str:
    """mteval-v13a tokenization, as sacreBLEU's default tokenizer."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} "
    for pattern, repl in _REGEXES:
        line = pattern.sub(repl, line)
    return " ".join(line.split())


def _ngrams(words, n_max=4):
    counts = Counter()
    for n in range(1, n_max + 1):
        for i in range(len(words) - n + 1):
            counts[tuple(words[i:i + n])] += 1
    return counts


@dataclass
class BleuScore:
    score: float
    precisions: list
    bp: float
    sys_len: int
    ref_len: int

    def format(self) -> str:
        p = "/".join(f"{x:.1f}" for x in self.precisions)
        ratio = self.sys_len / self.ref_len if self.ref_len else 0.0
        return (f"BLEU = {self.score:.2f} {p} (BP = {self.bp:.3f} ratio = {ratio:.3f} "
                f"hyp_len = {self.sys_len:d} ref_len = {self.ref_len:d})")


def corpus_bleu(hypotheses, references) -> BleuScore:
    """hypotheses: list of strings; references: list of reference streams (lists of strings)."""
    for ref in references:
        if len(ref) != len(hypotheses):
            raise ValueError(f"{len(hypotheses)} hypotheses but a reference stream of {len(ref)} lines")
    correct, total = [0] * 4, [0] * 4
    sys_len = ref_len = 0
    for i, hyp in enumerate(hypotheses):
        h = tokenize_13a(hyp).split()
        refs = [tokenize_13a(r[i]).split() for r in references]
        sys_len += len(h)
        # closest reference length, shorter one on ties (as sacreBLEU)
        ref_len += min((abs(len(r) - len(h)), len(r)) for r in refs)[1]
        h_counts = _ngrams(h)
        max_ref = Counter()
        for r in refs:
            for g, c in _ngrams(r).items():
                max_ref[g] = max(max_ref[g], c)
        for g, c in h_counts.items():
            n = len(g) - 1
            total[n] += c
            correct[n] += min(c, max_ref[g])
    precisions = [0.0] * 4
    if sys_len == 0:
        return BleuScore(0.0, precisions, 0.0, sys_len, ref_len)
    smooth = 1.0
    for n in range(4):
        if total[n] == 0:
            break
        if correct[n] == 0:
            smooth *= 2
            precisions[n] = 100.0 / (smooth * total[n])
        else:
            precisions[n] = 100.0 * correct[n] / total[n]
    bp = 1.0 if sys_len >= ref_len else math.exp(1 - ref_len / sys_len)
    logs = [math.log(p) if p > 0 else -9999999999 for p in precisions]
    score = bp * math.exp(sum(logs) / 4)
    return BleuScore(score, precisions, bp, sys_len, ref_len)

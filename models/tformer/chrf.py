"""Corpus chrF as sacreBLEU 2.x computes it; the default is chrF2 (sacreBLEU's `chrF2` signature:
character n-grams up to 6, no word n-grams, beta 2, whitespace removed, case-sensitive, no epsilon
smoothing). tests/models/test_bleu.py checks it against the values sacreBLEU's own test suite
asserts.

How sacreBLEU computes it: each sentence contributes, per n-gram order, the counts of hypothesis
n-grams, reference n-grams and matched n-grams (clipped); the corpus score is computed once from the
summed counts. Without smoothing, precision and recall are averaged over the orders where both the
hypothesis and the reference have n-grams (the "effective order"), then combined into F-beta. With
`eps_smoothing` (chrF++.py's and NLTK's rule) an F-beta is computed per order, an empty order
counting as 1e-16, and the F-betas are averaged over all orders."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

_EPS = 1e-16


def _char_ngrams(line: str, order: int, whitespace: bool) -> list[Counter]:
    if not whitespace:
        line = "".join(line.split())
    return [Counter(line[i:i + n] for i in range(len(line) - n + 1)) for n in range(1, order + 1)]


@dataclass
class ChrfScore:
    score: float
    beta: int
    char_order: int

    def format(self) -> str:
        return f"chrF{self.beta} = {self.score:.2f}"


def _f_score(stats: list[int], order: int, beta: float, eps_smoothing: bool) -> float:
    factor = beta ** 2
    score = avg_prec = avg_rec = 0.0
    effective = 0
    for i in range(order):
        n_hyp, n_ref, n_match = stats[3 * i:3 * i + 3]
        prec = n_match / n_hyp if n_hyp > 0 else _EPS
        rec = n_match / n_ref if n_ref > 0 else _EPS
        denom = factor * prec + rec
        score += (1 + factor) * prec * rec / denom if denom > 0 else _EPS
        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective += 1
    if eps_smoothing:
        return 100 * score / order
    if effective == 0:
        return 0.0
    avg_prec /= effective
    avg_rec /= effective
    if avg_prec + avg_rec == 0:
        return 0.0
    return 100 * (1 + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec)


def corpus_chrf(hypotheses, references, char_order: int = 6, beta: int = 2, whitespace: bool = False,
                eps_smoothing: bool = False) -> ChrfScore:
    """hypotheses: list of strings; references: list of reference streams (lists of strings).
    With several streams each sentence takes the reference that gives it the best sentence score."""
    for ref in references:
        if len(ref) != len(hypotheses):
            raise ValueError(f"{len(hypotheses)} hypotheses but a reference stream of {len(ref)} lines")
    totals = [0] * (3 * char_order)
    for i, hyp in enumerate(hypotheses):
        h = _char_ngrams(hyp.strip(), char_order, whitespace)
        best, best_f = None, -1.0
        for stream in references:
            r = _char_ngrams(stream[i].strip(), char_order, whitespace)
            stats = []
            for hn, rn in zip(h, r):
                stats += [sum(hn.values()), sum(rn.values()), sum((hn & rn).values())]
            f = _f_score(stats, char_order, beta, eps_smoothing)
            if f > best_f:
                best, best_f = stats, f
        totals = [a + b for a, b in zip(totals, best)]
    return ChrfScore(_f_score(totals, char_order, beta, eps_smoothing), beta, char_order)

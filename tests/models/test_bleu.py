#!/usr/bin/python3
"""models/tformer/bleu.py and chrf.py against sacreBLEU's own published test values (sacrebleu's
test/test_bleu.py: the README example with two reference streams, empty hypotheses, and
raw-BLEU cases; test/test_chrf.py: chrF with and without epsilon smoothing, with whitespace kept,
and sentence-level chrF2), so that our BLEU and chrF numbers mean what sacreBLEU's mean.
Prints "N passed, N failed"."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
from tformer.bleu import corpus_bleu, tokenize_13a  # noqa: E402
from tformer.chrf import corpus_chrf  # noqa: E402

REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]
HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]

CASES = [
    # (hypotheses, reference streams, sacreBLEU's score with default settings)
    (HYPS, REFS, 48.530827),
    (["", "", ""], REFS, 0.0),
    (["this is a test"], [["this is a test"]], 100.0),
]

# sacreBLEU's test/test_chrf.py: (hypotheses, references, keyword arguments, expected score).
OBAMA_DE = ("Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich.",
            "Das Verh\u00e4ltnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.")
RISK = ("risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists .",
        "risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists .")
CHRF_CASES = [
    # sacreBLEU's default mode (effective order, no smoothing), beta 3
    (["a"], ["a"], {"beta": 3}, 100.0),
    ([""], ["reference"], {"beta": 3}, 0.0),
    (["a b c"], ["a b c"], {"beta": 3}, 100.0),
    (["a b c"], ["abc"], {"beta": 3}, 100.0),
    ([""], ["c"], {"beta": 3}, 0.0),
    (["a", "b"], ["a", "c"], {"beta": 3}, 50.0),
    (["aa"], ["ab"], {"beta": 3}, 25.0),
    # epsilon smoothing (chrF++.py / NLTK), beta 3
    (["abcdefg"], ["hijklmnop"], {"beta": 3, "eps_smoothing": True}, 0.0),
    (["aa"], ["ab"], {"beta": 3, "eps_smoothing": True}, 8.3333),
    (["a", "b"], ["a", "c"], {"beta": 3, "eps_smoothing": True}, 8.3333),
    (["a"], ["a"], {"beta": 3, "eps_smoothing": True}, 16.6667),
    (["a b c"], ["abc"], {"beta": 3, "eps_smoothing": True}, 50.0),
    ([" " + RISK[0]], [RISK[1]], {"beta": 3, "eps_smoothing": True}, 63.361730),
    ([" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "], [OBAMA_DE[1]],
     {"beta": 3, "eps_smoothing": True}, 64.1302698),
    # whitespace kept, beta 3
    ([OBAMA_DE[0]], [OBAMA_DE[1]], {"beta": 3, "whitespace": True}, 67.3481606),
    ([RISK[0]], [RISK[1]], {"beta": 3, "whitespace": True}, 65.2414427),
    # sentence-level chrF2 with epsilon smoothing (sacreBLEU's sentence_chrf test)
    (["Lapali po dechu, jejich \u017eivoty skon\u010dily d\u0159\u00edv, ne\u017e skute\u010dn\u011b za\u010daly."],
     ["Lapali po dechu a pak jejich \u017eivot skon\u010dil - d\u0159\u00edv, ne\u017e skute\u010dn\u011b mohl za\u010d\u00edt, p\u0159ipomn\u011bli."],
     {"eps_smoothing": True}, 57.15704367),
    # the default chrF2 (the figure sacreBLEU's documentation gives for this pair)
    (["The relationship between Obama and Netanyahu is not exactly friendly."],
     ["The ties between Obama and Netanyahu are not particularly friendly."], {}, 61.576379378113785),
]

# mteval-v13a rules: punctuation split off, except periods/commas inside numbers.
TOKENIZE_13A = [
    ("Hello, world.", "Hello , world ."),
    ("It costs $3.50, or 3,50 EUR.", "It costs $ 3.50 , or 3,50 EUR ."),
    ("A-B 1-2 &quot;x&quot;", 'A-B 1 - 2 " x "'),
]


def main():
    passed = failed = 0
    for hyp, refs, expected in CASES:
        got = corpus_bleu(hyp, refs).score
        ok = abs(got - expected) < 1e-6
        print(f"{'ok ' if ok else 'FAIL'} corpus_bleu {hyp[0][:30]!r}...: {got:.6f} (sacreBLEU {expected})")
        passed, failed = passed + ok, failed + (not ok)
    for text, expected in TOKENIZE_13A:
        got = tokenize_13a(text)
        ok = got == expected
        print(f"{'ok ' if ok else 'FAIL'} 13a {text!r} -> {got!r}" + ("" if ok else f" (expected {expected!r})"))
        passed, failed = passed + ok, failed + (not ok)
    for hyp, ref, kwargs, expected in CHRF_CASES:
        got = corpus_chrf(hyp, [ref], **kwargs).score
        ok = abs(got - expected) < 1e-4
        print(f"{'ok ' if ok else 'FAIL'} corpus_chrf {hyp[0][:30]!r} {kwargs}: {got:.6f} (sacreBLEU {expected})")
        passed, failed = passed + ok, failed + (not ok)
    try:
        corpus_bleu(["a"], [["a", "b"]])
        print("FAIL length mismatch accepted")
        failed += 1
    except ValueError as e:
        print(f"ok  length mismatch refused: {e}")
        passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

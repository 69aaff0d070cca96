#!/usr/bin/python3
"""models/tformer/bleu.py against sacreBLEU's own published test values (sacrebleu's
test/test_bleu.py: the README example with two reference streams, empty hypotheses, and
raw-BLEU cases), so that our BLEU numbers mean what sacreBLEU's mean. Prints "N passed, N failed"."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
from tformer.bleu import corpus_bleu, tokenize_13a  # noqa: E402

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

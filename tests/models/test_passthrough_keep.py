#!/usr/bin/python3
"""Passthrough on the shipped models: what it must keep, it keeps, and it costs no BLEU.

For tiny.deen and tiny.ende (the int8 files, as the package loads them), on small sets built from
the public test sets at run time (tests/bench/passthrough_sets.py): the first lines with a digit of
each test set, and test lines with a URL, an e-mail address or an emoji put in. The CLI translates
them greedily with passthrough (the default) and without (--no-passthrough). Checks:
- numbers kept: at least 99% of the source's numbers are in the output (as the source or the target
  language writes them);
- URLs, e-mail addresses and emoji kept: all of them, byte for byte;
- BLEU of the number lines with passthrough at least that without it (the sentence around a number
  is the model's own: passthrough only puts back what the model lost).
tests/bench/passthrough.py measures the same on the whole sets. Prints "N passed, N failed".
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))

from tformer.bleu import corpus_bleu  # noqa: E402
import passthrough_sets as ps  # noqa: E402

CLI = os.path.join(ROOT, "build", "tformer")
MODELS = {"tiny.deen": ("de", "en"), "tiny.ende": ("en", "de")}
NUMBER_LINES = 25  # of each of the four test sets
SYMBOL_LINES = 45

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok: {what}")
    else:
        failed += 1
        print(f"FAILED: {what}")


def translate(model, lines, *flags):
    r = subprocess.run([CLI, "translate", "-m", model, "--no-split", *flags], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=True)
    return r.stdout.split("\n")[:len(lines)]


def main():
    if not os.path.exists(ps.DATA):
        print(f"no test sets at {ps.DATA}")
        print("0 passed, 1 failed")
        return 1
    for name, (src, tgt) in MODELS.items():
        model = os.path.join(ROOT, "models", name, "model.int8.tfm")
        if not os.path.exists(model):  # made by `models/tfm variants`, as .ci/run does
            model = os.path.join(ROOT, "models", name, "model.tfm")
        n_src, n_ref = ps.numbers_set(src, tgt, NUMBER_LINES)
        s_src, _ = ps.symbols_set(src, tgt, SYMBOL_LINES)
        on = translate(model, n_src + s_src)
        off = translate(model, n_src, "--no-passthrough")
        kept = ps.keeping(n_src + s_src, on)
        total, numbers = kept["numbers"]
        check(total > 0 and numbers >= 0.99 * total, f"{name}: numbers kept {numbers}/{total}")
        for kind in ("urls", "emails", "emoji"):
            total, k = kept[kind]
            check(total > 0 and k == total, f"{name}: {kind} kept {k}/{total}")
        bleu_on = corpus_bleu(on[:len(n_src)], [n_ref]).score
        bleu_off = corpus_bleu(off, [n_ref]).score
        check(bleu_on >= bleu_off, f"{name}: BLEU of {len(n_src)} number lines with passthrough {bleu_on:.2f}, "
                                   f"without {bleu_off:.2f}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""`tformer translate --confidence`: one JSON object per input line, read here by Python's json.

  tests/cli/test_confidence_json.py TFORMER FIXTURES_DIR

On a golden fixture (the plain model, as the PyTorch reference decodes): each line's text is the
reference's translation, its score the reference's summed log-probability over its length, one
log-probability per reference token; each word's start and end are UTF-8 byte offsets of its text
in its sentence, its confidence the product of its tokens' probabilities. With the shipped de->en model
(when present): several sentences in a line, non-ASCII text, HTML. An empty line, and the options
--confidence cannot go with. Prints "N passed, N failed"; exits 1 on a failure."""
import json
import math
import os
import subprocess
import sys

TFORMER, FIXTURES = sys.argv[1], sys.argv[2]
SHIPPED = os.path.join(FIXTURES, "..", "..", "models", "tiny.deen", "model.tfm")
PLAIN = ["--no-passthrough", "--no-repetition-guard"]
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else f": {detail}"))


def run(model, lines, *options):
    p = subprocess.run([TFORMER, "translate", "-m", model, "--confidence", *options],
                       input=("\n".join(lines) + "\n").encode(), capture_output=True)
    if p.returncode != 0:
        raise SystemExit(f"tformer failed ({p.returncode}): {p.stderr.decode(errors='replace')}")
    return [json.loads(l) for l in p.stdout.decode().splitlines()]


def words_hold(row, where):
    """Each word's bytes in its sentence are its text; its confidence is the product of its
    tokens' probabilities, in (0, 1]; words are in order, EOS (the last token) in none; the score is the mean
    of the log-probabilities."""
    for s in row["sentences"]:
        text = s["text"].encode()
        lp = s["logProbs"]
        if abs(s["score"] - sum(lp) / len(lp)) > 1e-5:
            return f"{where}: score {s['score']} is not the mean of {lp}"
        after = 0
        for w in s["words"]:
            if not (after <= w["start"] < w["end"] <= len(text)):
                return f"{where}: word {w} out of order or out of {len(text)} bytes"
            if text[w["start"]:w["end"]].decode() != w["text"]:
                return f"{where}: bytes [{w['start']}, {w['end']}) of {s['text']!r} are not {w['text']!r}"
            first, last = w["tokens"]
            if not (0 <= first < last < len(lp)):
                return f"{where}: word {w} has tokens outside [0, {len(lp) - 1})"
            product = math.exp(sum(lp[first:last]))
            if not (0 < w["confidence"] <= 1) or abs(w["confidence"] - product) > 1e-5:
                return f"{where}: word {w} has confidence {w['confidence']}, its tokens' probability is {product}"
            after = w["end"]
    return None


# The golden fixture: the PyTorch reference's translations and scores.
for variant in ["marian", "tutorial"]:
    golden = json.load(open(os.path.join(FIXTURES, variant, "golden.json"), encoding="utf-8"))
    texts = [s["text"] for s in golden["sentences"]]
    expected = open(os.path.join(FIXTURES, variant, "expected.greedy.txt"), encoding="utf-8").read().splitlines()
    rows = run(os.path.join(FIXTURES, variant, "model.tfm"), texts + [""], *PLAIN)
    check(f"{variant}: one JSON line per input line", len(rows) == len(texts) + 1, f"{len(rows)} lines")
    for i, (row, s) in enumerate(zip(rows, golden["sentences"])):
        g = s["greedy"]
        n = len(g["tokens"])
        sentence = row["sentences"][0] if len(row["sentences"]) == 1 else None
        check(f"{variant} line {i}: the reference's translation", row["text"] == expected[i] and sentence is not None,
              f"{row['text']!r} against {expected[i]!r}")
        if sentence is None:
            continue
        check(f"{variant} line {i}: one log-probability per reference token", len(sentence["logProbs"]) == n,
              f"{len(sentence['logProbs'])} for {n} tokens")
        check(f"{variant} line {i}: score = the reference's log-probability / length",
              abs(sentence["score"] - g["raw_score"] / n) < 1e-4, f"{sentence['score']} against {g['raw_score'] / n}")
        problem = words_hold(row, f"{variant} line {i}")
        check(f"{variant} line {i}: words", problem is None, problem)
    check(f"{variant}: an empty line has no sentences", rows[-1] == {"text": "", "sentences": []}, rows[-1])

# The shipped model: sentences of a line, multi-byte characters, HTML.
if os.path.exists(SHIPPED):
    rows = run(SHIPPED, ["Die Straße ist nass. Überall liegen Blätter.", "Grüße aus Köln!"])
    check("shipped: two sentences in a line", len(rows[0]["sentences"]) == 2, rows[0])
    check("shipped: the line's text joins its sentences",
          rows[0]["text"] == " ".join(s["text"] for s in rows[0]["sentences"]), rows[0]["text"])
    for i, row in enumerate(rows):
        problem = words_hold(row, f"shipped line {i}")
        check(f"shipped line {i}: words", problem is None, problem)
        check(f"shipped line {i}: every sentence has words", all(s["words"] for s in row["sentences"]), row)
    html = run(SHIPPED, ["<p>Ich habe <b>drei</b> Katzen.</p>"], "--html")[0]
    check("--html: the line's text is the HTML", "<b>" in html["text"], html["text"])
    check("--html: the words are in the sentences' plain text",
          all("<" not in s["text"] for s in html["sentences"]) and words_hold(html, "html") is None,
          json.dumps(html))
else:
    print(f"skipped the shipped model's checks: no {SHIPPED}")

# Options --confidence cannot go with: a usage error (exit status 2) naming them.
model = os.path.join(FIXTURES, "marian", "model.tfm")
for extra in (["--scores"], ["--beam", "2", "--nbest", "2"]):
    p = subprocess.run([TFORMER, "translate", "-m", model, "--confidence", *extra], input=b"Hallo\n", capture_output=True)
    check(f"--confidence with {' '.join(extra)}: a usage error",
          p.returncode == 2 and b"--confidence cannot be used with" in p.stderr, (p.returncode, p.stderr))

print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
sys.exit(0 if all(results) else 1)

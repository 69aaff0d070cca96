#!/usr/bin/python3
"""Where links and emphasis land: each fragment of tests/fixtures/html/placement.json translated by
`tformer translate --html` with its shipped model, and each of its elements (a, b, i, em, strong)
compared with the words a hand check says it should hold. An element that holds a word it should
not ("<a>big lake with</a>") gains one; one that misses a word it should hold loses one. Words are
compared without the punctuation around them. A case whose translation is no longer the one the
reference was checked against is reported as stale (its reference must be checked again by hand).

Prints each misplaced element and the rate; exits 1 when more than --max-wrong elements are
misplaced, or a case is stale.

Usage: tests/cli/html_placement.py [--tformer PATH] [--max-wrong N]
"""
from __future__ import annotations

import argparse
import html
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "html", "placement.json")
PUNCTUATION = ".,;:!?()[]{}\"'„“”‚‘’«»"


def words(text: str) -> list[str]:
    out = []
    for w in html.unescape(re.sub(r"<[^>]+>", " ", text)).split():
        w = w.strip(PUNCTUATION)
        if w:
            out.append(w)
    return out


def plain(fragment: str) -> str:
    """A fragment's text as the fixture records it: tags removed, spaces folded."""
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fragment))).strip()
    return re.sub(r" ([.,!?;:])", r"\1", text)


def element_text(out: str, start_tag: str, occurrence: int) -> str | None:
    """The markup inside the occurrence-th element that starts with start_tag, or None."""
    at = -1
    for _ in range(occurrence + 1):
        at = out.find(start_tag, at + 1)
        if at < 0:
            return None
    name = re.match(r"<([a-z]+)", start_tag).group(1)
    depth, i = 1, at + len(start_tag)
    for m in re.compile(rf"<(/?){name}(?=[\s>])[^>]*>").finditer(out, i):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return out[i:m.start()]
    return None


def translate(tformer: str, model: str, lines: list[str]) -> list[str]:
    path = os.path.join(ROOT, "models", model, "model.tfm")
    r = subprocess.run([tformer, "translate", "--html", "-m", path], input="".join(line + "\n" for line in lines),
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit(f"tformer failed ({r.returncode}): {r.stderr}")
    out = r.stdout.split("\n")[:-1]
    if len(out) != len(lines):
        sys.exit(f"{len(lines)} lines in, {len(out)} out")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tformer", default=os.environ.get("TFORMER", os.path.join(ROOT, "build", "tformer")))
    ap.add_argument("--max-wrong", type=int, default=None, help="fail when more elements than this are misplaced")
    args = ap.parse_args()
    with open(FIXTURE, encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    outputs: dict[int, str] = {}
    for model in sorted({c["model"] for c in cases}):
        chosen = [i for i, c in enumerate(cases) if c["model"] == model]
        for i, out in zip(chosen, translate(args.tformer, model, [cases[i]["html"] for i in chosen])):
            outputs[i] = out
    total = wrong = gained = lost = stale = 0
    for i, c in enumerate(cases):
        out = outputs[i]
        if plain(out) != c["translation"]:
            stale += 1
            print(f"STALE {c['html']}\n  the translation is now: {plain(out)}\n  the reference was checked against: {c['translation']}")
            continue
        seen: dict[str, int] = {}
        for start_tag, expected in c["spans"]:
            total += 1
            k = seen.get(start_tag, 0)
            seen[start_tag] = k + 1
            inner = element_text(out, start_tag, k)
            got = words(inner) if inner is not None else []
            want = words(expected)
            extra = [w for w in got if w not in want]
            missing = [w for w in want if w not in got]
            if extra or missing:
                wrong += 1
                gained += bool(extra)
                lost += bool(missing)
                print(f"{start_tag} should hold '{expected}', holds '{' '.join(got)}'"
                      f"{' (gains ' + ' '.join(extra) + ')' if extra else ''}{' (loses ' + ' '.join(missing) + ')' if missing else ''}"
                      f"\n  {c['html']}\n  {out}")
    rate = wrong / total if total else 0.0
    print(f"{wrong} of {total} elements misplaced ({100 * rate:.1f}%): {gained} gain a word, {lost} lose one"
          f"{f'; {stale} stale cases' if stale else ''}")
    if stale or (args.max_wrong is not None and wrong > args.max_wrong):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

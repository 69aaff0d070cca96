"""The sets and measures of passthrough's benchmark (tests/bench/passthrough.py) and regression test
(tests/models/test_passthrough_keep.py): what share of a source's numbers, URLs, e-mail addresses
and emoji a translation keeps.

Sets, built from the public test sets (../shared/data/deen/test) each time, never stored:
- each test set as it is;
- `numbers`: every line of the test sets whose source has a digit (the number-rich part: news
  dates, scores, prices, years, ordinals);
- `symbols`: lines of the test sets with a URL, an e-mail address or an emoji put in, on both the
  source and the reference side (at the start, before the closing punctuation, or after the first
  comma), so that the reference stays a translation of the source: the test sets themselves have
  none but one e-mail address.

Numbers kept: of the numbers of the source (runs of digits with '.', ',' or ':' between digits:
"1.000", "3,5", "18:17", "19" of "19."; thousands grouped by spaces or apostrophes: "25 000", "95'000"; those inside a URL or
an address are counted as that), the share that the output has, as the source writes it or as the
target language writes it: '.' and ',' exchanged ("1.000" -> "1,000", "3,5" -> "3.5") or the same
thousands grouped otherwise or not at all ("1.000" -> "1000", "25 000" -> "25,000").
Counted with repeats: a number twice in the source must be twice in the output.
URLs, addresses and emoji kept: the share found in the output byte for byte.
"""
from __future__ import annotations

import os
import re
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "deen", "test"))
TEST_SETS = ("flores-devtest", "newstest2019", "newstest2020", "multi30k-test2016")

NUMBER = re.compile(r"(?<![0-9])(?:[0-9]{1,3}(?:[ \u00a0\u202f'\u2019][0-9]{3}(?![0-9]))+|[0-9]+)(?:[.,:][0-9]+)*")
URL = re.compile(r"(?:https?://|ftp://|www\.)[^\s<>\"]*[^\s<>\".,;:!?)\]]", re.I)
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")

# Put into the symbols set, in turn. Emoji of several code points (skin tone, ZWJ sequences, flags,
# keycaps) as well as single ones.
URLS = ["https://www.example.org/news/2024/05/article.html", "www.example.com", "http://example.net/a?id=42&lang=de",
        "https://de.wikipedia.org/wiki/Berlin", "ftp://files.example.org/pub/readme.txt"]
EMAILS = ["info@example.com", "anna.schmidt@example.de", "press-office@example.org", "j.doe+news@mail.example.net"]
EMOJI = ["😀", "👍", "❤️", "👍🏽", "🇩🇪", "👨‍👩‍👧", "☀️", "1️⃣", "🎉", "✅"]


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def load_set(name, src, tgt, lines=None):
    """(sources, references) of test set `name` in direction src->tgt, its first `lines` lines."""
    s = read_lines(os.path.join(DATA, f"{name}.{src}"))[:lines]
    t = read_lines(os.path.join(DATA, f"{name}.{tgt}"))[:lines]
    return s, t


def numbers_set(src, tgt, lines=None):
    """Every line of the test sets whose source has a digit, at most `lines` of each set."""
    out_s, out_t = [], []
    for name in TEST_SETS:
        s, t = load_set(name, src, tgt)
        picked = [(a, b) for a, b in zip(s, t) if NUMBER.search(a)][:lines]
        out_s += [a for a, _ in picked]
        out_t += [b for _, b in picked]
    return out_s, out_t


def _insert(line, thing, where):
    """`thing` put into `line`: 0 at the start, 1 before the closing punctuation, 2 after the first
    comma (else before the closing punctuation)."""
    if where == 0:
        return f"{thing} {line}"
    if where == 2 and ", " in line:
        i = line.index(", ") + 2
        return f"{line[:i]}{thing} {line[i:]}"
    m = re.search(r"[.!?\"“”»«]*$", line)
    return f"{line[:m.start()]} {thing}{line[m.start():]}"


def symbols_set(src, tgt, lines=200):
    """`lines` lines of FLORES devtest and newstest2019 without digits, each with a URL, an e-mail
    address or an emoji put in at the same place of source and reference."""
    pool = []
    for name in ("flores-devtest", "newstest2019"):
        s, t = load_set(name, src, tgt)
        pool += [(a, b) for a, b in zip(s, t) if not NUMBER.search(a) and 4 <= len(a.split()) <= 30]
    step = max(1, len(pool) // lines)
    out_s, out_t = [], []
    for k, (a, b) in enumerate(pool[::step][:lines]):
        kind = k % 3
        thing = (URLS, EMAILS, EMOJI)[kind][(k // 3) % len((URLS, EMAILS, EMOJI)[kind])]
        where = (k // 9) % 3
        if kind == 0 and where == 0:
            thing = f"({thing})"  # a URL opening a sentence is rare; in brackets it stands anywhere
        out_s.append(_insert(a, thing, where))
        out_t.append(_insert(b, thing, where))
    return out_s, out_t


def build_sets(src, tgt, lines=None, symbol_lines=200):
    """{name: (sources, references)}: the test sets, `numbers` and `symbols`."""
    sets = {name: load_set(name, src, tgt, lines) for name in TEST_SETS}
    sets["numbers"] = numbers_set(src, tgt, lines)
    sets["symbols"] = symbols_set(src, tgt, symbol_lines)
    return sets


def _ungrouped(n):
    """The digits of a number in thousands groups (one separator: '.', ',' or a space), else None."""
    groups = re.split(r"[., \u00a0\u202f'\u2019]", n)
    if len(groups) > 1 and all(len(g) == 3 for g in groups[1:]) and len(set(re.findall(r"[., \u00a0\u202f'\u2019]", n))) == 1:
        return "".join(groups)
    return None


def number_forms(n):
    """How a target language may write number `n` of the source: as written, '.' and ',' exchanged,
    or the same thousands grouped otherwise or not at all ("1000" -> "1.000")."""
    forms = {n, n.translate(str.maketrans(".,", ",."))}
    digits = _ungrouped(n) or (n if n.isdigit() and len(n) >= 4 else None)
    if digits:
        forms.add(digits)
        head = len(digits) % 3 or 3
        parts = [digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)]
        forms.update(sep.join(parts) for sep in (",", ".", " "))
    return forms


def source_numbers(line):
    return NUMBER.findall(_strip(line))


def _strip(line):
    """`line` without its URLs, addresses and keycap emoji ("1️⃣"), which are kept whole or not."""
    return EMAIL.sub(" ", URL.sub(" ", line)).replace("1\ufe0f\u20e3", " ")


def kept_numbers(source, output):
    """(numbers of `source`, how many of them `output` has), with repeats."""
    wanted = source_numbers(source)
    have = Counter(NUMBER.findall(_strip(output)))
    kept = 0
    for n in wanted:
        for form in sorted(number_forms(n)):
            if have[form] > 0:
                have[form] -= 1
                kept += 1
                break
    return len(wanted), kept


def emoji_of(line):
    """The emoji of EMOJI in `line`, longest first ("👍🏽" is not also a "👍")."""
    found = []
    for e in sorted(EMOJI, key=len, reverse=True):
        found += [e] * line.count(e)
        line = line.replace(e, " ")
    return found


def kept_symbols(source, output):
    """{kind: (in source, kept)} for urls, emails and emoji."""
    out = {}
    for kind, found in (("urls", URL.findall(source)), ("emails", EMAIL.findall(source)), ("emoji", emoji_of(source))):
        have = output
        kept = 0
        for x in found:
            if x in have:
                have = have.replace(x, "", 1)
                kept += 1
        out[kind] = (len(found), kept)
    return out


def keeping(sources, outputs):
    """Totals over a set: {"numbers": (n, kept), "urls": ..., "emails": ..., "emoji": ...}."""
    totals = {k: [0, 0] for k in ("numbers", "urls", "emails", "emoji")}
    for s, o in zip(sources, outputs):
        n, k = kept_numbers(s, o)
        totals["numbers"][0] += n
        totals["numbers"][1] += k
        for kind, (a, b) in kept_symbols(s, o).items():
            totals[kind][0] += a
            totals[kind][1] += b
    return {k: tuple(v) for k, v in totals.items()}

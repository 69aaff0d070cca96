"""`tformer translate --alignment` on the shipped models: each sentence's and each token's bytes
within the input line and the translation, against Debian's SentencePiece for Python
(sentencepiece_offsets.py): a source sentence's pieces and their bytes are SentencePiece's
encoding of the sentence's bytes, a translated sentence is SentencePiece's decoding of its pieces
and their bytes SentencePiece's. The texts hold several sentences, multi-byte characters,
characters SentencePiece normalises ("…", "ﬁ"), an emoji, and whitespace at either end.

    test_annotated_text.py TFORMER_CLI
"""
import json
import os
import subprocess
import sys

from sentencepiece_offsets import decoded, encoded, load

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
LINES = {
    "de": ["Die Katze schläft. Der Hund bellt laut!",
           "  Er sagte … nichts.  Die ﬁnale Runde beginnt heute.  ",
           "Größe: zwölf Äpfel für drei Euro – wirklich? Ja 😀 sicher.",
           "Ein Satz ohne Ende",
           "",
           "   "],
    "en": ["The cat sleeps. The dog barks loudly!",
           "  He said … nothing.  The ﬁnal round starts today.  ",
           "Size: twelve apples for three euros – really? Yes 😀 sure.",
           "A sentence without an end",
           "",
           "   "],
}
SPECIALS = ("<s>", "</s>")
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def translate(cli, model, lines, *flags):
    out = subprocess.run([cli, "translate", "-m", model, "--alignment", *flags], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def check_order(text, sentences, what):
    """Sentences in order, without overlap, only whitespace around and between them; each
    sentence's tokens in order within it, without overlap."""
    for side, data in (("source", text[0]), ("target", text[1])):
        at = 0
        for i, s in enumerate(sentences):
            b, e = s[side]
            check(at <= b <= e <= len(data), f"{what}: {side} sentence {i} at {b, e} after {at}")
            check(data[at:b].strip() == b"", f"{what}: {side} bytes {at, b} between sentences are not whitespace")
            t_at = b
            for k, (tb, te) in enumerate(s[side + "_tokens"]):
                check(t_at <= tb <= te <= e, f"{what}: {side} sentence {i} token {k} at {tb, te}, sentence {b, e}, after {t_at}")
                t_at = max(t_at, te)
            at = e
        check(data[at:].strip() == b"", f"{what}: {side} ends with more than whitespace")


def main():
    cli = sys.argv[1]
    checked = 0
    for pair, language in (("tiny.deen", "de"), ("tiny.ende", "en")):
        model = os.path.join(ROOT, "models", pair, "model.tfm")
        source_sp, target_sp = load(model)
        lines = LINES[language]
        plain = translate(cli, model, lines, "--no-passthrough")
        check(len(plain) == len(lines), f"{pair}: {len(plain)} output lines for {len(lines)}")
        for n, (line, out) in enumerate(zip(lines, plain)):
            what = f"{pair} line {n}"
            source, target = line.encode(), out["translation"].encode()
            check_order((source, target), out["sentences"], what)
            check(bool(out["sentences"]) == bool(line.strip()), f"{what}: sentences {len(out['sentences'])}")
            for i, s in enumerate(out["sentences"]):
                w = f"{what} sentence {i}"
                sb, se = s["source"]
                sentence = source[sb:se].decode()
                check(sentence == sentence.strip() and sentence, f"{w}: source sentence {sentence!r}")
                # The source: SentencePiece's pieces of the sentence, where SentencePiece says they stand.
                pieces, ranges = encoded(source_sp, sentence, "utf-8")
                tokens = [(p, r) for p, r in zip(s["source_pieces"], s["source_tokens"]) if p not in SPECIALS]
                check([p for p, _ in tokens] == pieces, f"{w}: source pieces {[p for p, _ in tokens]} != {pieces}")
                check([tuple(r) for _, r in tokens] == [(sb + b, sb + e) for b, e in ranges],
                      f"{w}: source ranges {[r for _, r in tokens]} != {[(sb + b, sb + e) for b, e in ranges]}")
                for p, r in zip(s["source_pieces"], s["source_tokens"]):
                    if p in SPECIALS:
                        check(r[0] == r[1] and r[0] in (sb, se), f"{w}: {p} at {r}")
                # The target: SentencePiece's decoding of the pieces, where SentencePiece says they stand.
                tb, te = s["target"]
                text, ranges = decoded(target_sp, s["target_pieces"], "utf-8")
                check(target[tb:te].decode() == text, f"{w}: translation {target[tb:te].decode()!r} != decoded {text!r}")
                check([tuple(r) for r in s["target_tokens"]] == [(tb + b, tb + e) for b, e in ranges],
                      f"{w}: target ranges {s['target_tokens']} != {[(tb + b, tb + e) for b, e in ranges]}")
                check(len(s["alignment"]) == len(s["target_tokens"]) and
                      all(len(row) == len(s["source_tokens"]) for row in s["alignment"]), f"{w}: alignment shape")
                checked += 1
        # With passthrough (the default), what the model does not see lies outside its tokens:
        # order and bounds still hold.
        for n, (line, out) in enumerate(zip(lines, translate(cli, model, lines))):
            check_order((line.encode(), out["translation"].encode()), out["sentences"], f"{pair} line {n} (passthrough)")
    for f in failures:
        print("FAIL:", f)
    print(f"{checked} sentences checked against SentencePiece, {len(failures)} failures")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())

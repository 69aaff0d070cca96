#!/usr/bin/python3
"""The alignment gold set (models/eval/alignment/deen.tsv) and the AER tool (models/tformer/aer.py,
`models/tfm aer`): the gold file's validity (indices in range, S within P, its sentences the test
sets' own lines), the AER arithmetic on hand-made examples with values worked out by hand, the
subword-to-word mapping through SentencePiece's offsets, the hard-alignment rules, refusals of bad
input, and one end-to-end run on the shipped models/tiny.deen/model.tfm whose attention is checked
against the reference model's own decoder. Prints "N passed, N failed"."""
import os
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "models"))
from tformer import aer  # noqa: E402

GOLD = os.path.join(ROOT, "models", "eval", "alignment", "deen.tsv")
TEST_SETS = os.path.join(ROOT, "..", "shared", "data", "deen", "test")
MODEL = os.path.join(ROOT, "models", "tiny.deen", "model.tfm")
TFM = os.path.join(ROOT, "models", "tfm")

results = []
TMP = tempfile.TemporaryDirectory()  # every file the tests write, removed at exit


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail else ""))


def refused(name, fn, fragment):
    """fn() must raise ValueError whose message names `fragment`."""
    try:
        fn()
    except ValueError as e:
        check(name, fragment in str(e), str(e))
        return
    check(name, False, "accepted")


def write_temp(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".tsv", dir=TMP.name, delete=False, encoding="utf-8")
    f.write(text)
    f.close()
    return f.name


def pair(links, src="Ein Mann .", tgt="A man ."):
    s, p = aer.parse_links(links)
    return aer.GoldPair("hand:1", src, tgt, s, p)


# ---- the gold set ---------------------------------------------------------------------------

def test_gold():
    gold = aer.read_gold(GOLD)
    check("gold: at least 100 pairs", len(gold) >= 100, f"{len(gold)}")
    sets = {g.origin.split(":")[0] for g in gold}
    check("gold: multi30k-test2016 and harder sets", "multi30k-test2016" in sets and len(sets) >= 2, sets)
    bad = []
    for g in gold:  # independent of read_gold's own checks
        ns, nt = len(aer.words(g.source)), len(aer.words(g.target))
        if not g.sure or not g.sure <= g.possible:
            bad.append(g.origin)
        if any(not (0 <= i < ns and 0 <= j < nt) for i, j in g.possible):
            bad.append(g.origin)
    check("gold: every index in range, S within P, every pair with a sure link", not bad, bad[:5])
    long = [g.origin for g in gold if max(len(g.source.split()), len(g.target.split())) > 25]
    check("gold: sentences of at most 25 words", not long, long)
    origins = [g.origin for g in gold]
    check("gold: no pair twice", len(set(origins)) == len(origins))
    if not os.path.isdir(TEST_SETS):
        print(f"skip gold: test sets not at {TEST_SETS}")
        return
    wrong = []
    for g in gold:
        name, line = g.origin.rsplit(":", 1)
        for side, text in (("de", g.source), ("en", g.target)):
            with open(os.path.join(TEST_SETS, f"{name}.{side}"), encoding="utf-8") as f:
                lines = f.read().split("\n")
            if lines[int(line) - 1] != text:
                wrong.append(f"{g.origin}.{side}")
    check("gold: each sentence is its test set's line", not wrong, wrong[:5])


def test_gold_refusals():
    refused("gold: index out of range", lambda: aer.read_gold(write_temp(
        "x:1\tEin Mann\tA man\t0-0 1-2\n")), "outside")
    refused("gold: link both sure and possible", lambda: aer.read_gold(write_temp(
        "x:1\tEin Mann\tA man\t0-0 0?0\n")), "twice")
    refused("gold: malformed link", lambda: aer.read_gold(write_temp(
        "x:1\tEin Mann\tA man\t0:0\n")), "not a link")
    refused("gold: three fields", lambda: aer.read_gold(write_temp("x:1\tEin Mann\t0-0\n")),
            "4 tab-separated")
    refused("gold: empty file", lambda: aer.read_gold(write_temp("")), "no sentence pairs")


# ---- AER arithmetic (values worked out by hand) ---------------------------------------------

def close(a, b):
    return abs(a - b) < 1e-12


def test_arithmetic():
    # S = {0-0, 1-1}, P = S + {2-1}; A = {0-0, 2-1, 2-2}: |A&S| 1, |A&P| 2, |A| 3, |S| 2
    # AER = 1 - (1 + 2) / (3 + 2) = 0.4, precision 2/3, recall 1/2
    g1 = pair("0-0 1-1 2?1")
    s = aer.score([{(0, 0), (2, 1), (2, 2)}], [g1])
    check("AER of a hand example", close(s.aer, 0.4) and close(s.precision, 2 / 3) and close(s.recall, 0.5),
          s.format())
    s = aer.score([{(0, 0), (1, 1)}], [g1])
    check("A = S gives AER 0", close(s.aer, 0.0) and close(s.recall, 1.0) and close(s.precision, 1.0))
    s = aer.score([{(2, 1)}], [g1])  # a possible-only hit: 1 - (0 + 1) / (1 + 2)
    check("a possible link counts for precision only", close(s.aer, 2 / 3) and close(s.precision, 1.0)
          and close(s.recall, 0.0), s.format())
    s = aer.score([set()], [g1])  # 1 - 0 / (0 + 2)
    check("no links: AER 1, precision 0", close(s.aer, 1.0) and s.precision == 0.0 and s.recall == 0.0)
    # corpus level: counts summed, not sentence AERs averaged. Second pair: S = P = {0-0}, A = {0-1}:
    # totals |A| 4, |S| 3, |A&S| 1, |A&P| 2: AER = 1 - 3/7 (the mean of 0.4 and 1.0 would be 0.7)
    s = aer.score([{(0, 0), (2, 1), (2, 2)}, {(0, 1)}], [g1, pair("0-0")])
    check("corpus AER sums the counts", close(s.aer, 4 / 7) and (s.predicted, s.sure) == (4, 3), s.format())
    g2 = pair("0-0")
    g2.origin = "other:7"
    sets = aer.by_set([{(0, 0), (2, 1), (2, 2)}, {(0, 1)}], [g1, g2])
    check("scores by test set", [(n, k, round(x.aer, 12)) for n, k, x in sets] == [("hand", 1, 0.4), ("other", 1, 1.0)],
          sets)
    refused("score: lengths differ", lambda: aer.score([set()], [g1, g1]), "2 gold pairs")


def test_links_file():
    gold = [pair("0-0 1-1 2?1"), pair("0-0")]
    path = write_temp("0-0 2-1 2-2\n0-1\n")
    s = aer.score(aer.read_links(path, gold), gold)
    check("links file scored like sets", close(s.aer, 4 / 7), s.format())
    refused("links file: too few lines", lambda: aer.read_links(write_temp("0-0\n"), gold), "1 lines")
    refused("links file: index out of range", lambda: aer.read_links(write_temp("0-0\n0-3\n"), gold),
            "outside")
    refused("links file: possible links", lambda: aer.read_links(write_temp("0?0\n0-0\n"), gold), "i-j")


def test_piece_links():
    from tformer import tfm
    from tformer.tokenizer import Tokenizer
    f = tfm.read(MODEL)
    toks = (Tokenizer.from_tfm(f, "source"), Tokenizer.from_tfm(f, "target"))
    g = [aer.GoldPair("hand", "Die Bohrmaschine.", "The drill.", {(1, 1)}, {(1, 1)})]
    sp, tp = toks[0].pieces(g[0].source), toks[1].pieces(g[0].target)
    # a link from a middle piece of "Bohrmaschine" to the last piece of "drill", and the full stops
    i = len(sp) - 2
    j = len(tp) - 2
    path = write_temp(f"{i}-{j} {len(sp) - 1}-{len(tp) - 1}\n")
    got = aer.read_links(path, g, toks)
    check("piece links become word links", got == [{(1, 1), (2, 2)}], f"{sp} {tp} {got}")
    refused("piece links: index out of range", lambda: aer.read_links(
        write_temp(f"{len(sp)}-0\n"), g, toks), "pieces")


# ---- subwords -> words ----------------------------------------------------------------------

def test_words():
    got = aer.words("Ein T-Shirt, 6:2 „Kids’“ Küche…")
    want = ["Ein", "T", "-", "Shirt", ",", "6", ":", "2", "„", "Kids", "’", "“", "Küche", "…"]
    check("words: \\w+ or one other non-space character", [w for w, _, _ in got] == want, got)
    # words of "Ein T-Shirt.": Ein 0-3, T 4-5, - 5-6, Shirt 6-11, . 11-12; hand-made subword spans
    # "Ein", " T-" (two words), "Sh", "irt" (one word), "."
    spans = [(0, 3), (3, 6), (6, 8), (8, 11), (11, 12)]
    got = aer.words_of_spans(spans, "Ein T-Shirt.")
    check("words_of_spans: overlap by characters", got == [[0], [1, 2], [3], [3], [4]], got)


def test_sentencepiece_offsets():
    from tformer import tfm
    from tformer.tokenizer import Tokenizer
    tok = Tokenizer.from_tfm(tfm.read(MODEL), "source")
    text = "„Wir“ sehen 3.5 Bohrmaschinen … usw."
    spans = aer.piece_spans(tok.sp, text)
    pieces = tok.pieces(text)
    check("piece_spans: one span per piece", len(spans) == len(pieces), f"{len(spans)} vs {len(pieces)}")
    # each span holds its piece's text (less the '▁'), except where SentencePiece normalises
    # (… -> '...'); spans tile the text
    tiled = all(spans[k][1] == spans[k + 1][0] for k in range(len(spans) - 1)) and spans[-1][1] == len(text)
    same = all(text[b:e].strip() == p.replace("\u2581", "") for (b, e), p in zip(spans, pieces)
               if p != "\u2581...")
    check("piece_spans: character offsets of the pieces", tiled and same, list(zip(pieces, spans)))
    by_word = {}
    for p, ws in zip(pieces, aer.words_of_spans(spans, text)):
        for w in ws:
            by_word.setdefault(w, []).append(p)
    words = [w for w, _, _ in aer.words(text)]
    # words: „ Wir “ sehen 3 . 5 Bohrmaschinen … usw .
    joined = {words[w]: "".join(ps).replace("\u2581", "") for w, ps in by_word.items()}
    check("subwords cover their words", joined["Bohrmaschinen"] == "Bohrmaschinen" and joined["Wir"] == "Wir"
          and joined["…"] == "..." and joined["usw"] == "usw", joined)


def test_hard_links():
    # source subwords: ▁Bohr | maschine | ▁! (words [0], [0], []); target ▁dr | ill | ▁. (words 0, 0, 1)
    src_words = [[0], [0], []]
    tgt_words = [[0], [0], [1]]
    w = [[0.5, 0.2, 0.3], [0.1, 0.1, 0.8], [0.2, 0.6, 0.2]]
    links = aer.hard_links(w, src_words, tgt_words, [False, True, False])
    # row 1's maximum is the wordless source piece: the best piece with a word wins (ties: first)
    check("hard links: argmax over source pieces with words", links == {(0, 0), (0, 1)}, links)
    src_words = [[0], [1], [2, 3]]
    w = [[0.6, 0.2, 0.2], [0.1, 0.1, 0.8], [0.1, 0.1, 0.8]]
    links = aer.hard_links(w, src_words, tgt_words, [False, True, False])
    check("hard links: a piece of two words links both", links == {(0, 0), (2, 0), (3, 0), (2, 1), (3, 1)},
          links)
    # Bergamot: subword 1 (continuation, 0.8) beats subword 0 (0.6): the whole word takes piece 2
    links = aer.hard_links(w, src_words, tgt_words, [False, True, False], "bergamot")
    check("hard links: Bergamot's word smoothing", links == {(2, 0), (3, 0), (2, 1), (3, 1)}, links)
    w = [[0.9, 0.05, 0.05], [0.1, 0.1, 0.8], [0.1, 0.1, 0.8]]
    links = aer.hard_links(w, src_words, tgt_words, [False, True, False], "bergamot")
    check("hard links: Bergamot keeps the stronger first subword", links == {(0, 0), (2, 1), (3, 1)}, links)
    refused("hard links: unknown rule", lambda: aer.hard_links(w, src_words, tgt_words, [False] * 3, "x"),
            "unknown")


def test_metadata():
    from tformer.config import ModelConfig, alignment_head
    from tformer import tfm
    cfg = ModelConfig.from_dict(tfm.read(MODEL).config)
    # `aer` takes the head that load_tfm_model read with config.alignment_head, as the engine reads it.
    check("alignment_head: read", alignment_head({"alignment_head": {"layer": 1, "head": 3}}, cfg) == (1, 3))
    check("alignment_head: absent", alignment_head({}, cfg) is None)
    refused("alignment_head: layer out of range", lambda: alignment_head(
        {"alignment_head": {"layer": cfg.decoder_layers, "head": 0}}, cfg), "is not a decoder layer")
    refused("alignment_head: head out of range", lambda: alignment_head(
        {"alignment_head": {"layer": 0, "head": cfg.heads}}, cfg), "is not a head")
    refused("alignment_head: not an object", lambda: alignment_head({"alignment_head": [0, 1]}, cfg),
            "alignment_head")
    check("direction: de->en, en->de", aer.direction({"source_language": "de", "target_language": "en"})[0]
          is False and aer.direction({"source_language": "en", "target_language": "de"})[0] is True)
    refused("direction: another language pair", lambda: aer.direction(
        {"source_language": "fr", "target_language": "en"}), "fr -> en")


# ---- the shipped model ----------------------------------------------------------------------

def test_model():
    import torch
    from tformer.decode import greedy, max_target_length, source_ids
    from tformer.export import load_tfm_model
    torch.set_num_threads(1)
    model, src_tok, tgt_tok, _ = load_tfm_model(MODEL)
    cfg = model.cfg
    g = aer.read_gold(GOLD)[:2]
    # the layer loop keeps what the reference decoder computes: its last layer = decode_states'
    src = source_ids(cfg, src_tok.encode(g[0].source))
    tgt = tgt_tok.encode(g[0].target) + [cfg.eos_id]
    att = aer.cross_attention(model, src, tgt)
    with torch.no_grad():
        memory, mask = model.encode(torch.tensor([src]), torch.tensor([len(src)]))
        _, w = model.decode_states(model.decoder_input(torch.tensor([tgt])), memory, mask)
    check("forced decoding: last layer = Transformer.decode_states", torch.allclose(att[-1], w[0], atol=1e-6),
          f"shape {tuple(att.shape)}")
    # forced-decoding the greedy output gives the alignment greedy decoding reports (what the engine
    # returns: the metadata's alignment_head, else the mean over the last layer's heads)
    h = greedy(model, [src], [max_target_length(cfg, len(src))], keep_alignment=True)[0]
    layer = model.alignment_head[0] if model.alignment_head else -1
    forced = model.alignment_of(aer.cross_attention(model, src, h.tokens)[layer].transpose(0, 1))
    steps = torch.stack(h.alignment)
    check("forced decoding = greedy's step alignment", torch.allclose(forced, steps, atol=1e-5),
          f"max diff {float((forced - steps).abs().max()):.2e}")


def run_tfm(*args):
    p = subprocess.run([TFM, "aer", *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def aer_of(out):
    return out.split("AER ")[1].split()[0] if "AER " in out else None


def test_metadata_head():
    """A model whose metadata names an alignment_head is scored on that head by default."""
    from tformer import tfm
    small = write_temp("".join(open(GOLD, encoding="utf-8").readlines()[:12]))
    f = tfm.read(MODEL)
    with_head = os.path.join(TMP.name, "head.tfm")
    f.metadata = dict(f.metadata, alignment_head={"layer": 1, "head": 4})
    tfm.write(with_head, f)
    rc, out = run_tfm(with_head, "--gold", small, "--threads", "1")
    rc2, out2 = run_tfm(MODEL, "--gold", small, "--layer", "1", "--head", "4", "--threads", "1")
    check("the metadata's alignment_head is the default", rc == 0 and rc2 == 0
          and "layer 1 head 4 (metadata alignment_head)" in out and aer_of(out) == aer_of(out2),
          f"{aer_of(out)} vs {aer_of(out2)}")
    rc, out = run_tfm(with_head, "--gold", small, "--mean", "--threads", "1")
    rc2, out2 = run_tfm(MODEL, "--gold", small, "--mean", "--threads", "1")
    check("--mean overrides it", rc == 0 and "mean of layer 1" in out and aer_of(out) == aer_of(out2),
          f"{aer_of(out)} vs {aer_of(out2)}")
    f.metadata = dict(f.metadata, alignment_head={"layer": 1, "head": 99})
    tfm.write(with_head, f)
    rc, out = run_tfm(with_head, "--gold", small)
    check("a bad alignment_head: a clear error", rc != 0 and "head 99" in out and "Traceback" not in out,
          out.strip())


def test_end_to_end():
    out_links = os.path.join(TMP.name, "tiny.deen.align")
    rc, out = run_tfm(MODEL, "--write-links", out_links, "--threads", "1")
    print(out.strip())
    # The shipped model was trained with guided alignment: its metadata names the head scored.
    ok = rc == 0 and "(metadata alignment_head)" in out and "AER " in out
    check("models/tfm aer on tiny.deen: its metadata's alignment head", ok, f"rc {rc}")
    if not ok:
        return
    value = float(out.split("AER ")[1].split()[0])
    check("AER within [0, 1]", 0.0 <= value <= 1.0, value)
    with open(out_links, encoding="utf-8") as f:
        n = sum(1 for _ in f)
    check("--write-links: one line per pair", n == len(aer.read_gold(GOLD)), n)
    rc, out2 = run_tfm("--links", out_links)
    value2 = float(out2.split("AER ")[1].split()[0]) if rc == 0 else None
    check("--links on the written links gives the same AER", value2 == value, out2.strip())
    rc, out = run_tfm(MODEL, "--layer", "9", "--head", "0")
    check("--layer out of range: a clear error", rc != 0 and "decoder layers" in out and "Traceback" not in out,
          out.strip())
    rc, out = run_tfm(os.path.join(ROOT, "models", "no-such.tfm"))
    check("a missing model: a clear error", rc != 0 and "no-such.tfm" in out and "Traceback" not in out,
          out.strip())
    rc, out = run_tfm("--links", out_links, "--pieces")
    check("--pieces without a model: refused", rc != 0 and "--pieces goes with" in out, out.strip())
    rc, out = run_tfm(MODEL, "--layer", "0")
    check("--layer without --head: refused", rc != 0 and "go together" in out, out.strip())


def main():
    for test in (test_gold, test_gold_refusals, test_arithmetic, test_links_file, test_piece_links, test_words,
                 test_sentencepiece_offsets, test_hard_links, test_metadata, test_model, test_metadata_head,
                 test_end_to_end):
        try:
            test()
        except Exception:  # a crash is a failure of that test, the others still run
            traceback.print_exc()
            check(test.__name__, False, "raised")
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())

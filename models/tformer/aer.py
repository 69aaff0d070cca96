"""Alignment error rate (AER) of a model's cross-attention against the hand-checked gold set
(models/eval/alignment/, its README.md gives the format and the annotation guidelines).

AER (Och & Ney 2003), over the whole set: with A the predicted links, S the sure and P the possible
gold links (S is a subset of P),

    AER = 1 - (|A & S| + |A & P|) / (|A| + |S|),  precision = |A & P| / |A|,  recall = |A & S| / |S|.

Words are `WORDS` matches (one rule for the gold set, the model and any aligner output scored here).

A model's links: each gold target sentence is forced-decoded through the PyTorch reference
(model.py), and each target subword's cross-attention weights over the source subwords (one head,
or the mean over the heads of a layer) become one hard link, to the source subword of highest
weight. This is how Marian turns soft alignments into hard ones (`--alignment hard`: the argmax per
target token) and the first step of Bergamot's HTML projection (html.cpp, hardAlignments), which also
leaves out the end-of-sentence tokens on both sides: the source EOS column and the target EOS row
are dropped here too. Bergamot's second step, `--hard bergamot`, then gives every subword of a
SentencePiece word the link of its most confident subword; it is offered for comparison only,
since a SentencePiece word glues trailing punctuation to the word before it ("Hut," is one word),
which moves the punctuation's link onto that word's. Subword links become word links through
character offsets: a subword stands for every gold word whose characters it overlaps. Source
subwords that overlap no gold word (a lone "▁") are never chosen.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass

WORDS = re.compile(r"\w+|[^\w\s]")  # Python's Unicode \w: letters, digits, underscore
DEFAULT_GOLD = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "eval", "alignment",
                                             "deen.tsv"))
GOLD_LANGUAGES = ("de", "en")  # the gold file's source and target columns
LINK = re.compile(r"^(\d+)([-?])(\d+)$")


def words(text: str) -> list:
    """The gold's words of `text`: [(word, start, end)], character offsets."""
    return [(m.group(), m.start(), m.end()) for m in WORDS.finditer(text)]


def parse_links(field: str, where: str = "links"):
    """Pharaoh links 'i-j' (sure) and 'i?j' (possible), space-separated. Returns (S, P) as sets of
    (i, j), P including S. A link given both as sure and as possible is an error."""
    sure, possible = set(), set()
    for item in field.split():
        m = LINK.match(item)
        if not m:
            raise ValueError(f"{where}: {item!r} is not a link 'i-j' or 'i?j'")
        link = (int(m.group(1)), int(m.group(3)))
        if link in sure or link in possible:
            raise ValueError(f"{where}: link {item!r} is given twice")
        (sure if m.group(2) == "-" else possible).add(link)
    return sure, possible | sure


@dataclass
class GoldPair:
    origin: str  # test set and line number, "multi30k-test2016:13"
    source: str  # German
    target: str  # English
    sure: set
    possible: set  # includes sure


def read_gold(path: str = DEFAULT_GOLD) -> list:
    """Reads and validates the gold set: four tab-separated fields a line (origin, German, English,
    links); every link's indices within the two sentences' words, S a subset of P."""
    pairs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            fields = line.rstrip("\n").split("\t")
            where = f"{path}:{n}"
            if len(fields) != 4:
                raise ValueError(f"{where}: expected 4 tab-separated fields (origin, German, English, "
                                 f"links), got {len(fields)}")
            origin, src, tgt, links = fields
            if not src.strip() or not tgt.strip():
                raise ValueError(f"{where}: empty sentence")
            sure, possible = parse_links(links, where)
            ns, nt = len(words(src)), len(words(tgt))
            for i, j in sorted(possible):
                if not (0 <= i < ns and 0 <= j < nt):
                    raise ValueError(f"{where}: link {i}-{j} is outside the sentences' {ns} x {nt} words")
            if not sure <= possible:  # (parse_links builds P from S; kept as the set's definition)
                raise ValueError(f"{where}: a sure link is not possible")
            pairs.append(GoldPair(origin, src, tgt, sure, possible))
    if not pairs:
        raise ValueError(f"{path}: no sentence pairs")
    return pairs


@dataclass
class Score:
    predicted: int  # |A|
    sure: int  # |S|
    hit_sure: int  # |A & S|
    hit_possible: int  # |A & P|

    @property
    def aer(self) -> float:
        total = self.predicted + self.sure
        return 1.0 - (self.hit_sure + self.hit_possible) / total if total else 0.0

    @property
    def precision(self) -> float:
        return self.hit_possible / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.hit_sure / self.sure if self.sure else 0.0

    def format(self) -> str:
        return (f"AER {self.aer:.4f}  precision {self.precision:.4f}  recall {self.recall:.4f}  "
                f"(|A| {self.predicted}, |S| {self.sure})")


def score(predicted, gold) -> Score:
    """Corpus-level counts: predicted is a list of link sets, gold the GoldPairs (same order)."""
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predicted alignments for {len(gold)} gold pairs")
    a = s = hs = hp = 0
    for links, g in zip(predicted, gold):
        links = set(links)
        a += len(links)
        s += len(g.sure)
        hs += len(links & g.sure)
        hp += len(links & g.possible)
    return Score(a, s, hs, hp)


def by_set(predicted, gold) -> list:
    """[(test set, pairs, Score)] for each test set of the gold, in order of first appearance."""
    sets = {}
    for links, g in zip(predicted, gold):
        sets.setdefault(g.origin.rsplit(":", 1)[0], []).append((links, g))
    return [(name, len(items), score([l for l, _ in items], [g for _, g in items]))
            for name, items in sets.items()]


def print_score(label, predicted, gold):
    print(f"{label}: {score(predicted, gold).format()}")
    for name, n, s in by_set(predicted, gold):
        print(f"  {name} ({n} pairs): {s.format()}")


def read_links(path: str, gold, tokenizers=None) -> list:
    """A Pharaoh file line-aligned with the gold set ('i-j' per link, German index first, as a word
    aligner writes it for 'German ||| English' input); every index checked against the gold's words.
    With tokenizers (German's, English's: tokenizer.Tokenizer), the indices are SentencePiece pieces
    (`models/tfm align --pieces`), turned into the gold's words through character offsets."""
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f]
    if len(lines) != len(gold):
        raise ValueError(f"{path}: {len(lines)} lines, but the gold set has {len(gold)} pairs")
    out = []
    for n, (line, g) in enumerate(zip(lines, gold), 1):
        sure, possible = parse_links(line, f"{path}:{n}")
        if possible != sure:
            raise ValueError(f"{path}:{n}: predicted links are 'i-j' only")
        if tokenizers:
            src_words = words_of_spans(piece_spans(tokenizers[0].sp, g.source), g.source)
            tgt_words = words_of_spans(piece_spans(tokenizers[1].sp, g.target), g.target)
            ns, nt, unit = len(src_words), len(tgt_words), "pieces"
        else:
            ns, nt, unit = len(words(g.source)), len(words(g.target)), "words"
        for i, j in sorted(sure):
            if not (0 <= i < ns and 0 <= j < nt):
                raise ValueError(f"{path}:{n}: link {i}-{j} is outside the sentences' {ns} x {nt} {unit}")
        if tokenizers:
            sure = {(a, b) for i, j in sure for a in src_words[i] for b in tgt_words[j]}
        out.append(sure)
    return out


# ---- subwords -> words ----------------------------------------------------------------------

def piece_spans(sp, text: str) -> list:
    """Character spans [(begin, end)] of SentencePiece's pieces of `text`, from the library's own
    offsets (byte offsets in some versions, character offsets in others: both are recognised)."""
    proto = sp.encode_as_immutable_proto(text)
    raw = text.encode("utf-8")
    spans = []
    for p in proto.pieces:
        b, e = p.begin, p.end
        if text[b:e] == p.surface:
            spans.append((b, e))
        elif raw[b:e].decode("utf-8", "replace") == p.surface:
            spans.append((len(raw[:b].decode("utf-8")), len(raw[:e].decode("utf-8"))))
        else:
            raise ValueError(f"SentencePiece's offsets of piece {p.piece!r} do not match {text!r}")
    return spans


def words_of_spans(spans, text: str) -> list:
    """For each subword span, the indices of the gold words it overlaps."""
    ws = words(text)
    return [[k for k, (_, wb, we) in enumerate(ws) if max(b, wb) < min(e, we)] for b, e in spans]


def hard_links(weights, src_words, tgt_words, tgt_continues=None, smoothing: str = "argmax"):
    """weights: [T, S] attention of each target subword (EOS row and column already removed) over
    the source subwords. src_words/tgt_words: gold word indices per subword (words_of_spans).
    tgt_continues[t]: target subword t continues a SentencePiece word (no leading '▁').
    Returns the set of (source word, target word) links."""
    T = len(tgt_words)
    candidates = [s for s, ws in enumerate(src_words) if ws]
    if not candidates:
        return set()
    best = []
    for t in range(T):
        row = weights[t]
        s = max(candidates, key=lambda s: (float(row[s]), -s))  # first maximum
        best.append(s)
    if smoothing == "bergamot":  # html.cpp: a word's subwords share the most confident one's link
        for t in range(1, T):
            if tgt_continues[t]:
                if float(weights[t][best[t]]) > float(weights[t - 1][best[t - 1]]):
                    i = t
                    while True:
                        best[i] = best[t]
                        if i == 0 or not tgt_continues[i]:
                            break
                        i -= 1
                else:
                    best[t] = best[t - 1]
    elif smoothing != "argmax":
        raise ValueError(f"unknown hard-alignment rule {smoothing!r}")
    return {(i, j) for t, s in enumerate(best) for j in tgt_words[t] for i in src_words[s]}


# ---- the model ------------------------------------------------------------------------------

def direction(metadata: dict):
    """(reverse, note): whether the model translates the gold's English into German."""
    pair = (metadata.get("source_language"), metadata.get("target_language"))
    if pair == GOLD_LANGUAGES:
        return False, None
    if pair == GOLD_LANGUAGES[::-1]:
        return True, None
    if pair == (None, None):
        return False, "the model's metadata names no languages: taken as German -> English"
    raise ValueError(f"the gold set is German-English; the model translates {pair[0]} -> {pair[1]}")


def check_head(cfg, layer, head):
    if not 0 <= layer < cfg.decoder_layers:
        raise ValueError(f"layer {layer} is outside the model's {cfg.decoder_layers} decoder layers")
    if head is not None and not 0 <= head < cfg.heads:
        raise ValueError(f"head {head} is outside the model's {cfg.heads} heads")


def cross_attention(model, source_ids, target_ids):
    """Forced decoding of one pair (target_ids end with EOS). Returns [layers, H, T, S] cross-attention
    weights (Transformer.decode_layers)."""
    import torch
    with torch.no_grad():
        memory, mask = model.encode(torch.tensor([source_ids]), torch.tensor([len(source_ids)]))
        _, ws = model.decode_layers(model.decoder_input(torch.tensor([target_ids])), memory, mask)
        return torch.stack([w[0] for w in ws])


@dataclass
class Prepared:
    attention: object  # [layers, H, T, S] without the EOS row/column (and source BOS)
    src_words: list
    tgt_words: list
    tgt_continues: list


def prepare(model, src_tok, tgt_tok, gold, reverse: bool) -> list:
    """Forced-decodes every gold pair and maps its subwords to the gold's words."""
    from .decode import source_ids
    cfg = model.cfg
    out = []
    for g in gold:
        src_text, tgt_text = (g.target, g.source) if reverse else (g.source, g.target)
        s_ids, t_ids = src_tok.encode(src_text), tgt_tok.encode(tgt_text)
        s_spans, t_spans = piece_spans(src_tok.sp, src_text), piece_spans(tgt_tok.sp, tgt_text)
        if len(s_spans) != len(s_ids) or len(t_spans) != len(t_ids):
            raise ValueError(f"{g.origin}: SentencePiece's pieces and ids differ in number")
        full = source_ids(cfg, s_ids)
        first = 1 if cfg.source_bos else 0
        att = cross_attention(model, full, t_ids + [cfg.eos_id])
        att = att[:, :, :len(t_ids), first:first + len(s_ids)]
        pieces = tgt_tok.pieces(tgt_text)
        out.append(Prepared(att, words_of_spans(s_spans, src_text), words_of_spans(t_spans, tgt_text),
                            [not p.startswith("\u2581") for p in pieces]))
    return out


def links_for(prepared, layer, head, smoothing="argmax", reverse=False) -> list:
    """Gold-ordered (German, English) word links of every pair from one head (or head=None: the
    mean over the layer's heads)."""
    result = []
    for p in prepared:
        w = p.attention[layer].mean(0) if head is None else p.attention[layer, head]
        links = hard_links(w, p.src_words, p.tgt_words, p.tgt_continues, smoothing)
        result.append({(j, i) for i, j in links} if reverse else links)
    return result


def format_links(links) -> str:
    return " ".join(f"{i}-{j}" for i, j in sorted(links))


def cmd_aer(args):
    try:
        gold = read_gold(args.gold)
        if args.pieces and not (args.links and args.model):
            raise ValueError("--pieces goes with --links FILE and the model whose tokenizer made the pieces")
        if args.links:
            tokenizers = None
            if args.model:
                if not args.pieces:
                    raise ValueError("give either a model or --links FILE, not both (or --pieces)")
                from . import tfm
                from .tokenizer import Tokenizer
                f = tfm.read(args.model)
                tokenizers = [Tokenizer.from_tfm(f, side) for side in ("source", "target")]
                if direction(f.metadata)[0]:
                    tokenizers.reverse()
            print_score(args.links, read_links(args.links, gold, tokenizers), gold)
            return 0
        if not args.model:
            raise ValueError("give a model (.tfm) or --links FILE")
        if (args.layer is None) != (args.head is None):
            raise ValueError("--layer and --head go together")
        chosen = sum(x for x in (args.layer is not None, args.mean, args.all_heads))
        if chosen > 1:
            raise ValueError("choose one of --layer/--head, --mean and --all-heads")
        if args.threads < 1:
            raise ValueError("--threads must be at least 1")
        import torch
        from .export import load_tfm_model
        torch.set_num_threads(args.threads)
        model, src_tok, tgt_tok, f = load_tfm_model(args.model)
        cfg = model.cfg
        reverse, note = direction(f.metadata)
        if note:
            print(f"note: {note}", file=sys.stderr)
        last = cfg.decoder_layers - 1
        if args.layer is not None:
            check_head(cfg, args.layer, args.head)
            layer, head, what = args.layer, args.head, f"layer {args.layer} head {args.head}"
        else:
            meta_head = model.alignment_head  # the metadata's, checked as the engine checks it
            if meta_head and not (args.mean or args.all_heads):
                layer, head = meta_head
                what = f"layer {layer} head {head} (metadata alignment_head)"
            else:
                layer, head, what = last, None, f"mean of layer {last}'s {cfg.heads} heads"
        prepared = prepare(model, src_tok, tgt_tok, gold, reverse)
    except (ValueError, OSError) as e:
        raise SystemExit(f"models/tfm aer: {e}")
    name = f"{args.model} ({'English -> German' if reverse else 'German -> English'}, {len(gold)} pairs"
    name += f", {args.hard})"
    if args.all_heads:
        print(name)
        best = None
        for L in range(cfg.decoder_layers):
            for H in list(range(cfg.heads)) + [None]:
                s = score(links_for(prepared, L, H, args.hard, reverse), gold)
                label = f"layer {L} {'mean  ' if H is None else f'head {H}'}"
                print(f"{label:16s} {s.format()}")
                if H is not None and (best is None or s.aer < best[0].aer):
                    best = (s, L, H)
        print(f"best single head: layer {best[1]} head {best[2]}: AER {best[0].aer:.4f}")
        if meta_head:
            print(f"the metadata's alignment_head: layer {meta_head[0]} head {meta_head[1]}")
        return 0
    links = links_for(prepared, layer, head, args.hard, reverse)
    if args.write_links:
        try:
            with open(args.write_links, "w", encoding="utf-8") as out:
                for l in links:
                    out.write(format_links(l) + "\n")
        except OSError as e:
            raise SystemExit(f"models/tfm aer: {e}")
    print_score(f"{name}, {what}", links, gold)
    return 0


def register(sub):
    s = sub.add_parser("aer", help="alignment error rate of a model's cross-attention (or of a links "
                                   "file) against the gold set models/eval/alignment/deen.tsv")
    s.add_argument("model", nargs="?", help=".tfm model (f32, f16 or int8), de->en or en->de")
    s.add_argument("--gold", default=DEFAULT_GOLD, help="gold set (default: %(default)s)")
    s.add_argument("--layer", type=int, help="decoder layer of the head to score (with --head)")
    s.add_argument("--head", type=int, help="head to score (with --layer)")
    s.add_argument("--mean", action="store_true",
                   help="the mean over the last decoder layer's heads, even where the metadata names "
                        "an alignment_head (the default without one: what the engine returns then)")
    s.add_argument("--all-heads", action="store_true",
                   help="AER of every (layer, head) and of each layer's mean")
    s.add_argument("--hard", choices=["argmax", "bergamot"], default="argmax",
                   help="soft -> hard: each target subword's argmax source subword (Marian's hard "
                        "alignment), or that plus Bergamot's sharing within a SentencePiece word")
    s.add_argument("--links", metavar="FILE",
                   help="score a Pharaoh links file line-aligned with the gold set (German index first) "
                        "instead of a model")
    s.add_argument("--pieces", action="store_true",
                   help="with --links and a model: the file links SentencePiece pieces of the model's "
                        "tokenizer (models/tfm align --pieces), not the gold's words")
    s.add_argument("--write-links", metavar="FILE", help="write the model's word links (Pharaoh, German "
                                                           "index first) for inspection")
    s.add_argument("--threads", type=int, default=2)
    s.set_defaults(func=cmd_aer)

"""Marian's binary lexical shortlist (lex.*.s2t.bin of Firefox Translations models), read, written
and applied as the engine does (core/src/decoding/shortlist.h states the format and the rules),
and built for our models from the aligner's links (`models/tfm shortlist`).

A `.tfm` file carries the file unchanged as the `u8` tensor `shortlist` (docs/FORMAT.md). A
sentence is then decoded over the target ids `words(source_ids)` only: the other logits are left
out of its log-softmax, as Marian and Bergamot leave them out of the output projection.
"""
from __future__ import annotations

import os
import struct

import numpy as np

MAGIC = 0xF11A48D5013417F5
_MASK = (1 << 64) - 1


def checksum(blob: bytes) -> int:
    """Marian's util::hashMem<uint64_t, uint64_t> over the uint64 words after magic and checksum."""
    seed = 0
    for (w,) in struct.iter_unpack("<Q", blob[16:16 + (len(blob) - 16) // 8 * 8]):
        seed ^= (w + 0x9E3779B9 + ((seed << 6) & _MASK) + (seed >> 2)) & _MASK
    return seed


def write(lists: list, first_num: int, best_num: int) -> bytes:
    """The binary file of per-source-word target id lists (each sorted, as Marian sorts them)."""
    offsets, flat = [0], []
    for targets in lists:
        flat.extend(sorted(int(t) for t in targets))
        offsets.append(len(flat))
    body = (struct.pack(f"<4Q", first_num, best_num, len(offsets), len(flat))
            + np.asarray(offsets, dtype="<u8").tobytes() + np.asarray(flat, dtype="<u4").tobytes())
    blob = struct.pack("<2Q", MAGIC, 0) + body
    return struct.pack("<2Q", MAGIC, checksum(blob)) + body


class LexicalShortlist:
    def __init__(self, blob: bytes, source_vocab: int, target_vocab: int, shared_vocab: bool):
        if len(blob) < 48:
            raise ValueError(f"lexical shortlist: the file is {len(blob)} bytes, shorter than its 48-byte header")
        magic, check, self.first_num, self.best_num, n_offsets, n_lists = struct.unpack_from("<6Q", blob)
        if magic != MAGIC:
            raise ValueError("lexical shortlist: not a Marian binary shortlist")
        if n_offsets != source_vocab + 1:
            raise ValueError(f"lexical shortlist: it has lists for {n_offsets - 1} source words, but the "
                             f"source vocabulary has {source_vocab}")
        if len(blob) != 48 + 8 * n_offsets + 4 * n_lists:
            raise ValueError("lexical shortlist: truncated or corrupted")
        if checksum(blob) != check:
            raise ValueError("lexical shortlist: checksum mismatch")
        self.offsets = np.frombuffer(blob, dtype="<u8", count=n_offsets, offset=48).astype(np.int64)
        self.lists = np.frombuffer(blob, dtype="<u4", count=n_lists, offset=48 + 8 * n_offsets).astype(np.int64)
        if self.offsets[0] != 0 or self.offsets[-1] != n_lists or (np.diff(self.offsets) < 0).any():
            raise ValueError("lexical shortlist: its offsets do not span its lists")
        if n_lists and int(self.lists.max()) >= target_vocab:
            raise ValueError("lexical shortlist: a target id outside the target vocabulary")
        self.target_vocab, self.shared = target_vocab, shared_vocab

    @staticmethod
    def from_tfm(f, source_vocab: int, target_vocab: int):
        """The shortlist of a read .tfm file (tfm.read), or None."""
        if "shortlist" not in f.tensors:
            return None
        tok = f.tokenizer
        shared = (tok.get("source_vocab") == tok.get("target_vocab") if "source_vocab" in tok
                  else tok["source"] == tok["target"])
        return LexicalShortlist(f.tensors["shortlist"].tobytes(), source_vocab, target_vocab, shared)

    def words(self, source_ids) -> list:
        """BinaryShortlistGenerator::generate for a batch of this one sentence: sorted target ids."""
        V = self.target_vocab
        chosen = np.zeros(V, dtype=bool)
        chosen[:min(self.first_num, V)] = True
        for s in set(int(i) for i in source_ids):
            if self.shared:
                chosen[s] = True
            chosen[self.lists[self.offsets[s]:self.offsets[s + 1]]] = True
        ones = int(chosen.sum())
        i = self.first_num
        while ones % 8 and i < V:
            if not chosen[i]:
                chosen[i] = True
                ones += 1
            i += 1
        return np.flatnonzero(chosen).tolist()


# ---- building a shortlist from word links (`models/tfm shortlist`) -----------------------------
#
# As Firefox Translations' pipeline does (its shortlist step): Marian's extract_lex turns the
# corpus's symmetrized word links into p(target | source) = c(source, target) / c(source), the pruning
# keeps each source word's most probable targets, and marian-conv writes the binary file with
# firstNum/bestNum (50/50 in Firefox's files). Here the links are those of models/tformer/align.py
# over the pieces of the training pairs, so the table is over vocabulary ids directly. Ranking the
# targets of one source word by p(t|s) is ranking them by c(s, t) (the denominator is the same), so
# the counts are all that is needed; ties go to the lower (more frequent) id.

def link_counts(source_ids: np.ndarray, target_ids: np.ndarray, target_vocab: int):
    """(source id, target id, count) of every distinct linked pair, as three arrays."""
    keys, counts = np.unique(source_ids.astype(np.int64) * target_vocab + target_ids.astype(np.int64),
                             return_counts=True)
    return keys // target_vocab, keys % target_vocab, counts


def best_targets(source, target, counts, source_vocab: int, best_num: int) -> list:
    """Per source id, its best_num targets with the highest link counts (ties: lower id first)."""
    order = np.lexsort((target, -counts, source))  # by source, then count descending, then id
    source, target = source[order], target[order]
    starts = np.searchsorted(source, np.arange(source_vocab + 1))
    return [target[a:min(b, a + best_num)] for a, b in zip(starts[:-1], starts[1:])]


def corpus_link_ids(recipe_path: str, device="cpu", reverse: bool = False):
    """The (source id, target id) of every link of a recipe's training corpus (aligned once and
    cached, as guided alignment reads them); reverse: the links as the opposite direction sees them
    (a shortlist for the reverse model from the same alignment)."""
    from .align import corpus_tokens
    from .train import prepare_alignment
    corpus, cfg, links = prepare_alignment(recipe_path, device, with_corpus=True)
    s, so, t, to = corpus_tokens(corpus, cfg)
    pair = np.repeat(np.arange(len(links)), links.counts())
    src = np.asarray(s)[so[pair] + links.source]
    tgt = np.asarray(t)[to[pair] + links.target]
    return (tgt, src) if reverse else (src, tgt)


def register(sub):
    p = sub.add_parser("shortlist", help="build a Marian binary lexical shortlist from the word links "
                                         "of a recipe's training data, optionally into a .tfm")
    p.add_argument("config", help="the recipe whose training pairs are aligned (models/tfm align)")
    p.add_argument("--best", type=int, default=50, help="target words kept per source word (bestNum)")
    p.add_argument("--first", type=int, default=50, help="most frequent target ids always scored (firstNum)")
    p.add_argument("--reverse", action="store_true",
                   help="for the model of the opposite direction (target -> source of the recipe)")
    p.add_argument("-o", "--output", help="write the lex.s2t.bin file here")
    p.add_argument("--model", help="a .tfm whose vocabularies the shortlist is for (checked), ...")
    p.add_argument("--into", help="... and written with the shortlist inside as this .tfm "
                                  "(may be --model itself)")
    p.add_argument("--device", default=None, help="torch device for the aligner (default: cuda where there is one)")
    p.set_defaults(func=cmd_shortlist)


def cmd_shortlist(args):
    import torch
    if args.best < 1 or args.first < 0:
        raise SystemExit("models/tfm shortlist: --best must be at least 1 and --first at least 0")
    if not (args.output or args.into):
        raise SystemExit("models/tfm shortlist: give -o FILE, --into MODEL.tfm, or both")
    if args.into and not args.model:
        raise SystemExit("models/tfm shortlist: --into needs --model (the .tfm to add the shortlist to)")
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    try:
        src, tgt = corpus_link_ids(args.config, device, args.reverse)
    except (ValueError, FileNotFoundError) as e:
        raise SystemExit(f"models/tfm shortlist: {e}")
    from . import tfm
    from .tokenizer import Tokenizer
    from .train import load_recipe, train_vocab
    vocab = Tokenizer.from_file(train_vocab(load_recipe(args.config)["vocab"]))  # made by the alignment step
    source_vocab = target_vocab = len(vocab)
    model = None
    if args.model:
        model = tfm.read(args.model)
        if any(Tokenizer.from_tfm(model, side).model_bytes != vocab.model_bytes for side in ("source", "target")):
            raise SystemExit(f"models/tfm shortlist: {args.model}'s vocabularies are not the recipe's")
    lists = best_targets(*link_counts(src, tgt, target_vocab), source_vocab, args.best)
    blob = write(lists, args.first, args.best)
    LexicalShortlist(blob, source_vocab, target_vocab, source_vocab == target_vocab)  # checks it as the engine will
    entries = sum(len(x) for x in lists)
    if args.output:
        with open(args.output, "wb") as f:
            f.write(blob)
    if args.into:
        model.tensors["shortlist"] = np.frombuffer(blob, dtype=np.uint8)
        model.metadata = dict(model.metadata, shortlist={
            "made_by": "models/tfm shortlist", "best": args.best, "first": args.first,
            "links_of": os.path.basename(args.config) + (" (reversed)" if args.reverse else ""),
            "links": int(len(src)), "source_words_listed": int(sum(1 for x in lists if len(x)))})
        tfm.write(args.into, model)
    print(f"shortlist: {len(src)} links, {entries} (source, target) entries, best {args.best}, first {args.first}, "
          f"{len(blob)} bytes" + (f"; written into {args.into}" if args.into else "")
          + (f"; {args.output}" if args.output else ""))

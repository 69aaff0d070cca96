"""Marian's binary lexical shortlist (lex.*.s2t.bin of Firefox Translations models), read, written
and applied as the engine does (core/src/decoding/shortlist.h states the format and the rules).

A `.tfm` file carries the file unchanged as the `u8` tensor `shortlist` (docs/FORMAT.md). A
sentence is then decoded over the target ids `words(source_ids)` only: the other logits are left
out of its log-softmax, as Marian and Bergamot leave them out of the output projection.
"""
from __future__ import annotations

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

"""Parallel text loading, tokenization and token-based batching for training.

The training corpus is tokenized once per text file and vocabulary into a flat array of token ids
(`token_file`, memory-mapped, reused by every recipe and direction with that vocabulary), then
filtered into a `Corpus`: four flat arrays, no Python object per sentence. `make_batches` groups
sentence indices by length; `BatchAssembler` pads a batch from index tensors, on the training
device (on a GPU the whole corpus moves there once). `encode_corpus` and `collate`, the Python-list
path, stay as the reference the array path is tested against (tests/models/test_train.py).
"""
from __future__ import annotations

import hashlib
import os
import random

import numpy as np
import torch

from .config import ModelConfig
from .decode import source_ids
from .tokenizer import Tokenizer

# Bumped whenever the layout of a token file changes, so that old caches are not read.
TOKEN_FILE_VERSION = b"tformer-tokens-1"
SENTENCE_END = -1  # written after each line's ids in a token file


def read_lines(path: str) -> list:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def load_pairs(prefix: str, src_lang: str, tgt_lang: str):
    src, tgt = read_lines(f"{prefix}.{src_lang}"), read_lines(f"{prefix}.{tgt_lang}")
    if len(src) != len(tgt):
        raise ValueError(f"{prefix}: {len(src)} {src_lang} lines but {len(tgt)} {tgt_lang} lines")
    return src, tgt


def keep_pair(s_len, t_len, max_length: int, max_ratio: float):
    """The length filter (scalars or numpy arrays): both sides non-empty, at most max_length
    pieces, and not wildly different in length."""
    longer, shorter = np.maximum(s_len, t_len), np.minimum(s_len, t_len)
    return (shorter > 0) & (longer <= max_length) & (longer <= max_ratio * shorter + 5)


def encode_corpus(cfg: ModelConfig, tok: Tokenizer, prefixes, src_lang, tgt_lang, max_length: int,
                  max_ratio: float = 3.0):
    """Returns (source ids with BOS/EOS per config, target ids + EOS) pairs and a filter report.
    The Python-list reference of `load_corpus`."""
    pairs, dropped = [], 0
    for prefix in prefixes:
        src, tgt = load_pairs(prefix, src_lang, tgt_lang)
        s_ids = tok.sp.encode(src)
        t_ids = tok.sp.encode(tgt)
        for s, t in zip(s_ids, t_ids):
            if not keep_pair(len(s), len(t), max_length, max_ratio):
                dropped += 1
                continue
            pairs.append((source_ids(cfg, s), t + [cfg.eos_id]))
    return pairs, dropped


# ---- the array path ---------------------------------------------------------------------------

# Token files staged in place of their text (models/gpu/stage.sh: the GPU machine receives at most
# 64 MiB, and the ids compress 11% smaller than the text): `<text>.ids.npy` (uint16, SENTENCE_END
# stored as 65535) and `<text>.ids.json` naming the vocabulary's sha256 they were made with.
STAGED_IDS, STAGED_META = ".ids.npy", ".ids.json"
STAGED_END = 0xFFFF


def write_staged_ids(path: str, tok: Tokenizer, out_prefix: str) -> None:
    """Writes `out_prefix`.ids.npy/.ids.json: the ids token_file would give for the text `path`."""
    import json
    flat = encode_lines(read_lines(path), tok)
    if len(tok) >= STAGED_END:
        raise ValueError(f"a vocabulary of {len(tok)} pieces does not fit the staged uint16 ids")
    np.save(out_prefix + STAGED_IDS, np.where(flat == SENTENCE_END, STAGED_END, flat).astype(np.uint16))
    with open(out_prefix + STAGED_META, "w") as f:
        json.dump({"vocab_sha256": hashlib.sha256(tok.model_bytes).hexdigest(), "ids": len(flat)}, f)


def staged_ids(path: str, tok: Tokenizer) -> np.ndarray:
    """The ids of the text `path` from its staged token file, when the text itself is not here."""
    import json
    with open(path + STAGED_META) as f:
        meta = json.load(f)
    if meta.get("vocab_sha256") != hashlib.sha256(tok.model_bytes).hexdigest():
        raise ValueError(f"{path}{STAGED_IDS} was made with another vocabulary than this recipe's; stage again")
    ids = np.load(path + STAGED_IDS)
    if ids.dtype != np.uint16 or ids.ndim != 1 or len(ids) != meta.get("ids"):
        raise ValueError(f"{path}{STAGED_IDS}: not a staged token file (dtype {ids.dtype}, shape {ids.shape})")
    return np.where(ids == STAGED_END, SENTENCE_END, ids.astype(np.int32)).astype(np.int32)


def encode_lines(lines, tok: Tokenizer) -> np.ndarray:
    """The ids of each line followed by SENTENCE_END, as one int32 array."""
    ids = tok.sp.encode(lines)
    lengths = np.fromiter((len(x) + 1 for x in ids), dtype=np.int64, count=len(ids))
    flat = np.full(int(lengths.sum()), SENTENCE_END, dtype=np.int32)
    starts = np.cumsum(lengths) - lengths
    for start, x in zip(starts.tolist(), ids):
        flat[start:start + len(x)] = x
    return flat


def token_file(path: str, tok: Tokenizer, cache_dir: str) -> np.ndarray:
    """The SentencePiece ids of every line of the text file `path`, each line's followed by
    SENTENCE_END, as one int32 array memory-mapped from `cache_dir`. The cache file is named by a
    hash of the text and of the SentencePiece model, so an edited corpus or another vocabulary
    gets a new file and a stale one is never read. Where the text is absent but a staged token file
    is beside its path (the GPU machine), that is read instead."""
    if not os.path.exists(path) and os.path.exists(path + STAGED_IDS):
        return staged_ids(path, tok)
    h = hashlib.sha256(TOKEN_FILE_VERSION)
    h.update(hashlib.sha256(tok.model_bytes).digest())
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    out = os.path.join(cache_dir, f"{os.path.basename(path)}.{h.hexdigest()[:24]}.npy")
    if not os.path.exists(out):
        os.makedirs(cache_dir, exist_ok=True)
        flat = encode_lines(read_lines(path), tok)
        # Written under a private name and renamed into place: the processes of a torchrun job,
        # or both directions trained side by side, may build the same file at once.
        tmp = f"{out}.{os.getpid()}.tmp.npy"
        np.save(tmp, flat)
        os.replace(tmp, out)
    try:
        flat = np.load(out, mmap_mode="r")
    except ValueError:  # an empty text file: an empty array cannot be memory-mapped
        flat = np.load(out)
    if flat.dtype != np.int32 or flat.ndim != 1:
        raise ValueError(f"{out}: not a token file (dtype {flat.dtype}, shape {flat.shape}); delete it")
    return flat


def split_lines(flat: np.ndarray):
    """(starts, lengths) of the lines of a token file."""
    ends = np.flatnonzero(np.asarray(flat) == SENTENCE_END).astype(np.int64)
    starts = np.zeros_like(ends)
    starts[1:] = ends[:-1] + 1
    return starts, ends - starts


def gather_ranges(flat: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of flat[s:s + n] for every (s, n), without a Python loop."""
    before = np.cumsum(lengths) - lengths
    return np.asarray(flat)[np.arange(int(lengths.sum())) + np.repeat(starts - before, lengths)]


def decorate(tokens: np.ndarray, lengths: np.ndarray, first: int | None, last: int | None):
    """Puts `first` before and `last` after every sentence of a flat array (None: nothing);
    returns the new flat array and its offsets."""
    extra = (first is not None) + (last is not None)
    new_lengths = lengths + extra
    offsets = np.concatenate([[0], np.cumsum(new_lengths)]).astype(np.int64)
    out = np.empty(int(offsets[-1]), dtype=np.int32)
    shift = offsets[:-1] + (first is not None) - (np.cumsum(lengths) - lengths)
    out[np.arange(int(lengths.sum())) + np.repeat(shift, lengths)] = tokens
    if first is not None:
        out[offsets[:-1]] = first
    if last is not None:
        out[offsets[1:] - 1] = last
    return out, offsets


class Corpus:
    """Sentence pairs as flat arrays: pair i's source ids are src[src_offsets[i]:src_offsets[i+1]],
    its target ids tgt[tgt_offsets[i]:tgt_offsets[i+1]] (BOS/EOS already in place)."""

    def __init__(self, src, src_offsets, tgt, tgt_offsets, dropped: int = 0):
        self.src, self.src_offsets = src, src_offsets
        self.tgt, self.tgt_offsets = tgt, tgt_offsets
        self.dropped = dropped

    def __len__(self):
        return len(self.src_offsets) - 1

    def pair(self, i: int):
        return (self.src[self.src_offsets[i]:self.src_offsets[i + 1]].tolist(),
                self.tgt[self.tgt_offsets[i]:self.tgt_offsets[i + 1]].tolist())

    def source_lengths(self) -> np.ndarray:
        return np.diff(self.src_offsets)

    def target_lengths(self) -> np.ndarray:
        return np.diff(self.tgt_offsets)

    def bucket_lengths(self, granularity: int = 16) -> np.ndarray:
        n = np.maximum(self.source_lengths(), self.target_lengths())
        return (n + granularity - 1) // granularity * granularity


def load_corpus(cfg: ModelConfig, tok: Tokenizer, prefixes, src_lang, tgt_lang, max_length: int,
                max_ratio: float = 3.0, cache_dir: str | None = None) -> Corpus:
    """The pairs encode_corpus returns, in the same order, as a Corpus; token files are cached
    in cache_dir (by default models/work/tokens/ beside the recipes' work folders)."""
    if cache_dir is None:
        cache_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))), "models", "work", "tokens")
    parts, dropped = [], 0
    for prefix in prefixes:
        s_flat = token_file(f"{prefix}.{src_lang}", tok, cache_dir)
        t_flat = token_file(f"{prefix}.{tgt_lang}", tok, cache_dir)
        s_start, s_len = split_lines(s_flat)
        t_start, t_len = split_lines(t_flat)
        if len(s_len) != len(t_len):
            raise ValueError(f"{prefix}: {len(s_len)} {src_lang} lines but {len(t_len)} {tgt_lang} lines")
        keep = keep_pair(s_len, t_len, max_length, max_ratio)
        dropped += int((~keep).sum())
        parts.append((gather_ranges(s_flat, s_start[keep], s_len[keep]), s_len[keep],
                      gather_ranges(t_flat, t_start[keep], t_len[keep]), t_len[keep]))
    s_tokens = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int32)
    s_len = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
    t_tokens = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, np.int32)
    t_len = np.concatenate([p[3] for p in parts]) if parts else np.zeros(0, np.int64)
    src, src_offsets = decorate(s_tokens, s_len, cfg.bos_id if cfg.source_bos else None,
                                cfg.eos_id if cfg.source_eos else None)
    tgt, tgt_offsets = decorate(t_tokens, t_len, None, cfg.eos_id)
    return Corpus(src, src_offsets, tgt, tgt_offsets, dropped)


def bucket_length(pair, granularity: int = 16) -> int:
    n = max(len(pair[0]), len(pair[1]))
    return (n + granularity - 1) // granularity * granularity


def make_batches(pairs, batch_tokens: int, seed: int):
    """Token-based batches with few distinct shapes: every sentence pair is padded (both sides)
    to its length bucket L (a multiple of 16) and a batch holds batch_tokens // L pairs, so that
    almost every matrix product has batch_tokens rows. oneDNN (the CPU bf16 path) compiles a
    kernel per shape; with free-form shapes that compilation, not arithmetic, dominated training
    (torch.compile on a GPU likewise compiles once per shape). `pairs` is a Corpus or a list of
    pairs; the batches are the same for both. Batch order is shuffled with `seed`."""
    if isinstance(pairs, Corpus):
        lengths = pairs.bucket_lengths()
    else:
        lengths = np.array([bucket_length(p) for p in pairs], dtype=np.int64)
    return batches_by_length(lengths, batch_tokens, seed)


def batches_by_length(lengths: np.ndarray, batch_tokens: int, seed: int):
    """make_batches from the pairs' bucket lengths."""
    rng = random.Random(seed)
    # Each bucket's members in index order (a stable sort), as a dict filled in index order had them.
    order = np.argsort(lengths, kind="stable")
    bounds = np.flatnonzero(np.diff(lengths[order])) + 1
    batches = []
    for members in np.split(order, bounds) if len(order) else []:
        members = members.tolist()
        rng.shuffle(members)
        size = max(1, batch_tokens // int(lengths[members[0]]))
        batches += [members[k:k + size] for k in range(0, len(members), size)]
    rng.shuffle(batches)
    return batches


def shard_plan(batches, buckets: np.ndarray, target_lengths: np.ndarray, rank: int = 0, world: int = 1):
    """This rank's shard of each batch (pairs [B*rank/world, B*(rank+1)/world) of a batch of B) as
    one flat index array, and per batch host integers: (first, end) of the shard in that array, its
    length bucket, the shard's target tokens and the whole batch's."""
    shards, info, first = [], [], 0
    for b in batches:
        lo, hi = len(b) * rank // world, len(b) * (rank + 1) // world
        shard = b[lo:hi]
        shards.append(shard)
        info.append((first, first + len(shard), int(buckets[b[0]]),
                     int(target_lengths[shard].sum()), int(target_lengths[b].sum())))
        first += len(shard)
    return np.fromiter((i for shard in shards for i in shard), dtype=np.int64, count=first), info


_planner_arrays = {}


def _planner_init(buckets, target_lengths):
    _planner_arrays.update(buckets=buckets, target_lengths=target_lengths)


def _planner_run(batch_tokens, seed, rank, world):
    a = _planner_arrays
    return shard_plan(batches_by_length(a["buckets"], batch_tokens, seed), a["buckets"], a["target_lengths"],
                      rank, world)


class EpochPlanner:
    """Each epoch's batches and this rank's shard plan (make_batches, shard_plan). With `ahead`, the
    next epoch's is computed in a separate process while this one trains: its shuffles (Python's
    random, which keeps the batches of the list path) take about half a second on 440k pairs, a
    pause a GPU would wait through at every epoch start."""

    def __init__(self, corpus: Corpus, batch_tokens: int, rank: int = 0, world: int = 1, ahead: bool = False):
        self.buckets, self.target_lengths = corpus.bucket_lengths(), corpus.target_lengths()
        self.batch_tokens, self.rank, self.world = batch_tokens, rank, world
        self.pending, self.pool = {}, None
        if ahead:
            import concurrent.futures
            import multiprocessing
            # spawn: a fork of a process that holds a CUDA context or torch's threads is not safe.
            self.pool = concurrent.futures.ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"), initializer=_planner_init,
                initargs=(self.buckets, self.target_lengths))

    def seed(self, epoch: int) -> int:
        return 1000 + epoch

    def get(self, epoch: int):
        """(flat index array, per-batch info) of `epoch`; starts epoch + 1's in the background."""
        future, result = self.pending.pop(epoch, None), None
        if future is not None:
            try:
                result = future.result()
            except Exception:  # the helper died (a signal to the process group): compute it here
                result = None
        if result is None:
            result = shard_plan(batches_by_length(self.buckets, self.batch_tokens, self.seed(epoch)),
                                self.buckets, self.target_lengths, self.rank, self.world)
        if self.pool is not None:
            try:
                self.pending[epoch + 1] = self.pool.submit(_planner_run, self.batch_tokens, self.seed(epoch + 1),
                                                           self.rank, self.world)
            except Exception:  # a broken pool: plan inline from now on
                self.pool = None
        return result

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


def collate(pairs, indices, pad_id: int):
    """Pads both sides to the batch's length bucket (see make_batches). The Python-list reference
    of BatchAssembler."""
    src = [pairs[i][0] for i in indices]
    tgt = [pairs[i][1] for i in indices]
    s_len = torch.tensor([len(s) for s in src])
    t_len = torch.tensor([len(t) for t in tgt])
    length = max(bucket_length(pairs[i]) for i in indices)
    S = torch.full((len(src), length), pad_id, dtype=torch.long)
    T = torch.full((len(tgt), length), pad_id, dtype=torch.long)
    for k, (s, t) in enumerate(zip(src, tgt)):
        S[k, :len(s)] = torch.tensor(s)
        T[k, :len(t)] = torch.tensor(t)
    return S, s_len, T, t_len


class BatchAssembler:
    """Pads batches of a Corpus on `device` from index tensors: the token arrays are copied to the
    device once, and each batch costs a handful of tensor operations, none of which waits for the
    device (its length bucket and target token count come from host-side arrays)."""

    def __init__(self, corpus: Corpus, device, pad_id: int):
        if len(corpus) == 0:
            raise ValueError("the corpus holds no sentence pairs (all were filtered out, or the files are empty)")
        self.corpus, self.device, self.pad_id = corpus, torch.device(device), pad_id
        self.buckets = corpus.bucket_lengths()
        self.target_lengths = corpus.target_lengths()
        put = lambda a, dtype: torch.from_numpy(np.ascontiguousarray(a)).to(self.device, dtype)  # noqa: E731
        self.src, self.src_offsets = put(corpus.src, torch.int32), put(corpus.src_offsets, torch.long)
        self.tgt, self.tgt_offsets = put(corpus.tgt, torch.int32), put(corpus.tgt_offsets, torch.long)

    def plan(self, batches, rank: int = 0, world: int = 1):
        """shard_plan of `batches` with its index array moved to the device."""
        return self.to_device(shard_plan(batches, self.buckets, self.target_lengths, rank, world))

    def to_device(self, plan):
        flat, info = plan
        return torch.from_numpy(flat).to(self.device), info

    def gather(self, tokens, offsets, idx, length: int):
        start = offsets[idx]
        n = offsets[idx + 1] - start
        pos = torch.arange(length, device=self.device)
        inside = pos[None, :] < n[:, None]
        where = torch.where(inside, start[:, None] + pos[None, :], torch.zeros_like(start)[:, None])
        ids = torch.where(inside, tokens[where].long(), torch.full_like(where, self.pad_id))
        return ids, n

    def batch(self, idx, length: int):
        """(source ids, source lengths, target ids, target lengths) as collate returns them, for
        the pairs idx (a long tensor on the device) padded to `length`."""
        S, s_len = self.gather(self.src, self.src_offsets, idx, length)
        T, t_len = self.gather(self.tgt, self.tgt_offsets, idx, length)
        return S, s_len, T, t_len

    def attach_links(self, links, source_shift: int):
        """Word links of every pair (align.Links) for `alignment`; source_shift: the positions a
        source BOS adds before the pair's own tokens."""
        if len(links) != len(self.corpus):
            raise ValueError(f"{len(links)} aligned pairs for a corpus of {len(self.corpus)}")
        put = lambda a, dtype: torch.from_numpy(np.ascontiguousarray(a)).to(self.device, dtype)  # noqa: E731
        # One unused entry at the end: a batch's gather reads index 0 for its masked slots, which
        # must exist even where the aligner found no link at all.
        self.link_src = put(np.append(links.source, 0), torch.int16)
        self.link_tgt = put(np.append(links.target, 0), torch.int16)
        self.link_offsets = put(links.offsets, torch.long)
        self.max_links = max(int(links.counts().max(initial=0)), 1)  # host-side: no device read per batch
        self.source_shift = source_shift

    def alignment(self, idx, length: int):
        """The gold alignment of the pairs idx as [B, length (target), length (source)]: each target
        position's row holds its links normalised to sum 1 (Marian's guided alignment), or zeros
        where the position has no link (such rows take no part in the loss)."""
        start = self.link_offsets[idx]
        n = self.link_offsets[idx + 1] - start
        pos = torch.arange(self.max_links, device=self.device)
        inside = pos[None, :] < n[:, None]
        where = torch.where(inside, start[:, None] + pos[None, :], torch.zeros_like(start)[:, None])
        i = self.link_src[where].long() + self.source_shift
        j = self.link_tgt[where].long()
        b = torch.arange(len(idx), device=self.device)[:, None]
        cell = torch.where(inside, (b * length + j) * length + i, torch.zeros_like(i))
        gold = torch.zeros(len(idx) * length * length, device=self.device)
        gold.scatter_add_(0, cell.flatten(), inside.flatten().float())
        gold = gold.view(len(idx), length, length)
        return gold / gold.sum(-1, keepdim=True).clamp_min(1.0)

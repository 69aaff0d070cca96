"""Parallel text loading, tokenization and token-based batching for training."""
from __future__ import annotations

import os
import random

import torch

from .config import ModelConfig
from .decode import source_ids
from .tokenizer import Tokenizer


def read_lines(path: str) -> list:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def load_pairs(prefix: str, src_lang: str, tgt_lang: str):
    src, tgt = read_lines(f"{prefix}.{src_lang}"), read_lines(f"{prefix}.{tgt_lang}")
    if len(src) != len(tgt):
        raise ValueError(f"{prefix}: {len(src)} {src_lang} lines but {len(tgt)} {tgt_lang} lines")
    return src, tgt


def encode_corpus(cfg: ModelConfig, tok: Tokenizer, prefixes, src_lang, tgt_lang, max_length: int,
                  max_ratio: float = 3.0):
    """Returns (source ids with BOS/EOS per config, target ids + EOS) pairs and a filter report."""
    pairs, dropped = [], 0
    for prefix in prefixes:
        src, tgt = load_pairs(prefix, src_lang, tgt_lang)
        s_ids = tok.sp.encode(src)
        t_ids = tok.sp.encode(tgt)
        for s, t in zip(s_ids, t_ids):
            if not s or not t or len(s) > max_length or len(t) > max_length or \
                    max(len(s), len(t)) > max_ratio * min(len(s), len(t)) + 5:
                dropped += 1
                continue
            pairs.append((source_ids(cfg, s), t + [cfg.eos_id]))
    return pairs, dropped


def cached_corpus(cache_path: str, *args, **kwargs):
    if os.path.exists(cache_path):
        return torch.load(cache_path)
    pairs, dropped = encode_corpus(*args, **kwargs)
    torch.save((pairs, dropped), cache_path)
    return pairs, dropped


def bucket_length(pair, granularity: int = 16) -> int:
    n = max(len(pair[0]), len(pair[1]))
    return (n + granularity - 1) // granularity * granularity


def make_batches(pairs, batch_tokens: int, seed: int):
    """Token-based batches with few distinct shapes: every sentence pair is padded (both sides)
    to its length bucket L (a multiple of 16) and a batch holds batch_tokens // L pairs, so that
    almost every matrix product has batch_tokens rows. oneDNN (the CPU bf16 path) compiles a
    kernel per shape; with free-form shapes that compilation, not arithmetic, dominated training.
    Batch order is shuffled with `seed`."""
    rng = random.Random(seed)
    buckets = {}
    for i, pair in enumerate(pairs):
        buckets.setdefault(bucket_length(pair), []).append(i)
    batches = []
    for length, members in sorted(buckets.items()):
        rng.shuffle(members)
        size = max(1, batch_tokens // length)
        batches += [members[k:k + size] for k in range(0, len(members), size)]
    rng.shuffle(batches)
    return batches


def collate(pairs, indices, pad_id: int):
    """Pads both sides to the batch's length bucket (see make_batches)."""
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

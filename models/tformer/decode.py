"""Greedy and beam-search decoding of the reference model: the rules the C++ engine must follow.

Rules (shared with core/src/decoding; the rules that change step scores are processors there,
core/src/decoding/rules.h, named below in brackets):
- Source ids get BOS/EOS as the config says; the target starts from BOS or a zero vector.
- Step scores are log_softmax(logits) in float32, over the sentence's shortlisted ids when the
  model has a lexical shortlist [RestrictToShortlist]; <unk> gets -inf when `suppress_unk`
  [SuppressToken].
- The maximum target length (EOS included) is floor(ratio * source length) + offset, capped by
  `max_positions` and by an explicit limit; at the last allowed step only EOS may be chosen
  [ForceEndAtLimit].
- Hypothesis scores are float32 sums of step scores; a finished hypothesis is ranked by
  score / length**alpha (length counts EOS).
- Greedy takes the first maximum. Beam search (size K) ranks all live candidates by summed score
  (ties: lower hypothesis index, then lower token id), looks at the best 2K: an EOS among the first
  K finishes a hypothesis, other candidates fill the next beam up to K. A sentence is done when K
  hypotheses have finished.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from .config import ModelConfig


@dataclass
class Hypothesis:
    tokens: list  # target ids, EOS included
    score: float  # length-normalised
    raw_score: float = 0.0  # float32 sum of step log-probabilities
    step_logits: list = field(default_factory=list)  # [V] float tensors, on request
    alignment: list = field(default_factory=list)  # per target step: [S] cross-attention weights


def source_ids(cfg: ModelConfig, ids) -> list:
    return ([cfg.bos_id] if cfg.source_bos else []) + list(ids) + ([cfg.eos_id] if cfg.source_eos else [])


def max_target_length(cfg: ModelConfig, source_length: int, ratio: float = 2.0, offset: int = 0,
                      limit: int | None = None) -> int:
    n = int(math.floor(ratio * source_length)) + offset
    if limit:
        n = min(n, limit)
    return max(1, min(n, cfg.max_positions))


def normalize(raw: float, length: int, alpha: float) -> float:
    return raw / (length ** alpha) if alpha else raw


def start_token(cfg: ModelConfig) -> int:
    # With a zero start vector the id is never looked up; EOS's id keeps the tensor valid.
    return cfg.bos_id if cfg.decoder_start == "bos" else cfg.eos_id


def step_log_probs(cfg: ModelConfig, logits: torch.Tensor, force_eos: torch.Tensor) -> torch.Tensor:
    """logits [N, V]; force_eos [N] bool. Returns float32 log-probabilities with the rules above
    (core/src/decoding/rules.h: SuppressToken, then ForceEndAtLimit)."""
    lp = torch.log_softmax(logits.float(), dim=-1)
    if cfg.suppress_unk and 0 <= cfg.unk_id < cfg.vocab_size:
        lp[:, cfg.unk_id] = float("-inf")
    if force_eos.any():
        eos_lp = lp[force_eos, cfg.eos_id].clone()
        lp[force_eos] = float("-inf")
        lp[force_eos, cfg.eos_id] = eos_lp
    return lp


def shortlist_mask(model, source) -> torch.Tensor | None:
    """[V] bool: the target ids the model's lexical shortlist (models/tformer/shortlist.py) lets
    this sentence score, or None without one. The others get -inf logits: left out of its
    log-softmax, as if the output projection had only the shortlisted rows
    (core/src/decoding/rules.h: RestrictToShortlist)."""
    shortlist = getattr(model, "shortlist", None)
    if shortlist is None:
        return None
    mask = torch.zeros(model.cfg.vocab_size, dtype=torch.bool)
    mask[shortlist.words(source)] = True
    return mask


def pad_batch(seqs, pad_id):
    lengths = torch.tensor([len(s) for s in seqs])
    out = torch.full((len(seqs), int(lengths.max())), pad_id, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    return out, lengths


@torch.no_grad()
def greedy(model, sources, max_lengths, alpha: float = 1.0, keep_logits: bool = False,
           keep_alignment: bool = False):
    """sources: list of source id lists (with BOS/EOS already added). Batched, incremental."""
    cfg = model.cfg
    src, lengths = pad_batch(sources, cfg.pad_id)
    memory, mask = model.encode(src, lengths)
    B = len(sources)
    cache = [dict() for _ in model.decoder.layers]
    token = torch.full((B,), start_token(cfg), dtype=torch.long)
    max_lengths = torch.tensor(max_lengths)
    hyps = [Hypothesis([], 0.0) for _ in range(B)]
    raw = torch.zeros(B, dtype=torch.float32)
    done = torch.zeros(B, dtype=torch.bool)
    masks = [shortlist_mask(model, s) for s in sources]
    for step in range(int(max_lengths.max())):
        logits, attn = model.decode_step(token, step, memory, mask, cache)
        scored = logits
        if masks[0] is not None:
            scored = logits.masked_fill(~torch.stack(masks), float("-inf"))
        lp = step_log_probs(cfg, scored, max_lengths - 1 == step)
        best = torch.argmax(lp, dim=-1)
        for b in range(B):
            if done[b]:
                continue
            tok = int(best[b])
            raw[b] = raw[b] + lp[b, tok]
            hyps[b].tokens.append(tok)
            if keep_logits:
                hyps[b].step_logits.append(logits[b].clone())
            if keep_alignment:
                hyps[b].alignment.append(model.alignment_of(attn[b])[:int(lengths[b])].clone())
            if tok == cfg.eos_id:
                done[b] = True
        if bool(done.all()):
            break
        token = best
    for b, h in enumerate(hyps):
        h.raw_score = float(raw[b])
        h.score = normalize(h.raw_score, len(h.tokens), alpha)
    return hyps


@torch.no_grad()
def beam_search(model, source, beam: int, max_length: int, alpha: float = 1.0, nbest: int = 1):
    """One sentence, incremental, beam size `beam`. Returns up to `nbest` hypotheses, best first."""
    cfg = model.cfg
    V = cfg.vocab_size
    src, lengths = pad_batch([source], cfg.pad_id)
    memory, mask = model.encode(src, lengths)
    cache = [dict() for _ in model.decoder.layers]
    live_tokens = [[]]
    live_scores = torch.zeros(1, dtype=torch.float32)
    finished = []
    allowed = shortlist_mask(model, source)
    for step in range(max_length):
        n = len(live_tokens)
        token = torch.tensor([t[-1] if t else start_token(cfg) for t in live_tokens])
        logits, _ = model.decode_step(token, step, memory.expand(n, -1, -1), mask.expand(n, -1, -1, -1), cache)
        if allowed is not None:
            logits = logits.masked_fill(~allowed, float("-inf"))
        lp = step_log_probs(cfg, logits, torch.full((n,), step == max_length - 1))
        cand = (live_scores[:, None] + lp).reshape(-1)
        order = torch.sort(cand, descending=True, stable=True).indices[:2 * beam]
        next_tokens, next_scores, parents = [], [], []
        for rank, idx in enumerate(order.tolist()):
            score = cand[idx]
            if score == float("-inf"):
                break
            parent, tok = divmod(idx, V)
            tokens = live_tokens[parent] + [tok]
            if tok == cfg.eos_id:
                if rank < beam and len(finished) < beam:
                    raw = float(score)
                    finished.append(Hypothesis(tokens, normalize(raw, len(tokens), alpha), raw))
            elif len(next_tokens) < beam:
                next_tokens.append(tokens)
                next_scores.append(score)
                parents.append(parent)
        if len(finished) >= beam or not next_tokens:
            break
        index = torch.tensor(parents)
        for layer_cache in cache:
            for key in layer_cache:
                layer_cache[key] = layer_cache[key].index_select(0, index)
        live_tokens = next_tokens
        live_scores = torch.stack(next_scores)
    finished.sort(key=lambda h: -h.score)  # stable: earlier finishers first on ties
    return finished[:nbest]

"""Reference decoding of text with a .tfm model in PyTorch (for BLEU and as a speed peer).

Each input line is one segment (no sentence splitting; compare with `tformer translate --no-split`).
Greedy search runs batched; beam search runs one sentence at a time (the reference's clarity
matters more than its speed).
"""
from __future__ import annotations

import sys
import time

import torch

from .decode import beam_search, greedy, max_target_length, source_ids
from .export import load_tfm_model


def translate_lines(model, src_tok, tgt_tok, lines, beam=1, alpha=1.0, batch_size=32,
                    ratio=2.0, offset=0):
    cfg = model.cfg
    limit = cfg.max_positions - int(cfg.source_bos) - int(cfg.source_eos)
    outputs = [""] * len(lines)
    items = []
    for i, line in enumerate(lines):
        ids = src_tok.encode(line.strip())
        if ids:
            items.append((i, source_ids(cfg, ids[:limit])))
    items.sort(key=lambda it: len(it[1]))
    for start in range(0, len(items), batch_size if beam == 1 else 1):
        chunk = items[start:start + (batch_size if beam == 1 else 1)]
        srcs = [s for _, s in chunk]
        max_lens = [max_target_length(cfg, len(s), ratio, offset) for s in srcs]
        if beam == 1:
            hyps = greedy(model, srcs, max_lens, alpha)
        else:
            hyps = [beam_search(model, srcs[0], beam, max_lens[0], alpha, 1)[0]]
        for (i, _), h in zip(chunk, hyps):
            outputs[i] = tgt_tok.decode([t for t in h.tokens if t != cfg.eos_id])
    return outputs


def translate_stream(model_path, inp, out, beam=1, threads=2, alpha=1.0, batch_size=32):
    torch.set_num_threads(threads)
    model, src_tok, tgt_tok, _ = load_tfm_model(model_path)
    lines = [l.rstrip("\n") for l in inp]
    t0 = time.time()
    outputs = translate_lines(model, src_tok, tgt_tok, lines, beam, alpha, batch_size)
    elapsed = time.time() - t0
    for o in outputs:
        out.write(o + "\n")
    out.flush()
    print(f"pytorch: {len(lines)} lines in {elapsed:.2f} s ({len(lines) / max(elapsed, 1e-9):.1f} lines/s, "
          f"{threads} threads, beam {beam})", file=sys.stderr)

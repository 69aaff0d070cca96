#!/usr/bin/python3
"""PyTorch peer: the reference model (models/tformer) translating pre-tokenized sentences.

  pytorch.py --model MODEL.tfm --ids IDS.json [--threads N] [--beam K] [--max-length N]
             [--batch-tokens 4096] [--warmup 4] [--latency N] [--json RESULT.json]

Decoding is the reference's own (models/tformer/decode.py): greedy runs batched (finished rows stay
in the batch until all are done), beam search one sentence at a time. Sentences are batched like the
engine's translator (length-sorted, at most --batch-tokens padded source tokens per batch).
Timed ("seconds"): encoder + incremental decoder + search over the whole file, after loading and a
warm-up; ids in, ids out (IDS.json from ids.py encode), so no tokenization is timed.
"""
import argparse
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "models"))
import tformer  # noqa: E402,F401  (names OpenBLAS's kernels for this CPU before torch loads)

import torch  # noqa: E402

from tformer.decode import beam_search, greedy, max_target_length  # noqa: E402
from tformer.export import load_tfm_model  # noqa: E402


def make_batches(sources, batch_tokens):
    """Length-sorted batches of at most batch_tokens padded tokens (core/src/translator.cc's rule)."""
    order = sorted((i for i, s in enumerate(sources) if s), key=lambda i: len(sources[i]))
    batches, begin = [], 0
    while begin < len(order):
        end = begin + 1
        while end < len(order) and (end - begin + 1) * len(sources[order[end]]) <= batch_tokens:
            end += 1
        batches.append(order[begin:end])
        begin = end
    return batches


def translate_ids(model, sources, beam, alpha, max_length, batch_tokens):
    cfg = model.cfg
    results = [None] * len(sources)
    for batch in make_batches(sources, batch_tokens):
        srcs = [sources[i] for i in batch]
        max_lens = [max_target_length(cfg, len(s), 2.0, 0, max_length or None) for s in srcs]
        if beam == 1:
            hyps = greedy(model, srcs, max_lens, alpha)
        else:
            hyps = [beam_search(model, s, beam, m, alpha, 1)[0] for s, m in zip(srcs, max_lens)]
        for i, h in zip(batch, hyps):
            results[i] = h
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True)
    p.add_argument("--ids", required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--beam", type=int, default=1)
    p.add_argument("--max-length", type=int, default=0)
    p.add_argument("--batch-tokens", type=int, default=4096)
    p.add_argument("--length-penalty", type=float, default=1.0)
    p.add_argument("--warmup", type=int, default=4)
    p.add_argument("--latency", type=int, default=0)
    p.add_argument("--json")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.set_num_interop_threads(1)
    with open(a.ids, encoding="utf-8") as f:
        sources = json.load(f)["sources"]

    t0 = time.perf_counter()
    model, _, _, _ = load_tfm_model(a.model)
    load_ms = 1000 * (time.perf_counter() - t0)
    args = (a.beam, a.length_penalty, a.max_length, a.batch_tokens)
    translate_ids(model, sources[:a.warmup], *args)

    t0 = time.perf_counter()
    outputs = translate_ids(model, sources, *args)
    seconds = time.perf_counter() - t0
    done = [h for h in outputs if h is not None]
    tokens = sum(len(h.tokens) for h in done)

    latencies = []
    for s in sources[:a.latency]:
        t = time.perf_counter()
        translate_ids(model, [s], *args)
        latencies.append(1000 * (time.perf_counter() - t))
    latencies.sort()

    result = {
        "runner": "pytorch", "engine": f"pytorch {torch.__version__} (reference decode.py)",
        "threads": a.threads, "beam": a.beam, "max_length": a.max_length, "batch_tokens": a.batch_tokens,
        "lines": len(sources), "sentences": len(done), "target_tokens": tokens, "seconds": seconds,
        "sentences_per_s": len(done) / seconds, "tokens_per_s": tokens / seconds,
        "ms_per_sentence": 1000 * seconds / len(done),
        "latency_median_ms": latencies[len(latencies) // 2] if latencies else None,
        "load_ms": load_ms, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "model_bytes": os.path.getsize(a.model),
        "timed": "encoder + incremental decoder + search (decode.py) over pre-tokenized ids; no tokenization",
        "outputs": [{"tokens": h.tokens, "score": h.score} if h else None for h in outputs],
    }
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(result, f)
    print(f"{result['engine']}: {a.threads} thread(s), beam {a.beam}: {len(done)} sentences in {seconds:.3f} s, "
          f"{result['sentences_per_s']:.1f} sentences/s, {result['tokens_per_s']:.0f} target tokens/s, "
          f"peak {result['peak_rss_mb']:.0f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()

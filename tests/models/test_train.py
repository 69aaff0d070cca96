#!/usr/bin/python3
"""The training recipe's fast path against its reference, on a tiny model and a small synthetic
corpus (runs on CPU, Debian's torch 1.13; about a minute):
- the array data path (token files, Corpus, BatchAssembler) gives the same pairs, batches, padded
  tensors and loss as the Python-list path (encode_corpus, collate, boolean-mask loss);
- the training attention (PyTorch's fused kernel where torch has it) matches the explicit
  attention of model.py, the specification, in loss and gradients;
- checkpoints: ckpt-*.pt hold no optimizer state, last.pt does, both load with load_checkpoint,
  and a resumed run goes on from last.pt;
- DistributedDataParallel (torchrun's environment, gloo, 2 CPU processes) reaches the loss and
  weights of one process with the same global batches;
- `models/tfm train --benchmark` prints tokens/s and the split of a step; --export-best exports.
Prints "N passed, N failed"."""
import json
import os
import random
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "models"))
import tformer  # noqa: E402,F401  (names OpenBLAS kernels for this CPU before torch loads)
import numpy as np  # noqa: E402
import torch  # noqa: E402
import yaml  # noqa: E402
from tformer import tfm  # noqa: E402
from tformer.config import marian_convention  # noqa: E402
from tformer.data import (BatchAssembler, Corpus, EpochPlanner, collate, encode_corpus,  # noqa: E402
                          load_corpus, make_batches, shard_plan, token_file)
from tformer.model import Transformer  # noqa: E402
from tformer.tokenizer import Tokenizer  # noqa: E402
from tformer.train import TrainingLoss, load_checkpoint, target_positions  # noqa: E402

TFM = os.path.join(REPO, "models", "tfm")
results = []


def check(name, ok, detail=""):
    print(f"{'ok ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""), flush=True)
    results.append(bool(ok))


def write_corpus(folder, name, n, seed, extra=()):
    """Random word strings, de/en, plus `extra` pairs (edge cases for the filter)."""
    rng = random.Random(seed)
    de = "der die das ein eine hund katze mann frau kind läuft spielt sitzt auf wiese straße haus rot".split()
    en = "the a dog cat man woman child runs plays sits on the meadow street house red blue big".split()
    with open(f"{folder}/{name}.de", "w") as fd, open(f"{folder}/{name}.en", "w") as fe:
        for _ in range(n):
            k = rng.randint(1, 16)
            fd.write(" ".join(rng.choice(de) for _ in range(k)) + "\n")
            fe.write(" ".join(rng.choice(en) for _ in range(max(1, k + rng.randint(-2, 2)))) + "\n")
        for d, e in extra:
            fd.write(d + "\n")
            fe.write(e + "\n")
    return f"{folder}/{name}"


def recipe(folder, data, **train):
    """A tiny recipe in folder/r.yaml reading data/{train,dev}.{de,en} and data/vocab.spm."""
    r = {"name": "t", "source_lang": "de", "target_lang": "en", "work_dir": f"{folder}/work",
         "vocab": {"model": f"{data}/vocab.spm", "size": 256, "languages": ["de", "en"], "train": [f"{data}/train"]},
         "data": {"train": [f"{data}/train"], "dev": f"{data}/dev", "max_length": 40, "token_cache": f"{data}/tokens"},
         "model": {"convention": "marian", "d_model": 32, "heads": 4, "ffn_dim": 64, "encoder_layers": 2,
                   "decoder_layers": 1, "activation": "relu", "norm": "post", "max_positions": 128},
         "train": {"batch_tokens": 128, "lr": 0.001, "warmup": 10, "dropout": 0.0, "max_steps": 20,
                   "eval_every": 10, "log_every": 5, "save_every": 10, "keep_checkpoints": 2,
                   "average_last": 2, "threads": 1, "precision_cpu": "fp32", "seed": 3, **train}}
    os.makedirs(folder, exist_ok=True)
    with open(f"{folder}/r.yaml", "w") as f:
        yaml.safe_dump(r, f)
    return f"{folder}/r.yaml"


def log_lines(path, msg):
    with open(path) as f:
        return [x for x in map(json.loads, f) if x["msg"] == msg]


def data_path(tmp, tok, cfg):
    long_de = " ".join(["hund"] * 60)
    edge = [("", "the dog"), ("der hund", ""), (long_de, "dog"), ("hund", "the dog runs on the red street " * 3)]
    prefixes = [write_corpus(tmp, "a", 150, 1, edge), write_corpus(tmp, "b", 60, 2)]
    prefixes.append(prefixes[0])  # a corpus listed twice (upsampling) is read twice
    pairs, dropped = encode_corpus(cfg, tok, prefixes, "de", "en", 40)
    corpus = load_corpus(cfg, tok, prefixes, "de", "en", 40, cache_dir=f"{tmp}/tokens")
    check("the array path keeps the same pairs in the same order",
          len(corpus) == len(pairs) and all(corpus.pair(i) == pairs[i] for i in range(len(pairs))),
          f"{len(corpus)} pairs against {len(pairs)}")
    check("... and drops the same pairs", corpus.dropped == dropped and dropped >= 2 * 4,
          f"{corpus.dropped} against {dropped}")
    cached = token_file(f"{prefixes[1]}.de", tok, f"{tmp}/tokens")
    check("token files are memory-mapped int32 arrays", isinstance(cached, np.memmap) and cached.dtype == np.int32)
    files = sorted(os.listdir(f"{tmp}/tokens"))
    check("one token file per text file and vocabulary", len(files) == 4, files)
    with open(f"{prefixes[1]}.de", "a") as f:
        f.write("ein hund\n")
    with open(f"{prefixes[1]}.en", "a") as f:
        f.write("a dog\n")
    again = load_corpus(cfg, tok, prefixes, "de", "en", 40, cache_dir=f"{tmp}/tokens")
    check("an edited text file gets a new token file (the key hashes the text)",
          len(os.listdir(f"{tmp}/tokens")) == 6 and len(again) == len(corpus) + 1)
    with open(f"{prefixes[1]}.en", "a") as f:
        f.write("one line too many\n")
    try:
        load_corpus(cfg, tok, prefixes, "de", "en", 40, cache_dir=f"{tmp}/tokens")
        check("files of different line counts are refused", False)
    except ValueError as e:
        check("files of different line counts are refused", "lines but" in str(e), str(e))
    try:
        BatchAssembler(Corpus(np.zeros(0, np.int32), np.zeros(1, np.int64), np.zeros(0, np.int32),
                              np.zeros(1, np.int64)), "cpu", 0)
        check("an empty corpus is refused with a message", False)
    except ValueError as e:
        check("an empty corpus is refused with a message", "no sentence pairs" in str(e))

    for seed in (0, 1001):
        same = make_batches(pairs, 200, seed) == make_batches(corpus, 200, seed)
        check(f"make_batches(seed {seed}): the same batches from pairs and from the Corpus", same)
    batches = make_batches(corpus, 200, 7)
    assembler = BatchAssembler(corpus, "cpu", cfg.pad_id)
    index, plan = assembler.plan(batches)
    equal = all(all(torch.equal(x, y) for x, y in zip(assembler.batch(index[a:e], L), collate(pairs, b, cfg.pad_id)))
                for b, (a, e, L, _, _) in zip(batches, plan))
    check("BatchAssembler pads every batch as collate does", equal)
    check("the plan's token counts are the batches' target tokens",
          all(n == n_all == sum(len(pairs[i][1]) for i in b) for b, (_, _, _, n, n_all) in zip(batches, plan)))
    planner = EpochPlanner(corpus, 200, 1, 2, ahead=True)  # a helper process plans the next epoch
    try:
        ahead = [planner.get(e) for e in range(3)]
    finally:
        planner.close()
    inline = [shard_plan(make_batches(corpus, 200, 1000 + e), corpus.bucket_lengths(), corpus.target_lengths(), 1, 2)
              for e in range(3)]
    check("EpochPlanner: epochs planned ahead in a helper process are the epochs planned inline",
          all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(ahead, inline)) and ahead[0][1] != ahead[1][1])
    shards = [assembler.plan(batches, r, 3) for r in range(3)]
    rejoined = all(torch.equal(torch.cat([s[0][s[1][k][0]:s[1][k][1]] for s in shards]), torch.tensor(b))
                   and sum(s[1][k][3] for s in shards) == plan[k][4] for k, b in enumerate(batches))
    check("3 ranks' shards of each batch put back together are the batch", rejoined)

    # The loss: the old path (collate, states[mask]) and the new (BatchAssembler, target_positions)
    # on the reference model (explicit attention): equal to the last bit.
    torch.manual_seed(0)
    model = Transformer(cfg, dropout=0.0)
    loss_fn = TrainingLoss(model, 0.1)
    worst = 0.0
    for b, (a, e, L, n, _) in list(zip(batches, plan))[:6]:
        S, s_len, T, t_len = collate(pairs, b, cfg.pad_id)
        memory, mask = model.encode(S, s_len)
        states, _ = model.decode_states(model.decoder_input(T), memory, mask)
        tmask = torch.arange(T.shape[1])[None, :] < t_len[:, None]
        lp = torch.log_softmax(model.logits(states[tmask]).float(), dim=-1)
        nll = -lp.gather(-1, T[tmask][:, None]).squeeze(-1)
        old = ((0.9 * nll - 0.1 * lp.mean(-1)).sum(), nll.sum())
        S2, s2, T2, t2 = assembler.batch(index[a:e], L)
        new = loss_fn(S2, s2, T2, target_positions(t2, L, n))
        worst = max(worst, abs(float(old[0] - new[0])), abs(float(old[1] - new[1])))
    check("the new data path gives the loss of the old one exactly", worst == 0.0, worst)
    return corpus, assembler, batches, plan, index


def documented_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """F.scaled_dot_product_attention as PyTorch's documentation gives its reference (a boolean
    mask is True where a key takes part): stands in for the fused kernel where torch lacks it, so
    that training_attention's call (mask polarity, arguments) is checked on torch 1.13 too."""
    s = torch.matmul(query, key.transpose(-2, -1)) * (1 / query.size(-1) ** 0.5 if scale is None else scale)
    if attn_mask is not None:
        s = s.masked_fill(attn_mask.logical_not(), float("-inf")) if attn_mask.dtype == torch.bool else s + attn_mask
    return torch.matmul(torch.softmax(s, dim=-1), value)


def compare_attention(ref, fast, assembler, plan, index):
    worst_loss, worst_grad = 0.0, 0.0
    for a, e, L, n, _ in plan[:4]:
        S, s_len, T, t_len = assembler.batch(index[a:e], L)
        sel = target_positions(t_len, L, n)
        grads = []
        for m in (ref, fast):
            m.zero_grad()
            loss, _ = TrainingLoss(m, 0.1)(S, s_len, T, sel)
            loss.backward()
            grads.append((float(loss), {k: p.grad.clone() for k, p in m.named_parameters()}))
        worst_loss = max(worst_loss, abs(grads[0][0] - grads[1][0]) / abs(grads[0][0]))
        worst_grad = max(worst_grad, max(float((grads[0][1][k] - grads[1][1][k]).abs().max()) for k in grads[0][1]))
    return worst_loss, worst_grad, (S, s_len, T, sel, grads[1][0])


def attention_path(cfg, assembler, plan, index):
    """Training attention against the specification: loss and every gradient."""
    torch.manual_seed(1)
    ref = Transformer(cfg, dropout=0.0)
    fast = Transformer(cfg, dropout=0.0)
    fast.load_state_dict(ref.state_dict())
    fast.use_training_attention()
    F = torch.nn.functional
    variants = [("F.scaled_dot_product_attention" if hasattr(F, "scaled_dot_product_attention")
                 else "the scaled-query formula (this torch has no fused kernel)", None)]
    if not hasattr(F, "scaled_dot_product_attention"):
        variants.append(("F.scaled_dot_product_attention as documented (a stand-in)", documented_sdpa))
    for kind, stand_in in variants:
        if stand_in:
            F.scaled_dot_product_attention = stand_in
        try:
            worst_loss, worst_grad, last = compare_attention(ref, fast, assembler, plan, index)
        finally:
            if stand_in:
                del F.scaled_dot_product_attention
        check(f"training attention ({kind}) matches model.py's: loss within 1e-5 relative",
              worst_loss < 1e-5, worst_loss)
        check("... and every gradient within 1e-4", worst_grad < 1e-4, worst_grad)
    S, s_len, T, sel, last_loss = last
    logged = []
    loss_fn = TrainingLoss(fast, 0.1, log=lambda msg, **fields: logged.append(msg))

    def broken_compile(*args):
        raise RuntimeError("a compiler error")
    loss_fn.states = broken_compile  # as torch.compile's trunk failing at its first call
    loss, _ = loss_fn(S, s_len, T, sel)
    check("a failing compiled trunk falls back to eager, with a log line",
          loss_fn.states == loss_fn.trunk and len(logged) == 1 and abs(float(loss) - last_loss) < 1e-3 * abs(last_loss),
          f"{logged} {float(loss)} {last_loss}")
    check("the reference path returns attention weights, the training path none",
          ref.decoder.layers[0].cross_attn(torch.zeros(1, 2, 32), torch.zeros(1, 3, 32))[1] is not None
          and fast.decoder.layers[0].cross_attn(torch.zeros(1, 2, 32), torch.zeros(1, 3, 32))[1] is None)


def run(cmd, env=None, timeout=300):
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, **(env or {})})
    return p.returncode, p.stdout + p.stderr


def training_runs(tmp, spm):
    data = f"{tmp}/corpus"
    os.makedirs(data)
    with open(f"{data}/vocab.spm", "wb") as f:
        f.write(spm)
    write_corpus(data, "train", 300, 3)
    write_corpus(data, "dev", 30, 4)
    # accumulate 2: DDP skips the gradient all-reduce on the first of the two (no_sync)
    one = recipe(f"{tmp}/one", data, accumulate=2)
    rc, out = run([TFM, "train", one])
    wd = f"{tmp}/one/work"
    ckpts = sorted(f for f in os.listdir(wd) if f.startswith("ckpt-")) if os.path.isdir(wd) else []
    check("a tiny run trains 20 steps and keeps 2 checkpoints", rc == 0 and ckpts == ["ckpt-10.pt", "ckpt-20.pt"],
          f"rc {rc} {ckpts} {out[-600:]}")
    if rc != 0:
        return
    ck = load_checkpoint(f"{wd}/ckpt-20.pt")
    last = load_checkpoint(f"{wd}/last.pt")
    check("ckpt-*.pt hold the weights without optimizer state; last.pt has it",
          "optimizer" not in ck and "model" in ck and "optimizer" in last and last["state"]["step"] == 20)
    check("load_checkpoint reads the SentencePiece model back as bytes", isinstance(ck["spm"], bytes))
    train_log = log_lines(f"{wd}/train.log", "train")
    check("the loss is logged every log_every steps", [x["step"] for x in train_log] == [5, 10, 15, 20]
          and train_log[-1]["nll"] < train_log[0]["nll"], train_log)

    # Resume: 10 more steps from last.pt.
    with open(one) as f:
        r = yaml.safe_load(f)
    r["train"]["max_steps"] = 30
    with open(one, "w") as f:
        yaml.safe_dump(r, f)
    rc, out = run([TFM, "train", one])
    resumed = log_lines(f"{wd}/train.log", "resumed")
    check("a second run resumes from last.pt and goes on to step 30",
          rc == 0 and resumed and resumed[0]["step"] == 20 and load_checkpoint(f"{wd}/last.pt")["state"]["step"] == 30,
          out[-400:])

    # DDP: torchrun, 2 processes, gloo; the same global batches as `one`. (Debian's torchrun 1.13
    # under Python 3.11 fails on its default --redirects/--tee "0", an IntFlag it cannot map back;
    # "1" works there and in torch 2.x.)
    two = recipe(f"{tmp}/two", data, accumulate=2, max_steps=20)
    rc, out = run(["torchrun", "--standalone", "--nproc_per_node", "2", "--redirects", "1", "--tee", "1",
                   TFM, "train", two])
    check("torchrun: 2 DDP processes (gloo) train 20 steps", rc == 0 and "[default1]" not in out
          and '[default0]:{"time"' in out, out[-800:])
    if rc != 0:
        return
    # Adam hides a wrong gradient scale (it divides by the gradients' own size): the gradients of one
    # step, where the DDP loss scaling shows, are compared directly.
    me = os.path.abspath(__file__)
    rc1, out1 = run([sys.executable, me, "--dump-gradients", one, f"{tmp}/g1.pt"])
    rc2, out2 = run(["torchrun", "--standalone", "--nproc_per_node", "2", "--redirects", "1", "--tee", "1",
                     me, "--dump-gradients", two, f"{tmp}/g2.pt"])
    if rc1 == 0 and rc2 == 0:
        g1, g2 = torch.load(f"{tmp}/g1.pt"), torch.load(f"{tmp}/g2.pt")
        rel = max(float((g1[k] - g2[k]).abs().max()) for k in g1) / max(float(g1[k].abs().max()) for k in g1)
        check("DDP's gradients of one step (2 ranks, 2 accumulated batches) equal one process's (1e-5)",
              rel < 1e-5, rel)
    else:
        check("DDP's gradients of one step equal one process's", False, (out1 + out2)[-800:])
    a = [x["nll"] for x in train_log]
    b = [x["nll"] for x in log_lines(f"{tmp}/two/work/train.log", "train")]
    check("DDP logs the loss of one process with the same global batch (within 2e-3)",
          len(a) == len(b) == 4 and max(abs(x - y) for x, y in zip(a, b)) < 2e-3, f"{a} {b}")
    da = [x["dev_nll"] for x in log_lines(f"{wd}/train.log", "dev")][:2]
    db = [x["dev_nll"] for x in log_lines(f"{tmp}/two/work/train.log", "dev")]
    check("... and its dev losses (within 2e-3)", len(db) == 2 and max(abs(x - y) for x, y in zip(da, db)) < 2e-3,
          f"{da} {db}")
    wa = ck["model"]
    wb = load_checkpoint(f"{tmp}/two/work/ckpt-20.pt")["model"]
    diff = max(float((wa[k] - wb[k]).abs().max()) for k in wa)
    check("... and its weights after 20 steps (within 1e-2; Adam magnifies rounding in tiny gradients)",
          diff < 1e-2, diff)
    check("only rank 0 writes checkpoints and logs (rank 1 prints nothing)",
          sorted(f for f in os.listdir(f"{tmp}/two/work") if f.endswith(".pt")) == ["ckpt-10.pt", "ckpt-20.pt", "last.pt"]
          and "[default1]" not in out)

    # A time limit under DDP: rank 0's clock decides, both ranks stop at the same step (no hang).
    # Big batches, so that the run goes through several epochs, each planned ahead by a helper process.
    three = recipe(f"{tmp}/three", data, max_steps=100000, batch_tokens=1024, plan_ahead=True)
    rc, out = run(["torchrun", "--standalone", "--nproc_per_node", "2", "--redirects", "1", "--tee", "1",
                   TFM, "train", three, "--max-minutes", "0.05"], timeout=120)
    stopped = log_lines(f"{tmp}/three/work/train.log", "time limit") if rc == 0 else []
    check("DDP stops both ranks at rank 0's time limit, with last.pt and a checkpoint of the end",
          stopped and stopped[0]["step"] % 5 == 0 and stopped[0]["step"] < 100000 and stopped[0]["epoch"] >= 1
          and load_checkpoint(f"{tmp}/three/work/last.pt")["state"]["step"] == stopped[0]["step"]
          and os.path.exists(f"{tmp}/three/work/ckpt-{stopped[0]['step']}.pt"), out[-600:])

    rc, out = run([TFM, "train", one, "--benchmark", "4"])
    lines = [json.loads(x) for x in out.splitlines() if x.startswith("{") and "target_tokens_per_s" in x]
    ok = rc == 0 and lines and lines[0]["target_tokens_per_s"] > 0 and \
        set(lines[0]["split_seconds_per_step"]) == {"data", "forward", "backward", "optimizer", "sync"}
    check("--benchmark prints target tokens/s and the split of a step", ok and "target tokens/s" in out, out[-500:])
    check("--benchmark writes no checkpoint", load_checkpoint(f"{wd}/last.pt")["state"]["step"] == 30)
    # The torch.compile wiring, where torch has no compile (1.13): a pass-through stand-in counts
    # the calls; the benchmark first runs one step of every batch shape.
    from tformer.train import benchmark
    calls = []

    def stand_in_compile(fn, **kwargs):
        return lambda *a, **k: calls.append(1) or fn(*a, **k)
    had = hasattr(torch, "compile")
    saved = getattr(torch, "compile", None)
    torch.compile = stand_in_compile
    try:
        result = benchmark(recipe(f"{tmp}/compiled", data, compile=True), 2)
    finally:
        if had:
            torch.compile = saved
        else:
            del torch.compile
    check("with train.compile the trunk runs compiled, every batch shape once before the timed steps",
          # 3 warm-up steps, 2 + 2 timed; the corpus has at least 2 batch shapes: 9 calls or more
          result["target_tokens_per_s"] > 0 and len(calls) >= 3 + 2 + 2 + 2, len(calls))

    rc, out = run([TFM, "train", one, "--benchmark", "0"])
    check("--benchmark 0 is refused with a message", rc != 0 and "at least 1" in out, out[-300:])

    rc, out = run([TFM, "train", one, "--max-minutes", "0", "--export-best", f"{tmp}/best.tfm"])
    exported = log_lines(f"{wd}/train.log", "export")
    ok = rc == 0 and exported and os.path.exists(f"{tmp}/best.tfm")
    if ok:
        meta = tfm.read(f"{tmp}/best.tfm").metadata
        ok = meta.get("selection") == exported[0]["choice"] and len(exported[0]["dev_nll"]) == 3 and \
            meta["dev_nll"] == min(exported[0]["dev_nll"].values()) and meta["weights"] == "f16"
    check("--export-best exports the candidate with the lowest dev loss", ok, out[-500:])
    vocab = f"{data}/vocab.spm"
    with open(vocab, "rb") as f:
        mine = f.read()
    other = Tokenizer.from_tfm(tfm.read(os.path.join(REPO, "tests/fixtures/tutorial/model.tfm")), "source").model_bytes
    try:
        with open(vocab, "wb") as f:
            f.write(other)
        rc, out = run([TFM, "train", one, "--max-minutes", "0", "--export-best", f"{tmp}/other.tfm"])
        check("--export-best refuses a vocabulary file the checkpoints were not trained with",
              other != mine and rc != 0 and "not the vocabulary" in out, out[-300:])
    finally:
        with open(vocab, "wb") as f:
            f.write(mine)


def dump_gradients(recipe_path, out):
    """(run by the test itself, alone or under torchrun) One training step of a fresh model on the
    first global batch of epoch 0; rank 0 saves the gradients (clipped, as the optimizer saw them)."""
    from tformer.train import Trainer, load_recipe
    t = Trainer(load_recipe(recipe_path), fresh=True, log_name="grads.log")
    index, plan = t.epoch_plan(0)
    t.step(index, plan[:t.tr.get("accumulate", 1)])
    if t.ddp.main:
        torch.save({k: p.grad for k, p in t.model.named_parameters()}, out)
    t.close()


def write_parallel(folder, name, n, seed):
    """Lines whose English is a word-for-word translation of the German (guided alignment finds
    links there; in write_corpus's unrelated strings there are none to find)."""
    rng = random.Random(seed)
    words = {"hund": "dog", "katze": "cat", "mann": "man", "frau": "woman", "kind": "child", "haus": "house",
             "rot": "red", "blau": "blue", "läuft": "runs", "spielt": "plays", "wiese": "meadow", "baum": "tree"}
    with open(f"{folder}/{name}.de", "w") as fd, open(f"{folder}/{name}.en", "w") as fe:
        for _ in range(n):
            s = rng.sample(list(words), rng.randint(2, 8))
            fd.write(" ".join(s) + "\n")
            fe.write(" ".join(words[w] for w in s) + "\n")


def gpu_script(tmp, data):
    """models/gpu/train.sh end to end on CPU: a staged archive, a run with guided alignment (as the
    recipes' gpu: keys have it), the export chosen by dev loss with the aligned head in its
    metadata, the parts it returns. (Its own stage folder, so that a real one in models/work/gpu
    stays.)"""
    import tarfile
    stage, out = f"{tmp}/stage", f"{tmp}/out"
    os.makedirs(stage)
    os.makedirs(out)
    # A word-for-word corpus in the corpus folder's vocabulary
    parallel = f"{tmp}/parallel"
    os.makedirs(parallel)
    with open(f"{data}/vocab.spm", "rb") as f, open(f"{parallel}/vocab.spm", "wb") as g:
        g.write(f.read())
    write_parallel(parallel, "train", 300, 5)
    write_parallel(parallel, "dev", 30, 6)
    data = parallel
    names = [f"{n}.{lang}" for n in ("train", "dev") for lang in ("de", "en")]
    with tarfile.open(f"{stage}/shared.tar.xz", "w:xz") as tar:
        for n in names:
            tar.add(f"{data}/{n}", arcname=n)
    p = subprocess.run(["sha256sum"] + names, cwd=data, capture_output=True, text=True)
    with open(f"{stage}/shared.sha256", "w") as f:
        f.write(p.stdout)
    path = recipe(f"{tmp}/gpu", data, max_steps=1000, guided_alignment={"weight": 0.1, "layer": -1, "head": 2})
    with open(path) as f:
        r = yaml.safe_load(f)
    r["data"]["train"] = ["../shared/train"]  # read from the unpacked archive (TFORMER_SHARED)
    r["data"]["dev"] = "../shared/dev"
    with open(path, "w") as f:
        yaml.safe_dump(r, f)
    rc, log = run([os.path.join(REPO, "models/gpu/train.sh"), "0.03", path],
                  env={"OUT": out, "STAGE": stage, "PYTHON": "/usr/bin/python3"})
    files = sorted(os.listdir(out))
    check("models/gpu/train.sh trains, exports and leaves the parts and the log in $OUT",
          rc == 0 and files == ["r.log", "r.tfm.part-aa"], f"rc {rc} {files} {log[-600:]}")
    if rc == 0:
        meta = tfm.read(f"{out}/r.tfm.part-aa").metadata
        check("... the export chosen by dev loss, f16", meta.get("selection") and meta["weights"] == "f16", meta)
        check("... and the log holds the run and the choice",
              '"msg": "time limit"' in open(f"{out}/r.log").read() and '"msg": "export"' in open(f"{out}/r.log").read())
        lines = [json.loads(x) for x in open(f"{out}/r.log") if x.startswith("{")]
        aligned = [x for x in lines if x["msg"] == "aligned"]
        check("... with guided alignment: the data step aligned the corpus once (links found), training "
              "logged the alignment loss",
              len(aligned) == 1 and aligned[0]["links"] > 300
              and all("align_ce" in x for x in lines if x["msg"] == "train"), aligned)
        check("... and the export names the trained head: alignment_head {layer 0 (-1 resolved), head 2}",
              meta.get("alignment_head") == {"layer": 0, "head": 2}, meta)


def main():
    if sys.argv[1:2] == ["--dump-gradients"]:
        return dump_gradients(*sys.argv[2:4])
    with tempfile.TemporaryDirectory() as tmp:
        spm = Tokenizer.from_tfm(tfm.read(os.path.join(REPO, "tests/fixtures/marian/model.tfm")), "source").model_bytes
        tok = Tokenizer(spm)
        cfg = marian_convention(vocab_size=len(tok), d_model=32, heads=4, ffn_dim=64, encoder_layers=2,
                                decoder_layers=1, max_positions=128)
        os.makedirs(f"{tmp}/data")
        corpus, assembler, batches, plan, index = data_path(f"{tmp}/data", tok, cfg)
        attention_path(cfg, assembler, plan, index)
        training_runs(tmp, spm)
        gpu_script(tmp, f"{tmp}/corpus")
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())

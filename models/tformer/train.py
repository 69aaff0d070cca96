"""Training recipe for the reference Transformer.

One command trains a named config (models/configs/*.yaml): label-smoothed cross entropy, Adam with
inverse-square-root warm-up, dropout, token-based batches, gradient accumulation, mixed precision
(fp16/bf16 autocast on GPU; bf16 on CPUs that have it), checkpoints with resume, a warm start from a
shipped .tfm (`train.init_from`), early stopping on the dev loss, and averaging of the last
checkpoints at export.
"""
from __future__ import annotations

import glob
import json
import math
import os
import signal
import subprocess
import time

import torch
import torch.nn.functional as F
import yaml

from .config import ModelConfig, marian_convention, tutorial_convention
from .data import cached_corpus, collate, encode_corpus, make_batches
from .model import Transformer
from .tokenizer import Tokenizer

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# Recipes name the corpora as ../shared/... (beside the checkout). On a machine that receives only
# the repository (the GPU machine: models/gpu/), TFORMER_SHARED names where that folder's copy is.
SHARED_PREFIX = "../shared/"


def repo_path(p: str) -> str:
    if os.path.isabs(p):
        return p
    shared = os.environ.get("TFORMER_SHARED")
    if shared and p.startswith(SHARED_PREFIX):
        return os.path.join(shared, p[len(SHARED_PREFIX):])
    return os.path.join(REPO, p)


def load_recipe(path: str) -> dict:
    with open(path) as f:
        recipe = yaml.safe_load(f)
    recipe.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    return recipe


def train_settings(recipe: dict, device_type: str) -> dict:
    """The recipe's `train:` keys; on a CUDA device its `gpu:` keys replace the others (bigger batches)."""
    tr = {k: v for k, v in recipe["train"].items() if k != "gpu"}
    if device_type == "cuda":
        tr.update(recipe["train"].get("gpu") or {})
    return tr


def work_dir(recipe: dict) -> str:
    d = repo_path(recipe.get("work_dir", f"models/work/{recipe['name']}"))
    os.makedirs(d, exist_ok=True)
    return d


def train_vocab(vocab: dict) -> str:
    """Trains the joint SentencePiece model with Debian's spm_train (once; reused afterwards)."""
    out = repo_path(vocab["model"])
    if os.path.exists(out):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    inputs = []
    for prefix in vocab["train"]:
        for lang in vocab["languages"]:
            inputs.append(repo_path(f"{prefix}.{lang}"))
    prefix = out[:-len(".spm")] if out.endswith(".spm") else out
    cmd = ["spm_train", f"--input={','.join(inputs)}", f"--model_prefix={prefix}",
           f"--vocab_size={vocab['size']}", f"--model_type={vocab.get('type', 'unigram')}",
           f"--character_coverage={vocab.get('character_coverage', 1.0)}",
           f"--input_sentence_size={vocab.get('input_sentence_size', 2000000)}",
           "--shuffle_input_sentence=true", f"--num_threads={os.cpu_count()}"]
    ids = vocab.get("ids", {"eos": 0, "unk": 1, "bos": -1, "pad": -1})
    cmd += [f"--{k}_id={v}" for k, v in ids.items()]
    print(" ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.replace(prefix + ".model", out)
    return out


def seed_vocab_from_tfm(tfm_path: str, vocab: dict) -> None:
    """A warm start must keep the token ids of the model it continues: when the vocabulary file is
    missing (a new machine), it is written from the SentencePiece model embedded in the .tfm."""
    from . import tfm
    from .tokenizer import Tokenizer
    out = repo_path(vocab["model"])
    if os.path.exists(out):
        return
    os.makedirs(os.path.dirname(out), exist_ok=True)
    # Written under a private name and renamed into place: two trainings started together (both
    # directions share the vocabulary) must never read the other's half-written file.
    tmp = f"{out}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(Tokenizer.from_tfm(tfm.read(tfm_path), "source").model_bytes)
    os.replace(tmp, out)


def warm_start(model, cfg: ModelConfig, tfm_path: str) -> dict:
    """Loads a .tfm's weights (f16/int8 dequantized) into `model`; returns the training state to
    continue from (the step the .tfm was exported at, so the learning-rate schedule goes on)."""
    from .export import load_tfm_model
    ref, _, _, f = load_tfm_model(tfm_path, int8_arithmetic=False)  # training needs weights only
    if ref.cfg.to_dict() != cfg.to_dict():
        raise ValueError(f"{tfm_path}: its architecture differs from the config's; cannot continue from it")
    model.load_state_dict(ref.state_dict())
    # A new epoch number gives a new shuffle, not the batches the .tfm was already trained on.
    return {"step": int(f.metadata.get("train_step", 0)), "epoch": int(f.metadata.get("train_epoch", 0)) + 1}


def model_config(recipe: dict, vocab_size: int) -> ModelConfig:
    m = dict(recipe["model"])
    convention = m.pop("convention", "marian")
    m["vocab_size"] = vocab_size
    return marian_convention(**m) if convention == "marian" else tutorial_convention(**m)


def inverse_sqrt_lr(step: int, peak: float, warmup: int) -> float:
    step = max(step, 1)
    return peak * min(step / warmup, math.sqrt(warmup / step))


def autocast_context(device: torch.device, precision: str):
    if precision == "fp32":
        return torch.autocast(device.type, enabled=False)
    dtype = torch.float16 if precision == "fp16" else torch.bfloat16
    return torch.autocast(device.type, dtype=dtype)


def batch_loss(model, batch, device, smoothing: float):
    src, s_len, tgt, t_len = (x.to(device) for x in batch)
    memory, memory_mask = model.encode(src, s_len.cpu())
    states, _ = model.decode_states(model.decoder_input(tgt), memory, memory_mask)
    # The output projection and softmax over the vocabulary are the largest tensors of a step:
    # computed for real target positions only, not for padding (a fifth less time per step).
    mask = torch.arange(tgt.shape[1], device=device)[None, :] < t_len[:, None]
    logits = model.logits(states[mask]).float()
    lp = torch.log_softmax(logits, dim=-1)
    nll = -lp.gather(-1, tgt[mask][:, None]).squeeze(-1)
    # Label smoothing spreads `smoothing` uniformly over the vocabulary (as F.cross_entropy does).
    loss = (1.0 - smoothing) * nll - smoothing * lp.mean(-1)
    return loss.sum(), nll.sum(), mask.sum()


@torch.no_grad()
def evaluate(model, pairs, batches, device, precision, pad_id):
    model.eval()
    total, tokens = 0.0, 0
    for b in batches:
        with autocast_context(device, precision):
            _, nll, n = batch_loss(model, collate(pairs, b, pad_id), device, 0.0)
        total += float(nll)
        tokens += int(n)
    model.train()
    return total / max(tokens, 1)


def checkpoints(wd: str):
    return sorted(glob.glob(os.path.join(wd, "ckpt-*.pt")), key=lambda p: int(p.split("-")[-1][:-3]))


def train(recipe_path: str, max_minutes: float | None = None):
    recipe = load_recipe(recipe_path)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tr = train_settings(recipe, device.type)
    wd = work_dir(recipe)
    log_path = os.path.join(wd, "train.log")

    def log(msg, **fields):
        line = json.dumps({"time": round(time.time()), "msg": msg, **fields})
        print(line, flush=True)
        with open(log_path, "a") as f:
            f.write(line + "\n")

    threads = tr.get("threads") or os.cpu_count()
    torch.set_num_threads(threads)
    precision = tr.get("precision_gpu" if device.type == "cuda" else "precision_cpu", "fp32")

    # A warm start continues from a shipped .tfm (weights only: the optimizer starts afresh), so
    # that training on machines that do not keep models/work/ between runs still accumulates.
    init_from = repo_path(tr["init_from"]) if tr.get("init_from") else None
    last = os.path.join(wd, "last.pt")
    warm = init_from if init_from and os.path.exists(init_from) and not os.path.exists(last) else None
    if warm:
        seed_vocab_from_tfm(warm, recipe["vocab"])
    spm_path = train_vocab(recipe["vocab"])
    tok = Tokenizer.from_file(spm_path)
    cfg = model_config(recipe, len(tok))
    src_lang, tgt_lang = recipe["source_lang"], recipe["target_lang"]
    data = recipe["data"]
    max_len = data.get("max_length", 128)
    train_pairs, dropped = cached_corpus(os.path.join(wd, "train.pt"), cfg, tok,
                                         [repo_path(p) for p in data["train"]], src_lang, tgt_lang, max_len)
    dev_pairs, _ = encode_corpus(cfg, tok, [repo_path(data["dev"])], src_lang, tgt_lang, 1024, 1e9)
    dev_batches = make_batches(dev_pairs, tr["batch_tokens"], 0)
    log("data", train_pairs=len(train_pairs), dropped=dropped, dev_pairs=len(dev_pairs),
        vocab=len(tok), device=str(device), precision=precision, threads=threads)

    torch.manual_seed(tr.get("seed", 1))
    model = Transformer(cfg, dropout=tr.get("dropout", 0.1)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=tr["lr"], betas=(0.9, 0.98), eps=1e-9)
    scaler = torch.cuda.amp.GradScaler(enabled=(device.type == "cuda" and precision == "fp16"))
    state = {"step": 0, "epoch": 0, "batch": 0, "best_dev": float("inf"), "bad_evals": 0}
    if warm:
        state.update(warm_start(model, cfg, warm))
        state["warm_start_step"] = state["step"]
        log("warm start", init_from=warm, step=state["step"])
    if os.path.exists(last):
        ck = torch.load(last, map_location="cpu")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        state = ck["state"]
        log("resumed", **state)

    def save(tag_step: bool):
        ck = {"config": cfg.to_dict(), "model": model.state_dict(), "spm": tok.model_bytes,
              "metadata": {"name": recipe["name"], "source_language": src_lang,
                           "target_language": tgt_lang, "train_step": state["step"],
                           "train_epoch": state["epoch"]}}
        if tag_step:
            torch.save(ck, os.path.join(wd, f"ckpt-{state['step']}.pt"))
            for old in checkpoints(wd)[:-tr.get("keep_checkpoints", 8)]:
                os.remove(old)
        ck.update(optimizer=opt.state_dict(), state=state)
        torch.save(ck, last + ".tmp")
        os.replace(last + ".tmp", last)

    # SIGTERM/SIGINT stop training at the end of the current step, with a resumable checkpoint.
    stop = {"signal": None}

    def request_stop(signum, _frame):
        stop["signal"] = signal.Signals(signum).name
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, request_stop)

    accumulate = tr.get("accumulate", 1)
    smoothing = tr.get("label_smoothing", 0.1)
    started = time.time()
    model.train()
    window = {"loss": 0.0, "tokens": 0, "t0": time.time()}
    while state["step"] < tr["max_steps"] and state["epoch"] < tr.get("max_epochs", 1000):
        batches = make_batches(train_pairs, tr["batch_tokens"], seed=1000 + state["epoch"])
        while state["batch"] + accumulate <= len(batches):
            group = batches[state["batch"]:state["batch"] + accumulate]
            lr = inverse_sqrt_lr(state["step"] + 1, tr["lr"], tr["warmup"])
            if "warm_start_step" in state:  # fresh Adam moments: ramp up again over `rewarm` steps
                lr *= min(1.0, (state["step"] + 1 - state["warm_start_step"]) / tr.get("rewarm", 200))
            for g in opt.param_groups:
                g["lr"] = lr
            opt.zero_grad(set_to_none=True)
            ntok = sum(sum(len(train_pairs[i][1]) for i in b) for b in group)
            for b in group:
                with autocast_context(device, precision):
                    loss, nll, n = batch_loss(model, collate(train_pairs, b, cfg.pad_id), device, smoothing)
                scaler.scale(loss / ntok).backward()
                window["loss"] += float(nll)
                window["tokens"] += int(n)
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), tr.get("clip_norm", 1.0))
            scaler.step(opt)
            scaler.update()
            state["step"] += 1
            state["batch"] += accumulate
            if state["step"] % tr.get("log_every", 100) == 0:
                el = time.time() - window["t0"]
                log("train", step=state["step"], epoch=state["epoch"], lr=round(lr, 7),
                    nll=round(window["loss"] / max(window["tokens"], 1), 4),
                    tokens_per_s=round(window["tokens"] / el))
                window = {"loss": 0.0, "tokens": 0, "t0": time.time()}
            if state["step"] % tr["eval_every"] == 0:
                dev = evaluate(model, dev_pairs, dev_batches, device, precision, cfg.pad_id)
                improved = dev < state["best_dev"] - 1e-4
                state["best_dev"] = min(dev, state["best_dev"])
                state["bad_evals"] = 0 if improved else state["bad_evals"] + 1
                log("dev", step=state["step"], dev_nll=round(dev, 4), best=round(state["best_dev"], 4),
                    bad_evals=state["bad_evals"], hours=round((time.time() - started) / 3600, 2))
                save(tag_step=True)
                if state["bad_evals"] >= tr.get("patience", 10):
                    log("early stop", **state)
                    return wd
            if max_minutes and time.time() - started > max_minutes * 60:
                save(tag_step=False)
                log("time limit", **state)
                return wd
            if stop["signal"]:
                save(tag_step=False)
                log(f"stopped by {stop['signal']}", **state)
                return wd
            if state["step"] >= tr["max_steps"]:
                break
        else:
            state["epoch"] += 1
            state["batch"] = 0
            continue
        break
    save(tag_step=True)
    log("finished", **state)
    return wd

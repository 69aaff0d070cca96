"""Training recipe for the reference Transformer.

One command trains a named config (models/configs/*.yaml): label-smoothed cross entropy, Adam with
inverse-square-root warm-up, dropout, token-based batches, gradient accumulation, mixed precision
(fp16/bf16 autocast on GPU; bf16 on CPUs that have it), checkpoints with resume, a warm start from a
shipped .tfm (`train.init_from`), early stopping on the dev loss, and averaging of the last
checkpoints at export.

Built to keep a GPU busy from one process: the corpus lives on the device as flat token arrays and
batches are assembled there (data.BatchAssembler); nothing waits for the device between steps (loss
sums are read every log_every steps); fused Adam, torch.compile and PyTorch's fused attention where
the installed torch has them. Under torchrun, DistributedDataParallel: every rank takes a shard of
each global batch, rank 0 logs, evaluates and saves. The same code runs on Debian's torch 1.13.
"""
from __future__ import annotations

import contextlib
import glob
import inspect
import json
import math
import os
import signal
import subprocess
import time

import numpy as np
import torch
import torch.nn as nn
import yaml

from .config import ModelConfig, marian_convention, tutorial_convention
from .data import BatchAssembler, EpochPlanner, load_corpus, make_batches
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


def guided_alignment(tr: dict, cfg: ModelConfig):
    """The recipe's `guided_alignment: {weight, layer, head}` (Marian's guided alignment, cost "ce")
    checked against the model, with layer -1 (the last decoder layer) resolved to a 0-based index;
    None where the key is absent or null."""
    ga = tr.get("guided_alignment")
    if ga is None:
        return None
    if not isinstance(ga, dict) or set(ga) - {"weight", "layer", "head"}:
        raise ValueError(f"train.guided_alignment: expected {{weight, layer, head}}, got {ga!r}")
    weight, layer, head = ga.get("weight", 0.1), ga.get("layer", -1), ga.get("head", 0)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 < weight < 1e3:
        raise ValueError(f"train.guided_alignment.weight: a positive number, got {weight!r}")
    L = cfg.decoder_layers
    if isinstance(layer, bool) or not isinstance(layer, int) or not -L <= layer < L:
        raise ValueError(f"train.guided_alignment.layer: {layer!r} is not a decoder layer of this model "
                         f"(0..{L - 1}, or -1 for the last)")
    if isinstance(head, bool) or not isinstance(head, int) or not 0 <= head < cfg.heads:
        raise ValueError(f"train.guided_alignment.head: {head!r} is not a head (0..{cfg.heads - 1})")
    return {"weight": float(weight), "layer": layer % L, "head": head}


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


TORCH_MAJOR = int(torch.__version__.split(".")[0])


def grad_scaler(device: torch.device, enabled: bool):
    """fp16's loss scaler: torch.amp.GradScaler(device) where it exists (torch >= 2.3, where
    torch.cuda.amp.GradScaler is deprecated), else torch.cuda.amp's (Debian's 1.13)."""
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "GradScaler"):
        return amp.GradScaler(device.type, enabled=enabled)
    return torch.cuda.amp.GradScaler(enabled=enabled)


def load_checkpoint(path: str) -> dict:
    """A checkpoint this recipe wrote (tensors, dicts, numbers, strings and the SentencePiece model
    as bytes). torch >= 2 reads all of that with weights_only=True (its default from 2.6 on), so it
    is asked for; 1.13's weights-only reader rejects bytes, so there the file loads unrestricted
    (weights_only=False said explicitly)."""
    return torch.load(path, map_location="cpu", weights_only=TORCH_MAJOR >= 2)


def make_optimizer(params, lr: float, device: torch.device):
    """Adam (0.9, 0.98, 1e-9). On CUDA one fused kernel for all parameters (torch >= 2.0), else
    the foreach (multi-tensor) version; on CPU torch's default, the per-tensor loop."""
    kwargs = dict(lr=lr, betas=(0.9, 0.98), eps=1e-9)
    if device.type == "cuda":
        accepted = inspect.signature(torch.optim.Adam.__init__).parameters
        if TORCH_MAJOR >= 2 and "fused" in accepted:
            kwargs["fused"] = True
        elif "foreach" in accepted:
            kwargs["foreach"] = True
    return torch.optim.Adam(params, **kwargs)


class TrainingLoss(nn.Module):
    """A batch's label-smoothed loss and NLL sums, as one module: DistributedDataParallel wraps it
    (its forward is what DDP hooks), and torch.compile compiles its encoder-decoder part."""

    def __init__(self, model: Transformer, smoothing: float, compile_trunk: bool = False, log=print,
                 alignment: dict | None = None):
        """alignment: guided alignment's {weight, layer, head} (guided_alignment()), or None."""
        super().__init__()
        self.model, self.smoothing, self.log = model, smoothing, log
        self.alignment = alignment
        self.alignment_sum = None  # the last batch's guided-alignment loss sum (detached), for the log
        if alignment:
            model.decoder.layers[alignment["layer"]].cross_attn.keep_head = alignment["head"]
        self.states = self.trunk
        if compile_trunk:
            # The output projection and loss stay outside: their row count (the batch's real target
            # tokens) changes every batch, the trunk's shapes only with the length bucket.
            self.states = torch.compile(self.trunk)

    def trunk(self, src, s_len, tgt):
        """The decoder's final states; with guided alignment also the aligned head's weights."""
        memory, memory_mask = self.model.encode(src, s_len)
        if not self.alignment:
            return self.model.decode_states(self.model.decoder_input(tgt), memory, memory_mask)[0]
        return self.model.decode_states(self.model.decoder_input(tgt), memory, memory_mask, self.alignment["layer"])

    def forward(self, src, s_len, tgt, select, eager: bool = False, links=None):
        """eager: the uncompiled trunk (dev evaluation: its many long shapes would each compile).
        links: with guided alignment, the batch's gold alignment [B, T, S] (rows normalised, zero
        where a target position has no link: BatchAssembler.alignment); its loss is added."""
        try:
            states = (self.trunk if eager else self.states)(src, s_len, tgt)
        except Exception as e:  # a torch.compile failure costs speed, not the run
            if self.states == self.trunk:
                raise
            self.log("torch.compile failed; training continues eagerly", error=repr(e)[:300])
            self.states = self.trunk
            states = self.states(src, s_len, tgt)
        attention = None
        if self.alignment:
            states, attention = states
        # The output projection and softmax over the vocabulary are the largest tensors of a step:
        # computed for real target positions only, not for padding (a fifth less time per step).
        rows = states.flatten(0, 1)[select]
        gold = tgt.flatten()[select]
        lp = torch.log_softmax(self.model.logits(rows).float(), dim=-1)
        nll = -lp.gather(-1, gold[:, None]).squeeze(-1)
        # Label smoothing spreads `smoothing` uniformly over the vocabulary (as F.cross_entropy does).
        loss = (1.0 - self.smoothing) * nll - self.smoothing * lp.mean(-1)
        loss = loss.sum()
        if links is not None and attention is not None:
            # Marian's guided-alignment cost "ce": the cross-entropy of the head's attention against
            # the gold links, summed over target positions (rows without links are zero), weighted
            # and added to the summed label loss, which the step normalises by target tokens.
            a = attention[:, 0, :links.shape[1], :links.shape[2]].float()
            align_sum = -(links * torch.log(a + 1e-6)).sum()
            self.alignment_sum = align_sum.detach()
            loss = loss + self.alignment["weight"] * align_sum
        return loss, nll.sum()


def target_positions(t_len, length: int, count: int):
    """The flat positions of the real target tokens of a [B, length] batch, in row order, as
    states[mask] would pick them, but without asking the device how many there are: `count` is
    known on the host. (A stable sort puts the real positions first.)"""
    pad = torch.arange(length, device=t_len.device)[None, :] >= t_len[:, None]
    return torch.sort(pad.flatten().to(torch.uint8), stable=True).indices[:count]


@torch.no_grad()
def evaluate(loss_fn: TrainingLoss, assembler: BatchAssembler, batches, device, precision):
    """Mean NLL per target token over a corpus, summed on the device, read once."""
    was_training = loss_fn.training
    loss_fn.eval()
    index, plan = assembler.plan(batches)
    total, tokens = torch.zeros((), device=device, dtype=torch.float64), 0
    for first, end, length, count, _ in plan:
        S, s_len, T, t_len = assembler.batch(index[first:end], length)
        with autocast_context(device, precision):
            _, nll = loss_fn(S, s_len, T, target_positions(t_len, length, count), eager=True)
        total += nll.double()
        tokens += count
    loss_fn.train(was_training)
    return float(total) / max(tokens, 1)


def checkpoints(wd: str):
    return sorted(glob.glob(os.path.join(wd, "ckpt-*.pt")), key=lambda p: int(p.split("-")[-1][:-3]))


class Distributed:
    """torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK): DistributedDataParallel over NCCL on
    GPUs, gloo on CPUs. Without it, one process and no collectives."""

    def __init__(self):
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        local = int(os.environ.get("LOCAL_RANK", str(self.rank)))
        if torch.cuda.is_available():
            self.device = torch.device("cuda", local if self.world > 1 else torch.cuda.current_device())
            torch.cuda.set_device(self.device)
        else:
            self.device = torch.device("cpu")
        if self.world > 1:
            import torch.distributed as dist
            self.dist = dist
            dist.init_process_group("nccl" if self.device.type == "cuda" else "gloo")

    @property
    def main(self) -> bool:
        return self.rank == 0

    def barrier(self):
        if self.world > 1:
            self.dist.barrier()

    def any(self, flags):
        """Each flag set on any rank (one small all-reduce; the host waits for it)."""
        if self.world == 1:
            return [bool(f) for f in flags]
        t = torch.tensor([float(bool(f)) for f in flags], device=self.device)
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX)
        return [bool(v) for v in t.tolist()]

    def sum(self, values):
        if self.world == 1:
            return [float(v) for v in values]
        t = torch.stack([torch.as_tensor(v, dtype=torch.float64, device=self.device) for v in values])
        self.dist.all_reduce(t)
        return t.tolist()

    def close(self):
        if self.world > 1:
            self.dist.destroy_process_group()


class PhaseTimer:
    """--benchmark's split of a step: host time per phase, with the device drained at each phase's
    end (torch.cuda.synchronize) so that GPU work is charged to the phase that queued it."""

    PHASES = ("data", "forward", "backward", "optimizer", "sync")

    def __init__(self, device):
        self.device, self.seconds = device, dict.fromkeys(self.PHASES, 0.0)
        self.t = time.perf_counter()

    def start(self):
        self.drain()
        self.t = time.perf_counter()

    def drain(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def __call__(self, phase: str):
        self.drain()
        now = time.perf_counter()
        self.seconds[phase] += now - self.t
        self.t = now


class Trainer:
    """The state of one training process: data on the device, model (DDP-wrapped under torchrun),
    optimizer, loss scaler; `step` runs one update."""

    def __init__(self, recipe: dict, fresh: bool = False, log_name: str = "train.log"):
        """fresh: a new model from the recipe's seed, whatever models/work/ holds (--benchmark)."""
        self.recipe = recipe
        self.ddp = Distributed()
        device = self.device = self.ddp.device
        tr = self.tr = train_settings(recipe, device.type)
        self.wd = work_dir(recipe)
        self.log_path = os.path.join(self.wd, log_name)
        self.threads = tr.get("threads") or os.cpu_count()
        torch.set_num_threads(self.threads)
        self.precision = tr.get("precision_gpu" if device.type == "cuda" else "precision_cpu", "fp32")

        # A warm start continues from a shipped .tfm (weights only: the optimizer starts afresh), so
        # that training on machines that do not keep models/work/ between runs still accumulates.
        init_from = repo_path(tr["init_from"]) if tr.get("init_from") and not fresh else None
        self.last = os.path.join(self.wd, "last.pt")
        resume = os.path.exists(self.last) and not fresh
        warm = init_from if init_from and os.path.exists(init_from) and not resume else None
        # Rank 0 writes what the others read (vocabulary, token files) before they look for it.
        for turn in ("main", "others"):
            if (turn == "main") == self.ddp.main:
                self.prepare_data(warm)
            if turn == "main":
                self.ddp.barrier()

        torch.manual_seed(tr.get("seed", 1))
        model = Transformer(self.cfg, dropout=tr.get("dropout", 0.1)).to(device)
        self.model = model.use_training_attention()
        self.opt = make_optimizer(model.parameters(), tr["lr"], device)
        self.scaler = grad_scaler(device, device.type == "cuda" and self.precision == "fp16")
        self.state = {"step": 0, "epoch": 0, "batch": 0, "best_dev": float("inf"), "best_step": 0,
                      "bad_evals": 0}
        if warm:
            self.state.update(warm_start(model, self.cfg, warm))
            self.state["warm_start_step"] = self.state["step"]
            self.log("warm start", init_from=warm, step=self.state["step"])
        if resume:
            ck = load_checkpoint(self.last)
            model.load_state_dict(ck["model"])
            self.opt.load_state_dict(ck["optimizer"])
            self.state.update(ck["state"])
            self.log("resumed", **self.state)
        compile_trunk = bool(tr.get("compile", device.type == "cuda")) and hasattr(torch, "compile")
        self.loss_fn = TrainingLoss(model, tr.get("label_smoothing", 0.1), compile_trunk, self.log, self.alignment)
        # Summed on the device like the NLL, read at each log line.
        self.alignment_sum = torch.zeros((), device=device, dtype=torch.float64)
        self.step_fn = self.loss_fn
        if self.ddp.world > 1:
            from torch.nn.parallel import DistributedDataParallel
            # broadcast_buffers off: the one buffer, the positional table, is computed alike on
            # every rank, and broadcasting it would add a collective to every step.
            self.step_fn = DistributedDataParallel(
                self.loss_fn, device_ids=[device.index] if device.type == "cuda" else None,
                broadcast_buffers=False, gradient_as_bucket_view=True)
        self.log("data", train_pairs=len(self.corpus), dropped=self.corpus.dropped, guided_alignment=self.alignment,
                 dev_pairs=len(self.dev_corpus), vocab=len(self.tok), device=str(device),
                 precision=self.precision, threads=self.threads, processes=self.ddp.world,
                 compile=compile_trunk, torch=torch.__version__)

    def prepare_data(self, warm):
        recipe, tr = self.recipe, self.tr
        if warm:
            seed_vocab_from_tfm(warm, recipe["vocab"])
        self.tok = Tokenizer.from_file(train_vocab(recipe["vocab"]))
        self.cfg = model_config(recipe, len(self.tok))
        data = recipe["data"]
        src, tgt = recipe["source_lang"], recipe["target_lang"]
        cache = repo_path(data.get("token_cache", "models/work/tokens"))
        self.corpus = load_corpus(self.cfg, self.tok, [repo_path(p) for p in data["train"]], src, tgt,
                                  data.get("max_length", 128), cache_dir=cache)
        self.assembler = BatchAssembler(self.corpus, self.device, self.cfg.pad_id)
        self.alignment = guided_alignment(tr, self.cfg)
        if self.alignment:  # rank 0 aligns (or reads the cache) first, the others read its file
            from .align import corpus_links
            links = corpus_links(self.corpus, self.cfg, cache, self.device, log=self.log)
            self.assembler.attach_links(links, int(self.cfg.source_bos))
        self.planner = EpochPlanner(self.corpus, tr["batch_tokens"], self.ddp.rank, self.ddp.world,
                                    ahead=bool(tr.get("plan_ahead", self.device.type == "cuda")))
        if self.ddp.main:  # only rank 0 evaluates
            self.dev_corpus = load_corpus(self.cfg, self.tok, [repo_path(data["dev"])], src, tgt, 1024, 1e9,
                                          cache_dir=cache)
            self.dev_assembler = BatchAssembler(self.dev_corpus, self.device, self.cfg.pad_id)
            self.dev_batches = make_batches(self.dev_corpus, tr["batch_tokens"], 0)
        else:
            self.dev_corpus = ()

    def log(self, msg, **fields):
        if not self.ddp.main:
            return
        line = json.dumps({"time": round(time.time()), "msg": msg, **fields})
        print(line, flush=True)
        with open(self.log_path, "a") as f:
            f.write(line + "\n")

    def epoch_plan(self, epoch: int):
        """The epoch's batches (the same on every rank), this rank's shard of each on the device."""
        return self.assembler.to_device(self.planner.get(epoch))

    def close(self):
        self.planner.close()
        self.ddp.close()

    def learning_rate(self) -> float:
        tr, state = self.tr, self.state
        lr = inverse_sqrt_lr(state["step"] + 1, tr["lr"], tr["warmup"])
        if "warm_start_step" in state:  # fresh Adam moments: ramp up again over `rewarm` steps
            lr *= min(1.0, (state["step"] + 1 - state["warm_start_step"]) / tr.get("rewarm", 200))
        return lr

    def step(self, index, group, timer=None):
        """One update from the batches `group` (plan entries); returns the NLL sum (a device tensor,
        not read here), this rank's target token count and the learning rate."""
        try:
            return self.update(index, group, timer)
        except Exception as e:
            # torch.compile may fail late (the backward graph compiles at the first backward): the
            # step is done again eagerly (nothing was applied yet) and training goes on uncompiled.
            if self.loss_fn.states == self.loss_fn.trunk:
                raise
            self.log("torch.compile failed; training continues eagerly", error=repr(e)[:300])
            self.loss_fn.states = self.loss_fn.trunk
            return self.update(index, group, timer)

    def update(self, index, group, timer=None):
        lr = self.learning_rate()
        for g in self.opt.param_groups:
            g["lr"] = lr
        self.opt.zero_grad(set_to_none=True)
        # The loss is normalised by the global batch's target tokens (known on the host); DDP
        # averages gradients over ranks, hence the factor world: the sum over ranks results.
        scale = self.ddp.world / sum(entry[4] for entry in group)
        nll_sum, tokens = None, 0
        for k, (first, end, length, count, _) in enumerate(group):
            S, s_len, T, t_len = self.assembler.batch(index[first:end], length)
            select = target_positions(t_len, length, count)
            links = self.assembler.alignment(index[first:end], length) if self.alignment else None
            if timer:
                timer("data")
            last = k == len(group) - 1
            sync = self.step_fn.no_sync() if self.ddp.world > 1 and not last else contextlib.nullcontext()
            with sync:
                with autocast_context(self.device, self.precision):
                    loss, nll = self.step_fn(S, s_len, T, select, links=links)
                if timer:
                    timer("forward")
                self.scaler.scale(loss * scale).backward()
            if timer:
                timer("backward")
            nll_sum = nll.detach() if nll_sum is None else nll_sum + nll.detach()
            tokens += count
            if self.alignment:
                self.alignment_sum = self.alignment_sum + self.loss_fn.alignment_sum
        self.scaler.unscale_(self.opt)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.tr.get("clip_norm", 1.0))
        self.scaler.step(self.opt)
        self.scaler.update()
        if timer:
            timer("optimizer")
        self.state["step"] += 1
        self.state["batch"] += len(group)
        return nll_sum, tokens, lr

    def save(self, tag_step: bool, with_optimizer: bool = True):
        """ckpt-STEP.pt: the weights (what export averages); last.pt: the weights, optimizer and
        training state (what a resume needs; three times the size, so written less often)."""
        if not self.ddp.main:
            return
        state, wd = self.state, self.wd
        ck = {"config": self.cfg.to_dict(), "model": self.model.state_dict(), "spm": self.tok.model_bytes,
              "metadata": {"name": self.recipe["name"], "source_language": self.recipe["source_lang"],
                           "target_language": self.recipe["target_lang"], "train_step": state["step"],
                           "train_epoch": state["epoch"]}}
        if self.alignment:  # the head the engine reads its alignment from (docs/FORMAT.md)
            ck["metadata"]["alignment_head"] = {"layer": self.alignment["layer"], "head": self.alignment["head"]}
        if tag_step:
            torch.save(ck, os.path.join(wd, f"ckpt-{state['step']}.pt"))
            keep = self.tr.get("keep_checkpoints", 8)
            for old in checkpoints(wd)[:-keep]:
                if old != os.path.join(wd, f"ckpt-{state['best_step']}.pt"):  # the best one stays
                    os.remove(old)
        if with_optimizer:
            ck.update(optimizer=self.opt.state_dict(), state=state)
            torch.save(ck, self.last + ".tmp")
            os.replace(self.last + ".tmp", self.last)

    def dev_loss(self) -> float:
        return evaluate(self.loss_fn, self.dev_assembler, self.dev_batches, self.device, self.precision)


def train(recipe_path: str, max_minutes: float | None = None):
    """Trains (or resumes) a recipe; max_minutes 0 only prepares it (vocabulary, token files)."""
    trainer = Trainer(load_recipe(recipe_path))
    try:
        if max_minutes == 0:
            return trainer.wd
        return run_training(trainer, max_minutes)
    finally:
        trainer.close()


def prepare_alignment(recipe_path: str, device="cpu", with_corpus: bool = False, **params):
    """`models/tfm align CONFIG`: the word links of a recipe's training corpus, computed into its
    token cache (where training with train.guided_alignment reads them) unless already there.
    with_corpus: returns (corpus, model config, links) instead of the links alone."""
    from .align import corpus_links
    recipe = load_recipe(recipe_path)
    init_from = recipe["train"].get("init_from")
    if init_from and os.path.exists(repo_path(init_from)):
        seed_vocab_from_tfm(repo_path(init_from), recipe["vocab"])
    tok = Tokenizer.from_file(train_vocab(recipe["vocab"]))
    cfg = model_config(recipe, len(tok))
    data = recipe["data"]
    cache = repo_path(data.get("token_cache", "models/work/tokens"))
    corpus = load_corpus(cfg, tok, [repo_path(p) for p in data["train"]], recipe["source_lang"],
                         recipe["target_lang"], data.get("max_length", 128), cache_dir=cache)
    log = lambda msg, **fields: print(json.dumps({"msg": msg, **fields}), flush=True)  # noqa: E731
    links = corpus_links(corpus, cfg, cache, torch.device(device), log=log, **params)
    log("links", pairs=len(links), links=int(links.offsets[-1]),
        unlinked_target_tokens=int(corpus.target_lengths().sum() - len(corpus) - len(np.unique(
            np.repeat(np.arange(len(links)), links.counts()) * 4096 + links.target))))
    return (corpus, cfg, links) if with_corpus else links


def run_training(t: Trainer, max_minutes: float | None):
    tr, state, ddp = t.tr, t.state, t.ddp
    # SIGTERM/SIGINT stop training at the next agreed check, with a resumable checkpoint.
    stop = {"signal": None}

    def request_stop(signum, _frame):
        stop["signal"] = signal.Signals(signum).name
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, request_stop)

    accumulate = tr.get("accumulate", 1)
    log_every, eval_every = tr.get("log_every", 100), tr["eval_every"]
    save_every = tr.get("save_every", 1000)
    started = time.time()
    t.loss_fn.train()
    window = {"nll": torch.zeros((), device=t.device, dtype=torch.float64), "tokens": 0, "t0": time.time()}
    while state["step"] < tr["max_steps"] and state["epoch"] < tr.get("max_epochs", 1000):
        index, plan = t.epoch_plan(state["epoch"])
        while state["batch"] + accumulate <= len(plan):
            nll, tokens, lr = t.step(index, plan[state["batch"]:state["batch"] + accumulate])
            window["nll"] += nll.double()
            window["tokens"] += tokens
            step = state["step"]
            # Loss sums stay on the device; they are read (and summed over ranks) every log_every.
            if step % log_every == 0:
                sums = [window["nll"], window["tokens"]] + ([t.alignment_sum] if t.alignment else [])
                total, tokens, *aligned = ddp.sum(sums)
                el = time.time() - window["t0"]
                extra = {}
                if t.alignment:  # guided alignment's cross-entropy per target token (unweighted)
                    extra["align_ce"] = round(aligned[0] / max(tokens, 1), 4)
                    t.alignment_sum = torch.zeros_like(t.alignment_sum)
                t.log("train", step=step, epoch=state["epoch"], lr=round(lr, 7),
                      nll=round(total / max(tokens, 1), 4), tokens_per_s=round(tokens / el), **extra)
                window = {"nll": torch.zeros_like(window["nll"]), "tokens": 0, "t0": time.time()}
            early = False
            if step % eval_every == 0 and ddp.main:
                dev = t.dev_loss()
                improved = dev < state["best_dev"] - 1e-4
                if dev < state["best_dev"]:
                    state["best_dev"], state["best_step"] = dev, step
                state["bad_evals"] = 0 if improved else state["bad_evals"] + 1
                t.log("dev", step=step, dev_nll=round(dev, 4), best=round(state["best_dev"], 4),
                      bad_evals=state["bad_evals"], hours=round((time.time() - started) / 3600, 2))
                t.save(tag_step=True, with_optimizer=step % save_every == 0)
                early = state["bad_evals"] >= tr.get("patience", 10)
            elif step % save_every == 0:
                t.save(tag_step=False)
            # Ranks agree on stopping at log and dev checks (one collective there); one process
            # checks after every step.
            if ddp.world == 1 or step % log_every == 0 or step % eval_every == 0:
                timed_out = ddp.main and bool(max_minutes) and time.time() - started > max_minutes * 60
                early, timed_out, signalled = ddp.any([early, timed_out, stop["signal"]])
                if early:
                    t.save(tag_step=False)
                    t.log("early stop", **state)
                    return t.wd
                if timed_out or signalled:
                    # The weights as they are now become a checkpoint too: --export-best's "last"
                    # candidate is the run's end, not its last dev check.
                    t.save(tag_step=step % eval_every != 0)
                    t.log("time limit" if timed_out else f"stopped by {stop['signal'] or 'SIGTERM'}", **state)
                    return t.wd
            if step >= tr["max_steps"]:
                break
        else:
            state["epoch"] += 1
            state["batch"] = 0
            continue
        break
    t.save(tag_step=True)
    t.log("finished", **state)
    return t.wd


def benchmark(recipe_path: str, steps: int, warmup: int = 3, batch_tokens: int | None = None) -> dict:
    """Trains `steps` steps from a fresh model (no checkpoint is read or written) twice: once as
    training runs (target tokens/s), once with the device drained after each phase (the split of a
    step's time). Prints both; returns them. batch_tokens: instead of the recipe's (CPU and GPU keys)."""
    recipe = load_recipe(recipe_path)
    if batch_tokens is not None:
        recipe["train"]["batch_tokens"] = batch_tokens
        if "gpu" in recipe["train"]:
            recipe["train"]["gpu"]["batch_tokens"] = batch_tokens
    t = Trainer(recipe, fresh=True, log_name="benchmark.log")
    try:
        index, plan = t.epoch_plan(0)
        accumulate = t.tr.get("accumulate", 1)
        groups = [plan[k:k + accumulate] for k in range(0, len(plan) - accumulate + 1, accumulate)]
        if len(groups) < warmup + 2 * steps:  # a small corpus: go round again
            groups = groups * ((warmup + 2 * steps) // max(len(groups), 1) + 1)
        log_every = t.tr.get("log_every", 100)
        t.loss_fn.train()
        warm = groups[:warmup]  # kernel selection, allocator warm-up
        if t.loss_fn.states != t.loss_fn.trunk:
            # Under torch.compile, one step of every batch shape first: the timed steps must not
            # include (re)compilation. Ranks' shards differ in size, so the steps chosen are the
            # union over ranks (every rank must run the same steps).
            seen, first_of_shape = set(), []
            for g in groups:
                shape = tuple((e[1] - e[0], e[2]) for e in g)
                first_of_shape.append(shape not in seen)
                seen.add(shape)
            warm += [g for g, new in zip(groups, t.ddp.any(first_of_shape)) if new]
        for g in warm:
            t.step(index, g)
        t.ddp.sum([torch.zeros((), device=t.device)])
        timer = PhaseTimer(t.device)
        timer.start()
        began, tokens, window = time.perf_counter(), 0, torch.zeros((), device=t.device, dtype=torch.float64)
        for k, g in enumerate(groups[warmup:warmup + steps]):
            nll, n, _ = t.step(index, g)
            window += nll.double()
            tokens += n
            if (k + 1) % log_every == 0:
                t.ddp.sum([window, tokens])
        t.ddp.sum([window, tokens])  # the last readout also waits for the device
        seconds = time.perf_counter() - began
        timer.start()
        for k, g in enumerate(groups[warmup + steps:warmup + 2 * steps]):
            nll, _, _ = t.step(index, g, timer)
            window += nll.double()
            if (k + 1) % log_every == 0 or k == steps - 1:
                t.ddp.sum([window])
                timer("sync")
        total_tokens = t.ddp.sum([tokens])[0]
        split = timer.seconds
        step_s = sum(split.values()) / steps
        result = {"steps": steps, "processes": t.ddp.world, "device": str(t.device),
                  "precision": t.precision, "threads": t.threads, "batch_tokens": t.tr["batch_tokens"],
                  "target_tokens_per_s": round(total_tokens / seconds),
                  "seconds_per_step": round(seconds / steps, 4),
                  "split_seconds_per_step": {k: round(v / steps, 4) for k, v in split.items()},
                  "split_percent": {k: round(100 * v / max(step_s * steps, 1e-12), 1) for k, v in split.items()},
                  "torch": torch.__version__}
        if t.device.type == "cuda":  # what bigger batches would have to fit beside
            result["max_memory_gib"] = round(torch.cuda.max_memory_allocated(t.device) / 2**30, 2)
        if t.ddp.main:
            print(json.dumps(result), flush=True)
            print(f"{result['target_tokens_per_s']} target tokens/s ({steps} steps, {t.ddp.world} process(es), "
                  f"{t.device}, {t.precision}, batch {t.tr['batch_tokens']} tokens)")
            print("split of a step (device drained after each phase): " + ", ".join(
                f"{k} {result['split_seconds_per_step'][k] * 1000:.1f} ms ({result['split_percent'][k]}%)"
                for k in PhaseTimer.PHASES))
        return result
    finally:
        t.close()


# ---- choosing and exporting what a run produced ---------------------------------------------

def export_best(recipe_path: str, out_path: str, weights: str = "f16") -> dict:
    """Exports the best of three candidates by dev loss: the last checkpoint, the average of the last
    `average_last` checkpoints, and the checkpoint with the best dev loss. Returns the losses."""
    from .export import build_tfm, load_checkpoint_state
    from . import tfm
    recipe = load_recipe(recipe_path)
    ckpts = checkpoints(work_dir(recipe))
    if not ckpts:
        raise FileNotFoundError(f"{work_dir(recipe)}: no ckpt-*.pt to export")
    # The dev loss must be measured with the checkpoints' own vocabulary: where the recipe's file is
    # missing, it is written from theirs (never trained anew), and a different one is refused.
    spm = load_checkpoint(ckpts[-1])["spm"]
    vocab = repo_path(recipe["vocab"]["model"])
    if not os.path.exists(vocab):
        os.makedirs(os.path.dirname(vocab), exist_ok=True)
        with open(f"{vocab}.{os.getpid()}.tmp", "wb") as f:
            f.write(spm)
        os.replace(f"{vocab}.{os.getpid()}.tmp", vocab)
    t = Trainer(recipe, fresh=True)
    try:
        if t.tok.model_bytes != spm:
            raise ValueError(f"{vocab} is not the vocabulary the checkpoints in {t.wd} were trained with")
        k = t.tr.get("average_last", 4)
        best_step = load_checkpoint(t.last)["state"].get("best_step", 0) if os.path.exists(t.last) else 0
        candidates = {"last": [ckpts[-1]], f"average of last {min(k, len(ckpts))}": ckpts[-k:]}
        best = os.path.join(t.wd, f"ckpt-{best_step}.pt")
        if os.path.exists(best):
            candidates["best dev"] = [best]
        losses, states = {}, {}
        for name, paths in candidates.items():
            ck = load_checkpoint_state(paths)
            t.model.load_state_dict(ck["model"])
            losses[name] = t.dev_loss()
            states[name] = (ck, paths)
        choice = min(losses, key=losses.get)
        ck, paths = states[choice]
        meta = dict(ck.get("metadata", {}), weights=weights, selection=choice,
                    dev_nll=round(losses[choice], 4), checkpoints=[os.path.basename(p) for p in paths])
        size = tfm.write(out_path, build_tfm(ModelConfig.from_dict(ck["config"]), ck["model"], ck["spm"],
                                             None, weights, meta))
        t.log("export", out=out_path, bytes=size, choice=choice,
              dev_nll={n: round(v, 4) for n, v in losses.items()})
        return losses
    finally:
        t.close()

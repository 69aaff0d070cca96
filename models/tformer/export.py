"""Checkpoint -> .tfm export (f32, f16, int8 with per-row scales)."""
from __future__ import annotations

import os

import numpy as np
import torch

from . import tfm
from .config import ModelConfig

WEIGHT_DTYPES = tfm.WEIGHT_DTYPES


def load_checkpoint_state(paths):
    """Loads one checkpoint, or averages the parameters of several (checkpoint averaging)."""
    states = [torch.load(p, map_location="cpu") for p in paths]
    first = states[0]
    if len(states) == 1:
        return first
    avg = {k: sum(s["model"][k].double() for s in states) / len(states) for k in first["model"]}
    # The metadata (train_step, which a warm start continues from) is the latest checkpoint's,
    # whatever order the paths came in (a shell glob sorts ckpt-1200 before ckpt-300).
    latest = max(states, key=lambda s: s.get("metadata", {}).get("train_step", 0))
    first = dict(latest)
    first["model"] = {k: v.to(states[0]["model"][k].dtype) for k, v in avg.items()}
    return first


def build_tfm(cfg: ModelConfig, state: dict, spm_source: bytes, spm_target: bytes | None = None,
              weights: str = "f32", metadata: dict | None = None) -> tfm.TfmFile:
    if weights not in WEIGHT_DTYPES:
        raise ValueError(f"weights must be one of {WEIGHT_DTYPES}")
    tensors, scales = {}, {}
    for name, value in state.items():
        if name == "pe":  # computed, never stored
            continue
        arr, row_scales = tfm.store_weight(value.detach().float().cpu().numpy(), weights)
        tensors[name] = arr
        if row_scales is not None:
            scales[name] = name + ".scales"
            tensors[name + ".scales"] = row_scales
    tokenizer = tfm.tokenizer_section(tensors, spm_source, spm_target)
    return tfm.TfmFile(cfg.to_dict(), tokenizer, tensors, metadata or {}, scales)


def export_checkpoint(checkpoints, out_path: str, weights: str = "f32", metadata=None) -> int:
    if len(checkpoints) == 1 and str(checkpoints[0]).endswith(".tfm"):
        return convert_tfm(checkpoints[0], out_path, weights, metadata)
    ckpt = load_checkpoint_state(checkpoints)
    cfg = ModelConfig.from_dict(ckpt["config"])
    spm_bytes = ckpt["spm"]
    meta = dict(ckpt.get("metadata", {}))
    meta.update(metadata or {})
    meta["weights"] = weights
    if len(checkpoints) > 1:
        meta["averaged_checkpoints"] = len(checkpoints)
    return tfm.write(out_path, build_tfm(cfg, ckpt["model"], spm_bytes, None, weights, meta))


def convert_tfm(path: str, out_path: str, weights: str = "f32", metadata=None) -> int:
    """Re-encodes a .tfm's weights at another precision (e.g. a shipped f16 model widened to f32 for
    the peers benchmark); f16 and int8 weights are widened as the engine widens them."""
    model, _, _, f = load_tfm_model(path, int8_arithmetic=False)
    meta = dict(f.metadata)
    meta.update(metadata or {})
    meta["weights"] = weights
    meta["converted_from"] = os.path.basename(path)
    spm_source = f.tensors[f.tokenizer["source"]].tobytes()
    spm_target = f.tensors[f.tokenizer["target"]].tobytes()
    return tfm.write(out_path, build_tfm(model.cfg, model.state_dict(), spm_source, spm_target, weights, meta))


def load_tfm_model(path: str, int8_arithmetic: bool = True):
    """Builds the PyTorch reference model from a .tfm file (f16 weights widened). int8 weights are
    dequantized; with `int8_arithmetic` (the default) the layers with int8 weights also compute as
    the engine does (model.use_int8_weights: activations quantized per row, integer products)."""
    from .model import Transformer, use_int8_weights
    from .tokenizer import Tokenizer
    f = tfm.read(path)
    cfg = ModelConfig.from_dict(f.config)
    model = Transformer(cfg)
    state = {}
    for name in model.state_dict():
        if name in f.tensors:
            state[name] = torch.from_numpy(tfm.dequantize(f, name).copy())
    missing = [k for k in model.state_dict() if k not in state]
    if missing:
        raise ValueError(f"{path}: missing tensors {missing[:5]}")
    model.load_state_dict(state)
    model.eval()
    from .config import alignment_head
    model.alignment_head = alignment_head(f.metadata, cfg)
    if int8_arithmetic:
        int8 = {n: (t, f.tensors[f.scales[n]]) for n, t in f.tensors.items() if t.dtype == np.int8}
        if int8:
            use_int8_weights(model, int8)
    src_tok = Tokenizer.from_tfm(f, "source")
    tgt_tok = Tokenizer.from_tfm(f, "target")
    for tok in (src_tok, tgt_tok):
        if len(tok) > cfg.vocab_size:
            raise ValueError(f"{path}: a tokenizer has {len(tok)} pieces but vocab_size is {cfg.vocab_size}")
    from .shortlist import LexicalShortlist
    model.shortlist = LexicalShortlist.from_tfm(f, len(src_tok), len(tgt_tok))
    return model, src_tok, tgt_tok, f

"""ONNX export of a .tfm model, so that ONNX Runtime can run the very same weights as a peer.

`models/tfm export-onnx MODEL.tfm -o DIR` writes, from the PyTorch reference's own layers (opset 13):

encoder.onnx, once per batch of sentences
  in   input_ids [B, S] int64 (BOS/EOS added as the config says), attention_mask [B, S] int64
       (1 = token, 0 = padding)
  out  encoder_hidden_states [B, S, d]; cross.{i}.key, cross.{i}.value [B, H, S, d/H] for each
       decoder layer i: the cross-attention keys/values, computed once per sentence (as optimum /
       transformers.js do for Marian models) instead of at every step
decoder_step.onnx, once per target position for N hypothesis rows
  in   input_ids [N] int64: the previous token (the start token at step 0)
       use_token [N] float32: 1 embeds input_ids; 0 gives the zero start vector (Marian, step 0)
       step [] int64: the target position (= length of the past)
       beam_index [N] int64: the row of the past each row continues (beam reordering and dropping
       finished rows happen here, inside the graph, instead of copying caches in the caller)
       cross_index [N] int64: the encoded sentence each row reads
       encoder_attention_mask [B, S] int64, cross.{i}.key/value [B, H, S, d/H]
       past.{i}.key/value [M, H, T, d/H] (T = step; T = 0 at step 0) or past.{i}.state [M, d] (SSRU)
  out  log_probs [N, V]: float32 log-softmax of the logits (the decoding rules' step scores before
       <unk> suppression and the length limit, which the caller applies)
       present.{i}.key/value [N, H, T + 1, d/H] or present.{i}.state [N, d]
tformer.json, what a runner needs: the config, the start token, the graphs' input and output names.

`--weights int8` (written into the graphs by this exporter: there is no onnxruntime Python package,
hence no onnxruntime quantization tool, here) makes every Linear layer and the output projection a
dynamic int8 matmul, as onnxruntime's `quantize_dynamic` writes it:
  x -> DynamicQuantizeLinear (uint8 x, per-tensor scale and zero point computed per call)
    -> MatMulInteger(x_u8, W_i8 [in, out], x_zero, 0) -> Cast float -> Mul(x_scale * w_scale[out]) (+ bias)
ONNX Runtime's graph optimizer (level `all`, native and web) fuses that into its contrib op
DynamicQuantizeMatMul. W_i8 and w_scale are the .tfm's symmetric per-output-row int8 (tfm.py
quantize_rows_int8; a model stored as int8 gives back exactly its own integers). The embedding
lookups stay f32 (dequantized) gathers. tformer.json says "weights": "int8".
"""
from __future__ import annotations

import json
import math
import os
import warnings

import torch
import torch.nn as nn

from . import tfm as tfm_io
from .decode import start_token
from .export import load_tfm_model
from .model import Sublayer

OPSET = 13
# torch 1.13 calls g.op() in symbolic functions deprecated (DynamicInt8MatMul uses it, as documented).
warnings.filterwarnings("ignore", category=FutureWarning, message=".*_graph_op.*")
FORMAT_VERSION = 1


class DynamicInt8MatMul(torch.autograd.Function):
    """y = x W^T (+ b) with W as int8 [in, out] + per-output scales; exported as ONNX standard ops
    (DynamicQuantizeLinear, MatMulInteger). The PyTorch forward (used only while tracing) computes
    with the dequantized weights."""

    @staticmethod
    def forward(ctx, x, w_t, w_scale, bias):
        y = x.matmul(w_t.float() * w_scale)
        return y if bias is None else y + bias

    @staticmethod
    def symbolic(g, x, w_t, w_scale, bias):
        xq, xs, xz = g.op("DynamicQuantizeLinear", x, outputs=3)
        zero = g.op("Constant", value_t=torch.tensor(0, dtype=torch.int8))
        y = g.op("MatMulInteger", xq, w_t, xz, zero)
        y = g.op("Cast", y, to_i=1)  # TensorProto.FLOAT
        y = g.op("Mul", y, g.op("Mul", xs, w_scale))
        return y if bias is None or bias.node().mustBeNone() else g.op("Add", y, bias)


class Int8Linear(nn.Module):
    """A Linear layer (or the output projection) with int8 weights for the int8 ONNX export."""

    def __init__(self, weight, bias=None):
        super().__init__()
        q, scale = tfm_io.quantize_rows_int8(weight.detach().float().numpy())
        self.register_buffer("w_t", torch.from_numpy(q.T.copy()))
        self.register_buffer("w_scale", torch.from_numpy(scale))
        self.bias = None if bias is None else nn.Parameter(bias.detach().clone(), requires_grad=False)

    def forward(self, x):
        return DynamicInt8MatMul.apply(x, self.w_t, self.w_scale, self.bias)


def quantize_linears(model):
    """Replaces every nn.Linear of the model by an Int8Linear (in place); returns how many."""
    count = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, nn.Linear):
                setattr(parent, name, Int8Linear(child.weight, child.bias))
                count += 1
    return count


class EncoderGraph(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        m = self.model
        mask = (attention_mask == 0)[:, None, None, :]
        x = m.embed(m.src_embed, input_ids)
        for layer in m.encoder.layers:
            x = layer(x, mask)
        if m.cfg.norm == "pre":
            x = m.encoder.final_norm(x)
        cross = []
        for layer in m.decoder.layers:
            att = layer.cross_attn
            cross += [att.split(att.k(x)), att.split(att.v(x))]
        return (x, *cross)


class DecoderStepGraph(nn.Module):
    """One incremental step of the reference decoder, with the caches as explicit tensors."""

    def __init__(self, model, projection=None):
        super().__init__()
        self.model = model
        self.ssru = model.cfg.decoder_layer_type == "ssru"
        self.projection = projection  # an Int8Linear for the int8 export; None: the model's logits

    def logits(self, x):
        return self.model.logits(x) if self.projection is None else self.projection(x)

    def forward(self, input_ids, use_token, step, beam_index, cross_index, encoder_attention_mask, *caches):
        m, cfg = self.model, self.model.cfg
        L = cfg.decoder_layers
        cross, past = caches[:2 * L], caches[2 * L:]
        mask = (encoder_attention_mask.index_select(0, cross_index) == 0)[:, None, None, :]
        x = m.tgt_embed(input_ids) * use_token[:, None]
        x = x * math.sqrt(cfg.d_model) + m.pe.index_select(0, step.reshape(1))
        x = x[:, None, :]  # [N, 1, d]
        present = []
        for i, layer in enumerate(m.decoder.layers):
            cross_k = cross[2 * i].index_select(0, cross_index)
            cross_v = cross[2 * i + 1].index_select(0, cross_index)
            if self.ssru:
                x, state = self.ssru_layer(layer, x, past[i].index_select(0, beam_index), cross_k, cross_v, mask)
                present.append(state)
            else:
                x, k, v = self.attention_layer(layer, x, past[2 * i].index_select(0, beam_index),
                                               past[2 * i + 1].index_select(0, beam_index), cross_k, cross_v, mask)
                present += [k, v]
        if cfg.norm == "pre":
            x = m.decoder.final_norm(x)
        log_probs = torch.log_softmax(self.logits(x[:, 0]), dim=-1)
        return (log_probs, *present)

    @staticmethod
    def cross_and_ffn(layer, x, cross_k, cross_v, mask):
        pre = layer.cfg.norm == "pre"
        att = layer.cross_attn
        x = Sublayer.apply(layer.cross_attn_norm, pre, x,
                           lambda n: att.attend(att.split(att.q(n)), cross_k, cross_v, mask)[0], 0.0, False)
        return Sublayer.apply(layer.ffn_norm, pre, x, layer.ffn, 0.0, False)

    def attention_layer(self, layer, x, past_k, past_v, cross_k, cross_v, mask):
        cfg = layer.cfg
        pre = cfg.norm == "pre"
        raw_kv = pre and cfg.prenorm_raw_self_kv
        att = layer.self_attn
        kv = {}

        def self_block(n):
            kv_in = x if raw_kv else n
            kv["k"] = torch.cat([past_k, att.split(att.k(kv_in))], dim=2)
            kv["v"] = torch.cat([past_v, att.split(att.v(kv_in))], dim=2)
            return att.attend(att.split(att.q(n)), kv["k"], kv["v"], None)[0]
        x = Sublayer.apply(layer.self_attn_norm, pre, x, self_block, 0.0, False)
        return self.cross_and_ffn(layer, x, cross_k, cross_v, mask), kv["k"], kv["v"]

    def ssru_layer(self, layer, x, state, cross_k, cross_v, mask):
        pre = layer.cfg.norm == "pre"
        out = {}

        def self_block(n):
            h, out["state"] = layer.ssru(n, state)
            return h
        x = Sublayer.apply(layer.ssru_norm, pre, x, self_block, 0.0, False)
        return self.cross_and_ffn(layer, x, cross_k, cross_v, mask), out["state"]


def io_names(cfg):
    L = cfg.decoder_layers
    cross = [f"cross.{i}.{kv}" for i in range(L) for kv in ("key", "value")]
    if cfg.decoder_layer_type == "ssru":
        past = [f"past.{i}.state" for i in range(L)]
    else:
        past = [f"past.{i}.{kv}" for i in range(L) for kv in ("key", "value")]
    present = [p.replace("past.", "present.", 1) for p in past]
    return cross, past, present


def export_onnx(model_path: str, out_dir: str, weights: str = "f32") -> dict:
    if weights not in ("f32", "int8"):
        raise ValueError("weights must be f32 or int8")
    model, _, _, tfm_file = load_tfm_model(model_path)
    cfg = model.cfg
    projection = None
    if weights == "int8":
        # The output projection first: with untied embeddings its weight is an nn.Linear's.
        projection = Int8Linear(model.output_weight(), model.output_bias if cfg.output_bias else None)
        quantize_linears(model)
    H, dh, d = cfg.heads, cfg.head_dim, cfg.d_model
    os.makedirs(out_dir, exist_ok=True)
    cross, past, present = io_names(cfg)

    B, S, N, T = 2, 7, 3, 4  # example sizes; every axis below is declared dynamic
    ids = torch.randint(0, cfg.vocab_size, (B, S))
    mask = torch.ones(B, S, dtype=torch.long)
    mask[1, 5:] = 0
    enc = EncoderGraph(model).eval()
    enc_inputs = ["input_ids", "attention_mask"]
    enc_outputs = ["encoder_hidden_states"] + cross
    axes = {"input_ids": {0: "batch", 1: "source"}, "attention_mask": {0: "batch", 1: "source"},
            "encoder_hidden_states": {0: "batch", 1: "source"}}
    axes.update({c: {0: "batch", 2: "source"} for c in cross})
    with torch.no_grad():
        cross_values = enc(ids, mask)[1:]
        torch.onnx.export(enc, (ids, mask), os.path.join(out_dir, "encoder.onnx"), opset_version=OPSET,
                          input_names=enc_inputs, output_names=enc_outputs, dynamic_axes=axes,
                          do_constant_folding=True)

    dec = DecoderStepGraph(model, projection).eval()
    if cfg.decoder_layer_type == "ssru":
        past_values = [torch.randn(N, d) for _ in past]
        past_axes = {name: {0: "past_rows"} for name in past}
        present_axes = {name: {0: "rows"} for name in present}
    else:
        past_values = [torch.randn(N, H, T, dh) for _ in past]
        past_axes = {name: {0: "past_rows", 2: "past"} for name in past}
        present_axes = {name: {0: "rows", 2: "length"} for name in present}
    dec_args = (torch.randint(0, cfg.vocab_size, (N,)), torch.ones(N), torch.tensor(T),
                torch.tensor([2, 0, 1]), torch.tensor([0, 1, 1]), mask, *cross_values, *past_values)
    dec_inputs = ["input_ids", "use_token", "step", "beam_index", "cross_index", "encoder_attention_mask"] + \
        cross + past
    dec_outputs = ["log_probs"] + present
    axes = {"input_ids": {0: "rows"}, "use_token": {0: "rows"}, "beam_index": {0: "rows"},
            "cross_index": {0: "rows"}, "encoder_attention_mask": {0: "batch", 1: "source"},
            "log_probs": {0: "rows"}}
    axes.update({c: {0: "batch", 2: "source"} for c in cross})
    axes.update(past_axes)
    axes.update(present_axes)
    with torch.no_grad():
        torch.onnx.export(dec, dec_args, os.path.join(out_dir, "decoder_step.onnx"), opset_version=OPSET,
                          input_names=dec_inputs, output_names=dec_outputs, dynamic_axes=axes,
                          do_constant_folding=True)

    info = {
        "format": "tformer-onnx", "version": FORMAT_VERSION, "opset": OPSET, "weights": weights,
        "source_model": os.path.abspath(model_path), "source_model_bytes": os.path.getsize(model_path),
        "config": cfg.to_dict(), "start_token": start_token(cfg),
        "cache": "ssru" if cfg.decoder_layer_type == "ssru" else "attention",
        "heads": H, "head_dim": dh,
        "encoder": {"file": "encoder.onnx", "inputs": enc_inputs, "outputs": enc_outputs},
        "decoder_step": {"file": "decoder_step.onnx", "inputs": dec_inputs, "outputs": dec_outputs,
                         "cross": cross, "past": past, "present": present},
        "metadata": tfm_file.metadata,
    }
    for part in ("encoder", "decoder_step"):
        info[part]["bytes"] = os.path.getsize(os.path.join(out_dir, info[part]["file"]))
    with open(os.path.join(out_dir, "tformer.json"), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
    return info


def cmd_export_onnx(args):
    torch.set_num_threads(1)
    info = export_onnx(args.model, args.output, args.weights)
    total = info["encoder"]["bytes"] + info["decoder_step"]["bytes"]
    print(f"wrote {args.output}: encoder.onnx {info['encoder']['bytes']} bytes, decoder_step.onnx "
          f"{info['decoder_step']['bytes']} bytes ({total} in all), tformer.json")


def register(subparsers):
    s = subparsers.add_parser("export-onnx", help="ONNX encoder + decoder-step graphs of a .tfm model (f32 or int8)")
    s.add_argument("model", help="the .tfm model")
    s.add_argument("-o", "--output", required=True, help="output folder")
    s.add_argument("--weights", choices=["f32", "int8"], default="f32",
                   help="int8: dynamic int8 matmuls (DynamicQuantizeLinear + MatMulInteger), see the module docstring")
    s.set_defaults(func=cmd_export_onnx)

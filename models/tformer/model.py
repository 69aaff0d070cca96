"""PyTorch reference of the translation Transformer the engine computes.

Written for clarity: every formula here is the specification the C++ core is tested against.
Module and parameter names are chosen so that `state_dict()` keys are the tensor names of the
`.tfm` file (see docs/FORMAT.md), so export is a plain dump.
"""
from __future__ import annotations

import math

import numpy as np

import torch
import torch.nn as nn
import torch.nn.functional as F

from .config import ModelConfig


def positional_encoding(kind: str, positions: int, d_model: int) -> torch.Tensor:
    """Sinusoidal table [positions, d_model], computed in float64 then rounded to float32."""
    p = torch.arange(positions, dtype=torch.float64)[:, None]
    if kind == "interleaved":
        i = torch.arange(0, d_model, 2, dtype=torch.float64)
        freq = torch.exp(-i * math.log(10000.0) / d_model)
        pe = torch.zeros(positions, d_model, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(p * freq)
        pe[:, 1::2] = torch.cos(p * freq)
    elif kind == "marian":
        n = d_model // 2
        freq = torch.exp(-torch.arange(n, dtype=torch.float64) * math.log(10000.0) / (n - 1))
        pe = torch.cat([torch.sin(p * freq), torch.cos(p * freq)], dim=1)
    else:
        raise ValueError(f"unknown positional encoding {kind!r}")
    return pe.to(torch.float32)


def lengths_to_padding_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """True where a position is padding. Built from lengths, since Marian pads with EOS's id.
    On the lengths' device (training keeps them on the GPU: no copy to the host per batch)."""
    return torch.arange(max_len, device=lengths.device)[None, :] >= lengths[:, None]


def qd8_quantize(x: torch.Tensor):
    """Per-row asymmetric int8 quantization of activations, step by step as XNNPACK's
    convert_nc_f32_qd8 computes it (core/src/kernels/quantize.h mirrors it in C++), all in f32:
    m = 255 / (max(0, max x) - min(0, min x)); the zero point from the nearer end, rounded half to
    even; scale = 1 / m; q = clamp(rint(x * (1 / scale)) + zero point, -128, 127).
    Returns q and the zero point as f32 integers and the scale, the last two of shape [..., 1]."""
    x = x.float()
    lo = torch.clamp(x.amin(-1, keepdim=True), max=0.0)
    hi = torch.clamp(x.amax(-1, keepdim=True), min=0.0)
    one = torch.ones_like(lo)
    # tensor / tensor: `scalar / tensor` is computed as reciprocal * scalar, which rounds differently
    m = torch.where(lo == hi, one, torch.full_like(lo, 255.0) / (hi - lo))
    dmin, dmax = lo * m, hi * m
    zp = torch.where((-128.0 + dmin) + (127.0 + dmax) > 0, -128.0 - dmin, 127.0 - dmax)
    zp = torch.round(torch.clamp(zp, -128.0, 127.0))  # torch.round: half to even, as lrintf
    scale = one / m
    q = torch.clamp(torch.round(x * (one / scale)) + zp, -128.0, 127.0)
    return q, zp, scale


def qd8_linear(x: torch.Tensor, weight_q: torch.Tensor, weight_scale: torch.Tensor, bias=None):
    """XNNPACK's fully_connected_nc_qd8_f32_qc8w: int8 weights [out, in] with per-row scales,
    activations quantized per row (qd8_quantize), the integer sum exact (f64 holds it), then
    (f32(acc) * row scale) * weight scale + bias in f32."""
    q, zp, scale = qd8_quantize(x)
    acc = torch.matmul((q - zp).double(), weight_q.double().t()).float()
    y = (acc * scale) * weight_scale
    return y + bias if bias is not None else y


def use_int8_weights(model: nn.Module, weights: dict):
    """Switches the model to int8 arithmetic: every nn.Linear whose `<name>.weight` is in `weights`
    ({name: (int8 values, f32 row scales)} as stored in a .tfm file) and the output projection run
    through qd8_linear; embeddings keep their dequantized tables (a lookup reads q * scale)."""
    for name, module in model.named_modules():
        if isinstance(module, nn.Linear) and name + ".weight" in weights:
            q, s = weights[name + ".weight"]
            module.int8 = (torch.tensor(np.array(q)).double(), torch.tensor(np.array(s)).float())
            module.forward = (lambda m: lambda x: qd8_linear(x, m.int8[0], m.int8[1], m.bias))(module)
    out_name = "output.weight" if model.cfg.tied_embeddings == "none" else (
        "embedding.weight" if model.cfg.tied_embeddings == "all" else "target_embedding.weight")
    if out_name in weights:
        q, s = weights[out_name]
        model.int8_output = (torch.tensor(np.array(q)).double(), torch.tensor(np.array(s)).float())


def training_attention(q, k, v, mask):
    """Training's attention: the function MultiHeadAttention.attend computes (the specification),
    without the attention weights, through PyTorch's fused kernel where it has one
    (F.scaled_dot_product_attention, torch >= 2.0; its boolean mask is True where a key takes part).
    Elsewhere the explicit formula with the scale applied to q (T x dh products, not T x T).
    tests/models/test_train.py checks it against attend."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=None if mask is None else ~mask)
    scores = torch.matmul(q * (1.0 / math.sqrt(q.shape[-1])), k.transpose(-1, -2))
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


class MultiHeadAttention(nn.Module):
    # Set by Transformer.use_training_attention (training only): the reference never changes.
    training_path = False
    # Guided-alignment training (train.py): on the training path, this head's weights are computed
    # explicitly beside the fused kernel (which returns none) and returned as [B, 1, Tq, Tk].
    keep_head = None

    def __init__(self, d_model: int, heads: int):
        super().__init__()
        self.heads = heads
        self.head_dim = d_model // heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.o = nn.Linear(d_model, d_model)

    def split(self, x):  # [B, T, d] -> [B, H, T, dh]; heads are contiguous d/h slices
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.head_dim).transpose(1, 2)

    def scores(self, q, k, mask):
        """Scaled dot products q k^T / sqrt(dh), -inf where mask is True (hidden keys)."""
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        return scores if mask is None else scores.masked_fill(mask, float("-inf"))

    def attend(self, q, k, v, mask):
        """q [B,H,Tq,dh], k/v [B,H,Tk,dh]; mask broadcastable to [B,H,Tq,Tk], True = hidden."""
        if self.training_path:
            out = training_attention(q, k, v, mask)
            b, h, t, dh = out.shape
            weights = None
            if self.keep_head is not None:
                one = slice(self.keep_head, self.keep_head + 1)
                head_mask = mask if mask is None or mask.shape[1] == 1 else mask[:, one]
                weights = torch.softmax(self.scores(q[:, one], k[:, one], head_mask).float(), dim=-1)
            return self.o(out.transpose(1, 2).reshape(b, t, h * dh)), weights
        weights = torch.softmax(self.scores(q, k, mask), dim=-1)
        out = torch.matmul(weights, v)
        b, h, t, dh = out.shape
        return self.o(out.transpose(1, 2).reshape(b, t, h * dh)), weights

    def forward(self, query, key_value, mask=None):
        return self.attend(self.split(self.q(query)), self.split(self.k(key_value)),
                           self.split(self.v(key_value)), mask)


class FeedForward(nn.Module):
    def __init__(self, d_model: int, ffn_dim: int, activation: str):
        super().__init__()
        self.w1 = nn.Linear(d_model, ffn_dim)
        self.w2 = nn.Linear(ffn_dim, d_model)
        self.activation = activation

    def forward(self, x):
        h = self.w1(x)
        return self.w2(F.relu(h) if self.activation == "relu" else h * torch.sigmoid(h))


class SSRU(nn.Module):
    """Simpler Simple Recurrent Unit (Bergamot's tiny decoders): c = f c' + (1-f) xW, h = relu(c)."""

    def __init__(self, d_model: int):
        super().__init__()
        self.w = nn.Linear(d_model, d_model, bias=False)
        self.wf = nn.Linear(d_model, d_model)

    def forward(self, x, state=None):
        """x [B, T, d]; state [B, d] or None. Returns (h [B, T, d], last state)."""
        f = torch.sigmoid(self.wf(x))
        u = self.w(x)
        c = torch.zeros_like(x[:, 0]) if state is None else state
        outs = []
        for t in range(x.shape[1]):
            c = f[:, t] * c + (1 - f[:, t]) * u[:, t]
            outs.append(torch.relu(c))
        return torch.stack(outs, dim=1), c


class Sublayer:
    """Residual + LayerNorm around a block, post-norm (the paper) or pre-norm."""

    @staticmethod
    def apply(norm: nn.LayerNorm, pre: bool, x, block, dropout: float, training: bool):
        if pre:
            return x + F.dropout(block(norm(x)), dropout, training)
        return norm(x + F.dropout(block(x), dropout, training))


class EncoderLayer(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.self_attn = MultiHeadAttention(cfg.d_model, cfg.heads)
        self.self_attn_norm = nn.LayerNorm(cfg.d_model, eps=cfg.layer_norm_eps)
        self.ffn = FeedForward(cfg.d_model, cfg.ffn_dim, cfg.activation)
        self.ffn_norm = nn.LayerNorm(cfg.d_model, eps=cfg.layer_norm_eps)

    def forward(self, x, mask, dropout=0.0):
        pre = self.cfg.norm == "pre"
        raw_kv = pre and self.cfg.prenorm_raw_self_kv
        x = Sublayer.apply(self.self_attn_norm, pre, x,
                           lambda n: self.self_attn(n, x if raw_kv else n, mask)[0],
                           dropout, self.training)
        return Sublayer.apply(self.ffn_norm, pre, x, self.ffn, dropout, self.training)


class DecoderLayer(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        if cfg.decoder_layer_type == "ssru":
            self.ssru = SSRU(cfg.d_model)
            self.ssru_norm = nn.LayerNorm(cfg.d_model, eps=cfg.layer_norm_eps)
        else:
            self.self_attn = MultiHeadAttention(cfg.d_model, cfg.heads)
            self.self_attn_norm = nn.LayerNorm(cfg.d_model, eps=cfg.layer_norm_eps)
        self.cross_attn = MultiHeadAttention(cfg.d_model, cfg.heads)
        self.cross_attn_norm = nn.LayerNorm(cfg.d_model, eps=cfg.layer_norm_eps)
        self.ffn = FeedForward(cfg.d_model, cfg.ffn_dim, cfg.activation)
        self.ffn_norm = nn.LayerNorm(cfg.d_model, eps=cfg.layer_norm_eps)

    def forward(self, x, memory, memory_mask, self_mask, dropout=0.0, cache=None):
        """x [B, T, d]. With `cache` (a dict), x holds only the newest position and the layer
        appends its keys/values (or SSRU state) to the cache: incremental decoding."""
        cfg, training = self.cfg, self.training
        pre = cfg.norm == "pre"
        raw_kv = pre and cfg.prenorm_raw_self_kv
        weights = {}

        if cfg.decoder_layer_type == "ssru":
            def self_block(n):
                h, state = self.ssru(n, None if cache is None else cache.get("ssru"))
                if cache is not None:
                    cache["ssru"] = state
                return h
            x = Sublayer.apply(self.ssru_norm, pre, x, self_block, dropout, training)
        else:
            def self_block(n):
                kv_in = x if raw_kv else n
                if cache is None:
                    return self.self_attn(n, kv_in, self_mask)[0]
                att = self.self_attn
                k, v = att.split(att.k(kv_in)), att.split(att.v(kv_in))
                if "k" in cache:
                    k = torch.cat([cache["k"], k], dim=2)
                    v = torch.cat([cache["v"], v], dim=2)
                cache["k"], cache["v"] = k, v
                return att.attend(att.split(att.q(n)), k, v, None)[0]
            x = Sublayer.apply(self.self_attn_norm, pre, x, self_block, dropout, training)

        def cross_block(n):
            out, w = self.cross_attn(n, memory, memory_mask)
            weights["cross"] = w
            return out
        x = Sublayer.apply(self.cross_attn_norm, pre, x, cross_block, dropout, training)
        x = Sublayer.apply(self.ffn_norm, pre, x, self.ffn, dropout, training)
        return x, weights["cross"]


class Stack(nn.Module):
    def __init__(self, cfg: ModelConfig, layer_cls, count: int):
        super().__init__()
        self.layers = nn.ModuleList([layer_cls(cfg) for _ in range(count)])
        if cfg.norm == "pre":
            self.final_norm = nn.LayerNorm(cfg.d_model, eps=cfg.layer_norm_eps)


class Transformer(nn.Module):
    def __init__(self, cfg: ModelConfig, dropout: float = 0.0):
        super().__init__()
        self.cfg = cfg
        self.dropout = dropout
        V, d = cfg.vocab_size, cfg.d_model
        if cfg.tied_embeddings == "all":
            self.embedding = nn.Embedding(V, d)
        else:
            self.source_embedding = nn.Embedding(V, d)
            self.target_embedding = nn.Embedding(V, d)
            if cfg.tied_embeddings == "none":
                self.output = nn.Linear(d, V, bias=False)
        if cfg.output_bias:
            self.output_bias = nn.Parameter(torch.zeros(V))
        self.encoder = Stack(cfg, EncoderLayer, cfg.encoder_layers)
        self.decoder = Stack(cfg, DecoderLayer, cfg.decoder_layers)
        self.register_buffer("pe", positional_encoding(cfg.positional_encoding, cfg.max_positions, d),
                             persistent=False)
        self.reset_parameters()

    def use_training_attention(self, enabled: bool = True):
        """Attention through training_attention (no weights returned): for training only; decoding,
        export and the parity fixtures use the explicit formula."""
        for m in self.modules():
            if isinstance(m, MultiHeadAttention):
                m.training_path = enabled
        return self

    def reset_parameters(self):
        for name, p in self.named_parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        emb_std = self.cfg.d_model ** -0.5  # so that sqrt(d) * emb has unit scale
        for emb in self.embeddings():
            nn.init.normal_(emb.weight, 0.0, emb_std)

    def embeddings(self):
        return [self.embedding] if self.cfg.tied_embeddings == "all" else \
            [self.source_embedding, self.target_embedding]

    @property
    def src_embed(self):
        return self.embedding if self.cfg.tied_embeddings == "all" else self.source_embedding

    @property
    def tgt_embed(self):
        return self.embedding if self.cfg.tied_embeddings == "all" else self.target_embedding

    def output_weight(self):
        return self.output.weight if self.cfg.tied_embeddings == "none" else self.tgt_embed.weight

    def embed(self, table: nn.Embedding, tokens, first_position: int = 0, zero_first: bool = False):
        x = table(tokens)
        if zero_first:
            x = x.clone()
            x[:, 0] = 0.0
        t = tokens.shape[1]
        x = x * math.sqrt(self.cfg.d_model) + self.pe[first_position:first_position + t]
        return F.dropout(x, self.dropout, self.training)

    # ---- encoder ---------------------------------------------------------------------------
    def encode(self, src, src_lengths):
        """src [B, S] ids (already with BOS/EOS per the config); returns memory and its mask."""
        pad = lengths_to_padding_mask(src_lengths, src.shape[1]).to(src.device)
        mask = pad[:, None, None, :]
        x = self.embed(self.src_embed, src)
        for layer in self.encoder.layers:
            x = layer(x, mask, self.dropout)
        if self.cfg.norm == "pre":
            x = self.encoder.final_norm(x)
        return x, mask

    # ---- decoder ---------------------------------------------------------------------------
    def logits(self, x):
        if getattr(self, "int8_output", None) is not None:
            y = qd8_linear(x, *self.int8_output)
            return y + self.output_bias if self.cfg.output_bias else y
        y = F.linear(x, self.output_weight())
        return y + self.output_bias if self.cfg.output_bias else y

    def decoder_input(self, tgt):
        """Teacher forcing input: start symbol followed by tgt[:-1]."""
        start = self.cfg.bos_id if self.cfg.decoder_start == "bos" else self.cfg.eos_id
        first = torch.full_like(tgt[:, :1], start)
        return torch.cat([first, tgt[:, :-1]], dim=1)

    def decode_states(self, tgt_in, memory, memory_mask, weights_layer: int = -1):
        """Full (non-incremental) decoder over tgt_in [B, T]; returns the final states [B, T, d]
        (the input of the output projection) and the cross-attention weights [B, H, T, S] of
        decoder layer `weights_layer` (by default the last)."""
        x, ws = self.decode_layers(tgt_in, memory, memory_mask)
        return x, ws[weights_layer]

    def decode_layers(self, tgt_in, memory, memory_mask):
        """As decode_states, with every decoder layer's cross-attention weights (a list)."""
        T = tgt_in.shape[1]
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool, device=tgt_in.device), 1)
        x = self.embed(self.tgt_embed, tgt_in, zero_first=self.cfg.decoder_start == "zero")
        ws = []
        for layer in self.decoder.layers:
            x, w = layer(x, memory, memory_mask, causal, self.dropout)
            ws.append(w)
        if self.cfg.norm == "pre":
            x = self.decoder.final_norm(x)
        return x, ws

    def decode(self, tgt_in, memory, memory_mask):
        """As decode_states, with logits [B, T, V] in place of the states."""
        x, w = self.decode_states(tgt_in, memory, memory_mask)
        return self.logits(x), w

    # (layer, head) whose cross-attention is the alignment (.tfm metadata "alignment_head", set by
    # export.load_tfm_model), or None: the mean over the last layer's heads.
    alignment_head = None

    def decode_step(self, token, step, memory, memory_mask, cache):
        """Incremental decoding of one position. token [B] (ignored at step 0 with a zero start);
        cache is a list with one dict per layer, grown in place. Returns the logits [B, V] and the
        cross-attention weights [B, H, S] of the alignment head's layer (by default the last)."""
        x = self.embed(self.tgt_embed, token[:, None], first_position=step,
                       zero_first=(step == 0 and self.cfg.decoder_start == "zero"))
        ws = []
        for layer, layer_cache in zip(self.decoder.layers, cache):
            x, w = layer(x, memory, memory_mask, None, 0.0, layer_cache)
            ws.append(w)
        if self.cfg.norm == "pre":
            x = self.decoder.final_norm(x)
        w = ws[self.alignment_head[0] if self.alignment_head else -1]
        return self.logits(x)[:, 0], w[:, :, 0]

    def alignment_of(self, weights):
        """A step's alignment [..., S] from decode_step's weights [..., H, S]: the alignment head's
        row, or the mean over the heads (what the engine returns, core/src/transformer/decoder.cc)."""
        return weights[..., self.alignment_head[1], :] if self.alignment_head else weights.mean(-2)

    def forward(self, src, src_lengths, tgt_in):
        memory, mask = self.encode(src, src_lengths)
        return self.decode(tgt_in, memory, mask)[0]

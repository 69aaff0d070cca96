"""Model configuration shared by the PyTorch reference, the exporter and the C++ engine.

The same keys (snake_case) are written into the `config` object of a `.tfm` header, so this
dataclass is the single description of an architecture.  Two real-world conventions differ only
in a few of these values (see `tutorial_convention` and `marian_convention`), never in code.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

NORMS = ("post", "pre")
ACTIVATIONS = ("relu", "swish")
POSITIONAL = ("interleaved", "marian")
DECODER_STARTS = ("bos", "zero")
TIED = ("all", "target", "none")
DECODER_LAYER_TYPES = ("transformer", "ssru")


@dataclass
class ModelConfig:
    vocab_size: int
    d_model: int = 256
    heads: int = 8
    ffn_dim: int = 1024
    encoder_layers: int = 6
    decoder_layers: int = 6
    # "post": x = LN(x + f(x)) as in the paper; "pre": x = x + f(LN(x)) plus a final LN per stack.
    norm: str = "post"
    # Marian's pre-norm normalises only the query of self-attention; keys/values read the raw input.
    prenorm_raw_self_kv: bool = False
    activation: str = "relu"
    max_positions: int = 512
    # "interleaved": sin on even, cos on odd dims, 10000^(2i/d) (the tutorial);
    # "marian": [sin | cos] halves with f_i = exp(-i ln(10000) / (d/2 - 1)).
    positional_encoding: str = "interleaved"
    # "bos": the decoder's first input is the BOS token; "zero": a zero embedding (Marian).
    decoder_start: str = "bos"
    source_bos: bool = True
    source_eos: bool = True
    pad_id: int = 0
    unk_id: int = 1
    bos_id: int = 2
    eos_id: int = 3
    # "all": one matrix for source, target and output; "target": target embedding = output
    # projection; "none": three matrices.
    tied_embeddings: str = "none"
    output_bias: bool = True
    layer_norm_eps: float = 1e-5
    # Marian never emits <unk>: its log-probability is set to -inf after the log-softmax.
    suppress_unk: bool = False
    decoder_layer_type: str = "transformer"

    def __post_init__(self):
        self.validate()

    def validate(self):
        def check(cond, msg):
            if not cond:
                raise ValueError(f"invalid model config: {msg}")
        check(self.vocab_size > 0, "vocab_size must be positive")
        check(self.d_model > 0 and self.heads > 0 and self.d_model % self.heads == 0,
              "d_model must be a positive multiple of heads")
        check(self.d_model % 2 == 0, "d_model must be even (sinusoidal encoding)")
        check(self.norm in NORMS, f"norm must be one of {NORMS}")
        check(self.activation in ACTIVATIONS, f"activation must be one of {ACTIVATIONS}")
        check(self.positional_encoding in POSITIONAL, f"positional_encoding must be one of {POSITIONAL}")
        check(self.decoder_start in DECODER_STARTS, f"decoder_start must be one of {DECODER_STARTS}")
        check(self.tied_embeddings in TIED, f"tied_embeddings must be one of {TIED}")
        check(self.decoder_layer_type in DECODER_LAYER_TYPES,
              f"decoder_layer_type must be one of {DECODER_LAYER_TYPES}")
        check(0 <= self.eos_id < self.vocab_size, "eos_id out of range")
        check(self.decoder_start != "bos" or 0 <= self.bos_id < self.vocab_size,
              "decoder_start 'bos' needs a valid bos_id")
        check(not self.source_bos or 0 <= self.bos_id < self.vocab_size, "source_bos needs a valid bos_id")

    @property
    def head_dim(self) -> int:
        return self.d_model // self.heads

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "ModelConfig":
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown model config keys: {sorted(unknown)}")
        return cls(**d)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def alignment_head(metadata: dict, cfg: ModelConfig):
    """The .tfm metadata's "alignment_head": {"layer": L, "head": H} (0-based) as (L, H), or None
    where it is absent or null (the alignment is then the mean over the last decoder layer's heads).
    Checked as the engine checks it (core/src/model/config.cc): L < decoder_layers, H < heads."""
    a = (metadata or {}).get("alignment_head")
    if a is None:
        return None
    if not isinstance(a, dict) or set(a) != {"layer", "head"}:
        raise ValueError(f"invalid model metadata: 'alignment_head' must be {{\"layer\": L, \"head\": H}}, not {a!r}")
    L, H = a["layer"], a["head"]
    if any(isinstance(v, bool) or not isinstance(v, int) for v in (L, H)):
        raise ValueError(f"invalid model metadata: 'alignment_head' layer and head must be integers, not {a!r}")
    if not 0 <= L < cfg.decoder_layers:
        raise ValueError(f"invalid model metadata: 'alignment_head' layer {L} is not a decoder layer "
                         f"(the model has {cfg.decoder_layers}, numbered from 0)")
    if not 0 <= H < cfg.heads:
        raise ValueError(f"invalid model metadata: 'alignment_head' head {H} is not a head "
                         f"(the model has {cfg.heads} per layer, numbered from 0)")
    return L, H


def tutorial_convention(**overrides) -> ModelConfig:
    """The classic tutorial Transformer: interleaved PE, BOS+EOS around the source, BOS start."""
    base = dict(positional_encoding="interleaved", decoder_start="bos", source_bos=True,
                source_eos=True, pad_id=0, unk_id=1, bos_id=2, eos_id=3, layer_norm_eps=1e-5,
                suppress_unk=False)
    base.update(overrides)
    return ModelConfig(**base)


def marian_convention(**overrides) -> ModelConfig:
    """Marian / OPUS-MT / Firefox Translations: concatenated PE, zero start, EOS-only source.

    Ids follow Marian's SentencePiece vocabularies: </s> = 0, <unk> = 1, no BOS, padding with 0.
    """
    base = dict(positional_encoding="marian", decoder_start="zero", source_bos=False,
                source_eos=True, pad_id=0, unk_id=1, bos_id=-1, eos_id=0, layer_norm_eps=1e-6,
                suppress_unk=True, tied_embeddings="all", output_bias=True)
    base.update(overrides)
    return ModelConfig(**base)

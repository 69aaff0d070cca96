"""Marian models <-> .tfm: `models/tfm import-marian` and `models/tfm export-marian`.

Import reads what OPUS-MT and Firefox Translations ship:
- OPUS-MT: a folder with the model `.npz`, `decoder.yml`, `source.spm`/`target.spm` and the
  `*.vocab.yml` table that gives the token ids (the ids are those of the table, not the
  SentencePiece models'): the .tfm then carries both SentencePiece models and the table(s)
  (tokenizer type `sentencepiece_vocab`, docs/FORMAT.md).
- Firefox Translations: `model.*.bin` (float32, or intgemm8 with `*_QuantMultA` activation
  multipliers) with its SentencePiece vocabulary (`vocab.*.spm`, or `srcvocab.*.spm` and
  `trgvocab.*.spm`); the ids are SentencePiece ids. intgemm8 matrices become .tfm `i8` tensors with
  per-row scales 1/quantMult; the activation multipliers are kept in the metadata.

Export writes a Marian model (`model.npz`, `model.bin`, and with --int8 `model.intgemm.alphas.bin`
with activation multipliers calibrated on text) plus vocabulary files and a `decoder.yml`, so that
Marian (marian-decoder) and Bergamot's wasm decode the same weights.

The computation both sides agree on is in models/MARIAN-IMPORT.md and models/tformer/model.py.
Anything the engine cannot compute is refused with a message naming the Marian option.
"""
from __future__ import annotations

import glob
import math
import os
import struct
import sys
from dataclasses import dataclass

import numpy as np

from . import marian_io as mio
from . import tfm
from .config import ModelConfig, marian_convention

LN_EPS = 1e-6
SHORTLIST_MAGIC = 0xF11A48D5013417F5  # marian-dev's binary lexical shortlist (lex.*.s2t.bin)
DEFAULT_MAX_POSITIONS = 512


class MarianError(ValueError):
    """A Marian model that cannot be converted; the message says why and what to do."""


def warn(msg: str):
    print(f"warning: {msg}", file=sys.stderr)


# ---- Marian options ------------------------------------------------------------------------------
# Marian's defaults (marian-dev src/common/config_parser.cpp) for the options that shape a transformer.
DEFAULTS = {
    "type": "amun", "dim-emb": 512, "enc-depth": 1, "dec-depth": 1, "transformer-heads": 8,
    "transformer-dim-ffn": 2048, "transformer-decoder-dim-ffn": 0, "transformer-ffn-depth": 2,
    "transformer-decoder-ffn-depth": 0, "transformer-ffn-activation": "swish",
    "transformer-preprocess": "", "transformer-postprocess": "dan", "transformer-postprocess-emb": "d",
    "transformer-postprocess-top": "", "transformer-decoder-autoreg": "self-attention", "dec-cell": "gru",
    "tied-embeddings": False, "tied-embeddings-src": False, "tied-embeddings-all": False,
    "transformer-train-position-embeddings": False, "transformer-no-projection": False,
    "transformer-pool": False, "transformer-tied-layers": [], "output-omit-bias": False,
    "layer-normalization": False, "right-left": False, "lemma-dim-emb": 0, "ulr": False,
    "factors-dim-emb": 0, "input-types": [], "output-approx-knn": [],
}
# Options that do not change what a trained transformer computes at inference (training, RNN-only,
# alignment, initialisation), read and ignored.
IGNORED = {
    "version", "dim-rnn", "enc-type", "enc-cell", "enc-cell-depth", "dec-cell-base-depth",
    "dec-cell-high-depth", "skip", "best-deep", "factors-combine", "lemma-dependency",
    "transformer-dim-aan", "transformer-aan-depth", "transformer-aan-activation", "transformer-aan-nogate",
    "transformer-guided-alignment-layer", "transformer-depth-scaling", "transformer-dropout",
    "transformer-dropout-attention", "transformer-dropout-ffn", "dropout-rnn", "dropout-src", "dropout-trg",
    "guided-alignment", "guided-alignment-cost", "guided-alignment-weight", "label-smoothing",
    "ulr-query-vectors", "ulr-keys-vectors", "ulr-trainable-transformation", "ulr-dim-emb", "ulr-dropout",
    "ulr-softmax-temperature", "bert-mask-symbol", "bert-sep-symbol", "bert-class-symbol",
    "bert-masking-fraction", "bert-train-type-embeddings", "bert-type-vocab-size", "comet-final-sigmoid",
    "comet-mix", "comet-mix-norm", "comet-dropout", "comet-mixup", "comet-mixup-reg", "comet-pooler-ffn",
    "comet-prepend-zero", "precision", "cost-type", "multi-loss-type", "unlikelihood-loss",
    "embedding-fix-src", "embedding-fix-trg", "embedding-normalization", "embedding-vectors",
    "max-length", "max-length-crop", "max-length-factor", "beam-size", "normalize", "word-penalty",
    "mini-batch", "maxi-batch", "maxi-batch-sort", "relative-paths", "models", "vocabs", "workspace",
    "cpu-threads", "gemm-precision", "quiet", "quiet-translation", "alignment", "skip-cost",
    "shortlist", "dim-vocabs", "transformer-decoder-dim-ffn", "transformer-decoder-ffn-depth",
}


def _strip_dropout(ops) -> str:
    return "".join(ch for ch in str(ops or "") if ch != "d")


def config_from_options(opts: dict, what: str) -> dict:
    """Marian options -> the architecture fields of ModelConfig (a dict) plus 'marian_tie'
    ('all', 'src', 'target' or 'none': which Marian embedding parameters exist)."""
    o = dict(DEFAULTS)
    o.update({k: v for k, v in opts.items() if v is not None})
    unknown = sorted(k for k in opts if k not in DEFAULTS and k not in IGNORED)
    if unknown:
        warn(f"{what}: Marian options this converter does not know, ignored: {', '.join(unknown)}")

    def refuse(msg):
        raise MarianError(f"{what}: unsupported Marian model: {msg}")

    if o["type"] != "transformer":
        refuse(f"type is {o['type']!r}; only 'transformer' models can be converted")
    for key in ("transformer-train-position-embeddings", "transformer-no-projection", "transformer-pool",
                "right-left", "ulr"):
        if o[key]:
            refuse(f"{key} is set")
    if o["transformer-tied-layers"]:
        refuse("transformer-tied-layers (shared layer weights) is set")
    if o["lemma-dim-emb"] or o["factors-dim-emb"]:
        refuse("factored vocabularies (lemma-dim-emb / factors-dim-emb) are not supported")
    if o["input-types"]:
        refuse(f"input-types {o['input-types']} is set")
    if o["output-approx-knn"]:
        warn(f"{what}: output-approx-knn (LSH output approximation) is ignored: the engine computes all logits")
    if o["transformer-ffn-depth"] != 2 or o["transformer-decoder-ffn-depth"] not in (0, 2):
        refuse("only feed-forward blocks of depth 2 are supported (transformer-ffn-depth / "
               "transformer-decoder-ffn-depth)")
    ffn = int(o["transformer-dim-ffn"])
    if o["transformer-decoder-dim-ffn"] not in (0, ffn):
        refuse(f"transformer-decoder-dim-ffn {o['transformer-decoder-dim-ffn']} differs from transformer-dim-ffn {ffn}")
    act = o["transformer-ffn-activation"]
    if act not in ("relu", "swish"):
        refuse(f"transformer-ffn-activation {act!r} (the engine has relu and swish)")
    if _strip_dropout(o["transformer-postprocess-emb"]):
        refuse(f"transformer-postprocess-emb {o['transformer-postprocess-emb']!r} (only dropout 'd' is supported)")
    pre, post, top = (_strip_dropout(o[k]) for k in
                      ("transformer-preprocess", "transformer-postprocess", "transformer-postprocess-top"))
    if (pre, post, top) == ("", "an", ""):
        norm = "post"
    elif (pre, post, top) == ("n", "a", "n"):
        norm = "pre"
    else:
        refuse(f"transformer-preprocess {o['transformer-preprocess']!r}, -postprocess {o['transformer-postprocess']!r}, "
               f"-postprocess-top {o['transformer-postprocess-top']!r}: supported are post-norm (preprocess '', "
               "postprocess 'dan') and pre-norm (preprocess 'n', postprocess 'da', postprocess-top 'n')")
    autoreg = o["transformer-decoder-autoreg"]
    if autoreg == "self-attention":
        layer_type = "transformer"
    elif autoreg == "rnn":
        if o["dec-cell"] != "ssru":
            refuse(f"transformer-decoder-autoreg rnn with dec-cell {o['dec-cell']!r} (only ssru is supported)")
        if o["layer-normalization"]:
            refuse("layer-normalization inside the SSRU cell is set")
        layer_type = "ssru"
    else:
        refuse(f"transformer-decoder-autoreg {autoreg!r} (supported: self-attention, rnn with dec-cell ssru)")
    if o["tied-embeddings-all"] or (o["tied-embeddings-src"] and o["tied-embeddings"]):
        tie = "all"
    elif o["tied-embeddings-src"]:
        tie = "src"
    elif o["tied-embeddings"]:
        tie = "target"
    else:
        tie = "none"
    d, heads = int(o["dim-emb"]), int(o["transformer-heads"])
    if d % heads or d % 2:
        refuse(f"dim-emb {d} is not an even multiple of transformer-heads {heads}")
    return dict(d_model=d, heads=heads, ffn_dim=ffn, encoder_layers=int(o["enc-depth"]),
                decoder_layers=int(o["dec-depth"]), norm=norm, prenorm_raw_self_kv=norm == "pre",
                activation=act, decoder_layer_type=layer_type, output_bias=not o["output-omit-bias"],
                marian_tie=tie)


def options_from_config(cfg: ModelConfig, vocab_sizes) -> dict:
    """Every architecture option Marian reads, written out: an absent key would fall back to
    Marian's defaults (type amun, dim-emb 512, swish...), not to this model's values."""
    pre = cfg.norm == "pre"
    tie = cfg.tied_embeddings
    opts = {
        "type": "transformer",
        "dim-vocabs": [int(v) for v in vocab_sizes],
        "dim-emb": cfg.d_model,
        "enc-depth": cfg.encoder_layers,
        "dec-depth": cfg.decoder_layers,
        "transformer-heads": cfg.heads,
        "transformer-dim-ffn": cfg.ffn_dim,
        "transformer-ffn-depth": 2,
        "transformer-ffn-activation": cfg.activation,
        "transformer-preprocess": "n" if pre else "",
        "transformer-postprocess": "da" if pre else "dan",
        "transformer-postprocess-emb": "d",
        "transformer-postprocess-top": "n" if pre else "",
        "transformer-decoder-autoreg": "rnn" if cfg.decoder_layer_type == "ssru" else "self-attention",
        "dec-cell": "ssru" if cfg.decoder_layer_type == "ssru" else "gru",
        "tied-embeddings": tie in ("all", "target"),
        "tied-embeddings-src": False,
        "tied-embeddings-all": tie == "all",
        "transformer-train-position-embeddings": False,
        "transformer-no-projection": False,
        "transformer-tied-layers": [],
        "output-omit-bias": not cfg.output_bias,
        "layer-normalization": False,
        "right-left": False,
    }
    return opts


# ---- parameter names -----------------------------------------------------------------------------
# Kinds: "W" Marian [in, out] = PyTorch Linear weight transposed; "b" Marian [1, n] = PyTorch [n];
# "E" same layout ([V, d] embeddings, the [V, d] output matrix `_Wt`).
def parameter_map(cfg: ModelConfig, marian_tie: str) -> list:
    """[(marian name, tfm name, kind)] for a model of this shape."""
    sfx = "_pre" if cfg.norm == "pre" else ""
    out = []

    def attention(m, t, norm):
        for p in "qkvo":
            out.append((f"{m}_W{p}", f"{t}.{p}.weight", "W"))
            out.append((f"{m}_b{p}", f"{t}.{p}.bias", "b"))
        out.append((f"{m}_Wo_ln_scale{sfx}", f"{norm}.weight", "b"))
        out.append((f"{m}_Wo_ln_bias{sfx}", f"{norm}.bias", "b"))

    def ffn(m, t):
        out.extend([(f"{m}_W1", f"{t}.ffn.w1.weight", "W"), (f"{m}_b1", f"{t}.ffn.w1.bias", "b"),
                    (f"{m}_W2", f"{t}.ffn.w2.weight", "W"), (f"{m}_b2", f"{t}.ffn.w2.bias", "b"),
                    (f"{m}_ffn_ln_scale{sfx}", f"{t}.ffn_norm.weight", "b"),
                    (f"{m}_ffn_ln_bias{sfx}", f"{t}.ffn_norm.bias", "b")])

    if marian_tie == "all":
        out.append(("Wemb", "embedding.weight", "E"))
    elif marian_tie == "src":
        out.append(("Wemb", "source_embedding.weight", "E"))  # and target_embedding.weight
    else:
        out.append(("encoder_Wemb", "source_embedding.weight", "E"))
        out.append(("decoder_Wemb", "target_embedding.weight", "E"))
    for i in range(cfg.encoder_layers):
        m, t = f"encoder_l{i + 1}", f"encoder.layers.{i}"
        attention(f"{m}_self", f"{t}.self_attn", f"{t}.self_attn_norm")
        ffn(f"{m}_ffn", t)
    for i in range(cfg.decoder_layers):
        m, t = f"decoder_l{i + 1}", f"decoder.layers.{i}"
        if cfg.decoder_layer_type == "ssru":
            out.extend([(f"{m}_rnn_W", f"{t}.ssru.w.weight", "W"), (f"{m}_rnn_Wf", f"{t}.ssru.wf.weight", "W"),
                        (f"{m}_rnn_bf", f"{t}.ssru.wf.bias", "b")])
            ln = f"{m}_rnn_ln_{{}}_pre" if sfx else f"{m}_rnn_ffn_ln_{{}}"
            out.extend([(ln.format("scale"), f"{t}.ssru_norm.weight", "b"),
                        (ln.format("bias"), f"{t}.ssru_norm.bias", "b")])
        else:
            attention(f"{m}_self", f"{t}.self_attn", f"{t}.self_attn_norm")
        attention(f"{m}_context", f"{t}.cross_attn", f"{t}.cross_attn_norm")
        ffn(f"{m}_ffn", t)
    if cfg.norm == "pre":
        for side in ("encoder", "decoder"):
            out.append((f"{side}_top_ln_scale", f"{side}.final_norm.weight", "b"))
            out.append((f"{side}_top_ln_bias", f"{side}.final_norm.bias", "b"))
    if marian_tie in ("none", "src"):
        out.append(("decoder_ff_logit_out_Wt", "output.weight", "E"))
    if cfg.output_bias:
        out.append(("decoder_ff_logit_out_b", "output_bias", "b"))
    return out


def output_matrix(marian_tie: str) -> str:
    """The Marian parameter that is the output projection."""
    return {"all": "Wemb", "src": "decoder_ff_logit_out_Wt", "target": "decoder_Wemb",
            "none": "decoder_ff_logit_out_Wt"}[marian_tie]


def is_intgemm_name(name: str) -> bool:
    """The parameters marian-conv stores as intgemm8 (expression_graph_packable.h): names ending
    in `_W` or `_W` plus one character, and every embedding matrix."""
    i = name.find("_W")
    return i != -1 and (i == len(name) - 3 or i == len(name) - 2) or "Wemb" in name


# ---- vocabularies --------------------------------------------------------------------------------
class Vocab:
    """One side's vocabulary as Marian sees it: a SentencePiece model and, for .yml vocabularies,
    the explicit id -> piece table."""

    def __init__(self, spm_path: str, table_path: str | None):
        import sentencepiece as spm
        self.spm_path, self.table_path = spm_path, table_path
        try:
            with open(spm_path, "rb") as f:
                self.spm_bytes = f.read()
        except OSError as e:
            raise MarianError(f"cannot read SentencePiece model {spm_path}: {e.strerror}") from None
        try:
            self.sp = spm.SentencePieceProcessor(model_proto=self.spm_bytes)
        except Exception as e:  # sentencepiece raises RuntimeError/OSError with its own text
            raise MarianError(f"{spm_path}: not a SentencePiece model ({e})") from None
        self.table = mio.read_vocab_yml(table_path) if table_path else None
        if self.table is not None:
            index = {p: i for i, p in enumerate(self.table)}
            for piece in ("</s>", "<unk>"):
                if piece not in index:
                    raise MarianError(f"{table_path}: the vocabulary has no {piece} entry (Marian requires it)")
            self.eos_id, self.unk_id = index["</s>"], index["<unk>"]
        else:
            self.eos_id = self.sp.piece_to_id("</s>")
            self.unk_id = self.sp.unk_id()
            if self.eos_id == self.unk_id:
                raise MarianError(f"{spm_path}: the SentencePiece model has no </s> piece (Marian requires it)")

    def __len__(self):
        return len(self.table) if self.table is not None else self.sp.get_piece_size()

    def same_as(self, other: "Vocab") -> bool:
        return self.spm_bytes == other.spm_bytes and self.table == other.table


def _find(pattern_list, folder):
    found = []
    for pattern in pattern_list:
        found.extend(p for p in sorted(glob.glob(os.path.join(folder, pattern))) if p not in found)
    return found


def discover(path: str, model=None, vocabs=None, spms=None, config=None) -> dict:
    """Finds the model, vocabularies and SentencePiece models of an OPUS-MT or Firefox folder."""
    if os.path.isfile(path):
        folder = os.path.dirname(os.path.abspath(path))
        model = model or path
    elif os.path.isdir(path):
        folder = path
    else:
        raise MarianError(f"{path}: no such file or folder")
    decoder = {}
    for name in ("decoder.yml", "config.yml", "config.intgemm8bitalpha.yml"):
        p = os.path.join(folder, name)
        if os.path.isfile(p) and not decoder:
            with open(p, encoding="utf-8") as f:
                decoder = mio.parse_options(f.read(), p)
            decoder["__path__"] = p
    rel = lambda p: p if os.path.isabs(p) else os.path.join(folder, p)  # noqa: E731
    if model is None:
        listed = decoder.get("models")
        if listed:
            model = rel(listed[0] if isinstance(listed, list) else listed)
        else:
            # Firefox Translations folders also hold a lexical shortlist (lex.*.s2t.bin) and maybe a
            # quality model (qualityModel.*.bin): not translation models.
            cands = [c for c in _find(["*.npz", "*.bin"], folder)
                     if not os.path.basename(c).startswith(("lex.", "qualityModel")) and ".s2t." not in c]
            if len(cands) > 1 and any(os.path.basename(c).startswith("model") for c in cands):
                cands = [c for c in cands if os.path.basename(c).startswith("model")]
            if not cands:
                raise MarianError(f"{folder}: no Marian model (*.npz or *.bin) found")
            if len(cands) > 1:
                raise MarianError(f"{folder}: several models found ({', '.join(os.path.basename(c) for c in cands)}); "
                                  "name one with --model")
            model = cands[0]
    if not os.path.isfile(model):
        raise MarianError(f"Marian model {model} is missing")
    if vocabs is None:
        listed = decoder.get("vocabs")
        if listed:
            vocabs = [rel(v) for v in listed]
        else:
            yml = _find(["*.vocab.yml", "*.vocab.yaml", "vocab*.yml"], folder)
            spm_vocabs = _find(["vocab*.spm", "*.vocab.spm"], folder)
            src = _find(["srcvocab*.spm", "*.src.vocab.yml", "src*.vocab.yml"], folder)
            trg = _find(["trgvocab*.spm", "*.trg.vocab.yml", "trg*.vocab.yml"], folder)
            if src and trg:
                vocabs = [src[0], trg[0]]
            elif len(yml) == 1:
                vocabs = [yml[0]] * 2
            elif len(spm_vocabs) == 1:
                vocabs = [spm_vocabs[0]] * 2
            elif yml or spm_vocabs:
                raise MarianError(f"{folder}: several vocabularies ({', '.join(os.path.basename(v) for v in yml + spm_vocabs)}); "
                                  "name them with --vocabs SRC [TRG]")
            else:
                raise MarianError(f"{folder}: no vocabulary found (expected *.vocab.yml with source.spm/target.spm "
                                  "as OPUS-MT ships them, or vocab.*.spm as Firefox Translations does)")
    if len(vocabs) == 1:
        vocabs = [vocabs[0]] * 2
    if len(vocabs) != 2:
        raise MarianError(f"a translation model needs 2 vocabularies (source, target), got {len(vocabs)}")
    for v in vocabs:
        if not os.path.isfile(v):
            raise MarianError(f"vocabulary {v} is missing")
    sides = []
    for i, v in enumerate(vocabs):
        if v.lower().endswith((".yml", ".yaml", ".json")):
            if spms:
                sp = spms[min(i, len(spms) - 1)]
            else:
                sp = os.path.join(folder, ("source.spm", "target.spm")[i])
            if not os.path.isfile(sp):
                raise MarianError(f"{os.path.basename(v)} maps SentencePiece pieces to ids, but the "
                                  f"{('source', 'target')[i]} SentencePiece model {sp} is missing "
                                  "(OPUS-MT ships source.spm and target.spm; or give --spm SRC [TRG])")
            sides.append((sp, v))
        elif v.lower().endswith((".spm", ".model")):
            sides.append((v, None))
        else:
            raise MarianError(f"vocabulary {v}: expected a .yml table or a SentencePiece .spm model")
    shortlist = None
    for lex in _find(["lex.*", "*.s2t.*"], folder):
        with open(lex, "rb") as f:
            magic = f.read(8)
        if len(magic) == 8 and struct.unpack("<Q", magic)[0] == SHORTLIST_MAGIC:
            shortlist = lex
            break
        warn(f"{os.path.basename(lex)} is not a binary lexical shortlist (a text one?): not used")
    cfg_opts = {}
    if config:
        with open(config, encoding="utf-8") as f:
            cfg_opts = mio.parse_options(f.read(), config)
    return {"folder": folder, "model": model, "sides": sides, "decoder": decoder, "config": cfg_opts,
            "shortlist": shortlist}


# ---- import --------------------------------------------------------------------------------------
def _dequantize_item(item: mio.Item, what: str):
    """A Marian item -> (float32 array in Marian's layout, or None; int8 dict or None).
    intgemm8 yields the stored int8 matrix in PyTorch layout plus its scale."""
    if item.type in ("float32", "float16", "float64"):
        return item.array().astype(np.float32), None
    if item.type in mio.INTGEMM:
        q, mult = item.intgemm()
        if not math.isfinite(mult) or mult <= 0:
            raise MarianError(f"{what}: item {item.name} has quantisation multiplier {mult}")
        shape = item.shape
        if len(shape) != 2:
            raise MarianError(f"{what}: {item.type} item {item.name} has shape {list(shape)}, expected 2-D")
        # marian-conv stores W^T (rows = output units), except embedding matrices, stored as they are.
        stored = q.reshape(shape if "Wemb" in item.name else (shape[1], shape[0]))
        return None, {"q": stored, "scale": np.float32(1.0) / np.float32(mult), "type": item.type}
    raise MarianError(f"{what}: item {item.name} has type {item.type}, not a weight type")


@dataclass
class _MarianModel:
    """What the read step found: the model's items and options, and the two vocabularies."""
    path: str
    what: str  # the model file's name, for messages
    items: dict
    opts: dict
    sides: list  # discover()'s (spm, vocab) paths per side
    src: Vocab
    tgt: Vocab
    shortlist: str | None = None  # the binary lexical shortlist (lex.*.s2t.bin), if the folder has one


@dataclass
class _Plan:
    """What the validate step decided: the engine's config, Marian's tying, the parameter map."""
    cfg: ModelConfig
    tie: str
    pmap: list
    expected: set
    alphas: dict  # int8shiftAlphaAll's activation multipliers, by matrix


def _read(path, model, vocabs, spms, config) -> _MarianModel:
    """Read: finds the files, reads the model's items, its options and the vocabularies."""
    found = discover(path, model, vocabs, spms, config)
    model_path = found["model"]
    items = mio.read_model(model_path)
    what = os.path.basename(model_path)
    if found["config"]:
        opts = found["config"]
    elif mio.MODEL_YML in items:
        opts = mio.parse_options(mio.item_text(items[mio.MODEL_YML]), f"{what}:{mio.MODEL_YML}")
    else:
        raise MarianError(f"{what} has no {mio.MODEL_YML} item (the architecture); give the model's "
                          "options with --config FILE (the training config.yml)")
    return _MarianModel(model_path, what, items, opts, found["sides"], Vocab(*found["sides"][0]), Vocab(*found["sides"][1]),
                        found["shortlist"])


def _validate(m: _MarianModel, max_positions: int) -> _Plan:
    """Validate: the options give an architecture the engine has, the vocabularies agree with each
    other and the options, and the items are exactly the parameters that architecture needs."""
    what, items, opts, src, tgt = m.what, m.items, m.opts, m.src, m.tgt
    arch = config_from_options(opts, what)
    tie = arch.pop("marian_tie")
    if (src.eos_id, src.unk_id) != (tgt.eos_id, tgt.unk_id):
        raise MarianError(f"source and target vocabularies disagree on </s>/<unk> ids ({src.eos_id}/{src.unk_id} vs "
                          f"{tgt.eos_id}/{tgt.unk_id}); the engine needs them equal")
    vs, vt = len(src), len(tgt)
    dim_vocabs = opts.get("dim-vocabs")
    if dim_vocabs and [int(x) for x in dim_vocabs] != [vs, vt]:
        raise MarianError(f"{what}: dim-vocabs {list(dim_vocabs)} does not match the vocabularies "
                          f"({vs} source and {vt} target entries)")
    if tie in ("all", "src") and vs != vt:
        raise MarianError(f"{what}: tied source/target embeddings need vocabularies of equal size ({vs} vs {vt})")
    if any(p.startswith(">>") and p.endswith("<<") for p in (src.table or [])):
        warn(f"{what}: the source vocabulary has target-language tokens (>>xx<<): a multilingual OPUS-MT model. "
             "The engine tokenizes such a token as text; translating with it is not supported yet.")
    V = max(vs, vt)

    cfg = marian_convention(vocab_size=V, max_positions=max_positions, eos_id=src.eos_id, unk_id=src.unk_id,
                            pad_id=src.eos_id, tied_embeddings={"src": "none"}.get(tie, tie), **arch)
    pmap = parameter_map(cfg, tie)
    expected = {name for name, _, _ in pmap}
    legacy = "decoder_ff_logit_out_W"  # old Marian models: the output matrix untransposed, [d, V]
    if "decoder_ff_logit_out_Wt" in expected and "decoder_ff_logit_out_Wt" not in items and legacy in items:
        if items[legacy].type not in ("float32", "float16"):
            raise MarianError(f"{what}: {legacy} of type {items[legacy].type} is not supported")
        items["decoder_ff_logit_out_Wt"] = mio.item_from_array(
            "decoder_ff_logit_out_Wt", np.ascontiguousarray(items.pop(legacy).array().astype(np.float32).T))
    alphas = {}
    extra = []
    for n, it in items.items():
        if n in expected or n.startswith("special:"):
            continue
        if n.endswith("_QuantMultA") and it.type == "float32" and it.shape in ((1,), (1, 1)):
            alphas[n[:-len("_QuantMultA")]] = float(it.array().reshape(-1)[0])
        else:
            extra.append(n)
    if extra:
        raise MarianError(f"{what}: parameters this converter does not know: {', '.join(sorted(extra)[:8])}"
                          f"{' ...' if len(extra) > 8 else ''} (a Marian feature the engine lacks?)")
    missing = [name for name in sorted(expected) if name not in items]
    if missing:
        raise MarianError(f"{what}: missing parameters {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''} "
                          "for the architecture its options describe")
    if (src.table is None) != (tgt.table is None):
        raise MarianError("one vocabulary is a .yml table and the other a SentencePiece model: not supported")
    return _Plan(cfg, tie, pmap, expected, alphas)


def _convert(m: _MarianModel, plan: _Plan, keep_int8: bool):
    """Convert: Marian's items -> the engine's tensors (names, layouts, tying, vocabulary padding).
    intgemm8 matrices stay int8 with their scale where `keep_int8`, else are dequantised.
    Returns (tensors, scales, the number of int8 matrices kept)."""
    what, items, cfg = m.what, m.items, plan.cfg
    vs, vt = len(m.src), len(m.tgt)
    V = cfg.vocab_size
    d, ffn = cfg.d_model, cfg.ffn_dim
    tensors, scales = {}, {}
    quantized = 0
    for name, t, kind in plan.pmap:
        it = items[name]
        f32, q = _dequantize_item(it, what)
        # Expected Marian shapes.
        rows = {"Wemb": vs, "encoder_Wemb": vs, "decoder_Wemb": vt, "decoder_ff_logit_out_Wt": vt}.get(name)
        if kind == "E":
            want = (rows, d)
        elif kind == "W":
            out_dim = ffn if name.endswith("_W1") else d
            in_dim = ffn if name.endswith("_W2") else d
            want = (in_dim, out_dim)
        else:
            n = {"decoder_ff_logit_out_b": vt}.get(name, ffn if name.endswith("_b1") else d)
            want = (1, n)
        shape = tuple(it.shape)
        if shape != want and not (kind == "b" and shape == (want[1],)):
            raise MarianError(f"{what}: parameter {name} has shape {list(shape)}, the options need {list(want)}")
        if q is not None:
            # int8 stored in PyTorch layout already (W^T rows = outputs; embeddings as they are),
            # except the untied output matrix, whose [V, d] was transposed by marian-conv.
            qm = q["q"].T if name == "decoder_ff_logit_out_Wt" else q["q"]
            if q["type"] == "intgemm8" and keep_int8:
                tensors[t] = np.ascontiguousarray(qm.astype(np.int8))
                tensors[t + ".scales"] = np.full(qm.shape[0], q["scale"], dtype=np.float32)
                scales[t] = t + ".scales"
                quantized += 1
                continue
            arr = qm.astype(np.float32) * q["scale"]
        elif kind == "W":
            arr = f32.T
        elif kind == "b":
            arr = f32.reshape(-1)
        else:
            arr = f32
        tensors[t] = np.ascontiguousarray(arr, dtype=np.float32)
    if plan.tie == "src":
        tensors["target_embedding.weight"] = tensors["source_embedding.weight"]
        if "source_embedding.weight" in scales:
            tensors["target_embedding.weight.scales"] = tensors["source_embedding.weight.scales"]
            scales["target_embedding.weight"] = "target_embedding.weight.scales"

    # Vocabularies of different sizes: pad to V; target ids >= vt can never be chosen.
    if vs != vt:
        pads = {"source_embedding.weight": vs, "target_embedding.weight": vt, "output.weight": vt}
        for t, n in pads.items():
            if t in tensors and n < V:
                a = tensors[t]
                tensors[t] = np.concatenate([a, np.zeros((V - n, a.shape[1]), dtype=a.dtype)])
                if t in scales:
                    s = tensors[scales[t]]
                    tensors[scales[t]] = np.concatenate([s, np.ones(V - n, dtype=np.float32)])
        if vt < V:
            bias = tensors.get("output_bias", np.zeros(vt, dtype=np.float32))
            tensors["output_bias"] = np.concatenate([bias, np.full(V - vt, -np.inf, dtype=np.float32)])
            cfg.output_bias = True
    return tensors, scales, quantized


def _cast(tensors: dict, scales: dict, weights: str):
    """Cast: the requested storage precision of every matrix (tfm.store_weight), in place; "keep"
    leaves the converted tensors as they are."""
    if weights == "keep":
        return
    for t in list(tensors):
        if t.endswith(".scales") or tensors[t].ndim != 2:
            continue
        row_scales = tensors[scales[t]] if t in scales else None
        arr, new_scales = tfm.store_weight(tensors[t], weights, row_scales)
        if t in scales and new_scales is None:  # dequantised: its scales go
            tensors.pop(scales.pop(t))
        tensors[t] = arr
        if new_scales is not None and t not in scales:
            tensors[t + ".scales"], scales[t] = new_scales, t + ".scales"


def alignment_head_from_options(opts: dict, cfg: ModelConfig, what: str):
    """The .tfm "alignment_head" of a Marian model trained with guided alignment (option
    `guided-alignment` not "none"): Marian trains, and returns as its alignment, the first head
    (collectOneHead) of the cross-attention of layer `transformer-guided-alignment-layer` ("last",
    or a 1-based number). None for a model trained without. (Marian keeps
    transformer-guided-alignment-layer in the model's own options but not guided-alignment: that
    comes from the training config, --config.)"""
    ga = opts.get("guided-alignment", "none")
    if ga is None or ga is False or str(ga).strip() in ("", "none"):
        return None
    layer = str(opts.get("transformer-guided-alignment-layer", "last")).strip()
    if layer == "last":
        index = cfg.decoder_layers - 1
    else:
        try:
            index = int(layer) - 1
        except ValueError:
            index = None
        if index is None or not 0 <= index < cfg.decoder_layers:
            raise MarianError(f"{what}: transformer-guided-alignment-layer {layer!r} is not 'last' or a decoder "
                              f"layer 1..{cfg.decoder_layers}")
    return {"layer": index, "head": 0}


def _metadata(m: _MarianModel, plan: _Plan, weights: str, quantized: int, name) -> dict:
    """Metadata: where the model came from, which Marian options it had, its storage precision."""
    kinds = sorted({it.type for n, it in m.items.items() if n in plan.expected})
    metadata = {
        "name": name or os.path.splitext(os.path.basename(m.path))[0],
        "converted_from": "marian",
        "marian": {
            "model": os.path.basename(m.path),
            "item_types": kinds,
            "vocabs": [os.path.basename(v or s) for s, v in m.sides],
            "vocab_sizes": [len(m.src), len(m.tgt)],
            "embeddings": plan.tie,
            "options": {k: m.opts[k] for k in sorted(m.opts) if k in DEFAULTS or k in ("dim-vocabs",)},
        },
        "weights": weights if weights != "keep" else ("int8" if quantized else "f32"),
    }
    if plan.alphas:
        metadata["marian"]["quant_mult_a"] = plan.alphas
    head = alignment_head_from_options(m.opts, plan.cfg, m.what)
    if head:
        metadata["alignment_head"] = head
    return metadata


def import_marian(path: str, out_path: str, model=None, vocabs=None, spms=None, config=None,
                  weights: str = "keep", max_positions: int = DEFAULT_MAX_POSITIONS, name=None) -> dict:
    """Converts; returns a summary dict. Raises MarianError / MarianFormatError on bad input.
    The steps: read, validate, convert, cast, metadata (then the tokenizer section and the file)."""
    m = _read(path, model, vocabs, spms, config)
    plan = _validate(m, max_positions)
    tensors, scales, quantized = _convert(m, plan, keep_int8=weights in ("keep", "int8"))
    _cast(tensors, scales, weights)
    tables = m.src.table is not None
    tokenizer = tfm.tokenizer_section(tensors, m.src.spm_bytes, m.tgt.spm_bytes,
                                      m.src.table if tables else None, m.tgt.table if tables else None)
    if m.shortlist:
        # Carried unchanged as the u8 tensor "shortlist" (docs/FORMAT.md), checked as the engine checks it.
        from .shortlist import LexicalShortlist
        with open(m.shortlist, "rb") as f:
            blob = f.read()
        shared = m.src.table == m.tgt.table if tables else m.src.spm_bytes == m.tgt.spm_bytes
        try:
            LexicalShortlist(blob, len(m.src), len(m.tgt), shared)
        except ValueError as e:
            raise MarianError(f"{os.path.basename(m.shortlist)}: {e}") from None
        tensors["shortlist"] = np.frombuffer(blob, dtype=np.uint8)
    metadata = _metadata(m, plan, weights, quantized, name)
    size = tfm.write(out_path, tfm.TfmFile(plan.cfg.to_dict(), tokenizer, tensors, metadata, scales))
    return {"output": out_path, "bytes": size, "config": plan.cfg, "tokenizer": tokenizer["type"],
            "joint_vocab": m.src.same_as(m.tgt), "quantized_matrices": quantized, "alphas": len(plan.alphas),
            "model": m.path}


# ---- export --------------------------------------------------------------------------------------
def _check_exportable(cfg: ModelConfig, src_tok, tgt_tok):
    problems = []
    if cfg.positional_encoding != "marian":
        problems.append("positional_encoding must be 'marian'")
    if cfg.decoder_start != "zero":
        problems.append("decoder_start must be 'zero'")
    if cfg.source_bos or not cfg.source_eos:
        problems.append("the source must end with EOS and have no BOS (source_bos false, source_eos true)")
    if abs(cfg.layer_norm_eps - LN_EPS) > 1e-12:
        problems.append(f"layer_norm_eps is {cfg.layer_norm_eps}; Marian's layer norm uses {LN_EPS}")
    if cfg.norm == "pre" and not cfg.prenorm_raw_self_kv:
        problems.append("pre-norm without prenorm_raw_self_kv: Marian's pre-norm feeds the raw input to "
                        "self-attention keys/values")
    for side, tok in (("source", src_tok), ("target", tgt_tok)):
        if tok.vocab is not None:
            eos = tok.index.get("</s>", -1)
            unk = tok.unk_id
        else:
            eos = tok.sp.piece_to_id("</s>")
            unk = tok.sp.unk_id()
            if eos == unk:
                eos = -1
        if eos != cfg.eos_id:
            problems.append(f"the {side} vocabulary's </s> has id {eos}, the config's eos_id is {cfg.eos_id}")
        if unk != cfg.unk_id:
            problems.append(f"the {side} vocabulary's <unk> has id {unk}, the config's unk_id is {cfg.unk_id}")
    if problems:
        raise MarianError("this model cannot be written as a Marian model: " + "; ".join(problems))
    if not cfg.suppress_unk:
        warn("the model does not suppress <unk>; Marian does (unless run with --allow-unk)")


def marian_parameters(f: tfm.TfmFile, cfg: ModelConfig, vs: int, vt: int) -> dict:
    """Marian name -> float32 array in Marian's layout."""
    tie = cfg.tied_embeddings
    params = {}
    for m, t, kind in parameter_map(cfg, tie):
        a = tfm.dequantize(f, t)
        if t in ("embedding.weight", "source_embedding.weight"):
            a = a[:vs]
        if t in ("target_embedding.weight", "output.weight", "output_bias"):
            a = a[:vt]
        if t == "embedding.weight" and vs != vt:
            raise MarianError(f"tied embeddings with vocabularies of different sizes ({vs} vs {vt})")
        if kind == "W":
            a = a.T
        elif kind == "b":
            a = a.reshape(1, -1)
        if not np.all(np.isfinite(a)):
            raise MarianError(f"tensor {t} has non-finite values within the vocabulary; Marian cannot hold them")
        params[m] = np.ascontiguousarray(a, dtype=np.float32)
    return params


def quantize_intgemm8(name: str, w: np.ndarray) -> mio.Item:
    """marian-conv --gemm-type intgemm8: quantMult = 127 / max|W|; the int8 of W^T (an embedding
    matrix as it is), then the float32 quantMult."""
    w = np.asarray(w, dtype=np.float32)
    amax = np.float32(np.max(np.abs(w)))
    mult = np.float32(127.0) / amax if amax > 0 else np.float32(1.0)
    stored = w if "Wemb" in name else w.T
    q = np.clip(np.rint(stored * mult), -127, 127).astype(np.int8)
    return mio.Item(name, "intgemm8", tuple(w.shape), np.ascontiguousarray(q).tobytes() + np.float32(mult).tobytes())


def calibrate_alphas(model, src_tok, lines, tie: str, batch_size: int = 32) -> dict:
    """Activation multipliers for Marian's int8shiftAlphaAll, as marian-dev's quantisation recipe
    computes them (marian-decoder --dump-quantmult, scripts/alphas/extract_stats.py): the max |A|
    of each matrix product's input is recorded per call while decoding `lines` greedily in batches,
    and alpha = 127 / (mean + 1.1 * stddev) over the calls."""
    from .decode import greedy, max_target_length, source_ids
    cfg = model.cfg
    torch_to_marian = {t[:-len(".weight")]: m for m, t, kind in parameter_map(cfg, tie) if kind == "W"}
    samples = {m: [] for m in torch_to_marian.values()}
    out_name = output_matrix(tie)
    samples[out_name] = []
    seen_memory = set()
    hooks = []
    modules = dict(model.named_modules())
    for tname, mname in torch_to_marian.items():
        def hook(_mod, inputs, mname=mname):
            x = inputs[0]
            v = float(x.detach().abs().max())
            if "_context_Wk" in mname or "_context_Wv" in mname:
                if mname in seen_memory:  # Marian computes the encoder keys/values once per batch
                    return
                seen_memory.add(mname)
            samples[mname].append(v)
        hooks.append(modules[tname].register_forward_pre_hook(hook))
    original_logits = model.logits

    def logits(x):
        samples[out_name].append(float(x.detach().abs().max()))
        return original_logits(x)
    model.logits = logits
    try:
        items = [source_ids(cfg, src_tok.encode(l.strip())) for l in lines if l.strip()]
        items = [s for s in items if len(s) <= cfg.max_positions]
        items.sort(key=len)
        for start in range(0, len(items), batch_size):
            chunk = items[start:start + batch_size]
            seen_memory.clear()
            greedy(model, chunk, [max_target_length(cfg, len(s)) for s in chunk])
    finally:
        for h in hooks:
            h.remove()
        del model.logits
    alphas = {}
    for m, vals in samples.items():
        if not vals:
            raise MarianError(f"calibration recorded nothing for {m}")
        v = np.asarray(vals, dtype=np.float64)
        alphas[m] = float(np.float32(127.0 / (v.mean() + 1.1 * v.std())))
    return alphas


def export_marian(model_path: str, out_dir: str, formats=("npz", "bin"), int8: bool = False,
                  calibrate: str | None = None, calibrate_lines: int = 1000) -> dict:
    from .export import load_tfm_model
    model, src_tok, tgt_tok, f = load_tfm_model(model_path)
    cfg = model.cfg
    _check_exportable(cfg, src_tok, tgt_tok)
    vs, vt = len(src_tok), len(tgt_tok)
    params = marian_parameters(f, cfg, vs, vt)
    if vt < cfg.vocab_size and "output_bias" in f.tensors:
        pad = tfm.dequantize(f, "output_bias")[vt:]
        if not np.all(pad == -np.inf):
            raise MarianError(f"the target vocabulary has {vt} pieces but the model can emit ids up to "
                              f"{cfg.vocab_size - 1}: those ids would be lost")
    os.makedirs(out_dir, exist_ok=True)
    opts = options_from_config(cfg, (vs, vt))
    yml = mio.dump_options(opts)
    written = {}

    # Vocabularies.
    spec = f.tokenizer
    joint_spm = spec["source"] == spec["target"]
    if spec["type"] == "sentencepiece_vocab":
        from .marian_io import write_vocab_yml
        spm_names = ("source.spm", "target.spm")
        for side, name in zip(("source", "target"), spm_names):
            with open(os.path.join(out_dir, name), "wb") as fh:
                fh.write(f.tensors[spec[side]].tobytes())
        if spec["source_vocab"] == spec["target_vocab"]:
            vocab_files = ["vocab.yml", "vocab.yml"]
            write_vocab_yml(os.path.join(out_dir, "vocab.yml"), src_tok.vocab)
        else:
            vocab_files = ["source.vocab.yml", "target.vocab.yml"]
            write_vocab_yml(os.path.join(out_dir, vocab_files[0]), src_tok.vocab)
            write_vocab_yml(os.path.join(out_dir, vocab_files[1]), tgt_tok.vocab)
    else:
        vocab_files = ["vocab.spm", "vocab.spm"] if joint_spm else ["srcvocab.spm", "trgvocab.spm"]
        for side, name in zip(("source", "target"), vocab_files):
            with open(os.path.join(out_dir, name), "wb") as fh:
                fh.write(f.tensors[spec[side]].tobytes())
    written["vocabs"] = sorted(set(vocab_files))
    # The lexical shortlist, as Firefox Translations ships it beside its models (lex.*.s2t.bin).
    shortlist_file = None
    if "shortlist" in f.tensors:
        shortlist_file = "lex.s2t.bin"
        with open(os.path.join(out_dir, shortlist_file), "wb") as fh:
            fh.write(f.tensors["shortlist"].tobytes())
        written["shortlist"] = shortlist_file

    float_items = [mio.item_from_array(m, params[m]) for m in sorted(params)] + [mio.yml_item(yml)]
    models = []
    if "npz" in formats:
        p = os.path.join(out_dir, "model.npz")
        written["model.npz"] = mio.write_npz(p, float_items)
        models.append("model.npz")
    if "bin" in formats:
        p = os.path.join(out_dir, "model.bin")
        written["model.bin"] = mio.write_bin(p, float_items)
        models.append("model.bin")
    if int8:
        alphas = None
        meta_alphas = f.metadata.get("marian", {}).get("quant_mult_a")
        if calibrate:
            with open(calibrate, encoding="utf-8") as fh:
                lines = [l for l in fh.read().splitlines() if l.strip()][:calibrate_lines]
            if not lines:
                raise MarianError(f"{calibrate}: no text to calibrate on")
            alphas = calibrate_alphas(model, src_tok, lines, cfg.tied_embeddings)
        elif meta_alphas:
            alphas = dict(meta_alphas)
        else:
            raise MarianError("--int8 needs --calibrate FILE (source-language text, one sentence a line) to "
                              "compute the activation multipliers of int8shiftAlphaAll")
        # Every matrix that is the B of a matrix product needs an activation multiplier.
        out_name = output_matrix(cfg.tied_embeddings)
        needed = sorted({m for m, _, kind in parameter_map(cfg, cfg.tied_embeddings) if kind == "W"} | {out_name})
        lacking = [m for m in needed if m not in alphas]
        if lacking:
            raise MarianError(f"no activation multiplier for {', '.join(lacking[:5])}; calibrate with --calibrate FILE")
        bad = []
        for m in needed:
            w = params[m]
            width, cols = (w.shape[1], w.shape[0]) if m == out_name else w.shape
            if width % 64 or cols % 8:
                bad.append(f"{m} {list(w.shape)}")
        if bad:
            raise MarianError("int8 (intgemm8) needs every matrix product's inner size to be a multiple of 64 and "
                              "its output size a multiple of 8 (Bergamot's wasm gemm); these are not: "
                              f"{', '.join(bad[:6])}")
        items = []
        for m in sorted(params):
            # The untied output matrix stays float32: marian-conv would transpose its [V, d] layout,
            # which the int8 output layer does not expect; Bergamot quantises a float32 one at load.
            if is_intgemm_name(m) and m != "decoder_ff_logit_out_Wt":
                items.append(quantize_intgemm8(m, params[m]))
            else:
                items.append(mio.item_from_array(m, params[m]))
        for m in needed:
            items.append(mio.item_from_array(m + "_QuantMultA", np.array([alphas[m]], dtype=np.float32)))
        items.append(mio.yml_item(yml))
        p = os.path.join(out_dir, "model.intgemm.alphas.bin")
        written["model.intgemm.alphas.bin"] = mio.write_bin(p, items)
        models.append("model.intgemm.alphas.bin")
        written["alphas"] = len(needed)

    with open(os.path.join(out_dir, "decoder.yml"), "w", encoding="utf-8") as fh:
        fh.write(mio.dump_options({"relative-paths": True, "models": [models[0]], "vocabs": vocab_files,
                                   "beam-size": 1, "normalize": 1.0, "max-length-factor": 2.0,
                                   "mini-batch": 16, "maxi-batch": 100, "maxi-batch-sort": "src",
                                   # [file, check]: Firefox's configs name the binary file and false
                                   **({"shortlist": [shortlist_file, "false"]} if shortlist_file else {})}))
        if int8:
            fh.write("# for model.intgemm.alphas.bin: gemm-precision: int8shiftAlphaAll\n")
    written["options"] = opts
    return written


# ---- command line --------------------------------------------------------------------------------
def cmd_import(args):
    try:
        r = import_marian(args.path, args.output, model=args.model, vocabs=args.vocabs, spms=args.spm,
                          config=args.config, weights=args.weights, max_positions=args.max_positions)
    except (MarianError, mio.MarianFormatError) as e:
        print(f"import-marian: {e}", file=sys.stderr)
        return 1
    c = r["config"]
    print(f"wrote {r['output']} ({r['bytes']} bytes) from {r['model']}: d_model {c.d_model}, heads {c.heads}, "
          f"ffn {c.ffn_dim}, {c.encoder_layers}+{c.decoder_layers} layers ({c.decoder_layer_type} decoder), "
          f"{c.norm}-norm, {c.activation}, vocab {c.vocab_size}, embeddings tied {c.tied_embeddings}, "
          f"tokenizer {r['tokenizer']}" + (f", {r['quantized_matrices']} int8 matrices" if r["quantized_matrices"] else "")
          + (f", {r['alphas']} activation multipliers kept in metadata" if r["alphas"] else ""))
    return 0


def cmd_export(args):
    formats = {"all": ("npz", "bin"), "npz": ("npz",), "bin": ("bin",)}[args.format]
    try:
        w = export_marian(args.model, args.output, formats, args.int8, args.calibrate, args.calibrate_lines)
    except (MarianError, mio.MarianFormatError) as e:
        print(f"export-marian: {e}", file=sys.stderr)
        return 1
    files = ", ".join(f"{k} ({v} bytes)" for k, v in w.items() if k.startswith("model."))
    print(f"wrote {args.output}: {files}; vocabularies {', '.join(w['vocabs'])}; decoder.yml"
          + (f"; {w['alphas']} activation multipliers" if "alphas" in w else ""))
    return 0


def register(sub):
    s = sub.add_parser("import-marian", help="convert a Marian model (OPUS-MT folder, Firefox Translations .bin) to .tfm")
    s.add_argument("path", help="the model folder (or the model file itself)")
    s.add_argument("-o", "--output", required=True)
    s.add_argument("--model", help="the .npz/.bin file when the folder has several")
    s.add_argument("--vocabs", nargs="+", help="source and target vocabularies (.yml or .spm)")
    s.add_argument("--spm", nargs="+", help="SentencePiece models for .yml vocabularies (default source.spm target.spm)")
    s.add_argument("--config", help="Marian options (YAML) when the model has no special:model.yml")
    s.add_argument("--weights", choices=["keep", "f32", "f16", "int8"], default="keep",
                   help="storage of matrices: keep (float32 stays f32, intgemm8 becomes i8), or convert all")
    s.add_argument("--max-positions", type=int, default=DEFAULT_MAX_POSITIONS,
                   help="longest sequence the engine handles in one piece")
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("export-marian", help="write a .tfm model as a Marian model (.npz, .bin, intgemm8 .bin)")
    s.add_argument("model")
    s.add_argument("-o", "--output", required=True, help="output folder")
    s.add_argument("--format", choices=["all", "npz", "bin"], default="all", help="float32 model files to write")
    s.add_argument("--int8", action="store_true", help="also write model.intgemm.alphas.bin (int8shiftAlphaAll)")
    s.add_argument("--calibrate", help="source-language text for the int8 activation multipliers")
    s.add_argument("--calibrate-lines", type=int, default=1000)
    s.set_defaults(func=cmd_export)

"""Marian models <-> .tfm: `models/tfm import-marian` and `models/tfm export-marian`.

Import is the engine's own importer (core/src/marian, the one the browser runs): `import-marian`
runs the native CLI's `tformer convert` (build/tformer), which reads what OPUS-MT and Firefox
Translations ship (models/MARIAN-IMPORT.md).

Export writes a Marian model (`model.npz`, `model.bin`, and with --int8 `model.intgemm.alphas.bin`
with activation multipliers calibrated on text) plus vocabulary files and a `decoder.yml`, so that
Marian (marian-decoder) and Bergamot's wasm decode the same weights.

The computation both sides agree on is in models/MARIAN-IMPORT.md and models/tformer/model.py.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from . import marian_io as mio
from . import tfm
from .config import ModelConfig

LN_EPS = 1e-6
DEFAULT_MAX_POSITIONS = 512
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class MarianError(ValueError):
    """A Marian model that cannot be converted; the message says why and what to do."""


def warn(msg: str):
    print(f"warning: {msg}", file=sys.stderr)


# ---- Marian options ------------------------------------------------------------------------------
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


# ---- import: the engine's importer ---------------------------------------------------------------
def engine_cli(path: str | None = None) -> str:
    """The native CLI whose `convert` imports Marian models: `path`, $TFORMER, or build/tformer."""
    cli = path or os.environ.get("TFORMER") or os.path.join(REPO, "build", "tformer")
    if not (os.path.isfile(cli) and os.access(cli, os.X_OK)):
        raise MarianError(f"the engine's CLI {cli} is not built (cmake -S . -B build && cmake --build build), "
                          "or name it with --tformer PATH")
    return cli


def import_marian(path: str, out_path: str, model=None, vocabs=None, spms=None, config=None, weights: str = "keep",
                  max_positions: int = DEFAULT_MAX_POSITIONS, tformer: str | None = None) -> str:
    """Converts the Marian folder (or model file) `path` with `tformer convert`; `model` names the
    model file when the folder holds several. Returns what the CLI printed; its warnings go to
    stderr. Raises MarianError with the engine's message."""
    target = path
    if model:
        target = model if os.path.exists(model) else os.path.join(path, model)
    cmd = [engine_cli(tformer), "convert", target, "-o", out_path, "--weights", weights,
           "--max-positions", str(max_positions)]
    for v in vocabs or []:
        cmd += ["--vocab", v]
    for s in spms or []:
        cmd += ["--spm", s]
    if config:
        cmd += ["--config", config]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise MarianError(r.stderr.strip().removeprefix("tformer: error: ") or f"tformer convert failed ({r.returncode})")
    sys.stderr.write(r.stderr)
    return r.stdout.strip()


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
        print(import_marian(args.path, args.output, model=args.model, vocabs=args.vocabs, spms=args.spm,
                            config=args.config, weights=args.weights, max_positions=args.max_positions,
                            tformer=args.tformer))
    except MarianError as e:
        print(f"import-marian: {e}", file=sys.stderr)
        return 1
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
    s = sub.add_parser("import-marian", help="convert a Marian model (OPUS-MT folder, Firefox Translations .bin) to .tfm "
                       "with the engine's importer (build/tformer convert)")
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
    s.add_argument("--tformer", help="the native CLI (default: $TFORMER or build/tformer)")
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("export-marian", help="write a .tfm model as a Marian model (.npz, .bin, intgemm8 .bin)")
    s.add_argument("model")
    s.add_argument("-o", "--output", required=True, help="output folder")
    s.add_argument("--format", choices=["all", "npz", "bin"], default="all", help="float32 model files to write")
    s.add_argument("--int8", action="store_true", help="also write model.intgemm.alphas.bin (int8shiftAlphaAll)")
    s.add_argument("--calibrate", help="source-language text for the int8 activation multipliers")
    s.add_argument("--calibrate-lines", type=int, default=1000)
    s.set_defaults(func=cmd_export)

"""Command-line entry of the model tools (`models/tfm`)."""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys

COMMAND_MODULES = ("aer", "align", "evaluate", "marian", "onnx_export", "metadata", "overlap", "quantize", "shortlist", "variants")


def cmd_train(args):
    from .train import benchmark, export_best, train
    if args.benchmark is not None:
        if args.benchmark < 1:
            raise SystemExit("--benchmark: the number of steps must be at least 1")
        # Several batch sizes in one process: the compiled trunk is reused, each is still alone on the device.
        for batch_tokens in args.batch_tokens or [None]:
            benchmark(args.config, args.benchmark, batch_tokens=batch_tokens)
        return
    try:
        if not (args.max_minutes == 0 and args.export_best):  # (the export prepares the data itself)
            train(args.config, max_minutes=args.max_minutes)
        if args.export_best and int(os.environ.get("RANK", "0")) == 0:
            export_best(args.config, args.export_best, args.weights)
    except (ValueError, FileNotFoundError) as e:  # bad recipes, corpora, checkpoints: say which
        raise SystemExit(f"models/tfm train: {e}")


def parse_metadata(pairs):
    """KEY=VALUE pairs; a VALUE that parses as JSON (numbers, lists, objects) is taken as such."""
    import json
    meta = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"export: --meta takes KEY=VALUE, got {pair!r}")
        try:
            meta[key] = json.loads(value)
        except ValueError:
            meta[key] = value
    return meta


def cmd_export(args):
    from .export import export_checkpoint
    size = export_checkpoint(args.checkpoints, args.output, args.weights, parse_metadata(args.meta))
    print(f"wrote {args.output} ({size} bytes)")


def cmd_translate(args):
    from .translate import translate_stream
    translate_stream(args.model, sys.stdin, sys.stdout, beam=args.beam, threads=args.threads,
                     alpha=args.length_penalty, batch_size=args.batch_size)


def cmd_bleu(args):
    from .bleu import corpus_bleu
    with open(args.hypotheses, encoding="utf-8") as f:
        hyp = [l.rstrip("\n") for l in f]
    with open(args.reference, encoding="utf-8") as f:
        ref = [l.rstrip("\n") for l in f]
    print(corpus_bleu(hyp, [ref]).format())


def cmd_fixtures(args):
    from .fixtures import make_fixtures
    make_fixtures(args.output)


def main(argv):
    p = argparse.ArgumentParser(prog="models/tfm", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("train", help="train a model from a recipe (models/configs/*.yaml)")
    s.add_argument("config")
    s.add_argument("--max-minutes", type=float, default=None,
                   help="stop (resumably) after this time; 0: only prepare the data (tokenize into the cache) "
                        "and, with --export-best, export")
    s.add_argument("--benchmark", type=int, metavar="STEPS", default=None,
                   help="time STEPS training steps of a fresh model (nothing saved): target tokens/s and "
                        "the split of a step (data, forward, backward, optimizer, synchronisation)")
    s.add_argument("--batch-tokens", metavar="N[,N...]", default=None,
                   type=lambda v: [int(x) for x in v.split(",")],
                   help="with --benchmark: the batch sizes to time, one after another, instead of the recipe's")
    s.add_argument("--export-best", metavar="TFM", default=None,
                   help="after training, export whichever has the lowest dev loss: the last checkpoint, "
                        "the average of the last `average_last`, or the best one")
    s.add_argument("--weights", choices=["f32", "f16", "int8"], default="f16", help="with --export-best")
    s.set_defaults(func=cmd_train)

    s = sub.add_parser("export", help="write a .tfm file from checkpoints (several are averaged)")
    s.add_argument("checkpoints", nargs="+")
    s.add_argument("-o", "--output", required=True)
    s.add_argument("--weights", choices=["f32", "f16", "int8"], default="f32")
    s.add_argument("--meta", action="append", metavar="KEY=VALUE",
                   help="set a metadata key of the file (repeatable; JSON values are parsed)")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("translate", help="PyTorch reference decode of stdin lines with a .tfm model")
    s.add_argument("-m", "--model", required=True)
    s.add_argument("--beam", type=int, default=1)
    s.add_argument("--threads", type=int, default=2)
    s.add_argument("--length-penalty", type=float, default=1.0)
    s.add_argument("--batch-size", type=int, default=32)
    s.set_defaults(func=cmd_translate)

    s = sub.add_parser("bleu", help="corpus BLEU with sacreBLEU's defaults (13a, case-sensitive)")
    s.add_argument("hypotheses")
    s.add_argument("reference")
    s.set_defaults(func=cmd_bleu)

    s = sub.add_parser("make-fixtures", help="tiny random models and PyTorch golden data for tests")
    s.add_argument("-o", "--output", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                          "tests", "fixtures"))
    s.set_defaults(func=cmd_fixtures)

    # Further commands live with the code they drive: each of these modules, where present,
    # defines register(subparsers).
    for module in COMMAND_MODULES:
        if importlib.util.find_spec(f"{__package__}.{module}") is not None:
            importlib.import_module(f".{module}", __package__).register(sub)

    args = p.parse_args(argv)
    return args.func(args) or 0

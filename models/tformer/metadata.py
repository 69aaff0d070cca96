"""`models/tfm metadata MODEL.tfm [KEY=VALUE ...] [--delete KEY ...] [-o OUT.tfm]`: a .tfm file's
metadata, printed as indented JSON, or edited: a VALUE that parses as JSON (numbers, lists, objects)
is taken as such, else as text. The tensors are copied unchanged. Without -o the file is rewritten
in place (through a temporary file, so an interrupted write leaves the old file)."""
from __future__ import annotations

import json
import os


def register(sub):
    p = sub.add_parser("metadata", help="print or edit a .tfm file's metadata")
    p.add_argument("model")
    p.add_argument("set", nargs="*", metavar="KEY=VALUE", help="keys to set")
    p.add_argument("--delete", action="append", default=[], metavar="KEY", help="a key to remove (repeatable)")
    p.add_argument("-o", "--output", help="write the edited file here (default: in place)")
    p.set_defaults(func=cmd_metadata)


def cmd_metadata(args):
    from . import tfm
    from .cli import parse_metadata
    try:
        f = tfm.read(args.model)
    except (OSError, ValueError) as e:
        raise SystemExit(f"models/tfm metadata: {args.model}: {e}")
    if not args.set and not args.delete:
        print(json.dumps(f.metadata, indent=1, ensure_ascii=False))
        return
    meta = dict(f.metadata)
    for key in args.delete:
        if key not in meta:
            raise SystemExit(f"models/tfm metadata: no key {key!r} to delete")
        del meta[key]
    meta.update(parse_metadata(args.set))
    f.metadata = meta
    out = args.output or args.model
    tmp = f"{out}.{os.getpid()}.tmp"
    tfm.write(tmp, f)
    os.replace(tmp, out)
    print(f"wrote {out}")

"""`models/tfm variants`: writes the int8 variant of each shipped model from its f16 file.

Each shipped folder (models/<name>/) holds `model.tfm` (f16) in git and an `eval.json` that lists
the BLEU and chrF of every variant measured and, under "files", how each variant other than
model.tfm is made and its sha256. `model.int8.tfm` is `models/tfm quantize model.tfm`: a
deterministic function of the f16 file (per-row absolute maxima and rounding, exact in IEEE
arithmetic on every machine), so it is rebuilt rather than committed: that keeps the repository
(which the GPU machine receives whole, 64 MiB at most) at one copy of each model. The sha256 in
eval.json is the file that was evaluated; a rebuilt file that differs from it is an error, never
served silently. .ci/run and `npm run demo` run this; it does nothing when the files are current.
"""
from __future__ import annotations

import hashlib
import json
import os

from .quantize import quantize_file

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def make_variants(models_dir: str, check_only: bool = False) -> list[str]:
    """Returns one line per variant; raises ValueError when a variant cannot be made as recorded."""
    report = []
    for name in sorted(os.listdir(models_dir)):
        folder = os.path.join(models_dir, name)
        spec_path = os.path.join(folder, "eval.json")
        if not os.path.isfile(spec_path):
            continue
        with open(spec_path, encoding="utf-8") as f:
            files = json.load(f).get("files", {})
        for file_name, spec in files.items():
            if spec.get("made_by") != "quantize":
                continue
            source, target = os.path.join(folder, spec["from"]), os.path.join(folder, file_name)
            if os.path.isfile(target) and sha256(target) == spec["sha256"]:
                report.append(f"{os.path.relpath(target, REPO)}: current")
                continue
            if check_only:
                raise ValueError(f"{os.path.relpath(target, REPO)} is missing or stale: run models/tfm variants")
            tmp = target + ".part"
            quantize_file(source, tmp)
            got = sha256(tmp)
            if got != spec["sha256"]:
                os.remove(tmp)
                raise ValueError(f"{os.path.relpath(target, REPO)}: quantizing {spec['from']} gave sha256 {got}, "
                                 f"but {os.path.relpath(spec_path, REPO)} records {spec['sha256']} (the file "
                                 f"that was evaluated); re-evaluate and update eval.json if the f16 model changed")
            os.replace(tmp, target)
            report.append(f"{os.path.relpath(target, REPO)}: written ({os.path.getsize(target)} bytes, sha256 ok)")
    return report


def register(sub):
    s = sub.add_parser("variants", help="write each shipped model's int8 variant (models/*/eval.json: files)")
    s.add_argument("--models", default=os.path.join(REPO, "models"))
    s.add_argument("--check", action="store_true", help="only check that every variant is present and current")
    s.set_defaults(func=cmd_variants)


def cmd_variants(args):
    try:
        for line in make_variants(args.models, args.check):
            print(line)
    except ValueError as e:
        raise SystemExit(f"variants: {e}")

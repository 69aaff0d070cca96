#!/usr/bin/env bash
# Here, before training on the GPU machine: packs the corpora the recipes read from ../shared/
# (train and dev, not the test sets: evaluation runs here) into models/work/gpu/shared.tar.xz,
# the one git-ignored path the GPU machine's `run` must carry. The machine receives only the
# repository, at most 64 MiB with it: the shipped models take 53, the packed text about 7.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared=${TFORMER_SHARED:-$repo/../shared}
out=${1:-$repo/models/work/gpu}/shared.tar.xz   # another folder than the one train.sh reads: tests
mkdir -p "$(dirname "$out")"
# What the recipes name, relative to ../shared/ (one list for every config in models/configs/).
mapfile -t files < <(cd "$repo" && /usr/bin/python3 - <<'PY'
import glob, yaml
prefix, names = "../shared/", set()
for path in sorted(glob.glob("models/configs/*.yaml")):
    r = yaml.safe_load(open(path))
    langs = r["vocab"]["languages"]
    for p in r["data"]["train"] + [r["data"]["dev"]] + r["vocab"]["train"]:
        names.update(f"{p[len(prefix):]}.{l}" for l in langs if p.startswith(prefix))
print("\n".join(sorted(names)))
PY
)
[ ${#files[@]} -gt 0 ] || { echo "no corpus files named by models/configs/*.yaml" >&2; exit 1; }
(cd "$shared" && sha256sum "${files[@]}") > "$(dirname "$out")/shared.sha256"
tar -C "$shared" -cJf "$out" "${files[@]}"
echo "staged ${#files[@]} files: $out ($(du -h "$out" | cut -f1)); carry: models/work/gpu"

#!/usr/bin/env bash
# Here, after models/gpu/train.sh (or compare.py) ran on the GPU machine: puts back the model files
# stage.sh moved out of the tree, joins the parts the call returned (the run tool's files_at folder)
# into models/work/gpu-results/NAME.tfm and their logs into NAME.log, and shows each model's header.
# (Not models/work/gpu/: that folder travels with the next call.) Evaluate before shipping:
# models/tfm evaluate -m models/work/gpu-results/NAME.tfm
set -euo pipefail
from=${1:?usage: models/gpu/collect.sh FILES_AT}
cd "$(dirname "$0")/../.."
models/gpu/stash.sh restore
results=models/work/gpu-results
mkdir -p "$results"
for first in "$from"/*.tfm.part-aa; do
  [ -e "$first" ] || { echo "no *.tfm.part-aa in $from" >&2; exit 2; }
  name=$(basename "$first" .tfm.part-aa)
  cat "$from/$name".tfm.part-* > "$results/$name.tfm"
  if [ -f "$from/$name.log" ]; then
    cp "$from/$name.log" "$results/$name.log"
    # what --export-best chose (and, with BENCH_STEPS, the measured speed)
    grep -E '"msg": "export"|target tokens/s' "$from/$name.log" || true
  fi
  if [ -x build/tformer ]; then build/tformer info "$results/$name.tfm" | grep -E "^(model|metadata):"; fi
  echo "$results/$name.tfm"
done

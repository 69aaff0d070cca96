#!/usr/bin/env bash
# Here, after models/gpu/train.sh ran on the GPU machine: joins the parts it returned (the run
# tool's files_at folder) into models/work/gpu/NAME.tfm and their logs into NAME.log, and shows
# each model's header. Evaluate before shipping: models/tfm evaluate -m models/work/gpu/NAME.tfm
set -euo pipefail
from=${1:?usage: models/gpu/collect.sh FILES_AT}
cd "$(dirname "$0")/../.."
mkdir -p models/work/gpu
for first in "$from"/*.tfm.part-aa; do
  [ -e "$first" ] || { echo "no *.tfm.part-aa in $from" >&2; exit 2; }
  name=$(basename "$first" .tfm.part-aa)
  cat "$from/$name".tfm.part-* > "models/work/gpu/$name.tfm"
  if [ -f "$from/$name.log" ]; then
    cp "$from/$name.log" "models/work/gpu/$name.log"
    # what --export-best chose (and, with BENCH_STEPS, the measured speed)
    grep -E '"msg": "export"|target tokens/s' "$from/$name.log" || true
  fi
  if [ -x build/tformer ]; then build/tformer info "models/work/gpu/$name.tfm" | grep -E "^(model|metadata):"; fi
  echo "models/work/gpu/$name.tfm"
done

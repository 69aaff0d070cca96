#!/usr/bin/env bash
# On the GPU machine (its `run` tool), in the repository root, after models/gpu/stage.sh here:
#   models/gpu/train.sh MINUTES NAME...     e.g.  models/gpu/train.sh 8 tiny.deen tiny.ende
# with carry ["models/work/gpu"]. Trains each named recipe (models/configs/NAME.yaml) for MINUTES,
# side by side on the one GPU, with the recipe's `gpu:` keys. Without models/work/NAME/last.pt
# (a fresh machine) each run warm-starts from the shipped models/NAME/model.tfm, so the steps
# add up across sessions, as on CPU. Then exports each as f16 and leaves in $OUT what the tool
# returns (files of at most 16 MiB): NAME.tfm.part-aa, -ab (split) and NAME.log (the run's output).
# Here, models/gpu/collect.sh FILES_AT joins them into models/work/gpu/NAME.tfm.
set -euo pipefail
minutes=${1:?usage: models/gpu/train.sh MINUTES NAME...}; shift
[ $# -gt 0 ] || { echo "usage: models/gpu/train.sh MINUTES NAME..." >&2; exit 2; }
: "${OUT:?OUT: the folder whose files come back}"
cd "$(dirname "$0")/../.."
stage=models/work/gpu
[ -f $stage/shared.tar.xz ] || { echo "$stage/shared.tar.xz missing: run models/gpu/stage.sh here and carry models/work/gpu" >&2; exit 2; }
mkdir -p $stage/shared && tar -C $stage/shared -xJf $stage/shared.tar.xz
(cd $stage/shared && sha256sum -c --quiet ../shared.sha256)
export TFORMER_SHARED=$PWD/$stage/shared
python=${PYTHON:-python3}   # the GPU machine's python3 has CUDA PyTorch; Debian's is not there
"$python" -c "import torch, yaml, sentencepiece, numpy" || { echo "$python lacks a module the recipe needs" >&2; exit 2; }
if command -v nvidia-smi >/dev/null; then nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; fi
pids=()
for name in "$@"; do
  "$python" models/tfm train "models/configs/$name.yaml" --max-minutes "$minutes" > "$OUT/$name.log" 2>&1 &
  pids+=($!)
done
rc=0
for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
for name in "$@"; do  # each run's output (its log lines, or why it failed) comes back as NAME.log
  tail -n 5 "$OUT/$name.log"
  if "$python" models/tfm export "models/work/$name/last.pt" -o "$stage/$name.tfm" --weights f16; then
    split -b 15M "$stage/$name.tfm" "$OUT/$name.tfm.part-"
  else
    rc=1
  fi
done
ls -l "$OUT"
exit $rc

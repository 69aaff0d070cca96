#!/usr/bin/env bash
# On the GPU machine (its `run` tool), in the repository root, after models/gpu/stage.sh here:
#   models/gpu/train.sh MINUTES NAME...     e.g.  models/gpu/train.sh 7 tiny.deen tiny.ende
# with carry ["models/work/gpu"]. Trains each named recipe (models/configs/NAME.yaml) for MINUTES,
# all side by side on the machine, with the recipe's `gpu:` keys. Without models/work/NAME/last.pt
# (a fresh machine) each run warm-starts from the shipped models/NAME/model.tfm, so the steps add
# up across sessions, as on CPU (where stage.sh staged the int8 variant instead of the f16 file,
# models/gpu/unpack.sh puts it in the f16 file's place: the warm start dequantizes it). Then exports each as f16, choosing by dev loss among the last
# checkpoint, the average of the last `average_last` and the best one (models/tfm train
# --export-best), and leaves in $OUT what the tool returns (at most 8 files of 16 MiB):
# NAME.tfm.part-aa, -ab (split) and NAME.log (the run's output). Here, models/gpu/collect.sh
# FILES_AT joins them into models/work/gpu/NAME.tfm.
# Environment: BENCH_STEPS=N first times N steps of each recipe alone (models/tfm train
# --benchmark: tokens/s and the split of a step, into NAME.log); NPROC=N trains each recipe under
# torchrun on N GPUs (DistributedDataParallel); PYTHON names the python with CUDA PyTorch; STAGE
# another folder than models/work/gpu (tests).
set -euo pipefail
minutes=${1:?usage: models/gpu/train.sh MINUTES NAME...}; shift
[ $# -gt 0 ] || { echo "usage: models/gpu/train.sh MINUTES NAME..." >&2; exit 2; }
[ $# -le 3 ] || { echo "at most 3 recipes: each returns 2 parts and a log, 8 files in all" >&2; exit 2; }
: "${OUT:?OUT: the folder whose files come back}"
cd "$(dirname "$0")/../.."
stage=$(realpath -m "${STAGE:-models/work/gpu}")   # STAGE: another folder (tests)
TFORMER_SHARED=$(STAGE=$stage models/gpu/unpack.sh)
export TFORMER_SHARED
python=${PYTHON:-python3}   # the GPU machine's python3 has CUDA PyTorch; Debian's is not there
"$python" -c "import torch, yaml, sentencepiece, numpy" || { echo "$python lacks a module the recipe needs" >&2; exit 2; }
if command -v nvidia-smi >/dev/null; then nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; fi
nproc_per_node=${NPROC:-1}
tfm_train() {  # one recipe's training command, under torchrun on several GPUs
  if [ "$nproc_per_node" -gt 1 ]; then
    "$python" -m torch.distributed.run --standalone --nproc_per_node "$nproc_per_node" models/tfm train "$@"
  else
    "$python" models/tfm train "$@"
  fi
}
config() { case $1 in *.yaml) echo "$1" ;; *) echo "models/configs/$1.yaml" ;; esac; }  # a path: tests
# Tokenize once, before the runs start side by side (the directions share the token files).
for name in "$@"; do
  "$python" models/tfm train "$(config "$name")" --max-minutes 0 > "$OUT/$(basename "$name" .yaml).log" 2>&1 \
    || { tail -n 20 "$OUT/$(basename "$name" .yaml).log"; exit 1; }
done
if [ -n "${BENCH_STEPS:-}" ]; then
  for name in "$@"; do
    tfm_train "$(config "$name")" --benchmark "$BENCH_STEPS" >> "$OUT/$(basename "$name" .yaml).log" 2>&1 || true
  done
fi
pids=()
for name in "$@"; do
  tfm_train "$(config "$name")" --max-minutes "$minutes" >> "$OUT/$(basename "$name" .yaml).log" 2>&1 &
  pids+=($!)
done
rc=0
for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
for path in "$@"; do  # each run's output (its log lines, or why it failed) comes back as NAME.log
  name=$(basename "$path" .yaml)
  if "$python" models/tfm train "$(config "$path")" --max-minutes 0 --export-best "$stage/$name.tfm" \
       --weights f16 >> "$OUT/$name.log" 2>&1; then
    split -b 15M "$stage/$name.tfm" "$OUT/$name.tfm.part-"
  else
    rc=1
  fi
  tail -n 3 "$OUT/$name.log"
done
ls -l "$OUT"
count=$(find "$OUT" -type f | wc -l)
big=$(find "$OUT" -type f -size +16M | wc -l)
if [ "$count" -gt 8 ] || [ "$big" -gt 0 ]; then echo "OUT holds $count files, $big over 16 MiB: the tool returns at most 8 of 16 MiB" >&2; rc=1; fi
exit $rc

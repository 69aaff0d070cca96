#!/bin/sh
# Regenerates the expected outputs of the shipped models' regression tests from the PyTorch
# reference (models/tfm translate), never from the engine under test. Run after a model changes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
for dir in "$here"/*/; do
  dir=${dir%/}
  name=$(basename "$dir")
  for weights in f16 int8; do
    model="$root/models/$name/model.tfm"
    [ -f "$model" ] || continue
    if [ "$weights" = int8 ]; then
      model="$root/models/$name/model.int8.tfm"
      if [ ! -f "$model" ]; then  # only f16 ships: quantize it as the ctest fixture does
        model="${TMPDIR:-/tmp}/regression.$name.int8.tfm"
        "$root/models/tfm" quantize "$root/models/$name/model.tfm" -o "$model" >/dev/null
      fi
    fi
    for beam in 1 4; do
      search=greedy; [ "$beam" = 4 ] && search=beam4
      "$root/models/tfm" translate -m "$model" --beam "$beam" < "$dir/input.txt" > "$dir/expected.$weights.$search.txt"
      echo "wrote $dir/expected.$weights.$search.txt"
    done
  done
done

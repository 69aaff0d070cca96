#!/usr/bin/env bash
# On the GPU machine: unpacks what models/gpu/stage.sh packed (STAGE, default models/work/gpu) into
# STAGE/shared (checked against shared.sha256), and puts each staged warm start (STAGE/init/NAME.tfm,
# the int8 variant of a shipped model, which the recipe's init_from reads dequantized) where the
# recipe looks for it, models/NAME/model.tfm, unless a file is there. Prints the TFORMER_SHARED to use.
set -euo pipefail
cd "$(dirname "$0")/../.."
stage=$(realpath -m "${STAGE:-models/work/gpu}")
[ -f "$stage/shared.tar.xz" ] || { echo "$stage/shared.tar.xz missing: run models/gpu/stage.sh here and carry models/work/gpu" >&2; exit 2; }
mkdir -p "$stage/shared" && tar -C "$stage/shared" -xJf "$stage/shared.tar.xz"
(cd "$stage/shared" && sha256sum -c --quiet ../shared.sha256) >&2
for f in "$stage"/init/*.tfm; do
  [ -e "$f" ] || continue
  name=$(basename "$f" .tfm)
  if [ ! -e "models/$name/model.tfm" ]; then
    mkdir -p "models/$name" && cp "$f" "models/$name/model.tfm"
    echo "warm start for $name: the staged int8 file" >&2
  fi
done
echo "$stage/shared"

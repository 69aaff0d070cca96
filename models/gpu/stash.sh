#!/usr/bin/env bash
# Moves shipped model files out of the working tree for a call to the GPU machine, and back.
# The machine receives the working tree (tracked files, untracked ones git does not ignore, and the
# carried paths): 64 MiB at most, of which the two f16 models take 53.5 MB. models/work/stash/ is
# git-ignored and never carried, so a file moved there does not travel.
#   models/gpu/stash.sh out NAME...   models/NAME/model.tfm -> models/work/stash/NAME/model.tfm
#   models/gpu/stash.sh restore       every stashed file back to models/NAME/
set -euo pipefail
cd "$(dirname "$0")/../.."
stash=models/work/stash
case ${1:-} in
  out)
    shift
    for name in "$@"; do
      [ -f "models/$name/model.tfm" ] || continue
      mkdir -p "$stash/$name"
      mv "models/$name/model.tfm" "$stash/$name/model.tfm"
      echo "stashed models/$name/model.tfm (models/gpu/stash.sh restore puts it back)"
    done ;;
  restore)
    for f in "$stash"/*/model.tfm; do
      [ -e "$f" ] || continue
      name=$(basename "$(dirname "$f")")
      [ -e "models/$name/model.tfm" ] && { echo "stash.sh: models/$name/model.tfm exists; $f left" >&2; continue; }
      mv "$f" "models/$name/model.tfm"
      echo "restored models/$name/model.tfm"
    done ;;
  *) echo "usage: models/gpu/stash.sh out NAME... | restore" >&2; exit 2 ;;
esac

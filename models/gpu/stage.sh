#!/usr/bin/env bash
# Here, before training on the GPU machine: packs what the recipes read from ../shared/ into
# models/work/gpu/shared.tar.xz, and the warm starts into models/work/gpu/init/ (below): the one
# git-ignored path the GPU machine's `run` must carry. collect.sh, after the call, restores the tree. The
# training text goes as token ids (`<file>.ids.npy` + `.ids.json`, made with the recipes' shared
# vocabulary: models/tformer/data.py reads them where the text is absent), the dev text as text.
# Not the test sets: evaluation runs here. The machine receives only the repository, at most
# 64 MiB with it (tracked files, untracked files git does not ignore, and the carried folder): the
# shipped f16 models take 51 MiB, the 13 training sets 9.8 MiB as ids (11 MiB as text). This
# script prints what would travel and fails when it is over the limit.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared=${TFORMER_SHARED:-$repo/../shared}
out=${1:-$repo/models/work/gpu}/shared.tar.xz   # another folder than the one train.sh reads: tests
mkdir -p "$(dirname "$out")"
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
# What the recipes name, relative to ../shared/ (one list for every config in models/configs/):
# training files become ids in $staging, the dev files are copied.
(cd "$repo" && TFORMER_SHARED=$shared /usr/bin/python3 - "$staging" <<'PY'
import glob, os, shutil, sys
import yaml
sys.path.insert(0, "models")
from tformer.data import write_staged_ids
from tformer.tokenizer import Tokenizer
from tformer.train import repo_path, seed_vocab_from_tfm, train_vocab

staging, prefix = sys.argv[1], "../shared/"
train, dev, vocabs = set(), set(), set()
for path in sorted(glob.glob("models/configs/*.yaml")):
    r = yaml.safe_load(open(path))
    langs = r["vocab"]["languages"]
    files = lambda ps: {f"{p[len(prefix):]}.{l}" for p in ps for l in langs if p.startswith(prefix)}
    train |= files(r["data"]["train"] + r["vocab"]["train"])
    dev |= files([r["data"]["dev"]])
    if r["train"].get("init_from"):  # a warm start's vocabulary is the shipped model's
        seed_vocab_from_tfm(repo_path(r["train"]["init_from"]), r["vocab"])
    vocabs.add(train_vocab(r["vocab"]))
if len(vocabs) != 1:
    sys.exit(f"stage.sh: the recipes use {len(vocabs)} vocabularies; staged ids need one")
tok = Tokenizer.from_file(vocabs.pop())
shared = os.environ["TFORMER_SHARED"]
for f in sorted(train | dev):
    if not os.path.isfile(os.path.join(shared, f)):
        sys.exit(f"stage.sh: {os.path.join(shared, f)} is missing")
    os.makedirs(os.path.dirname(os.path.join(staging, f)), exist_ok=True)
    if f in dev:
        shutil.copyfile(os.path.join(shared, f), os.path.join(staging, f))
    else:
        write_staged_ids(os.path.join(shared, f), tok, os.path.join(staging, f))
print(f"{len(train)} training files as ids, {len(dev)} dev files as text", file=sys.stderr)
PY
)
mapfile -t files < <(cd "$staging" && find . -type f | sed 's|^\./||' | sort)
[ ${#files[@]} -gt 0 ] || { echo "no corpus files named by models/configs/*.yaml" >&2; exit 1; }
(cd "$staging" && sha256sum "${files[@]}") > "$(dirname "$out")/shared.sha256"
tar -C "$staging" -cf - "${files[@]}" | xz -9e -T1 > "$out"
archive=$(stat -c %s "$out")

# The warm starts. The text and both shipped f16 files (53.5 MB) do not fit together, so each recipe's
# init_from travels as its int8 variant (13.9 MB; models/tfm variants writes it), which
# models/gpu/unpack.sh puts in the f16 file's place there (training dequantizes it), and the f16
# files leave the tree for the call (models/gpu/stash.sh; collect.sh puts them back).
init_dir=$(dirname "$out")/init
rm -rf "$init_dir" && mkdir -p "$init_dir"
names=()
for init in $(awk '$1 == "init_from:" {print $2}' "$repo"/models/configs/*.yaml | sort -u); do
  name=$(basename "$(dirname "$init")")
  int8="$repo/models/$name/model.int8.tfm"
  [ -f "$int8" ] || (cd "$repo" && models/tfm variants >/dev/null)
  [ -f "$int8" ] || { echo "stage.sh: $int8 is missing (models/tfm variants)" >&2; exit 1; }
  cp "$int8" "$init_dir/$name.tfm"
  names+=("$name")
done
if [ "${TFORMER_STAGE_KEEP_MODELS:-}" != 1 ]; then  # (tests stage into a temporary folder)
  "$repo/models/gpu/stash.sh" out "${names[@]}"
fi
# What travels: tracked and untracked-not-ignored files, and the carried folder.
carried=$(du -sb "$(dirname "$out")" | cut -f1)
tree=$(cd "$repo" && { git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null || true; } | awk '{s += $1} END {print s + 0}')
limit=$((64 << 20))
total=$((tree + carried))
echo "staged ${#files[@]} files: $out ($archive bytes) and ${#names[@]} int8 warm starts; with the working tree ($tree bytes) $total of $limit bytes travel; carry: models/work/gpu"
if [ "${TFORMER_STAGE_NO_LIMIT:-}" != 1 ] && [ "$total" -gt "$limit" ]; then
  echo "stage.sh: $((total - limit)) bytes over the GPU machine's 64 MiB: the run tool would refuse it." >&2
  echo "  Untracked files that git does not ignore travel too (git status shows them)." >&2
  exit 3
fi

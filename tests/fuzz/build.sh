#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang 19 with libclang-rt-19-dev; AddressSanitizer and
# UndefinedBehaviorSanitizer on) into build-fuzz/ and writes their seed corpora there
# (build-fuzz/seeds/NAME; make_seeds.py). Only the engine sources the harnesses reach are
# compiled, one compiler per core; SentencePiece is Debian's library, as in the native build.
#   tests/fuzz/build.sh            then   tests/fuzz/run.sh NAME|all (--seconds S | --runs N) [--jobs J]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build-fuzz
CXX=${CXX:-clang++-19}
command -v "$CXX" >/dev/null || { echo "build.sh: $CXX not found (apt-get install clang-19 libclang-rt-19-dev)"; exit 1; }
mkdir -p "$out/obj"
flags=(-std=c++17 -g -O2 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=all -Icore/include -Icore/src -Icore/cli -I/usr/include/minizip
       "-DTFORMER_FUZZ_MODEL=\"$PWD/tests/fixtures/marian/model.tfm\"")
sources=(core/src/error.cc core/src/model/model_file.cc core/src/model/config.cc core/src/util/utf8.cc core/src/util/printable.cc
         core/src/text/sentencepiece_check.cc core/src/text/sentencepiece_text.cc core/src/text/tokenizer.cc
         core/src/text/sentence_splitter.cc
         core/cli/input.cc core/src/html/html.cc core/src/html/tokenizer.cc)
# The Marian importer (fuzz_marian only): its sources and Debian's zlib, minizip and yaml-cpp.
marian_sources=(core/src/decoding/shortlist.cc)
for src in core/src/marian/*.cc; do marian_sources+=("$src"); done
objects=()
marian_objects=()
stale=()  # -c SOURCE -o OBJECT of each object older than its sources
for src in "${sources[@]}" "${marian_sources[@]}"; do
  obj="$out/obj/$(echo "$src" | tr / _).o"
  if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || [ "$0" -nt "$obj" ] || \
     [ -n "$(find core/include core/src/model core/src/util core/src/text core/src/html core/src/marian \
             core/src/decoding core/cli -name '*.h' -newer "$obj" | head -1)" ]; then
    echo "compiling $src"
    stale+=(-c "$src" -o "$obj")
  fi
  case "$src" in
    core/src/marian/*|core/src/decoding/*) marian_objects+=("$obj") ;;
    *) objects+=("$obj") ;;
  esac
done
# One compiler per core; xargs fails (123) when any of them does.
jobs=$(nproc)
if [ ${#stale[@]} -gt 0 ]; then
  printf '%s\0' "${stale[@]}" | xargs -0 -n 4 -P "$jobs" "$CXX" "${flags[@]}"
fi
# The links side by side too (set -e: a failed one fails the build).
link() {
  local name=$1; shift
  echo "linking $out/fuzz_$name"
  "$CXX" "${flags[@]}" -fsanitize=fuzzer "tests/fuzz/fuzz_$name.cc" "$@" -o "$out/fuzz_$name"
}
pids=()
for name in model_file text cli_input html sentencepiece; do
  libs=(-lsentencepiece)
  [ "$name" = html ] && libs+=(-lgumbo)  # the HTML5 parser the harness checks the output with
  link "$name" "${objects[@]}" "${libs[@]}" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
link marian "${marian_objects[@]}" "${objects[@]}" -lsentencepiece -lminizip -lz -lyaml-cpp &
pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done
rm -rf "$out/seeds"
python3 tests/fuzz/make_seeds.py tests/fixtures "$out/seeds"
/usr/bin/python3 tests/fuzz/make_marian_seeds.py tests/fixtures "$out/seeds/marian"  # numpy: the model tools
python3 tests/fuzz/make_sentencepiece_seeds.py . "$out/seeds/sentencepiece"
echo "fuzzers in $out: fuzz_model_file fuzz_text fuzz_cli_input fuzz_html fuzz_marian fuzz_sentencepiece (seeds in $out/seeds)"

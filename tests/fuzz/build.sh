#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang 19 with libclang-rt-19-dev; AddressSanitizer and
# UndefinedBehaviorSanitizer on) into build-fuzz/ and writes their seed corpora there
# (build-fuzz/seeds/NAME; make_seeds.py). Only the engine sources the harnesses reach are
# compiled; SentencePiece is Debian's library, as in the native build.
#   tests/fuzz/build.sh            then   tests/fuzz/run.sh NAME|all (--seconds S | --runs N)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build-fuzz
CXX=${CXX:-clang++-19}
command -v "$CXX" >/dev/null || { echo "build.sh: $CXX not found (apt-get install clang-19 libclang-rt-19-dev)"; exit 1; }
mkdir -p "$out/obj"
flags=(-std=c++17 -g -O2 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=all -Icore/include -Icore/src -Icore/cli
       "-DTFORMER_FUZZ_MODEL=\"$PWD/tests/fixtures/marian/model.tfm\"")
sources=(core/src/model/model_file.cc core/src/model/config.cc core/src/util/utf8.cc
         core/src/text/tokenizer.cc core/src/text/sentence_splitter.cc core/cli/input.cc
         core/src/html/html.cc)
objects=()
for src in "${sources[@]}"; do
  obj="$out/obj/$(echo "$src" | tr / _).o"
  if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || [ "$0" -nt "$obj" ] || \
     [ -n "$(find core/include core/src/model core/src/util core/src/text core/src/html core/cli -name '*.h' -newer "$obj" | head -1)" ]; then
    echo "compiling $src"
    "$CXX" "${flags[@]}" -c "$src" -o "$obj"
  fi
  objects+=("$obj")
done
for name in model_file text cli_input html; do
  echo "linking $out/fuzz_$name"
  "$CXX" "${flags[@]}" -fsanitize=fuzzer tests/fuzz/fuzz_$name.cc "${objects[@]}" -lsentencepiece -o "$out/fuzz_$name"
done
rm -rf "$out/seeds"
python3 tests/fuzz/make_seeds.py tests/fixtures "$out/seeds"
echo "fuzzers in $out: fuzz_model_file fuzz_text fuzz_cli_input fuzz_html (seeds in $out/seeds)"

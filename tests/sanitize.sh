#!/usr/bin/env bash
# The native test suite under AddressSanitizer + UndefinedBehaviorSanitizer: builds build-asan/
# (the engine, the CLI and the Catch2 tests instrumented; the pinned third-party libraries as in
# build/, reused from its cache when there) and runs ctest there. Any sanitizer report fails.
#   tests/sanitize.sh                 the whole native suite
#   tests/sanitize.sh -E 'regex'      ctest arguments pass through (CI leaves out what is slow)
set -euo pipefail
cd "$(dirname "$0")/.."
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g1"
# The third-party build does not depend on these flags: share build/'s cache when it exists
# (or the one TFORMER_DEPS_DIR names).
deps_dir=${TFORMER_DEPS_DIR:-$PWD/build/_deps}
deps=()
[ -d "$deps_dir" ] && deps=(-DTFORMER_DEPS_DIR="$deps_dir")
# -O1: the usual level for sanitized builds, quicker to compile than -O3 and fast enough to run.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
      -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DTFORMER_SANITIZE=ON "${deps[@]}" \
      -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
      -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-asan -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir build-asan --output-on-failure "$@"

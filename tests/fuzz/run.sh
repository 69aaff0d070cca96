#!/usr/bin/env bash
# Runs the fuzzers of build-fuzz/ (tests/fuzz/build.sh) on their seeds, each for a bounded time or
# number of executions, and ends with "N passed, N failed". A crash, a sanitizer report, a leak,
# a timeout (10 s per input) or an input needing over 2 GB fails it; the input is kept in
# build-fuzz/artifacts/.
#   tests/fuzz/run.sh all --seconds 30        (CI)
#   tests/fuzz/run.sh model_file --runs 10000000
set -uo pipefail
cd "$(dirname "$0")/../.."
out=build-fuzz
[ $# -ge 1 ] || { echo "usage: run.sh NAME|all [--seconds S | --runs N]"; exit 2; }
names=$1; shift
[ "$names" = all ] && names="model_file text cli_input html marian sentencepiece"
limit=(-max_total_time=30)
case "${1:-}" in
  --seconds) limit=(-max_total_time="$2") ;;
  --runs) limit=(-runs="$2") ;;
  "") ;;
  *) echo "run.sh: unknown option $1"; exit 2 ;;
esac
# marian: its seeds are whole (small) Marian models of about 20 KB; sentencepiece: the fixtures'
# models (3.5 KB) and normalisation tables.
declare -A max_len=([model_file]=16384 [text]=512 [cli_input]=4096 [html]=4096 [marian]=65536 [sentencepiece]=16384)
passed=0; failed=0
mkdir -p "$out/artifacts"
for name in $names; do
  exe=$out/fuzz_$name
  [ -x "$exe" ] || { echo "run.sh: $exe missing (run tests/fuzz/build.sh)"; failed=$((failed + 1)); continue; }
  corpus=$out/corpus/$name
  mkdir -p "$corpus"
  log=$out/fuzz_$name.log
  echo "=== fuzz $name: ${limit[*]}"
  # The corpus grows in build-fuzz/corpus/NAME; the seeds are read, never written.
  if "$exe" "$corpus" "$out/seeds/$name" "${limit[@]}" -max_len="${max_len[$name]}" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -reload=0 -artifact_prefix="$out/artifacts/$name-" >"$log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "fuzz $name FAILED; the end of $log:"
    tail -n 40 "$log"
  fi
  grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' "$log" | tr '\n' ' '
  grep -E 'Done [0-9]+ runs' "$log" || true
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

#!/usr/bin/env bash
# Runs the fuzzers of build-fuzz/ (tests/fuzz/build.sh) on their seeds, each for a bounded time or
# number of executions, and ends with "N passed, N failed". A crash, a sanitizer report, a leak,
# a timeout (10 s per input) or an input needing over 2 GB fails it; the input is kept in
# build-fuzz/artifacts/. The harnesses run side by side, one per core (--jobs J to change it): each
# fuzzer is one process on one core, so on an otherwise idle machine each gets the executions it
# would get alone, in a fraction of the time. Their reports are printed in order at the end.
#   tests/fuzz/run.sh all --seconds 30        (CI)
#   tests/fuzz/run.sh model_file --runs 10000000
set -uo pipefail
cd "$(dirname "$0")/../.."
out=build-fuzz
usage="usage: run.sh NAME|all [--seconds S | --runs N] [--jobs J]"
[ $# -ge 1 ] || { echo "$usage"; exit 2; }
names=$1; shift
[ "$names" = all ] && names="model_file text cli_input html marian sentencepiece"
limit=(-max_total_time=30)
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) limit=(-max_total_time="${2:?$usage}"); shift 2 ;;
    --runs) limit=(-runs="${2:?$usage}"); shift 2 ;;
    --jobs) jobs=${2:?$usage}; shift 2 ;;
    *) echo "run.sh: unknown option $1"; echo "$usage"; exit 2 ;;
  esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --jobs must be a positive integer (got $jobs)"; exit 2; }
declare -A max_len=([model_file]=16384 [text]=512 [cli_input]=4096 [html]=4096 [marian]=65536 [sentencepiece]=16384)
passed=0; failed=0
mkdir -p "$out/artifacts"

# One harness: its run, then its summary lines; the exit status says whether it passed.
fuzz() {
  local name=$1 exe=$out/fuzz_$1 corpus=$out/corpus/$1 log=$out/fuzz_$1.log rc=0
  echo "=== fuzz $name: ${limit[*]}"
  [ -x "$exe" ] || { echo "run.sh: $exe missing (run tests/fuzz/build.sh)"; return 1; }
  mkdir -p "$corpus"
  # The corpus grows in build-fuzz/corpus/NAME; the seeds are read, never written.
  "$exe" "$corpus" "$out/seeds/$name" "${limit[@]}" -max_len="${max_len[$name]}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -reload=0 -artifact_prefix="$out/artifacts/$name-" >"$log" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    echo "fuzz $name FAILED; the end of $log:"
    tail -n 40 "$log"
  fi
  grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' "$log" | tr '\n' ' '
  grep -E 'Done [0-9]+ runs' "$log" || true
  return $rc
}

declare -A running=() status=()  # pid -> name of the harnesses running; name -> exit status
reap() {  # waits for one harness to end
  local pid rc=0
  wait -n -p pid || rc=$?
  status[${running[$pid]}]=$rc
  unset "running[$pid]"
}
for name in $names; do
  while [ ${#running[@]} -ge "$jobs" ]; do reap; done
  fuzz "$name" >"$out/fuzz_$name.report" 2>&1 &
  running[$!]=$name
done
while [ ${#running[@]} -gt 0 ]; do reap; done
for name in $names; do
  cat "$out/fuzz_$name.report"
  if [ "${status[$name]}" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

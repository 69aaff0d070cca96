#!/usr/bin/env bash
# A long fuzzing run at the lowest priority: fuzz_NAME on its persistent corpus (build-fuzz/corpus/NAME,
# then the seeds) until the given UTC time, in sessions of at most 15 minutes, each logged in
# build-fuzz/logs/NAME-START.log with libFuzzer's final stats (tests/fuzz/tally.py adds them up).
# A crash ends the run; its input is in build-fuzz/artifacts/NAME-*. Stop it early with kill -INT
# on the fuzzer (not SIGSTOP: libFuzzer's -timeout is wall-clock time). The timeout is 60 s, since
# at nice 19 beside builds a harness may get 1-2% of a core (the seeds run in milliseconds).
#   tests/fuzz/campaign.sh html 09:45 [BIN_DIR]      (BIN_DIR: where fuzz_NAME is; default build-fuzz)
set -uo pipefail
cd "$(dirname "$0")/../.."
name=$1; until_utc=$2; bin=${3:-build-fuzz}
out=build-fuzz
end=$(date -u -d "$until_utc" +%s) || exit 2
declare -A max_len=([html]=4096 [marian]=65536 [sentencepiece]=16384 [model_file]=16384 [text]=512 [cli_input]=4096)
mkdir -p "$out/logs" "$out/artifacts" "$out/corpus/$name"
seeds=$bin/seeds/$name; [ -d "$seeds" ] || seeds=$out/seeds/$name
while :; do
  left=$(( end - $(date -u +%s) ))
  [ $left -gt 5 ] || break
  # A fresh process every 15 minutes: ASan's stack depot and quarantine grow with a process's life
  # (fuzz_html fell from about 1,000 to 300 runs per second within an hour, a quarter of its time in
  # StackDepot::Put); reading the corpus again at the start costs 20-60 s.
  [ $left -gt 900 ] && left=900
  log=$out/logs/$name-$(date -u +%Y%m%dT%H%M%S).log
  echo "harness: $bin/fuzz_$name $(sha256sum "$bin/fuzz_$name" | cut -c1-16) commit $(git rev-parse --short HEAD)" >"$log"
  /usr/bin/time -a -o "$log" -f "cpu: %U user %S sys %e wall (s)" nice -n 19 "$bin/fuzz_$name" "$out/corpus/$name" "$seeds" -max_total_time=$left -max_len="${max_len[$name]}" \
    -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 -reload=0 -artifact_prefix="$out/artifacts/$name-" >>"$log" 2>&1
  rc=$?
  echo "exit: $rc" >>"$log"
  [ $rc -eq 72 ] && { echo "campaign $name: interrupted"; exit 0; }  # libFuzzer's exit on SIGINT
  [ $rc -eq 0 ] || { echo "campaign $name: exit $rc (a crash, leak, timeout or out-of-memory), see $log"; exit $rc; }
done

#!/usr/bin/env bash
# Runs Coffer's libFuzzer targets (built by Fuzz/build.sh) for SECONDS each, in parallel.
#
#   Fuzz/run.sh SECONDS [TARGET...]      # targets: vault inputs merge (default: all three)
#   RUNS=10000000 Fuzz/run.sh SECONDS vault   # stops at RUNS executions or SECONDS, whichever first
#   FUZZ_SANITIZERS=none Fuzz/run.sh SECONDS merge   # the targets built without AddressSanitizer
#                                                    # (FUZZ_SANITIZERS=none Fuzz/build.sh), same corpus
#   FUZZ_INSTANCE=2 Fuzz/run.sh SECONDS merge   # a second process of the same target beside the
#                                               # first (one per core): same corpus, its own
#                                               # seeds, log and artifacts (log-merge-2.txt)
#
# Each target starts from the seeds derived from Tests/Vectors (written by the binary itself,
# see LLVMFuzzerInitialize in Fuzz/Targets/FuzzMain.swift), the fixed crashers in
# Fuzz/Regressions/<target>/ and the corpus kept in .build-fuzz/corpus/<target>/ from earlier
# runs. A crash, an AddressSanitizer report or a broken invariant stops the target, leaves the
# input in .build-fuzz/artifacts/<target>/ and makes this script fail. The last lines printed
# are one summary per target: executions, corpus size, crashes.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(vault inputs merge)
OUT=.build-fuzz
# The binaries (and their logs and artifacts) of the build asked for; the corpus is shared.
case "${FUZZ_SANITIZERS:-address}" in
  address) BIN=$OUT ;;
  none) BIN=.build-fuzz-fast ;;
  *) echo "fuzz: FUZZ_SANITIZERS is address or none" >&2; exit 2 ;;
esac
# Leaks: Swift keeps its caches and metadata for the whole run; LeakSanitizer is off, AddressSanitizer on.
# malloc_context_size=2: ASan records two frames per allocation, not 30 (a merge allocates
# thousands of small arrays per input; the full stacks were a sixth of the run).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1:malloc_context_size=2}
# Swift's backtracer would take the signal of a broken invariant (a trap) before libFuzzer's
# handler, which then never writes the input to artifacts/: a run without AddressSanitizer lost
# one that way (RELIABILITY.md, Hostile replicas).
export SWIFT_BACKTRACE=enable=no
# The longest input per target. A merge input past 16 KiB is a copy with thousands of
# replicas or removed slots: each ran 100 times slower (26 executions a second, not 170, with
# less coverage after 5 minutes); the bounds those reach are replayed whole by `make test`
# from Fuzz/Regressions/merge and checked by the library's tests.
max_len() { case "$1" in merge) echo 16384 ;; *) echo 0 ;; esac; }

pids=()
started=$(date +%s)
# A run's own files: the instance's name keeps a second process of a target off the first's.
run_name() { echo "$1${FUZZ_INSTANCE:+-$FUZZ_INSTANCE}"; }
for target in "${targets[@]}"; do
  binary="$BIN/fuzz-$target"
  [ -x "$binary" ] || { echo "fuzz: $binary is missing; run Fuzz/build.sh" >&2; exit 2; }
  run=$(run_name "$target")
  seeds="$BIN/seeds/$run"
  rm -rf "$seeds"
  rm -rf "$BIN/artifacts/$run"
  mkdir -p "$OUT/corpus/$target" "$BIN/artifacts/$run" "Fuzz/Regressions/$target"
  COFFER_FUZZ_WRITE_SEEDS="$seeds" COFFER_FUZZ_VECTORS=Tests/Vectors COFFER_FUZZ_RESOURCES=Sources/CofferGenerator/Resources \
    "$binary" >/dev/null || { echo "fuzz: $target could not write its seeds" >&2; exit 2; }
  echo "fuzz: $target for ${seconds}s from $(ls "$seeds" | wc -l) seeds, $(ls "Fuzz/Regressions/$target" | wc -l) regressions, $(ls "$OUT/corpus/$target" | wc -l) corpus units"
  "$binary" -max_total_time="$seconds" -print_final_stats=1 -timeout=20 -rss_limit_mb=2048 -max_len="$(max_len "$target")" ${RUNS:+-runs="$RUNS"} \
    -artifact_prefix="$BIN/artifacts/$run/" "$OUT/corpus/$target" "$seeds" "Fuzz/Regressions/$target" \
    > "$BIN/log-$run.txt" 2>&1 &
  pids+=($!)
done

status=0
for i in "${!targets[@]}"; do
  run=$(run_name "${targets[$i]}")
  if ! wait "${pids[$i]}"; then
    status=1
    echo "fuzz: $run FAILED; the end of $BIN/log-$run.txt:" >&2
    grep -v '^#' "$BIN/log-$run.txt" | tail -40 >&2
  fi
done

for target in "${targets[@]}"; do
  run=$(run_name "$target")
  log="$BIN/log-$run.txt"
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  crashes=$(ls "$BIN/artifacts/$run" 2>/dev/null | grep -c -E '^(crash|leak|timeout|oom)-' || true)
  # libFuzzer's own count of seconds (RUNS may stop a target before SECONDS); an interrupted
  # run prints none, so the wall-clock time since the start stands in.
  ran=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  echo "fuzz $run${FUZZ_SANITIZERS:+ ($FUZZ_SANITIZERS)}: ${runs:-?} executions in ${ran:-$(( $(date +%s) - started ))}s (${rate:-?}/s), coverage ${cov:-?} edges, $(ls "$OUT/corpus/$target" | wc -l) corpus units, ${crashes} crash artifacts"
done
exit $status

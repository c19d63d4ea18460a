#!/usr/bin/env bash
# Builds the libFuzzer harnesses of test/fuzz/ with clang (ASan + UBSan, the library too),
# runs every stored regression input and seed through each harness, then fuzzes each for
# a bounded time, as many harnesses at a time as the machine has cores (each libFuzzer
# process runs on one). Any crash, sanitizer report, failed check or timeout fails the script.
# Usage: ci/fuzz.sh [seconds-per-harness]   (default: $ZT_FUZZ_SECONDS, else 60); the build tree is
# $ZT_BUILD_DIR, else build-fuzz.
# A harness may give extra libFuzzer flags in test/fuzz/fuzz_<name>.options (one per line).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-${ZT_FUZZ_SECONDS:-60}}"
build="${ZT_BUILD_DIR:-build-fuzz}"
bash scripts/deps.sh fuzz

# A tree already configured with ZT_FUZZ=ON (CI's sanitizer build, whose suites link the same
# sanitized library) is used as it is.
if ! grep -qx 'ZT_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZT_FUZZ=ON \
    -DZT_BUILD_TESTS=OFF -DZT_BUILD_EXAMPLES=OFF -DZT_BUILD_BENCH=OFF -DZT_CUDA=OFF
fi
cmake --build "$build" -j "$(nproc)" --target zt_fuzzers

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# One harness: its stored inputs, then fuzzing. Prints its summary; on failure also the
# log's tail and what to do, and returns 1.
fuzz_one() {
  local harness=$1 name options=() stored=() inputs=()
  name=$(basename "$harness")
  name=${name#fuzz_}
  if [ -f "test/fuzz/fuzz_$name.options" ]; then mapfile -t options < "test/fuzz/fuzz_$name.options"; fi
  for dir in "test/fuzz/regressions/$name" "test/fuzz/corpus/$name"; do
    [ -d "$dir" ] && stored+=("$dir")
  done
  local log="$build/fuzz_$name.log" artifacts="$build/artifacts/$name/"
  mkdir -p "$artifacts" "$build/corpus/$name"

  [ ${#stored[@]} -eq 0 ] || mapfile -t inputs < <(find "${stored[@]}" -type f -o -type l | sort)
  printf -- '--- fuzz_%s: %d stored inputs\n' "$name" "${#inputs[@]}"
  # Files named on the command line are each run once, as they are.
  if [ ${#inputs[@]} -ne 0 ] && ! "$harness" "${options[@]}" -timeout=10 -artifact_prefix="$artifacts" "${inputs[@]}" > "$log" 2>&1; then
    tail -n 40 "$log"
    echo "FAILED: fuzz_$name fails (crash, sanitizer report, failed check or timeout) on the stored input $(grep '^Running: ' "$log" | tail -n 1 | cut -c10-);" \
      "full log: $log"
    return 1
  fi

  printf -- '--- fuzz_%s: fuzzing %s s\n' "$name" "$seconds"
  # New inputs go to the build tree's corpus; the stored ones are read only.
  if ! "$harness" "${options[@]}" -timeout=10 -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="$artifacts" "$build/corpus/$name" "${stored[@]}" > "$log" 2>&1; then
    tail -n 40 "$log"
    echo "FAILED: fuzz_$name found a crash; the input is in $artifacts (minimize it with" \
      "-minimize_crash=1 and add it to test/fuzz/regressions/$name/); full log: $log"
    return 1
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|cov: ' "$log" | tail -n 3
}

# Each harness runs in the background into its own summary file; the summaries are printed
# in order once all have finished.
harnesses=()
for harness in "$build"/test/fuzz/fuzz_*; do
  [ -f "$harness" ] && [ -x "$harness" ] && harnesses+=("$harness")
done
rm -f "$build"/fuzz_*.summary "$build"/fuzz_*.failed
for harness in "${harnesses[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  summary="$build/$(basename "$harness").summary"
  (fuzz_one "$harness" > "$summary" 2>&1 || touch "${summary%.summary}.failed") &
done
wait

failed=()
for harness in "${harnesses[@]}"; do
  cat "$build/$(basename "$harness").summary"
  if [ -f "$build/$(basename "$harness").failed" ]; then failed+=("$(basename "$harness")"); fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzzing failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: every harness passed its stored inputs and ${seconds} s of fuzzing"

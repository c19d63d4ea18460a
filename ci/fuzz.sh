#!/usr/bin/env bash
# Builds the libFuzzer harnesses of test/fuzz/ with clang (ASan + UBSan, the library too),
# runs every stored regression input and seed through each harness, then fuzzes each for
# a bounded time. Any crash, sanitizer report, failed check or timeout fails the script.
# Usage: ci/fuzz.sh [seconds-per-harness]   (default: $ZT_FUZZ_SECONDS, else 60)
# A harness may give extra libFuzzer flags in test/fuzz/fuzz_<name>.options (one per line).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-${ZT_FUZZ_SECONDS:-60}}"
build=build-fuzz
bash scripts/deps.sh fuzz

cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZT_FUZZ=ON \
  -DZT_BUILD_TESTS=OFF -DZT_BUILD_EXAMPLES=OFF -DZT_BUILD_BENCH=OFF -DZT_CUDA=OFF
cmake --build "$build" -j "$(nproc)"

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
for harness in "$build"/test/fuzz/fuzz_*; do
  [ -f "$harness" ] && [ -x "$harness" ] || continue
  name=$(basename "$harness")
  name=${name#fuzz_}
  options=()
  if [ -f "test/fuzz/fuzz_$name.options" ]; then mapfile -t options < "test/fuzz/fuzz_$name.options"; fi
  stored=()
  for dir in "test/fuzz/regressions/$name" "test/fuzz/corpus/$name"; do
    [ -d "$dir" ] && stored+=("$dir")
  done
  log="$build/fuzz_$name.log"
  artifacts="$build/artifacts/$name/"
  mkdir -p "$artifacts" "$build/corpus/$name"

  inputs=()
  [ ${#stored[@]} -eq 0 ] || mapfile -t inputs < <(find "${stored[@]}" -type f -o -type l | sort)
  printf -- '--- fuzz_%s: %d stored inputs\n' "$name" "${#inputs[@]}"
  # Files named on the command line are each run once, as they are.
  if [ ${#inputs[@]} -ne 0 ] && ! "$harness" "${options[@]}" -timeout=10 -artifact_prefix="$artifacts" "${inputs[@]}" > "$log" 2>&1; then
    tail -n 40 "$log"
    echo "FAILED: fuzz_$name fails (crash, sanitizer report, failed check or timeout) on the stored input $(grep '^Running: ' "$log" | tail -n 1 | cut -c10-);" \
      "full log: $log" >&2
    failed+=("fuzz_$name (stored inputs)")
    continue
  fi

  printf -- '--- fuzz_%s: fuzzing %s s\n' "$name" "$seconds"
  # New inputs go to the build tree's corpus; the stored ones are read only.
  if ! "$harness" "${options[@]}" -timeout=10 -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="$artifacts" "$build/corpus/$name" "${stored[@]}" > "$log" 2>&1; then
    tail -n 40 "$log"
    echo "FAILED: fuzz_$name found a crash; the input is in $artifacts (minimize it with" \
      "-minimize_crash=1 and add it to test/fuzz/regressions/$name/); full log: $log" >&2
    failed+=("fuzz_$name (fuzzing)")
    continue
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|cov: ' "$log" | tail -n 3
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzzing failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: every harness passed its stored inputs and ${seconds} s of fuzzing"

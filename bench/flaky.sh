#!/usr/bin/env bash
# Every integration test, N times, under load: finds the flaky ones.
#
#   bash bench/flaky.sh [N] [REGEX]   # N repetitions (default 20) of each
#                                     # integration test (matching REGEX)
#
# Starts one busy loop per core (a CPU hog, stopped by this script however it
# ends), then runs each `integration.*` ctest test N times, one test at a
# time, interleaved (repetition 1 of every test, then repetition 2, ...), so
# that a flake tied to a moment of the run shows in every test; seeds that
# once failed (the `seeded` list) are replayed each repetition too. Prints a pass
# count per test and writes bench/results/flaky.md; each failed run's
# output stays in the log directory the report names. Not a CI test: it
# takes about N times the integration suite's time.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTF_BUILD_DIR:-$root/build}"
repetitions="${1:-20}"
filter="${2:-}"
invocation="bash bench/flaky.sh $*"
report="$root/bench/results/flaky.md"
logs="$(mktemp -d /tmp/dtf-flaky.XXXXXX)"

mapfile -t tests < <(ctest --test-dir "$build" -N -R "^integration\\..*$filter" |
                     sed -n 's/^ *Test *#[0-9]*: *//p')
if [ "${#tests[@]}" -eq 0 ]; then
  echo "flaky: no integration tests in $build (build first: bash scripts/build.sh)" >&2
  exit 1
fi
# Seeds that once failed, replayed every repetition besides the random ones.
seeded=("recovery_ps-restart --seed 259328543")
tests+=("${seeded[@]}")

run_test() {
  case $1 in
    "recovery_ps-restart --seed "*)
      python3 "$root/test/integration/recovery.py" --dtf-run "$build/bin/dtf-run" \
        --snapshot "$build/bin/dtf-snapshot" --case ps-restart --seed "${1##* }" ;;
    *) ctest --test-dir "$build" -R "^${1//./\\.}\$" --output-on-failure ;;
  esac
}

# What is tested: the build of this commit (and changes), as it is now.
commit="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo ' plus uncommitted changes')"

hogs=()
stop_hogs() { [ "${#hogs[@]}" -eq 0 ] || kill "${hogs[@]}" 2>/dev/null || true; }
trap stop_hogs EXIT
for _ in $(seq "$(nproc)"); do
  bash -c 'while :; do :; done' &
  hogs+=($!)
done

declare -A passed failed skipped seconds
for test in "${tests[@]}"; do
  passed[$test]=0; failed[$test]=0; skipped[$test]=0; seconds[$test]=""
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
write_report() {
  local done=$1 minutes=$(( ($(date +%s) - started) / 60 ))
  {
  echo "# Integration tests under load"
  echo
  echo "\`$invocation\`: every integration test${filter:+ matching $filter} $repetitions times"
  echo "(interleaved), with one busy loop per core ($(nproc) cores) running"
  echo "throughout. Commit $commit, $(date -u +%Y-%m-%d): $done of"
  echo "$repetitions repetitions done in $minutes minutes."
  echo
  echo "| test | passed | failed | skipped | median s |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  for test in "${tests[@]}"; do
    printf '| %s | %d | %d | %d | %.1f |\n' "$test" "${passed[$test]}" \
      "${failed[$test]}" "${skipped[$test]}" "$(echo "${seconds[$test]}" | median)"
  done
  echo
  any_failed=0
  for test in "${tests[@]}"; do
    [ "${failed[$test]}" -eq 0 ] && continue
    any_failed=1
    echo "## $test"
    for log in "$logs/${test// /_}".*.log; do
      grep -q "Failed\|FAIL" "$log" || continue
      echo "- $(basename "$log"): $(grep -m1 -o 'FAIL: .*\|Failed .*' "$log")"
    done
    echo
  done
  if [ "$any_failed" -eq 0 ]; then
    echo "No run failed. A skipped test printed its reason in its log: the"
    echo "skipped runs' logs are in \`$logs\` on the machine that ran it."
  else
    echo "Failed runs' logs: \`$logs\` on the machine that ran it."
  fi
} >"$report"
}
started=$(date +%s)
for repetition in $(seq "$repetitions"); do
  for test in "${tests[@]}"; do
    log="$logs/${test// /_}.$repetition.log"
    begin=$(date +%s.%N)
    if run_test "$test" >"$log" 2>&1; then
      if grep -q "Skipped\|^SKIP" "$log"; then
        outcome=skipped
      else
        outcome=passed
      fi
    else
      outcome=failed
    fi
    elapsed=$(awk -v end="$(date +%s.%N)" -v begin="$begin" 'BEGIN {printf "%.1f", end - begin}')
    seconds[$test]+="$elapsed "
    case $outcome in
      passed) passed[$test]=$((passed[$test] + 1)); rm -f "$log" ;;
      skipped) skipped[$test]=$((skipped[$test] + 1)) ;;
      failed) failed[$test]=$((failed[$test] + 1)) ;;
    esac
    printf 'flaky: %2d/%d %-44s %-7s %6.1f s\n' "$repetition" "$repetitions" "$test" \
      "$outcome" "$elapsed"
  done
  # After every repetition, so that a run cut short still reports.
  write_report "$repetition"
done
stop_hogs

echo
for test in "${tests[@]}"; do
  printf '%-34s %d/%d passed (%d failed, %d skipped)\n' "$test" "${passed[$test]}" \
    "$repetitions" "${failed[$test]}" "${skipped[$test]}"
done
echo "flaky: wrote $report; logs in $logs"

#!/usr/bin/env bash
# Fuzzes what dtf-run does first with a model file — MLIR parsing and the
# dtf verifiers (test/fuzz/FuzzMlir.cpp) — with libFuzzer for a bounded
# time. Not part of CI, which only replays the committed corpus.
#
#   bench/fuzz.sh [SECONDS] [--pipeline]
#
# SECONDS (default 600) bounds the run; --pipeline also compiles every
# input that verifies with dtf-run's pipeline (autodiff, optimizer,
# placement, replication). Builds build-fuzz/ with clang (DTF_FUZZ_CLANG,
# else the newest clang++-NN found), the dtf dialect and passes
# instrumented for coverage, AddressSanitizer on. The corpus starts from
# test/fuzz/Inputs/corpus and grows in build-fuzz/fuzz-corpus; crashing
# inputs land in build-fuzz/fuzz-artifacts and make the script exit 1.
# Reproduce one with: build-fuzz/bin/dtf-fuzz-mlir FILE
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=600
pipeline=0
for argument in "$@"; do
  case "$argument" in
    --pipeline) pipeline=1 ;;
    [0-9]*) seconds="$argument" ;;
    *) echo "usage: bench/fuzz.sh [SECONDS] [--pipeline]" >&2; exit 2 ;;
  esac
done

clang="${DTF_FUZZ_CLANG:-}"
if [ -z "$clang" ]; then
  for candidate in clang++-19 clang++-16 clang++-15 clang++-14 clang++; do
    if command -v "$candidate" >/dev/null; then clang="$candidate"; break; fi
  done
fi
if [ -z "$clang" ]; then
  echo "fuzz: no clang++ (apt-get install clang-14 libclang-rt-14-dev)" >&2
  exit 2
fi
cc="${clang/clang++/clang}"
build="${DTF_FUZZ_BUILD_DIR:-$root/build-fuzz}"

cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$clang" \
  -DDTF_FUZZ_INSTRUMENT=ON >/dev/null
ninja -C "$build" -j"${DTF_JOBS:-2}" dtf-fuzz-mlir

corpus="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
mkdir -p "$corpus" "$artifacts"
cp -n "$root"/test/fuzz/Inputs/corpus/* "$corpus"/
before=$(ls "$artifacts" | wc -l)
echo "fuzz: $seconds s with $clang (DTF_FUZZ_PIPELINE=$pipeline); corpus $corpus"
status=0
DTF_FUZZ_PIPELINE=$pipeline "$build/bin/dtf-fuzz-mlir" \
  -max_total_time="$seconds" -max_len=8192 -timeout=20 -rss_limit_mb=4096 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" \
  > "$build/fuzz.log" 2>&1 || status=$?
tail -n 25 "$build/fuzz.log"
after=$(ls "$artifacts" | wc -l)
echo "fuzz: exit $status, corpus $(ls "$corpus" | wc -l) inputs, $((after - before)) new artifact(s) in $artifacts (log: $build/fuzz.log)"
if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
  exit 1
fi

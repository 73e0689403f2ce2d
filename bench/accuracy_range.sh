#!/usr/bin/env bash
# The accuracy the README's main command reaches, over several runs:
#
#   bash bench/accuracy_range.sh [RUNS]     # default 10
#
# Runs `dtf-run --local --ps=1 --workers=2 examples/mnist_mlp.mlir` (the
# README's first command: 2000 asynchronous global steps) RUNS times, reads
# each worker's validation accuracy, prints the range and writes
# bench/results/accuracy.md. Async runs differ from run to run in the order
# the workers' updates land, so the README states this range.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTF_BUILD_DIR:-$root/build}"
runs="${1:-10}"
report="$root/bench/results/accuracy.md"
values=()
for run in $(seq "$runs"); do
  output=$("$build/bin/dtf-run" --local --ps=1 --workers=2 --progress=false \
             "$root/examples/mnist_mlp.mlir")
  mapfile -t found < <(echo "$output" | sed -n 's/.*validation accuracy = \([0-9.]*\).*/\1/p')
  if [ "${#found[@]}" -ne 2 ]; then
    echo "$output" >&2
    echo "accuracy_range: run $run: expected 2 workers' validation accuracy" >&2
    exit 1
  fi
  echo "run $run: validation accuracy ${found[*]}"
  values+=("${found[@]}")
done
summary=$(printf '%s\n' "${values[@]}" | sort -n |
          awk '{v[NR] = $1} END {printf "%.4f %.4f %.4f", v[1], v[int((NR + 1) / 2)], v[NR]}')
read -r low median high <<<"$summary"
echo "validation accuracy over $runs runs (${#values[@]} workers): min $low, median $median, max $high"
{
  echo "# Validation accuracy of the README's main command"
  echo
  echo "\`bash bench/accuracy_range.sh $runs\`: \`dtf-run --local --ps=1 --workers=2"
  echo "examples/mnist_mlp.mlir\` (2000 asynchronous global steps, Fashion-MNIST)"
  echo "run $runs times; each of the 2 workers evaluates the final model on the"
  echo "10000 test images. Commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo ' plus uncommitted changes'), $(date -u +%Y-%m-%d), $(nproc) cores."
  echo
  echo "| | validation accuracy |"
  echo "| --- | ---: |"
  echo "| min | $low |"
  echo "| median | $median |"
  echo "| max | $high |"
  echo
  echo "Every value: $(printf '%s ' "${values[@]}")"
} >"$report"
echo "accuracy_range: wrote $report"

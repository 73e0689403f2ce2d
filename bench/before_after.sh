#!/usr/bin/env bash
# dtf-run as built against dtf-run of an earlier commit, and TensorFlow, in
# one study run (alternating within each repetition), then a table of both:
#
#   bash bench/before_after.sh BASE_COMMIT OUT_NAME [run_study.py flags]
#
# Builds dtf-run at BASE_COMMIT in a git worktree under build/ (a full build:
# about 20 minutes on 2 cores) unless DTF_BASELINE_RUN names a dtf-run
# already built there. Writes bench/results/OUT_NAME.json and .md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${1:?usage: before_after.sh BASE_COMMIT OUT_NAME [flags]}"
name="${2:?usage: before_after.sh BASE_COMMIT OUT_NAME [flags]}"
shift 2
build="${DTF_BUILD_DIR:-$root/build}"
py="$build/bench-venv/bin/python"
[ -x "$py" ] || { echo "before_after: run bash bench/setup_venv.sh first" >&2; exit 1; }
baseline="${DTF_BASELINE_RUN:-}"
if [ -z "$baseline" ]; then
  tree="$build/baseline-$base"
  [ -d "$tree" ] || git -C "$root" worktree add --detach "$tree" "$base"
  cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$tree/build" --target dtf-run
  baseline="$tree/build/bin/dtf-run"
fi
out="$root/bench/results/$name"
"$py" "$root/bench/run_study.py" --python="$py" --dtf_run="$build/bin/dtf-run" \
  --dtf_run_baseline="$baseline" --systems=dtf,dtf-baseline,tf \
  --command="bash bench/before_after.sh $base $name $*" --out="$out.json" "$@"
python3 "$root/bench/compare_systems.py" "$out.json" --out="$out.md" \
  --title="dtf-run now (dtf) and at $base (dtf-baseline), beside TensorFlow"

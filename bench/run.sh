#!/usr/bin/env bash
# The scaling study, reproduced by one command:
#
#   bash bench/run.sh [--steps=N] [--reps=N] [--deadline_s=S] [--netns=on|off] ...
#
# Builds dtf-run and the microbenchmarks (Release), creates the Python
# environment build/bench-venv (matplotlib, tensorflow-cpu, CPU PyTorch from
# the package indexes, else Debian's python3-torch; a peer that cannot be
# installed is skipped with the reason), runs bench/run_study.py (DTF and
# TensorFlow side by side: 1 PS with 1, 2 and 3 workers, sync and async,
# --reps repetitions; 2 PS tasks with 2 async workers, variables whole and
# sharded; plus the network-namespace mode as root), the
# Google Benchmark programs, bench/in_graph.py (in-graph against
# between-graph), bench/inputs.py (TFRecord input against IDX), and writes
# bench/results/{results.json,REPORT.md,scaling.png,micro-*.json,in-graph.json,
# inputs.json}.
# Every flag is passed to run_study.py (python3 bench/run_study.py --help).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=$ROOT/bench/results
cd "$ROOT"
cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD" -j"$(nproc)" dtf-run dtf-bench-kernels dtf-bench-rpc dtf-bench-step
BENCH_VENV=$BUILD/bench-venv bash bench/setup_venv.sh
PY=$BUILD/bench-venv/bin/python
SKIP_TF=; SKIP_TORCH=
grep -q '^tensorflow ok' "$BUILD/bench-venv/install-status.txt" || SKIP_TF=$(grep '^tensorflow' "$BUILD/bench-venv/install-status.txt" || echo "tensorflow-cpu not installable")
grep -q '^torch ok' "$BUILD/bench-venv/install-status.txt" || SKIP_TORCH=$(grep '^torch' "$BUILD/bench-venv/install-status.txt" || echo "torch not installable")
# Without a PyTorch wheel in the venv (the CPU-only index may be out of
# reach), the compute reference uses Debian's CPU build for the system
# Python, python3-torch.
TORCH_PY=$PY
if [ -n "$SKIP_TORCH" ]; then
  if ! /usr/bin/python3 -c 'import torch' 2>/dev/null && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-torch >/dev/null 2>&1 || true
  fi
  if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    TORCH_PY=/usr/bin/python3
    SKIP_TORCH=
  else
    SKIP_TORCH="$SKIP_TORCH; Debian's python3-torch is not installable either"
  fi
fi
mkdir -p "$OUT"
CMD="bash bench/run.sh $*"
"$PY" bench/run_study.py --python="$PY" --dtf_run="$BUILD/bin/dtf-run" \
  --torch_python="$TORCH_PY" --skip_tf="$SKIP_TF" --skip_torch="$SKIP_TORCH" \
  --command="$CMD" \
  --out="$OUT/results.json" "$@"
# Microbenchmarks: kernels on one core (OpenBLAS 1 thread), gRPC transfer.
OPENBLAS_NUM_THREADS=1 "$BUILD/bin/dtf-bench-kernels" --benchmark_min_time=0.20 \
  --benchmark_repetitions=3 --benchmark_format=json > "$OUT/micro-kernels.json"
"$BUILD/bin/dtf-bench-rpc" --benchmark_min_time=0.20 --benchmark_repetitions=3 \
  --benchmark_format=json > "$OUT/micro-rpc.json"
# A worker's step and a PS update per engine (Executor / Interpreter),
# repetitions interleaved so that both engines see the same load.
OPENBLAS_NUM_THREADS=1 "$BUILD/bin/dtf-bench-step" --benchmark_min_time=0.10 \
  --benchmark_repetitions=9 --benchmark_enable_random_interleaving=true \
  --benchmark_format=json > "$OUT/micro-step.json"
# In-graph replication (model parallel, two towers) against between-graph.
python3 bench/in_graph.py --dtf_run="$BUILD/bin/dtf-run" --out="$OUT/in-graph.json"
# TFRecord input (gzip shards of tf.train.Example) against IDX input.
python3 bench/inputs.py --dtf_run="$BUILD/bin/dtf-run" --out="$OUT/inputs.json"
"$PY" bench/report.py "$OUT"
echo "wrote $OUT/REPORT.md and $OUT/scaling.png"

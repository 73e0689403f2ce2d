#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU (CI machines have none and
# skip the GPU tests): builds DTF, runs the GPU tests, which must run rather
# than skip, and trains the example MLP and CNN with the worker on GPU:0.
# Exits non-zero at the first failure, saying what failed. Budget: under 8
# minutes in all on a 16-core machine.
#
# Training goes through dtf-run with --device=GPU:0: the worker's step is
# lowered by --dtf-lower-to-gpu for that GPU and runs there, pulled
# parameters and data batches going in as feeds, gradients coming out to be
# pushed (the PS task applies them on the CPU, as TensorFlow's PS does).
#
#   bash bench/gpu_check.sh                 # everything
#   MLP_STEPS=200 CNN_STEPS=50 bash bench/gpu_check.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTF_BUILD_DIR:-$root/build}"
mlp_steps="${MLP_STEPS:-1000}"
cnn_steps="${CNN_STEPS:-300}"
start=$SECONDS

step() { echo; echo "== [$((SECONDS - start))s] $*"; }
fail() { echo "gpu_check: FAILED: $*" >&2; exit 1; }

step "GPUs of this machine"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi -L || fail "nvidia-smi cannot list the GPUs"
else
  echo "(no nvidia-smi; the tests below say whether the driver sees a GPU)"
fi

step "configuring and building $build"
configure="$(cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DDTF_ENABLE_CUDA=ON 2>&1)" || { echo "$configure"; fail "configuring"; }
echo "$configure" | grep -q ": building the GPU runtime" ||
  fail "CMake did not find the CUDA toolkit with cuBLAS and cuDNN"
cmake --build "$build" -- -j"$(nproc)" || fail "building"

step "GPU unit tests"
for test in dtf_cuda_tests dtf_cuda_exec_tests dtf_lowering_tests \
            dtf_train_gpu_tests; do
  binary="$build/bin/$test"
  if ! output="$("$binary" 2>&1)"; then
    echo "$output"
    fail "$test"
  fi
  echo "$output" | grep -E '^\[  (PASSED|SKIPPED) \]' || true
  if echo "$output" | grep -q '^\[  SKIPPED \]'; then
    echo "$output" | grep -m1 -A1 'Skipped' || true
    fail "$test skipped GPU tests on a machine that should have a GPU"
  fi
done

step "lowering tests (lit)"
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -q "$build/test" ||
  fail "lit tests"

step "training on GPU:0"
dtf_run="$build/bin/dtf-run"
[ -x "$dtf_run" ] || fail "$dtf_run was not built"
for model in mnist_mlp:"$mlp_steps" mnist_cnn:"$cnn_steps"; do
  name="${model%%:*}"
  steps="${model##*:}"
  step "$name, $steps steps"
  log="$build/gpu_check_$name.log"
  timeout 180 "$dtf_run" --local --ps=1 --workers=1 --device=GPU:0 \
    --progress=false "$root/examples/$name.mlir" --train_steps="$steps" \
    2>&1 | tee "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "training $name on GPU:0"
  grep -q "Worker 0: computing on /device:GPU:0" "$log" ||
    fail "the worker training $name did not compute on GPU:0"
  grep -q "validation accuracy" "$log" || fail "$name: no validation result"
done

elapsed=$((SECONDS - start))
step "done in ${elapsed}s"
[ "$elapsed" -le 480 ] || fail "took ${elapsed}s, over the 8-minute budget"

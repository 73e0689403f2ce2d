#!/usr/bin/env bash
# Installs every build and test dependency of DTF on a fresh Debian 12
# (bookworm) machine. Idempotent: apt-get skips what is already installed.
set -euo pipefail

packages=(
  # Toolchain and build
  build-essential cmake ninja-build pkg-config git python3
  # LLVM/MLIR 19: headers, libMLIR.so, mlir-tblgen, FileCheck and lit's tools
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  # RPC
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  # CPU kernels, data and unit tests
  libopenblas-dev zlib1g-dev libgtest-dev libgmock-dev libbenchmark-dev
  # oneDNN: float GEMMs where OpenBLAS falls back to generic kernels
  # (runtime/core/CpuKernels.h)
  libdnnl-dev
  # Data: NumPy .npz archives are zip files (libzip)
  libzip-dev
  # TensorFlow's V2 checkpoints (runtime/checkpoint/TensorBundle.h): the
  # index is a LevelDB table. Debian's leveldbConfig.cmake links `snappy`
  # without depending on its -dev package, hence libsnappy-dev.
  libleveldb-dev libsnappy-dev
  # tcmalloc: dtf-run's malloc (tools/dtf-run/CMakeLists.txt)
  libgoogle-perftools-dev
  # Command-line flags (TensorFlow-style) and TF_CONFIG parsing
  libgflags-dev nlohmann-json3-dev
  # Real data: Fashion-MNIST IDX files under /usr/share/datasets/fashion-mnist
  dataset-fashion-mnist
  # `dot`: renders --dtf-dump-partitions's DOT graphs (and the lit test of it)
  graphviz
  # venvs for the optional TensorBoard check (scripts/tensorboard-venv.sh)
  python3-venv
  # Reliability tests: test certificates (TLS), network namespaces (a cut
  # link), libFuzzer for the MLIR fuzz target (bench/fuzz.sh, CI's corpus run)
  openssl iproute2 clang-14 libclang-rt-14-dev
  # Cluster managers: a one-node Slurm for its integration test, and YAML for
  # the check of the Kubernetes TFJob manifest
  slurm-wlm munge python3-yaml
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup: all dependencies are installed"
fi

# TensorBoard's own reader for integration.tensorboard: Debian 12 packages
# neither tensorboard nor its dependencies, so it goes into a venv from PyPI
# (<build>/tb-venv, where the test looks for it).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTF_BUILD_DIR:-$root/build}"
if ! "$build/tb-venv/bin/python" -c "import tensorboard" 2>/dev/null; then
  bash "$root/scripts/tensorboard-venv.sh"
else
  echo "setup: tensorboard is installed in $build/tb-venv"
fi

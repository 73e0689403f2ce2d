#!/usr/bin/env bash
# Configures and builds DTF into ./build (or $DTF_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTF_BUILD_DIR:-$root/build}"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DDTF_WERROR="${DTF_WERROR:-OFF}"
cmake --build "$build" -- -j"${DTF_JOBS:-$(nproc)}"

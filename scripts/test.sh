#!/usr/bin/env bash
# Builds DTF and runs every test: the lit/FileCheck compiler tests and the
# unit and integration tests, all through ctest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTF_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j"${DTF_JOBS:-$(nproc)}"

#!/usr/bin/env bash
# Installs the `tensorboard` Python package from PyPI into <build>/tb-venv,
# so that the ctest `integration.tensorboard` checks that TensorBoard's own
# reader loads DTF's event files. scripts/setup.sh runs it; without the
# venv the test is skipped.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTF_BUILD_DIR:-$root/build}"
mkdir -p "$build"
python3 -m venv "$build/tb-venv"
"$build/tb-venv/bin/pip" install --quiet tensorboard
"$build/tb-venv/bin/python" -c "import tensorboard; print('tensorboard', tensorboard.__version__, 'in $build/tb-venv')"

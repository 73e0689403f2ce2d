#!/usr/bin/env bash
# Creates the benchmark's Python environment (idempotent): matplotlib for the
# plot, tensorflow-cpu (the peer) and a CPU-only PyTorch (the compute
# reference). A peer that cannot be installed is skipped by the benchmark
# with the reason recorded here.
set -u
VENV=${BENCH_VENV:-$(cd "$(dirname "$0")/.." && pwd)/build/bench-venv}
STATUS="$VENV/install-status.txt"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV" || { echo "cannot create $VENV (apt-get install python3-venv)"; exit 1; }
fi
PY="$VENV/bin/python"
"$PY" -m pip install -q --upgrade pip >/dev/null 2>&1
: > "$STATUS.new"
have() { "$PY" -c "import $1" >/dev/null 2>&1; }
have matplotlib || "$PY" -m pip install -q matplotlib numpy
have matplotlib && echo "matplotlib ok" >> "$STATUS.new" || echo "matplotlib FAILED" >> "$STATUS.new"
if ! have tensorflow; then
  "$PY" -m pip install -q tensorflow-cpu > "$VENV/tf-install.log" 2>&1 \
    || echo "tensorflow-cpu: pip install failed: $(tail -1 "$VENV/tf-install.log")" >> "$STATUS.new"
fi
have tensorflow && echo "tensorflow ok $("$PY" -c 'import tensorflow as t; print(t.__version__)' 2>/dev/null)" >> "$STATUS.new"
# tf.compat.v1.layers (examples/tf) live in Keras 2, which TensorFlow 2.16+
# no longer bundles: tf-keras of TensorFlow's own minor version, used with
# TF_USE_LEGACY_KERAS=1.
if have tensorflow && ! have tf_keras; then
  TF_MINOR=$("$PY" -c 'import tensorflow as t; print(".".join(t.__version__.split(".")[:2]))' 2>/dev/null)
  "$PY" -m pip install -q "tf-keras==$TF_MINOR.*" > "$VENV/tf-keras-install.log" 2>&1 \
    || echo "tf-keras: pip install failed: $(tail -1 "$VENV/tf-keras-install.log")" >> "$STATUS.new"
fi
have tf_keras && echo "tf-keras ok $("$PY" -c 'import tf_keras as k; print(k.__version__)' 2>/dev/null)" >> "$STATUS.new"
if ! have torch; then
  # The CPU-only wheel index first (PyPI's default wheel pulls ~3 GB of CUDA).
  "$PY" -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu > "$VENV/torch-install.log" 2>&1 \
    || echo "torch: CPU wheel index unreachable or install failed: $(tail -1 "$VENV/torch-install.log")" >> "$STATUS.new"
fi
have torch && echo "torch ok $("$PY" -c 'import torch as t; print(t.__version__)' 2>/dev/null)" >> "$STATUS.new"
mv "$STATUS.new" "$STATUS"
cat "$STATUS"

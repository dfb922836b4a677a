#!/usr/bin/env bash
# On the lent GPU: install the carried wheels the image lacks, then run `python -m bench.device`.
#
#   bash bench/device/run.sh --results "$OUT" [bench.device options]
#
# device.json and device.md go to --results (rewritten after every phase, so a run stopped from
# outside still returns them); checkpoints, model folders and phase logs stay in WORK
# (default /tmp/bench-device), too large to come back.
# The image's python3 (its own jax, flax, torch, transformers; KINDS.md) runs the code; only the
# packages in .device/wheels/ (bench/device/bundle.py DEVICE_WHEELS) are added, into /tmp/site,
# without dependencies and without touching the image's own. Which packages were missing, and
# every version used, is recorded by the env phase. Exit status: bench.device's (0: all ok).
set -u
cd "$(dirname "$0")/../.."
BUNDLE=${BUNDLE:-.device}
PY=${PYTHON:-python3}
if [ ! -f "$BUNDLE/bundle.json" ]; then
  echo "bench/device/run.sh: no $BUNDLE/bundle.json: build it with python -m bench.device.bundle" >&2
  exit 2
fi
SITE=/tmp/site
if ls "$BUNDLE"/wheels/*.whl >/dev/null 2>&1; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$SITE" "$BUNDLE"/wheels/*.whl || { echo "bench/device/run.sh: wheel install failed" >&2; exit 2; }
fi
export PYTHONPATH="$PWD:$SITE${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
# One persistent compilation cache for every phase's process: the random-init and pretrained
# fine-tuning arms have the same shapes, so the second compiles nothing.
export JAX_COMPILATION_CACHE_DIR=${JAX_COMPILATION_CACHE_DIR:-/tmp/jax-cache}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
exec "$PY" -m bench.device --bundle "$BUNDLE" --output "${WORK:-/tmp/bench-device}" "$@"

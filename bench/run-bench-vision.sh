#!/usr/bin/env bash
# Vision models on the CPU against PyTorch: ResNet-50 inference per batch
# and a conv-bn-relu-pool CNN's training step, same program, parameters and
# threads. See docs/benchmarks.md.
#
#   bench/run-bench-vision.sh [BUILD_DIR] [bench_vision.py options...]
#
# BUILD_DIR (default: build/ in the checkout) must hold bin/distc and
# bin/dist-run. Options go to bench/bench_vision.py (--threads N,
# --batches 1,32, --size 224, --quick, --json FILE; --help lists them).
# Installs python3-torch and python3-numpy from Debian when missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/build-dir.sh"

source "$here/python-deps.sh"

exec "$python" "$here/bench_vision.py" --build-dir "$build" "$@"

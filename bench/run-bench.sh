#!/usr/bin/env bash
# Training step time of distc's CPU runtime against PyTorch on the same
# models, batch, optimizer and thread count. See docs/benchmarks.md.
#
#   bench/run-bench.sh [BUILD_DIR] [bench.py options...]
#
# BUILD_DIR (default: build/ in the checkout) must hold bin/distc and bin/dist-run.
# Options go to bench/bench.py (--threads N, --quick, --json FILE, ...;
# bench/run-bench.sh --help lists them). Installs python3-torch and
# python3-numpy from Debian when missing. Uses the system Python.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/build-dir.sh"

source "$here/python-deps.sh"

exec "$python" "$here/bench.py" --build-dir "$build" "$@"

#!/usr/bin/env bash
# Data-parallel training on CPU, 1 and 2 ranks: distc (dist-run, Gloo)
# against PyTorch DistributedDataParallel (Gloo) on the same models,
# optimizer, per-rank batch and threads per rank. See docs/benchmarks.md,
# "Data parallel on CPU".
#
#   bench/run-bench-ddp.sh [BUILD_DIR] [bench_ddp.py options...]
#
# BUILD_DIR (default: build/ in the checkout) must hold bin/distc,
# bin/dist-run and bin/distc-dump. Options go to bench/bench_ddp.py
# (--quick, --distc-flags FLAGS, --json FILE, ...; bench/run-bench-ddp.sh
# --help lists them). Installs python3-torch and python3-numpy from Debian
# when missing. Uses the system Python.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/build-dir.sh"

source "$here/python-deps.sh"

exec "$python" "$here/bench_ddp.py" --build-dir "$build" "$@"

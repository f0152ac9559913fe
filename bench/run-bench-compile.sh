#!/usr/bin/env bash
# Compile time of distc on deep MLPs of about 1k, 10k and 100k train ops,
# for 2 and 1024 ranks of data parallelism; with --meshes 2,4,...,1024, of a
# 10k-op MLP on auto-parallel meshes [M/2, 2] (dp x mp) of those sizes. See
# docs/benchmarks.md, "Compile time" and "Compile time and mesh size".
#
#   bench/run-bench-compile.sh [BUILD_DIR] [compile_time.py options...]
#
# BUILD_DIR (default: build/ in the checkout) must hold bin/distc. Options go
# to bench/compile_time.py (--sizes, --nranks, --meshes, --rounds, --timeout,
# --work-dir, --json; bench/run-bench-compile.sh --help lists them). Needs
# only the system Python.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/build-dir.sh"

exec /usr/bin/python3 "$here/compile_time.py" --build-dir "$build" "$@"

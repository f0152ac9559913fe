#!/usr/bin/env bash
# Compile time of distc on deep MLPs of about 1k, 10k and 100k train ops,
# for 2 and 1024 ranks. See docs/benchmarks.md, "Compile time".
#
#   bench/run-bench-compile.sh [BUILD_DIR] [compile_time.py options...]
#
# BUILD_DIR (default: build/ in the checkout) must hold bin/distc. Options go
# to bench/compile_time.py (--sizes, --nranks, --timeout, --work-dir, --json;
# bench/run-bench-compile.sh --help lists them). Needs only the system Python.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/build-dir.sh"

exec /usr/bin/python3 "$here/compile_time.py" --build-dir "$build" "$@"

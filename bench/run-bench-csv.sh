#!/usr/bin/env bash
# Time and peak memory of dist-run loading a 10 M-row gzip CSV. See
# docs/benchmarks.md, "CSV loading".
#
#   bench/run-bench-csv.sh [BUILD_DIR] [csv_load.py options...]
#
# BUILD_DIR (default: build/ in the checkout) must hold bin/distc and
# bin/dist-run. Options go to bench/csv_load.py (--rows, --work-dir;
# bench/run-bench-csv.sh --help lists them). Needs only the system Python
# and /usr/bin/time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/build-dir.sh"

exec /usr/bin/python3 "$here/csv_load.py" --build-dir "$build" "$@"

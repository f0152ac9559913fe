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
build="$(dirname "$here")/build"
if [[ $# -gt 0 && "$1" != -* ]]; then
  build="$1"
  shift
fi

python=/usr/bin/python3

missing=()
[[ -x "$python" ]] || missing+=(python3)
if [[ -x "$python" ]]; then
  "$python" -c 'import numpy' 2>/dev/null || missing+=(python3-numpy)
  "$python" -c 'import torch' 2>/dev/null || missing+=(python3-torch)
else
  missing+=(python3-numpy python3-torch)
fi
if [[ ${#missing[@]} -gt 0 ]]; then
  sudo=()
  [[ "$(id -u)" -eq 0 ]] || sudo=(sudo)
  echo "installing ${missing[*]} (apt-get)" >&2
  "${sudo[@]}" apt-get update -qq >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi

exec "$python" "$here/bench.py" --build-dir "$build" "$@"

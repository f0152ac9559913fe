#!/usr/bin/env bash
# Per-rank bytes of parameters and optimizer state of the MLP and the
# transformer block under auto-parallel layouts (serial, data parallel,
# Megatron tensor parallel, both on [2, 2]) with SGD and Adam, from distc
# --explain-sharding, checked against a count from the shapes. See
# docs/benchmarks.md, "Memory per rank under sharding".
#
#   bench/run-bench-sharding-memory.sh [BUILD_DIR] [sharding_memory.py options...]
#
# BUILD_DIR (default: build/ in the checkout) must hold bin/distc. Options go
# to bench/sharding_memory.py (--models, --optimizers, --work-dir, --json;
# bench/run-bench-sharding-memory.sh --help lists them). Needs only the
# system Python.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/build-dir.sh"

exec /usr/bin/python3 "$here/sharding_memory.py" --build-dir "$build" "$@"

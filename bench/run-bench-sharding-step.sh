#!/usr/bin/env bash
# Step time of the MLP and the transformer block trained on 2 and 4 CPU
# ranks under tensor parallelism, data parallelism (distc --nranks and a
# 1-D mesh) and both on [2, 2], against the serial step on the same global
# batch, with a loss check against the serial run. See docs/benchmarks.md,
# "Step time under sharding".
#
#   bench/run-bench-sharding-step.sh [BUILD_DIR] [sharding_step.py options...]
#
# BUILD_DIR (default: build/ in the checkout) must hold bin/distc and
# bin/dist-run. Options go to bench/sharding_step.py (--models, --optimizers,
# --ranks, --global-batch, --rounds, --wait-idle, --quick, --work-dir,
# --json; bench/run-bench-sharding-step.sh --help lists them). Needs only
# the system Python with NumPy.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/build-dir.sh"

exec /usr/bin/python3 "$here/sharding_step.py" --build-dir "$build" "$@"

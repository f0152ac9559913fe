#!/usr/bin/env bash
# Sets everything up and runs the main job: compiles the example MLP program
# with distc and runs its predict mode with dist-run on the CPU backend,
# printing the outputs. Usage: utils/run-example.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"

"$root/utils/setup-deps.sh"
"$root/utils/build.sh" "$build" -- distc dist-run
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

example="$root/examples/mlp"
"$build/bin/distc" "$example/main.json" --startup "$example/startup.json" \
  --loss mean_0.tmp_0 -o "$work/mlp.distc"
echo "compiled $example -> mlp.distc ($(stat -c %s "$work/mlp.distc") bytes)"
/usr/bin/python3 - "$work" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(0)
np.save(sys.argv[1] + "/x.npy", rng.uniform(0, 16, size=(4, 64)).astype(np.float32))
PY
"$build/bin/dist-run" "$work/mlp.distc" --mode predict --input "x=@$work/x.npy" --output -

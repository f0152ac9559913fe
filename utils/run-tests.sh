#!/usr/bin/env bash
# Sets everything up and runs every test: installs dependencies, builds the
# compiler and runtime, then runs ctest (unit tests, lit tests, fuzz smoke
# runs). Usage: utils/run-tests.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"

"$root/utils/setup-deps.sh"
"$root/utils/build.sh" "$build"
cd "$build"
ctest --output-on-failure -j "$(nproc)"

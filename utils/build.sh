#!/usr/bin/env bash
# Configures (once) and builds distc with Ninja, clang-22 and lld.
# Usage: utils/build.sh [BUILD_DIR] [extra cmake -D options...] [-- ninja targets...]
# Environment: DISTC_JOBS (default: number of cores).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
shift || true

cmake_args=()
targets=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; targets=("$@"); break; fi
  cmake_args+=("$1"); shift
done

if [ ! -f "$build/build.ninja" ] || [ ${#cmake_args[@]} -gt 0 ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld \
    "${cmake_args[@]}"
fi
ninja -C "$build" -j "${DISTC_JOBS:-$(nproc)}" "${targets[@]}"

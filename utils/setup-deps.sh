#!/usr/bin/env bash
# Installs every build and test dependency of distc from Debian packages.
# Idempotent and cheap to re-run: packages already present are skipped
# without touching the network.
set -euo pipefail

PACKAGES=(
  # compiler toolchain and build system
  cmake ninja-build clang-22 lld-22
  # MLIR 22 (the compiler only; the runtime never links it) plus lit/FileCheck
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  # distc-tblgen links LLVM's static TableGen and Support libraries, whose
  # CMake targets need zstd's
  libzstd-dev
  # command lines, JSON, program and artifact serialization
  libcli11-dev nlohmann-json3-dev libprotobuf-dev protobuf-compiler
  libflatbuffers-dev flatbuffers-compiler
  # training data and checkpoints: gzip/CRC32 (zlib), .npz archives (libzip)
  zlib1g-dev libzip-dev
  # image-folder data (--data images=DIR): PNG and JPEG decoders
  libpng-dev libjpeg62-turbo-dev
  # CPU kernels and tests; libFuzzer's runtime for the fuzz smoke runs
  # (without it the fuzzers quietly drop out of the suite)
  libopenblas-dev libgtest-dev libclang-rt-22-dev
  # collectives between processes (Gloo over TCP)
  libgloo-dev
  # reference numerics in tests
  python3-numpy
  # tests decode dist-run's TensorBoard event files with protoc-generated
  # Python classes, independently of the C++ writer
  python3-protobuf
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup-deps: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

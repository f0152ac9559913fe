#!/usr/bin/env bash
# Images decoded and resized per second per core by dist-run's image-folder
# loader. See docs/benchmarks.md, "Image loading".
#
#   bench/run-bench-images.sh [BUILD_DIR] [image_load.py options...]
#
# BUILD_DIR (default: build/ in the checkout) must hold bin/distc and
# bin/dist-run. Options go to bench/image_load.py (--images, --work-dir).
# Needs the system Python and a C compiler with libjpeg (to write the JPEG
# inputs).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/build-dir.sh"

exec /usr/bin/python3 "$here/image_load.py" --build-dir "$build" "$@"

# Sourced by the bench/run-bench*.sh drivers, after they set `here`: the
# build directory is their first argument unless it is an option (default:
# build/ in the checkout); it is shifted off the arguments they pass on.
build="$(dirname "$here")/build"
if [[ $# -gt 0 && "$1" != -* ]]; then
  build="$1"
  shift
fi

#!/usr/bin/env bash
# Parameter servers: one server's push+pull throughput against the memory
# bandwidth of a core (bin/distc-bench-ps-throughput), then the step time
# of synchronous parameter-server training (2 servers, 2 trainers) against
# collective data parallelism on 2 ranks, with a loss check between them.
# See docs/benchmarks.md, "Parameter servers".
#
#   bench/run-bench-ps.sh [BUILD_DIR] [options...]
#
# BUILD_DIR (default: build/ in the checkout) must hold bin/distc,
# bin/dist-run and bin/distc-bench-ps-throughput. Options of this script:
#   --throughput-build DIR  take bin/distc-bench-ps-throughput from DIR
#                           (e.g. a runtime-only build; default BUILD_DIR)
#   --throughput-args ARGS  options for the throughput benchmark, one word
#                           list (e.g. "--trainers 1,2 --block-mib 1,4")
#   --no-throughput         skip it
#   --no-step               skip the step-time comparison
#   --quick                 a smoke run of both
# Every other option goes to bench/ps_step.py (--models, --optimizers,
# --global-batch, --rounds, --wait-idle, --work-dir, --json; --help lists
# them). Needs only the system Python with NumPy.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/build-dir.sh"

throughput_build="$build"
throughput_args=()
step_args=()
run_throughput=1
run_step=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --throughput-build) throughput_build="$2"; shift 2 ;;
    --throughput-args) read -r -a throughput_args <<< "$2"; shift 2 ;;
    --no-throughput) run_throughput=0; shift ;;
    --no-step) run_step=0; shift ;;
    --quick) throughput_args+=(--quick); step_args+=(--quick); shift ;;
    -h|--help)
      sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exec /usr/bin/python3 "$here/ps_step.py" --help ;;
    *) step_args+=("$1"); shift ;;
  esac
done

status=0
if [[ $run_throughput == 1 ]]; then
  bench="$throughput_build/bin/distc-bench-ps-throughput"
  if [[ ! -x "$bench" ]]; then
    echo "run-bench-ps.sh: error: no $bench (build the target distc-bench-ps-throughput, or" \
         "give --throughput-build)" >&2
    exit 2
  fi
  echo "== push+pull throughput of one parameter server"
  "$bench" "${throughput_args[@]}" || status=1
  echo
fi
if [[ $run_step == 1 ]]; then
  echo "== step time: parameter servers against data parallelism"
  /usr/bin/python3 "$here/ps_step.py" --build-dir "$build" "${step_args[@]}" || status=1
fi
exit $status

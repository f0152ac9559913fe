"""Helpers shared by the benchmark drivers (bench.py, bench_ddp.py)."""

import os
import platform
import statistics
import sys
import tempfile
import time


def cpu_model():
    """The CPU's model name, for the report."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def median_ms(times):
    return 1e3 * statistics.median(times)


def run_in_work_dir(run, work_dir, prefix):
    """run(work) in `work_dir` (created if needed), or in a temporary
    directory named `prefix`... that is removed afterwards; logs the
    benchmark's duration and returns run's exit status."""
    start = time.time()
    if work_dir:
        os.makedirs(work_dir, exist_ok=True)
        rc = run(os.path.abspath(work_dir))
    else:
        with tempfile.TemporaryDirectory(prefix=prefix) as work:
            rc = run(work)
    log("benchmark took %.0f s" % (time.time() - start))
    return rc

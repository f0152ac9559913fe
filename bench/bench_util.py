"""Helpers shared by the benchmark drivers."""

import os
import platform
import statistics
import subprocess
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


def add_blas_option(parser):
    parser.add_argument("--keep-openblas-coretype", action="store_true",
                        help="keep an inherited OPENBLAS_CORETYPE (default: drop it, so that "
                        "OpenBLAS picks its kernels for this CPU)")


def choose_blas_kernels(keep):
    """Before NumPy, PyTorch or distc load OpenBLAS. OpenBLAS picks its GEMM
    kernels for the CPU unless OPENBLAS_CORETYPE forces a set, and some
    machines set it for every process (Haswell, AVX2). That would hold
    distc's GEMMs below the CPU while PyTorch's oneDNN convolutions, which
    ignore the variable, run AVX-512: unless kept, drop it, so both
    frameworks run what their libraries choose here."""
    if not keep:
        os.environ.pop("OPENBLAS_CORETYPE", None)


def blas_description(dist_run):
    """What `dist-run --version` says of the CPU backend's BLAS, e.g.
    "OpenBLAS 0.3.21, Cooperlake kernels"."""
    out = subprocess.run([dist_run, "--version"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("cpu backend: built (") and line.endswith(")"):
            return line[len("cpu backend: built ("):-1]
    return "unknown"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def built_tool(build_dir, name, script):
    """The path of bin/`name` in `build_dir`, or None after logging, as
    `script`, that it is missing."""
    path = os.path.join(build_dir, "bin", name)
    if os.access(path, os.X_OK):
        return path
    log("%s: error: no %s at %s (build first, or give the build directory)"
        % (script, name, path))
    return None


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

"""Helpers shared by the benchmark drivers."""

import json
import os
import platform
import resource
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


def add_wait_idle_option(parser):
    parser.add_argument("--wait-idle", type=float, default=0, metavar="SECONDS",
                        help="before each timed run, wait up to SECONDS for the other "
                        "processes' load to drop below a quarter of a core (default 0: do not "
                        "wait)")


def add_model_options(parser):
    """--models and --optimizers of the benchmarks over bench/programs.py's
    MLP and transformer block."""
    parser.add_argument("--models", default="mlp,transformer",
                        help="comma-separated, from mlp and transformer (default: both)")
    parser.add_argument("--optimizers", default="sgd,adam",
                        help="comma-separated, from sgd and adam (default: sgd,adam)")


def chosen_models(args, known, script):
    """The --models and --optimizers lists of `args` (add_model_options);
    exits naming the first that is not in `known` or not sgd/adam."""
    models = [m for m in args.models.split(",") if m]
    optimizers = [o for o in args.optimizers.split(",") if o]
    for m in models:
        if m not in known:
            sys.exit("%s: error: unknown model '%s' (%s)" % (script, m, ", ".join(known)))
    for o in optimizers:
        if o not in ("sgd", "adam"):
            sys.exit("%s: error: unknown optimizer '%s' (sgd, adam)" % (script, o))
    return models, optimizers


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


# --- Other load on the machine ----------------------------------------------------

class DistcTools:
    """A benchmark's work directory and the built distc and dist-run it
    drives (exits with status 2, having said why, when either is missing)."""

    def __init__(self, work, build_dir, script):
        self.work = work
        self.distc = built_tool(build_dir, "distc", script)
        self.dist_run = built_tool(build_dir, "dist-run", script)
        if not self.distc or not self.dist_run:
            sys.exit(2)
        self.runs = 0

    def path(self, *parts):
        return os.path.join(self.work, *parts)


class OtherLoad:
    """CPU time that processes other than this benchmark and its children
    used while it ran: the machine's busy time (/proc/stat) minus our own
    and our children's (getrusage), in cores. 0 is an otherwise idle
    machine; the step times of a run with other load are not comparable."""

    def __init__(self):
        self.start = self.sample()

    @staticmethod
    def sample():
        try:
            with open("/proc/stat") as f:
                fields = [int(v) for v in f.readline().split()[1:]]
            busy = (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            busy = None
        own = sum(getattr(resource.getrusage(who), f) for who in
                  (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))
        return time.monotonic(), busy, own

    def cores(self):
        (t0, busy0, own0), (t1, busy1, own1) = self.start, self.sample()
        if busy0 is None or busy1 is None or t1 <= t0:
            return None
        return max(0.0, ((busy1 - busy0) - (own1 - own0)) / (t1 - t0))


def wait_idle(limit):
    """Waits up to `limit` seconds until other processes use less than a
    quarter of a core over half a second; returns the seconds waited."""
    start = time.monotonic()
    while True:
        probe = OtherLoad()
        time.sleep(0.5)
        load = probe.cores()
        waited = time.monotonic() - start
        if load is None or load < 0.25 or waited >= limit:
            return waited
        time.sleep(min(2.0, max(0.0, limit - waited)))


# --- Training with dist-run -------------------------------------------------------

def dist_run_train(dist_run, artifact, data, nranks, batch, steps, metrics, log_dir=None,
                   init_from=None, env=None, timeout=600, extra=(), output=None):
    """`dist-run ARTIFACT --mode train` for `steps` steps of `batch` rows
    per rank (per data-parallel replica on a mesh), the files of `data`
    ({feed: .npy path}) in order (--no-shuffle), on `nranks` ranks
    (--nproc-per-node, a free port, each rank's output under `log_dir`),
    with the `extra` flags; returns rank 0's records of the `metrics` file
    it writes, one a step. `output`: a file for dist-run's own stdout and
    stderr (a single rank's output)."""
    cmd = [dist_run, artifact, "--mode", "train", "--batch-size", str(batch),
           "--steps", str(steps), "--no-shuffle", "--metrics", metrics]
    for feed, file in data.items():
        cmd += ["--data", "%s=@%s" % (feed, file)]
    if init_from:
        cmd += ["--init-from", init_from]
    if nranks > 1:
        cmd += ["--nproc-per-node", str(nranks), "--master-port", "0"]
        if log_dir:
            cmd += ["--log-dir", log_dir]
    cmd += list(extra)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if output:
        with open(output, "w") as f:
            f.write(r.stdout + r.stderr)
    if r.returncode != 0:
        raise RuntimeError("dist-run failed: %s\n  command: %s"
                           % (r.stderr.strip() or r.stdout.strip(), " ".join(cmd)))
    with open(metrics) as f:
        records = [json.loads(line) for line in f if line.strip()]
    if len(records) != steps:
        raise RuntimeError("dist-run wrote %d metrics records for %d steps"
                           % (len(records), steps))
    return records


def step_times(records, rows, warmup):
    """Seconds per step for steps warmup+1 .. of dist-run's metrics records,
    on rank 0. samples_per_sec is the global batch's rows (`rows` a step)
    over the accumulated time of rank 0's DistModel::step calls (the train
    program with its collectives; batching, the loss's sum over the ranks
    and metrics writing are outside it). So the time after step s is
    s * rows / samples_per_sec and its differences are the step times."""
    elapsed = [r["step"] * rows / r["samples_per_sec"] for r in records]
    return [t1 - t0 for t0, t1 in zip(elapsed[warmup - 1:], elapsed[warmup:])]


# BuildStrategy's fusion keys (docs/fusion.md), and the --fusion variants
# the benchmarks take: none, all, bn (the batch-norm fusions) or one key.
FUSION_KEYS = ("fused_attention", "fused_feedforward", "fuse_bn_act_ops", "fuse_bn_add_act_ops", "fuse_gemm_epilogue",
               "fuse_dropout_add", "fuse_elewise_add_act_ops", "fuse_all_optimizer_ops",
               "enable_auto_fusion")
FUSION_GROUPS = {"none": (), "all": FUSION_KEYS, "bn": ("fuse_bn_act_ops", "fuse_bn_add_act_ops")}


def fusion_config(variant):
    """The --config BuildStrategy keys of a fusion variant; exits naming the
    known ones for an unknown variant."""
    keys = FUSION_GROUPS.get(variant, (variant,) if variant in FUSION_KEYS else None)
    if keys is None:
        sys.exit("bench: unknown fusion variant %r (%s or one of %s)"
                 % (variant, ", ".join(FUSION_GROUPS), ", ".join(FUSION_KEYS)))
    return {key: True for key in keys}

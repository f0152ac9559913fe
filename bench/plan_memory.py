#!/usr/bin/env python3
"""Arena planner quality and speed on the public memory traces.

Runs distc-plan-memory (the planner, and --algorithm best-fit, the
size-sorted best-fit baseline, in the same run) on every *.csv trace of a
directory and on a synthetic 60,000-buffer training step
(bench/gen_training_trace.py), prints a table and the geometric means of
arena / lower bound against the targets, and exits 1 if a target is
missed. See docs/memory-planning.md.

    bench/plan_memory.py [TRACE_DIR] [--build-dir build] [--buffers 60000]

TRACE_DIR defaults to ../shared/data/memory-traces beside the checkout.
Needs only the system Python. Not a test: ctest does not run it.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(HERE)
REAL_TRACES = ["somas-resnet50-train.csv", "iopddl-G.csv"]
TARGET_REAL = 1.005
TARGET_MINIMALLOC = 1.10
TARGET_SYNTHETIC_SECONDS = 1.0
LINE = re.compile(r"^arena=(\d+) lower_bound=(\d+) ratio=([0-9.]+) seconds=([0-9.]+)$")


def plan(tool, trace, *flags):
    out = subprocess.run([tool, trace, *flags], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit("%s failed on %s: %s" % (tool, trace, out.stderr.strip()))
    match = LINE.match(out.stdout.strip())
    if not match:
        sys.exit("unexpected output of %s on %s: %r" % (tool, trace, out.stdout))
    arena, bound, _, seconds = match.groups()
    return int(arena), int(bound), float(seconds)


def count_buffers(trace):
    with open(trace) as f:
        return sum(1 for line in f if line.strip()) - 1


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("traces", nargs="?",
                        default=os.path.join(os.path.dirname(CHECKOUT), "shared", "data",
                                             "memory-traces"))
    parser.add_argument("--build-dir", default=os.path.join(CHECKOUT, "build"))
    parser.add_argument("--buffers", type=int, default=60000,
                        help="buffers of the synthetic trace (0: none)")
    parser.add_argument("--no-synthetic-baseline", action="store_true",
                        help="skip best fit on the synthetic trace (it is O(n^2) there)")
    args = parser.parse_args()
    tool = os.path.join(args.build_dir, "bin", "distc-plan-memory")
    if not os.access(tool, os.X_OK):
        sys.exit("no %s: build it first (ninja -C %s distc-plan-memory)" % (tool, args.build_dir))

    traces = sorted(os.path.join(args.traces, name) for name in os.listdir(args.traces)
                    if name.endswith(".csv"))
    work = tempfile.mkdtemp(prefix="plan-memory-")
    synthetic = None
    if args.buffers > 0:
        synthetic = os.path.join(work, "synthetic-training-%d.csv" % args.buffers)
        subprocess.run([sys.executable, os.path.join(HERE, "gen_training_trace.py"), synthetic,
                        "--buffers", str(args.buffers)], check=True)
        traces.append(synthetic)

    header = "%-28s %7s %14s %14s %7s %8s %9s %8s" % (
        "trace", "buffers", "lower bound", "arena", "ratio", "seconds", "best-fit", "seconds")
    print(header)
    print("-" * len(header))
    ratios = {}
    seconds = {}
    for trace in traces:
        name = os.path.basename(trace)
        arena, bound, secs = plan(tool, trace)
        if trace == synthetic and args.no_synthetic_baseline:
            baseline = "-"
            baseline_secs = "-"
        else:
            fit_arena, _, fit_secs = plan(tool, trace, "--algorithm", "best-fit")
            baseline = "%.4f" % (fit_arena / bound)
            baseline_secs = "%.3f" % fit_secs
        ratios[name] = arena / bound
        seconds[name] = secs
        print("%-28s %7d %14d %14d %7.4f %8.3f %9s %8s" % (
            name, count_buffers(trace), bound, arena, arena / bound, secs, baseline,
            baseline_secs))

    missed = []
    print()
    real = [ratios[n] for n in REAL_TRACES if n in ratios]
    if real:
        g = geomean(real)
        print("geomean real traces (%s): %.4f  target <= %.3f  %s" % (
            ", ".join(n for n in REAL_TRACES if n in ratios), g, TARGET_REAL,
            "met" if g <= TARGET_REAL else "MISSED"))
        if g > TARGET_REAL:
            missed.append("real")
    mm = [r for n, r in sorted(ratios.items()) if n.startswith("minimalloc-")]
    if mm:
        g = geomean(mm)
        print("geomean MiniMalloc (%d traces): %.4f  target <= %.2f  %s" % (
            len(mm), g, TARGET_MINIMALLOC, "met" if g <= TARGET_MINIMALLOC else "MISSED"))
        if g > TARGET_MINIMALLOC:
            missed.append("minimalloc")
    if synthetic:
        s = seconds[os.path.basename(synthetic)]
        print("synthetic %d buffers: %.3f s  target < %.1f s  %s" % (
            args.buffers, s, TARGET_SYNTHETIC_SECONDS,
            "met" if s < TARGET_SYNTHETIC_SECONDS else "MISSED"))
        if s >= TARGET_SYNTHETIC_SECONDS:
            missed.append("synthetic")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

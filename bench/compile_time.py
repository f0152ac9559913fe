#!/usr/bin/python3
"""Compile time of distc on deep MLPs: how it grows with the program's size
and whether it depends on the number of ranks.

Run through bench/run-bench-compile.sh. For each size (train ops, about 8 a
layer: mul, elementwise_add, relu, their three gradient ops and two adam
ops) it writes a deep MLP (bench/programs.py's mlp) of that many layers,
compiles it with Adam for each number of ranks (`distc -o --timing`), and
prints the seconds of each phase as distc's timing report gives them and the
wall time of the whole run. See docs/benchmarks.md, "Compile time".
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import programs  # noqa: E402
from bench_util import cpu_model, log, run_in_work_dir  # noqa: E402

TRAIN_OPS_PER_LAYER = 8
WIDTH = 4  # small layers: the compile time, not the tensors, is measured
PHASES = ("import", "modes", "distributed", "optimized", "artifact")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default=os.path.join(os.path.dirname(HERE), "build"),
                   help="build directory with bin/distc")
    p.add_argument("--sizes", default="1000,10000,100000",
                   help="comma-separated train-op counts (default: 1000,10000,100000)")
    p.add_argument("--nranks", default="2,1024",
                   help="comma-separated numbers of ranks (default: 2,1024)")
    p.add_argument("--timeout", type=float, default=600,
                   help="seconds one compile may take before it is reported as a timeout "
                   "(default 600)")
    p.add_argument("--work-dir", help="keep the programs and artifacts here (default: a temp dir)")
    p.add_argument("--json", help="also write the results to this JSON file")
    return p.parse_args()


def write_mlp(work, train_ops):
    """The deep MLP of about `train_ops` train ops; returns (main, startup,
    loss, layers)."""
    layers = max(1, train_ops // TRAIN_OPS_PER_LAYER)
    main, startup, loss = programs.mlp([WIDTH] * (layers + 1))
    base = os.path.join(work, "mlp-%d" % layers)
    programs.save(main, base + ".main.json")
    programs.save(startup, base + ".startup.json")
    return base + ".main.json", base + ".startup.json", loss, layers


# A top-level line of distc's --timing report: "    2.7247 ( 32.1%)  import".
PHASE_LINE = re.compile(r"^\s+([0-9.]+) \(\s*[0-9.]+%\)  (\w+)$")


def time_compile(distc, main, startup, loss, nranks, out, timeout):
    """{phase: seconds, "total": wall seconds} of one `distc -o --timing`
    run, or None when it failed or timed out."""
    cmd = [distc, main, "--startup", startup, "--loss", loss, "--optimizer", "adam",
           "--nranks", str(nranks), "-o", out, "--timing"]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        log("  timed out after %.0f s: %s" % (timeout, " ".join(cmd)))
        return None
    seconds = time.perf_counter() - start
    report = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        log("  failed (%d): %s\n%s" % (proc.returncode, " ".join(cmd), report[-2000:]))
        return None
    times = {"total": seconds}
    for line in report.splitlines():
        m = PHASE_LINE.match(line)
        if m and m.group(2) in PHASES:
            times[m.group(2)] = float(m.group(1))
    return times


def run(work):
    distc = os.path.join(ARGS.build_dir, "bin", "distc")
    if not os.access(distc, os.X_OK):
        log("compile_time.py: error: no distc at %s (build first, or give the build "
            "directory)" % distc)
        return 2
    sizes = [int(s) for s in ARGS.sizes.split(",")]
    nranks = [int(n) for n in ARGS.nranks.split(",")]
    columns = list(PHASES) + ["total"]
    log("distc compile time, %s, %d cores" % (cpu_model(), os.cpu_count()))
    rows = []
    failed = False
    for size in sizes:
        main, startup, loss, layers = write_mlp(work, size)
        for n in nranks:
            log("  %d train ops (%d layers), %d ranks" % (size, layers, n))
            out = os.path.join(work, "mlp-%d-%d.distc" % (layers, n))
            times = time_compile(distc, main, startup, loss, n, out, ARGS.timeout)
            failed |= times is None
            row = {"train_ops": size, "layers": layers, "nranks": n}
            row.update({c: (times or {}).get(c) for c in columns})
            rows.append(row)

    header = ["train ops", "layers", "ranks"] + columns
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        cells = [str(row["train_ops"]), str(row["layers"]), str(row["nranks"])]
        cells += ["-" if row[c] is None else "%.2f" % row[c] for c in columns]
        print("| " + " | ".join(cells) + " |")
    print("(seconds; phases as distc --timing reports them, total: the whole distc -o run)")
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump({"cpu": cpu_model(), "cores": os.cpu_count(), "rows": rows}, f, indent=1)
    return 1 if failed else 0


ARGS = parse_args()

if __name__ == "__main__":
    sys.exit(run_in_work_dir(run, ARGS.work_dir, "distc-compile-bench-"))

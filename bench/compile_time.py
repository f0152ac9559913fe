#!/usr/bin/python3
"""Compile time of distc on deep MLPs: how it grows with the program's size
and whether it depends on the number of ranks or the size of the mesh.

Run through bench/run-bench-compile.sh. For each size (train ops, about 8 a
layer: mul, elementwise_add, relu, their three gradient ops and two adam
ops) it writes a deep MLP (bench/programs.py's mlp) of that many layers and
compiles it with Adam, and prints the seconds of each phase as distc's
timing report gives them and the wall time of the whole run.

* By default, data parallel for each number of ranks (`--nranks`:
  `distc --nranks N -o --timing`).
* With `--meshes`, auto parallel for each mesh size M (`distc --placements
  P --compile-to=artifact --timing`, the artifact printed to /dev/null): a
  2-D mesh [M/2, 2] (dp, mp), the feed x split on its batch axis over dp and
  the layers' weights split Megatron style over mp, column-split (Shard(1))
  and row-split (Shard(0)) in turn. The batch is dynamic and the width (4)
  is split by mp = 2 alone, so every mesh gives every rank the same program
  but for the dp axis' size; the compile time should not depend on M.
  The ratio of the largest mesh's total to the smallest's is printed.

See docs/benchmarks.md, "Compile time" and "Compile time and mesh size".
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
from bench_util import built_tool, cpu_model, log, run_in_work_dir  # noqa: E402

TRAIN_OPS_PER_LAYER = 8
WIDTH = 4  # small layers: the compile time, not the tensors, is measured
PHASES = ("import", "modes", "sharded", "distributed", "optimized", "artifact")
MP = 2  # the mesh axis of tensor parallelism in --meshes mode


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default=os.path.join(os.path.dirname(HERE), "build"),
                   help="build directory with bin/distc")
    p.add_argument("--sizes",
                   help="comma-separated train-op counts (default: 1000,10000,100000; "
                   "with --meshes: 10000)")
    p.add_argument("--nranks", default="2,1024",
                   help="comma-separated numbers of ranks (default: 2,1024)")
    p.add_argument("--meshes",
                   help="comma-separated even mesh sizes M: compile auto parallel on the "
                   "mesh [M/2, 2] (dp, mp) instead of data parallel with --nranks")
    p.add_argument("--rounds", type=int, default=1,
                   help="compile each case this many times, in turns, and keep the run "
                   "with the smallest total (default 1)")
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


def write_placements(work, layers, mesh_size):
    """The placements of the mesh [mesh_size/2, 2] (dp, mp): x split on its
    batch axis over dp, fc_i.w_0 split over mp by columns (even i) or rows
    (odd i), Megatron's column/row pairs. Returns the file's path."""
    tensors = {"x": ["Shard(0)", "Replicate()"]}
    for i in range(layers):
        tensors["fc_%d.w_0" % i] = ["Replicate()", "Shard(1)" if i % 2 == 0 else "Shard(0)"]
    placements = {"mesh": {"shape": [mesh_size // MP, MP], "dim_names": ["dp", "mp"]},
                  "tensors": tensors}
    path = os.path.join(work, "mlp-%d.mesh-%d.json" % (layers, mesh_size))
    with open(path, "w") as f:
        json.dump(placements, f)
    return path


# A top-level line of distc's --timing report: "    2.7247 ( 32.1%)  import".
PHASE_LINE = re.compile(r"^\s+([0-9.]+) \(\s*[0-9.]+%\)  (\w+)$")


def time_compile(distc, main, startup, loss, target, timeout):
    """{phase: seconds, "total": wall seconds} of one `distc --timing` run
    with the options `target` (the ranks and the output), or None when it
    failed or timed out."""
    cmd = [distc, main, "--startup", startup, "--loss", loss, "--optimizer", "adam",
           "--timing"] + target
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


def parse_list(text, what):
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise SystemExit("compile_time.py: error: %s must be positive integers separated by "
                         "commas, not '%s'" % (what, text))
    return values


def cases(work, layers):
    """(label, options after the program) of each compile of one program."""
    if not ARGS.meshes:
        for n in parse_list(ARGS.nranks, "--nranks"):
            out = os.path.join(work, "mlp-%d-%d.distc" % (layers, n))
            yield {"nranks": n}, ["--nranks", str(n), "-o", out]
        return
    for m in parse_list(ARGS.meshes, "--meshes"):
        if m % MP:
            raise SystemExit("compile_time.py: error: mesh size %d is odd: the mesh is "
                             "[M/2, 2]" % m)
        placements = write_placements(work, layers, m)
        label = {"mesh": "%dx%d" % (m // MP, MP), "nranks": m}
        yield label, ["--placements", placements, "--compile-to=artifact"]


def run(work):
    distc = built_tool(ARGS.build_dir, "distc", "compile_time.py")
    if not distc:
        return 2
    default_sizes = "10000" if ARGS.meshes else "1000,10000,100000"
    sizes = parse_list(ARGS.sizes or default_sizes, "--sizes")
    columns = list(PHASES) + ["total"]
    log("distc compile time, %s, %d cores" % (cpu_model(), os.cpu_count()))
    rows = []
    failed = False
    for size in sizes:
        main, startup, loss, layers = write_mlp(work, size)
        todo = list(cases(work, layers))
        best = [None] * len(todo)
        for r in range(ARGS.rounds):
            for i, (label, target) in enumerate(todo):
                log("  %d train ops (%d layers), %s, round %d" %
                    (size, layers, ", ".join("%s %s" % kv for kv in label.items()), r + 1))
                times = time_compile(distc, main, startup, loss, target, ARGS.timeout)
                failed |= times is None
                if times and (best[i] is None or times["total"] < best[i]["total"]):
                    best[i] = times
        for (label, _), times in zip(todo, best):
            row = {"train_ops": size, "layers": layers}
            row.update(label)
            row.update({c: (times or {}).get(c) for c in columns})
            rows.append(row)

    keys = ["train_ops", "layers"] + (["mesh"] if ARGS.meshes else []) + ["nranks"]
    shown = [c for c in columns if any(row[c] is not None for row in rows)]
    header = ["train ops", "layers"] + (["mesh"] if ARGS.meshes else []) + ["ranks"] + shown
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        cells = [str(row[k]) for k in keys]
        cells += ["-" if row[c] is None else "%.2f" % row[c] for c in shown]
        print("| " + " | ".join(cells) + " |")
    print("(seconds; phases as distc --timing reports them, total: the whole distc run%s)" %
          ("; the best of %d rounds" % ARGS.rounds if ARGS.rounds > 1 else ""))
    ratios = {}
    for size in sizes:
        totals = [row for row in rows if row["train_ops"] == size and row["total"] is not None]
        if len(totals) > 1:
            small = min(totals, key=lambda row: row["nranks"])
            large = max(totals, key=lambda row: row["nranks"])
            ratios[size] = large["total"] / small["total"]
            print("%d train ops: total with %d ranks / with %d ranks = %.3f" %
                  (size, large["nranks"], small["nranks"], ratios[size]))
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump({"cpu": cpu_model(), "cores": os.cpu_count(), "rounds": ARGS.rounds,
                       "rows": rows, "ratios": ratios}, f, indent=1)
    return 1 if failed else 0


ARGS = parse_args()

if __name__ == "__main__":
    sys.exit(run_in_work_dir(run, ARGS.work_dir, "distc-compile-bench-"))

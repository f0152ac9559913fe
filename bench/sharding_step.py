#!/usr/bin/python3
"""Step time of tensor-parallel against data-parallel training on CPU
ranks: what each way of splitting a step over 2 and 4 ranks costs.

Run through bench/run-bench-sharding-step.sh. For the models of
bench/sharding_memory.py (bench/programs.py's MLP 784-1024-1024-10 and its
transformer encoder block, here without dropout) and each optimizer, it
trains the same global batch of G rows a step with dist-run in these
layouts:

  * serial: the program without --nranks or --placements, 1 rank, batch G
    (and once more with every core's threads when the ranks get fewer);
  * dp --nranks: `distc --nranks N` (its own transpile, overlapped
    gradient all-reduces), N ranks of G/N rows; "fused": the same with
    --fuse-all-reduce (one all-reduce of every gradient a step);
  * dp: a 1-D mesh [N] with the feed Shard(0), G/N rows a replica;
  * tp: Megatron tensor parallelism on [N] (bench/sharding_memory.py's
    layout), one replica of G rows that every rank reads;
  * dp x tp: [2, 2], the batch over the first axis, Megatron over the
    second, G/2 rows a replica.

It prints each layout's median step time after warm-up (rank 0's
accumulated DistModel::step time from dist-run's --metrics, as
bench/bench_ddp.py reads it), the median of R alternating runs (ranks that
outnumber the cores share them differently from run to run), its ratio to
the serial step and to `dp --nranks` on the same ranks, samples/s, and the
collectives of its train program. Every run's first losses must agree
with the serial run's to 1e-4 relative (all layouts start from the same
parameters: the startup program draws them whole and each rank keeps its
slice), so the times compare equal work; the exit status is 1 when they do
not, or when a layout does not compile or train. See docs/benchmarks.md,
"Step time under sharding".
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import programs  # noqa: E402
import sharding_memory as layouts  # noqa: E402
from bench_util import (DistcTools, OtherLoad, add_blas_option, add_model_options,  # noqa: E402
                        add_wait_idle_option, blas_description, chosen_models, choose_blas_kernels, cpu_model, dist_run_train, log,
                        median_ms, run_in_work_dir, step_times, wait_idle)

LR = 0.01
BATCHES = 8  # global batches in the data; --no-shuffle visits them in order
CHECK_STEPS = 3  # the first losses of every run, against the serial run's
TOLERANCE = 1e-4  # relative
RUN_TIMEOUT = 600  # seconds; a hung rank must not hang the benchmark
# The ops of a train program that communicate (docs/kernels.md); c_wait,
# c_split and c_comm_check do not.
COLLECTIVES = ("c_allreduce", "c_allgather", "c_alltoall", "c_broadcast", "c_reduce",
               "c_reducescatter")
LISTED_OP = re.compile(r"^\s+(?:[^=(]+ = )?(c_\w+)\(")
# dist-run --profile's table of the train program's kernels.
PROFILE_HEAD = re.compile(r"^profile of train/[^/]+/main: \d+ runs?, ([\d.]+) ms of kernels")
PROFILE_KERNEL = re.compile(r"^\s+[\d.]+\s+([\d.]+)\s+[\d.]+%\s+(\w+)\s*$")


def parse_args():
    cores = len(os.sched_getaffinity(0))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default=os.path.join(os.path.dirname(HERE), "build"),
                   help="build directory with bin/distc and bin/dist-run")
    add_model_options(p)
    p.add_argument("--ranks", default="2,4",
                   help="comma-separated rank counts N (default 2,4; 4 adds the [2, 2] mesh)")
    p.add_argument("--global-batch", type=int, metavar="G",
                   help="rows of a step in every layout; N and 2 must divide it (default 128, "
                   "32 with --quick)")
    p.add_argument("--threads-per-rank", type=int, default=1,
                   help="threads of every rank and of the serial run (default 1); the serial "
                   "run is timed again with one thread per core (%d here) when that is more"
                   % cores)
    p.add_argument("--rounds", type=int, default=3,
                   help="timed runs per layout, in an order that reverses every round; the "
                   "median of the runs' medians counts (default 3)")
    add_wait_idle_option(p)
    p.add_argument("--profile", action="store_true",
                   help="after the timed runs, run every layout once more with dist-run "
                   "--profile and report the share of rank 0's kernel time spent in "
                   "collectives and waiting for them")
    p.add_argument("--quick", action="store_true",
                   help="global batch 32, few steps, one round (a smoke run)")
    p.add_argument("--work-dir", help="keep programs, placements, artifacts, data, metrics and "
                   "rank logs here (default: a temp dir)")
    p.add_argument("--json", help="also write the results to this JSON file")
    add_blas_option(p)
    return p.parse_args()


# Warm-up and timed steps of each model: a few hundred ms to a few s a run.
STEPS = {"mlp": (5, 40), "transformer": (3, 20)}
QUICK_STEPS = {"mlp": (2, 5), "transformer": (1, 3)}


def build_model(work, model, global_batch, rng):
    """Writes the model's programs and BATCHES global batches of random
    data; returns (main, startup, {feed: .npy})."""
    rows = BATCHES * global_batch
    if model == "mlp":
        main, startup, loss = programs.mlp(layouts.MLP_DIMS)
        classes = layouts.MLP_DIMS[-1]
        feed = rng.standard_normal((rows, layouts.MLP_DIMS[0]), dtype=np.float32)
    else:
        # No dropout: its masks are random draws, and the loss check needs
        # the serial run's numbers.
        enc = dict(layouts.ENCODER, dropout=0.0)
        main, startup, loss = programs.transformer(**enc)
        classes = enc["classes"]
        feed = rng.integers(0, enc["vocab"], (rows, enc["seq"])).astype(np.int64)
    assert loss == layouts.LOSS
    paths = (os.path.join(work, model + ".main.json"),
             os.path.join(work, model + ".startup.json"))
    programs.save(main, paths[0])
    programs.save(startup, paths[1])
    data = {layouts.MODELS[model]["feed"]: os.path.join(work, model + ".feed.npy"),
            "label": os.path.join(work, model + ".label.npy")}
    np.save(data[layouts.MODELS[model]["feed"]], feed)
    np.save(data["label"], rng.integers(0, classes, (rows, 1)).astype(np.int64))
    return paths[0], paths[1], data


def layouts_of(model, ranks, global_batch, threads, cores, fused):
    """The configurations to time: dicts with the layout's name, mesh,
    ranks, rows a replica, threads a rank, and distc's flags or the
    placements file's content. `fused`: distc has --fuse-all-reduce, so
    data parallelism is also timed with one all-reduce a step."""
    out = [dict(layout="serial", mesh=None, ranks=1, batch=global_batch, threads=threads,
                flags=[], placements=None)]
    if cores > threads:
        out.append(dict(layout="serial, %d threads" % cores, mesh=None, ranks=1,
                        batch=global_batch, threads=cores, flags=[], placements=None))
    for n in ranks:
        out.append(dict(layout="dp --nranks", mesh=None, ranks=n, batch=global_batch // n,
                        threads=threads, flags=["--nranks", str(n)], placements=None))
        if fused:
            out.append(dict(layout="dp --nranks, fused", mesh=None, ranks=n,
                            batch=global_batch // n, threads=threads,
                            flags=["--nranks", str(n), "--fuse-all-reduce"], placements=None))
        mesh_layouts = [("dp", [n], 0, None, None, global_batch // n),
                        ("tp", [n], None, "tp", 0, global_batch)]
        if n == 4:
            mesh_layouts.append(("dp x tp", [2, 2], 0, "tp", 1, global_batch // 2))
        for name, mesh, batch_axis, tp, tp_axis, batch in mesh_layouts:
            _, placements = layouts.layout_of(model, (name, mesh, batch_axis, tp, tp_axis))
            out.append(dict(layout=name, mesh=mesh, ranks=n, batch=batch, threads=threads,
                            flags=[], placements=placements))
    return out


def label(config):
    """The layout and its mesh, or its ranks when it has no mesh."""
    if config["mesh"]:
        return "%s %s" % (config["layout"], mesh_text(config))
    return "%s, %d rank(s)" % (config["layout"], config["ranks"])


def mesh_text(config):
    return "[%s]" % ", ".join(map(str, config["mesh"])) if config["mesh"] else "-"


def tag(model, optimizer, config):
    return "%s.%s.%s.%dr" % (model, optimizer, re.sub(r"[^a-z0-9]+", "", config["layout"]),
                             config["ranks"])


class Bench(DistcTools):
    def __init__(self, work):
        super().__init__(work, ARGS.build_dir, "sharding_step.py")

    def compile(self, main, startup, optimizer, config, name):
        """Compiles the configuration to name.distc; returns (artifact,
        collectives a train step, error). The collectives are counted in
        the train program of distc's artifact listing (--compile-to=artifact
        without -o)."""
        cmd = [self.distc, main, "--startup", startup, "--loss", layouts.LOSS, "--optimizer",
               optimizer, "--lr", str(LR)] + config["flags"]
        if config["placements"]:
            placements = self.path(name + ".placements.json")
            with open(placements, "w") as f:
                json.dump(config["placements"], f)
            cmd += ["--placements", placements]
        artifact = self.path(name + ".distc")
        r = subprocess.run(cmd + ["-o", artifact], capture_output=True, text=True)
        if r.returncode != 0:
            return None, None, "%s\n    %s" % ((r.stderr.strip() or r.stdout.strip()),
                                               " ".join(cmd + ["-o", artifact]))
        r = subprocess.run(cmd + ["--compile-to=artifact"], capture_output=True, text=True)
        counts, inside = {}, False
        for line in r.stdout.splitlines():
            if line and not line[0].isspace():
                inside = line.startswith("train/") and line.rstrip().endswith("/main")
            elif inside:
                m = LISTED_OP.match(line)
                if m and m.group(1) in COLLECTIVES:
                    counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        return artifact, counts, None

    def train(self, artifact, data, config, steps, profile=False):
        """dist-run's metrics records of one run; with `profile`, the
        records and rank 0's output of a run with --profile."""
        self.runs += 1
        env = dict(os.environ)
        for var in ("DISTC_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                    "MKL_NUM_THREADS"):
            env[var] = str(config["threads"])
        env.setdefault("GLOO_SOCKET_IFNAME", "lo")
        stem = self.path("run-%d" % self.runs)
        records = dist_run_train(self.dist_run, artifact, data, config["ranks"],
                                 config["batch"], steps, stem + ".metrics.jsonl",
                                 log_dir=stem + ".logs", env=env, timeout=RUN_TIMEOUT,
                                 extra=["--profile"] if profile else [], output=stem + ".out")
        if not profile:
            return records
        first = (os.path.join(stem + ".logs", "workerlog.0") if config["ranks"] > 1
                 else stem + ".out")
        with open(first) as f:
            return records, f.read()


def collective_share(text):
    """(kernel ms a step, of which in collectives and c_wait) of the train
    program in dist-run --profile's output, or None."""
    total, comm, inside = None, 0.0, False
    for line in text.splitlines():
        head = PROFILE_HEAD.match(line)
        if head:
            total, inside = float(head.group(1)), True
        elif inside and "calls/run" not in line:
            kernel = PROFILE_KERNEL.match(line)
            if not kernel:
                break
            if kernel.group(2) in COLLECTIVES or kernel.group(2) == "c_wait":
                comm += float(kernel.group(1))
    return None if total is None else (total, comm)


def rel_diff(ours, serial):
    return max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(ours, serial))


def fmt(v, spec="%.2f"):
    return "-" if v is None else spec % v


def run(work):
    b = Bench(work)
    models, optimizers = chosen_models(ARGS, list(STEPS), "sharding_step.py")
    ranks = [int(n) for n in ARGS.ranks.split(",") if n]
    global_batch = ARGS.global_batch or (32 if ARGS.quick else 128)
    for n in ranks + [2]:
        if n < 2 or global_batch % n:
            sys.exit("sharding_step.py: error: --ranks takes counts of at least 2 that "
                     "divide the global batch %d (and so does 2), not %d" % (global_batch, n))
    rounds = 1 if ARGS.quick else ARGS.rounds
    steps_of = QUICK_STEPS if ARGS.quick else STEPS
    cores = len(os.sched_getaffinity(0))
    threads = ARGS.threads_per_rank
    fused = "--fuse-all-reduce" in subprocess.run([b.distc, "--help"], capture_output=True,
                                                  text=True).stdout

    print("machine: %d cores, %s; distc's BLAS: %s; float32, lr %g"
          % (cores, cpu_model(), blas_description(b.dist_run), LR))
    print("global batch %d rows a step in every layout; %d thread(s) a rank (DISTC_NUM_THREADS, "
          "OPENBLAS_NUM_THREADS, OMP_NUM_THREADS); %d round(s); warm-up + timed steps: %s"
          % (global_batch, threads, rounds,
             ", ".join("%s %d+%d" % (m, *steps_of[m]) for m in models)))
    sys.stdout.flush()
    total_load = OtherLoad()
    rng = np.random.default_rng(0)
    results, problems = [], []
    for model in models:
        main, startup, data = build_model(work, model, global_batch, rng)
        warmup, timed = steps_of[model]
        for optimizer in optimizers:
            configs = []
            for config in layouts_of(model, ranks, global_batch, threads, cores, fused):
                name = tag(model, optimizer, config)
                artifact, counts, error = b.compile(main, startup, optimizer, config, name)
                row = dict(config, model=model, optimizer=optimizer, artifact=artifact,
                           collectives=counts, error=error, medians_ms=[], other_load=[],
                           losses=[])
                if error:
                    problems.append("%s %s %s does not compile: %s"
                                    % (model, optimizer, label(config),
                                       error))
                else:
                    configs.append(row)
                results.append(row)
            for r in range(rounds):
                for row in (configs if r % 2 == 0 else configs[::-1]):
                    if row["error"]:
                        continue
                    log("%s %s: %s %s, %d rank(s), round %d/%d"
                        % (model, optimizer, row["layout"], mesh_text(row), row["ranks"], r + 1,
                           rounds))
                    if ARGS.wait_idle > 0:
                        waited = wait_idle(ARGS.wait_idle)
                        if waited > 1:
                            log("  waited %.0f s for other load to drop" % waited)
                    load = OtherLoad()
                    try:
                        records = b.train(row["artifact"], data, row, warmup + timed)
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        row["error"] = str(e)
                        problems.append("%s %s %s does not train: %s"
                                        % (model, optimizer, label(row), e))
                        continue
                    row["other_load"].append(load.cores())
                    row["medians_ms"].append(
                        median_ms(step_times(records, global_batch, warmup)))
                    row["losses"].append([rec["loss"] for rec in records])
            if ARGS.profile:
                for row in configs:
                    if row["error"]:
                        continue
                    log("%s %s: %s %s, %d rank(s), --profile"
                        % (model, optimizer, row["layout"], mesh_text(row), row["ranks"]))
                    try:
                        _, text = b.train(row["artifact"], data, row, warmup + timed, True)
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        problems.append("%s %s %s does not train with --profile: %s"
                                        % (model, optimizer, label(row), e))
                        continue
                    row["profile"] = collective_share(text)
            # Every run's first losses against the first serial run's.
            serial = configs[0] if configs and configs[0]["layout"] == "serial" else None
            if serial is None or not serial["losses"]:
                problems.append("%s %s: no serial run to check the losses against"
                                % (model, optimizer))
            for row in configs:
                row["median_ms"] = (statistics.median(row["medians_ms"]) if row["medians_ms"]
                                    else None)
                if serial is None or not serial["losses"] or not row["losses"]:
                    continue
                ref = serial["losses"][0]
                row["check_rel_diff"] = max(rel_diff(ls[:CHECK_STEPS], ref[:CHECK_STEPS])
                                            for ls in row["losses"])
                row["last_rel_diff"] = max(abs(ls[-1] - ref[-1]) / max(abs(ref[-1]), 1e-12)
                                           for ls in row["losses"])
                if row["check_rel_diff"] > TOLERANCE:
                    problems.append(
                        "%s %s %s: the first %d losses %s differ from the serial run's %s "
                        "(max rel diff %.1e)"
                        % (model, optimizer, label(row), CHECK_STEPS,
                           ["%.7f" % v for v in row["losses"][0][:CHECK_STEPS]],
                           ["%.7f" % v for v in ref[:CHECK_STEPS]], row["check_rel_diff"]))

    print()
    print("| model | opt | layout | mesh | ranks | rows/replica | step ms | runs | vs serial "
          "| vs dp --nranks | samples/s | collectives/step |%s other load |"
          % (" in collectives |" if ARGS.profile else ""))
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|%s---:|"
          % ("---:|" if ARGS.profile else ""))
    for row in results:
        peers = [r for r in results if r["model"] == row["model"]
                 and r["optimizer"] == row["optimizer"]]
        serial = next((r.get("median_ms") for r in peers if r["layout"] == "serial"), None)
        dp = next((r.get("median_ms") for r in peers
                   if r["layout"] == "dp --nranks" and r["ranks"] == row["ranks"]), None)
        t = row.get("median_ms")
        loads = [x for x in row["other_load"] if x is not None]
        coll = ", ".join("%d %s" % (c, k[2:]) for k, c in sorted((row["collectives"] or {})
                                                                 .items())) or "-"
        spread = ("%.1f-%.1f" % (min(row["medians_ms"]), max(row["medians_ms"]))
                  if row["medians_ms"] else "-")
        if ARGS.profile:
            share = row.get("profile")
            coll += " | " + ("%.0f%%" % (100 * share[1] / share[0])
                             if share and share[0] and row["ranks"] > 1 else "-")
        print("| %s | %s | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |"
              % (row["model"], row["optimizer"], row["layout"], mesh_text(row), row["ranks"],
                 row["batch"], fmt(t) if not row["error"] else "error", spread,
                 fmt(t / serial if t and serial else None),
                 fmt(t / dp if t and dp and row["ranks"] > 1 else None),
                 fmt(global_batch / t * 1e3 if t else None, "%.0f"), coll,
                 fmt(statistics.mean(loads) if loads else None)))
    print("(step ms: median over a run's timed steps, median of %d run(s); runs: the lowest "
          "and highest run's; vs serial, vs dp --nranks: step time over the 1-thread "
          "serial step, over dp --nranks's on the same ranks (below 1: faster); samples/s: %d "
          "rows over the step time;%s other load: cores that other processes used during the "
          "runs)" % (rounds, global_batch, " in collectives: rank 0's kernel time in "
                     "collectives and waiting for them, of one run with dist-run --profile;"
                     if ARGS.profile else ""))
    other = total_load.cores()
    print("other processes used %s cores on average while the benchmark ran (0: an otherwise "
          "idle machine)" % fmt(other))
    checked = [r for r in results if "check_rel_diff" in r]
    if checked:
        print("loss check: the first %d losses of every run against the serial run's: max rel "
              "diff %.1e (tolerance %.0e)"
              % (CHECK_STEPS, max(r["check_rel_diff"] for r in checked), TOLERANCE))
        # Later losses drift apart by rounding alone: the serial run with
        # other threads (another summation order) shows how far.
        for model in models:
            for optimizer in optimizers:
                rows = [r for r in checked if r["model"] == model and r["optimizer"] == optimizer]
                threaded = [r for r in rows if r["layout"].startswith("serial,")]
                if rows:
                    print("  %s %s after step %d: max rel diff %.1e%s"
                          % (model, optimizer, len(rows[0]["losses"][0]),
                             max(r["last_rel_diff"] for r in rows),
                             "; the serial run with %d threads alone: %.1e"
                             % (threaded[0]["threads"], threaded[0]["last_rel_diff"])
                             if threaded else ""))
    for problem in problems:
        print("FAILED: " + problem)
    if problems and not ARGS.work_dir:
        print("(the files are removed; --work-dir DIR keeps them to rerun a command)")
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump(dict(cpu=cpu_model(), cores=cores, threads_per_rank=threads,
                           global_batch=global_batch, rounds=rounds, lr=LR,
                           other_load_cores=other, results=results, problems=problems), f,
                      indent=1)
            f.write("\n")
    return 1 if problems else 0


if __name__ == "__main__":
    ARGS = parse_args()
    choose_blas_kernels(ARGS.keep_openblas_coretype)  # before NumPy loads OpenBLAS
    import numpy as np  # noqa: E402
    sys.exit(run_in_work_dir(run, ARGS.work_dir, "distc-sharding-step-"))

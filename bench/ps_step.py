#!/usr/bin/python3
"""Step time of synchronous parameter-server training against collective
data parallelism on the same model, ranks and global batch.

Run through bench/run-bench-ps.sh. For bench/programs.py's MLP
784-1024-1024-10 (and, with --models, its transformer encoder block
without dropout, or that block with a 100000-row embedding table looked up
densely, `embedding-dense`, or sparsely, `embedding`: is_sparse, whose
trainers send the servers only the rows a batch looked up) and each
optimizer, it compiles

  * dp: `distc MAIN --startup S --loss L --optimizer O --nranks 2`
    (every gradient all-reduced, Gloo), trained with `dist-run
    --nproc-per-node 2`, G/2 rows a rank; "dp fused" adds
    --fuse-all-reduce (one all-reduce a step) where distc has it;
  * ps: `distc ... --transpiler pserver --pservers 127.0.0.1:P1,127.0.0.1:P2
    --trainers 2` (2 servers, 2 trainers, synchronous, RoundRobin blocks),
    trained with `dist-run --server-num 2 --worker-num 2 --master-port 0`,
    G/2 rows a trainer;

and trains each with `dist-run --mode train --no-shuffle` on the same
random data from the same parameters (`--init-from` a directory of
<name>.npy written here; the servers load their blocks' rows from it). It
prints the median step time of each (rank or trainer 0's accumulated
DistModel::step time from --metrics: the train program with its
collectives or its send/recv), the median of R alternating runs, and the
ratio ps / dp. The first losses of the ps and dp runs must agree to 1e-4
relative; otherwise, or when a configuration does not compile or train,
the exit status is 1. See docs/benchmarks.md, "Parameter servers".
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import programs  # noqa: E402
from bench_util import (DistcTools, OtherLoad, add_blas_option, add_model_options,  # noqa: E402
                        add_wait_idle_option, blas_description, chosen_models,
                        choose_blas_kernels, cpu_model, dist_run_train, log, median_ms,
                        run_in_work_dir, step_times, wait_idle)

LR = 0.01
LOSS = "mean_0.tmp_0"
MLP_DIMS = [784, 1024, 1024, 10]
ENCODER = dict(seq=32, d=128, heads=4, ffn=512, vocab=1000, classes=10, dropout=0.0)
# The transformer block with a table large enough for its gradient to
# dominate a step's traffic.
BIG_TABLE = dict(ENCODER, vocab=100000)
FEEDS = {"mlp": "x", "transformer": "src_ids", "embedding": "src_ids",
         "embedding-dense": "src_ids"}
BATCHES = 8  # global batches in the data; --no-shuffle visits them in order
CHECK_STEPS = 3  # the first losses of the ps run, against the dp run's
TOLERANCE = 1e-4  # relative
RUN_TIMEOUT = 600  # seconds; a hung process must not hang the benchmark
# Warm-up and timed steps of each model.
STEPS = {"mlp": (5, 40), "transformer": (3, 20), "embedding": (3, 20),
         "embedding-dense": (3, 20)}
QUICK_STEPS = {"mlp": (2, 8), "transformer": (1, 4), "embedding": (1, 4),
               "embedding-dense": (1, 4)}
DTYPE_BYTES = {"FP32": 4, "FP64": 8, "INT64": 8, "INT32": 4}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default=os.path.join(os.path.dirname(HERE), "build"),
                   help="build directory with bin/distc and bin/dist-run")
    add_model_options(p)
    p.set_defaults(models="mlp")
    p.add_argument("--global-batch", type=int, metavar="G",
                   help="rows of a step, split over the 2 ranks or trainers (default 128, "
                   "32 with --quick)")
    p.add_argument("--rounds", type=int, default=3,
                   help="timed runs per configuration, in an order that reverses every "
                   "round; the median of the runs' medians counts (default 3)")
    p.add_argument("--threads-per-rank", type=int, default=1,
                   help="threads of every trainer, server and rank (default 1)")
    add_wait_idle_option(p)
    p.add_argument("--quick", action="store_true",
                   help="global batch 32, few steps, one round (a smoke run)")
    p.add_argument("--work-dir", help="keep programs, parameters, artifacts, data, metrics and "
                   "logs here (default: a temp dir)")
    p.add_argument("--json", help="also write the results to this JSON file")
    add_blas_option(p)
    return p.parse_args()


def free_ports(n):
    """`n` TCP ports on 127.0.0.1 that were free a moment ago: the servers'
    endpoints in the artifact (the job must be started with them)."""
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def build_model(work, model, global_batch, rng):
    """Writes the model's programs, BATCHES global batches of random data
    and initial parameters; returns (main, startup, {feed: .npy}, init dir,
    parameter bytes)."""
    rows = BATCHES * global_batch
    if model == "mlp":
        main, startup, loss = programs.mlp(MLP_DIMS)
        classes = MLP_DIMS[-1]
        feed = rng.standard_normal((rows, MLP_DIMS[0]), dtype=np.float32)
    else:
        # No dropout: its masks are random draws, and the loss check needs
        # the same numbers from both runs.
        encoder = ENCODER if model == "transformer" else BIG_TABLE
        main, startup, loss = programs.transformer(**encoder,
                                                   sparse_embedding=model == "embedding")
        classes = encoder["classes"]
        feed = rng.integers(0, encoder["vocab"], (rows, encoder["seq"])).astype(np.int64)
    assert loss == LOSS
    paths = (os.path.join(work, model + ".main.json"),
             os.path.join(work, model + ".startup.json"))
    programs.save(main, paths[0])
    programs.save(startup, paths[1])
    data = {FEEDS[model]: os.path.join(work, model + ".feed.npy"),
            "label": os.path.join(work, model + ".label.npy")}
    np.save(data[FEEDS[model]], feed)
    np.save(data["label"], rng.integers(0, classes, (rows, 1)).astype(np.int64))
    # Every parameter of the main program as <name>.npy: uniform in
    # +-1/sqrt(fan_in) for matrices and embeddings, 1 for layer-norm
    # scales, 0.1 for other vectors (test/ParameterServer/Inputs/params.py's
    # recipe).
    init = os.path.join(work, model + ".params")
    os.makedirs(init, exist_ok=True)
    nbytes = 0
    for var in main.vars:
        if not var.get("is_parameter"):
            continue
        tensor = var["type"]["lod_tensor"]["tensor"]
        shape = [int(d) for d in tensor["dims"]]
        nbytes += int(np.prod(shape)) * DTYPE_BYTES.get(tensor["data_type"], 4)
        name = var["name"]
        if len(shape) == 1:
            value = np.full(shape, 1.0 if name.startswith("layer_norm") and name.endswith(".w_0")
                            else 0.1, np.float32)
        else:
            bound = 1.0 / np.sqrt(shape[0])
            value = rng.uniform(-bound, bound, shape).astype(np.float32)
        np.save(os.path.join(init, name + ".npy"), value)
    return paths[0], paths[1], data, init, nbytes


class Bench(DistcTools):
    def __init__(self, work):
        super().__init__(work, ARGS.build_dir, "ps_step.py")

    def compile(self, main, startup, optimizer, flags, name):
        """Compiles to name.distc; returns (artifact, error)."""
        artifact = self.path(name + ".distc")
        cmd = [self.distc, main, "--startup", startup, "--loss", LOSS, "--optimizer", optimizer,
               "--lr", str(LR)] + flags + ["-o", artifact]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            return None, "%s\n    %s" % (r.stderr.strip() or r.stdout.strip(), " ".join(cmd))
        return artifact, None

    def train(self, config, data, init, batch, steps):
        """dist-run's metrics records (rank or trainer 0's) of one run."""
        self.runs += 1
        env = dict(os.environ)
        for var in ("DISTC_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                    "MKL_NUM_THREADS"):
            env[var] = str(ARGS.threads_per_rank)
        env.setdefault("GLOO_SOCKET_IFNAME", "lo")
        stem = self.path("run-%d" % self.runs)
        if config["kind"] == "ps":
            # Servers and trainers: dist-run starts them all on this node.
            return dist_run_train(self.dist_run, config["artifact"], data, 1, batch, steps,
                                  stem + ".metrics.jsonl", init_from=init, env=env,
                                  timeout=RUN_TIMEOUT, output=stem + ".out",
                                  extra=["--server-num", "2", "--worker-num", "2",
                                         "--master-port", "0", "--log-dir", stem + ".logs"])
        return dist_run_train(self.dist_run, config["artifact"], data, 2, batch, steps,
                              stem + ".metrics.jsonl", log_dir=stem + ".logs", init_from=init,
                              env=env, timeout=RUN_TIMEOUT, output=stem + ".out")


def rel_diff(ours, ref):
    return max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(ours, ref))


def fmt(v, spec="%.2f"):
    return "-" if v is None else spec % v


def run(work):
    b = Bench(work)
    models, optimizers = chosen_models(ARGS, list(STEPS), "ps_step.py")
    global_batch = ARGS.global_batch or (32 if ARGS.quick else 128)
    if global_batch % 2:
        sys.exit("ps_step.py: error: --global-batch must be even (2 ranks or trainers), not %d"
                 % global_batch)
    rounds = 1 if ARGS.quick else ARGS.rounds
    steps_of = QUICK_STEPS if ARGS.quick else STEPS
    cores = len(os.sched_getaffinity(0))
    fused = "--fuse-all-reduce" in subprocess.run([b.distc, "--help"], capture_output=True,
                                                  text=True).stdout
    ports = free_ports(2)
    pservers = ",".join("127.0.0.1:%d" % p for p in ports)

    print("machine: %d cores, %s; distc's BLAS: %s; float32, lr %g"
          % (cores, cpu_model(), blas_description(b.dist_run), LR))
    print("global batch %d rows a step: 2 data-parallel ranks or 2 trainers (+ 2 servers at %s) "
          "of %d rows; %d thread(s) a process; %d round(s); warm-up + timed steps: %s"
          % (global_batch, pservers, global_batch // 2, ARGS.threads_per_rank, rounds,
             ", ".join("%s %d+%d" % (m, *steps_of[m]) for m in models)))
    sys.stdout.flush()
    configs_of = [dict(kind="dp", layout="dp --nranks 2", flags=["--nranks", "2"])]
    if fused:
        configs_of.append(dict(kind="dp", layout="dp --nranks 2, fused",
                               flags=["--nranks", "2", "--fuse-all-reduce"]))
    configs_of.append(dict(kind="ps", layout="ps 2 servers x 2 trainers",
                           flags=["--transpiler", "pserver", "--pservers", pservers,
                                  "--trainers", "2"]))
    total_load = OtherLoad()
    rng = np.random.default_rng(0)
    results, problems = [], []
    for model in models:
        main, startup, data, init, param_bytes = build_model(work, model, global_batch, rng)
        warmup, timed = steps_of[model]
        for optimizer in optimizers:
            configs = []
            for proto in configs_of:
                name = "%s.%s.%s" % (model, optimizer, proto["layout"].replace(" ", "")
                                     .replace(",", "").replace("-", ""))
                artifact, error = b.compile(main, startup, optimizer, proto["flags"], name)
                row = dict(proto, model=model, optimizer=optimizer, artifact=artifact,
                           error=error, medians_ms=[], other_load=[], losses=[],
                           param_bytes=param_bytes)
                if error:
                    problems.append("%s %s %s does not compile: %s"
                                    % (model, optimizer, proto["layout"], error))
                else:
                    configs.append(row)
                results.append(row)
            for r in range(rounds):
                for row in (configs if r % 2 == 0 else configs[::-1]):
                    if row["error"]:
                        continue
                    log("%s %s: %s, round %d/%d" % (model, optimizer, row["layout"], r + 1,
                                                    rounds))
                    if ARGS.wait_idle > 0:
                        waited = wait_idle(ARGS.wait_idle)
                        if waited > 1:
                            log("  waited %.0f s for other load to drop" % waited)
                    load = OtherLoad()
                    try:
                        records = b.train(row, data, init, global_batch // 2, warmup + timed)
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        row["error"] = str(e)
                        problems.append("%s %s %s does not train: %s"
                                        % (model, optimizer, row["layout"], e))
                        continue
                    row["other_load"].append(load.cores())
                    row["medians_ms"].append(
                        median_ms(step_times(records, global_batch, warmup)))
                    row["losses"].append([rec["loss"] for rec in records])
            for row in configs:
                row["median_ms"] = (statistics.median(row["medians_ms"]) if row["medians_ms"]
                                    else None)
            # The ps run's first losses against the dp run's.
            ref = configs[0] if configs and configs[0]["layout"] == "dp --nranks 2" else None
            if ref is None or not ref["losses"]:
                problems.append("%s %s: no dp run to check the losses against"
                                % (model, optimizer))
                continue
            for row in configs:
                if not row["losses"]:
                    continue
                base = ref["losses"][0][:CHECK_STEPS]
                row["check_rel_diff"] = max(rel_diff(ls[:CHECK_STEPS], base)
                                            for ls in row["losses"])
                if row["check_rel_diff"] > TOLERANCE:
                    problems.append(
                        "%s %s %s: the first %d losses %s differ from dp's %s (max rel diff "
                        "%.1e)" % (model, optimizer, row["layout"], CHECK_STEPS,
                                   ["%.7f" % v for v in row["losses"][0][:CHECK_STEPS]],
                                   ["%.7f" % v for v in base], row["check_rel_diff"]))

    print()
    print("| model | opt | configuration | step ms | runs | ps / this | samples/s | "
          "first losses vs dp | other load |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for row in results:
        peers = [r for r in results if r["model"] == row["model"]
                 and r["optimizer"] == row["optimizer"]]
        ps = next((r.get("median_ms") for r in peers if r["kind"] == "ps"), None)
        t = row.get("median_ms")
        loads = [x for x in row["other_load"] if x is not None]
        spread = ("%.1f-%.1f" % (min(row["medians_ms"]), max(row["medians_ms"]))
                  if row["medians_ms"] else "-")
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |"
              % (row["model"], row["optimizer"], row["layout"],
                 fmt(t) if not row["error"] else "error", spread,
                 fmt(ps / t if ps and t and row["kind"] != "ps" else None),
                 fmt(global_batch / t * 1e3 if t else None, "%.0f"),
                 fmt(row.get("check_rel_diff"), "%.1e"),
                 fmt(statistics.mean(loads) if loads else None)))
    print("(step ms: median over a run's timed steps of rank or trainer 0's step time, median "
          "of %d run(s); runs: the lowest and highest run's; ps / this: the ps step over this "
          "configuration's; samples/s: %d rows over the step time; first losses vs dp: max "
          "relative difference of the first %d losses from dp --nranks 2's; other load: cores "
          "that other processes used during the runs)"
          % (rounds, global_batch, CHECK_STEPS))
    for model in models:
        for optimizer in optimizers:
            peers = {r["kind"] + r["layout"]: r for r in results
                     if r["model"] == model and r["optimizer"] == optimizer}
            dp = peers.get("dpdp --nranks 2", {}).get("median_ms")
            ps = next((r.get("median_ms") for r in peers.values() if r["kind"] == "ps"), None)
            if dp and ps:
                print("%s %s: ps %.2f ms, dp %.2f ms a step: ps / dp = %.2f"
                      % (model, optimizer, ps, dp, ps / dp))
    other = total_load.cores()
    print("other processes used %s cores on average while the benchmark ran (0: an otherwise "
          "idle machine)" % fmt(other))
    checked = [r for r in results if "check_rel_diff" in r]
    if checked:
        print("loss check: the first %d losses of every run against dp --nranks 2's: max rel "
              "diff %.1e (tolerance %.0e)"
              % (CHECK_STEPS, max(r["check_rel_diff"] for r in checked), TOLERANCE))
    for problem in problems:
        print("FAILED: " + problem)
    if problems and not ARGS.work_dir:
        print("(the files are removed; --work-dir DIR keeps them to rerun a command)")
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump(dict(cpu=cpu_model(), cores=cores, threads_per_rank=ARGS.threads_per_rank,
                           global_batch=global_batch, rounds=rounds, lr=LR,
                           other_load_cores=other, results=results, problems=problems), f,
                      indent=1)
            f.write("\n")
    return 1 if problems else 0


if __name__ == "__main__":
    ARGS = parse_args()
    choose_blas_kernels(ARGS.keep_openblas_coretype)  # before NumPy loads OpenBLAS
    import numpy as np  # noqa: E402
    sys.exit(run_in_work_dir(run, ARGS.work_dir, "distc-ps-step-"))

#!/usr/bin/python3
"""Data-parallel training on CPU: distc (dist-run, Gloo) against PyTorch
DistributedDataParallel (Gloo), 1 and 2 ranks, same models, optimizer,
per-rank batch and threads per rank.

Run through bench/run-bench-ddp.sh, which installs PyTorch and NumPy. For
each model and optimizer it prints, measured in the same run:

  * the per-step time of each framework on 1 rank (serial training) and on
    2 ranks (per-rank batch b, global batch 2b), and distc/PyTorch;
  * the scaling efficiency of 2 ranks over 1: t(1 rank) / t(2 ranks), i.e.
    throughput(2) / (2 * throughput(1));
  * the collectives each framework issues per step: distc's c_allreduce
    calls in the train program (distc-dump), PyTorch DDP's gradient buckets.

A loss check first trains both frameworks 3 steps on 2 ranks from the same
parameters and compares the global losses. See docs/benchmarks.md, "Data
parallel on CPU".
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_util import (OtherLoad, add_blas_option, add_wait_idle_option,  # noqa: E402
                        blas_description, chosen_models,
                        choose_blas_kernels, cpu_model, dist_run_train, log, median_ms,
                        run_in_work_dir, step_times, wait_idle)

LR = 0.01
BATCHES = 8  # global batches in the data; --no-shuffle visits them in order
CHECK_STEPS = 3
RUN_TIMEOUT = 600  # seconds; a hung rank must not hang the benchmark


def parse_args():
    cores = len(os.sched_getaffinity(0))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir",
                   default=os.path.join(os.path.dirname(HERE), "build"),
                   help="build directory with bin/distc, bin/dist-run and bin/distc-dump")
    p.add_argument("--threads-per-rank", type=int, default=0,
                   help="threads of every rank, in both frameworks and in the 1-rank runs "
                   "(default: cores / 2, at least 1; %d here)" % max(1, cores // 2))
    p.add_argument("--optimizers", default="sgd,adam",
                   help="comma-separated, from sgd and adam (default: sgd,adam)")
    p.add_argument("--models", default="mlp,encoder,tiny",
                   help="comma-separated, from mlp, encoder and tiny (a 16-16-2 MLP with "
                   "batch 8: the fixed cost of a step) (default: all three)")
    p.add_argument("--rounds", type=int, default=3,
                   help="timed runs per configuration, alternating; the best median counts "
                   "(default 3)")
    p.add_argument("--distc-flags", action="append", default=[], metavar="FLAGS",
                   help="extra distc flags for another 2-rank distc row, e.g. "
                   "--distc-flags=\"--fuse-all-reduce --fuse-grad-size-mb 1\" (repeatable: one "
                   "row each; default: one row with --fuse-all-reduce when distc --help lists it)")
    p.add_argument("--omp-wait-policy", default="PASSIVE", choices=("PASSIVE", "ACTIVE"),
                   help="OMP_WAIT_POLICY for PyTorch's OpenMP pool (default PASSIVE)")
    add_wait_idle_option(p)
    p.add_argument("--quick", action="store_true",
                   help="smaller models, few steps, one round (a smoke run)")
    p.add_argument("--work-dir", help="keep programs, artifacts, data and logs here "
                   "(default: a temp dir)")
    p.add_argument("--json", help="also write the results to this JSON file")
    p.add_argument("--torch-worker", help=argparse.SUPPRESS)  # internal: one PyTorch rank
    add_blas_option(p)
    return p.parse_args()


ARGS = parse_args()
if ARGS.torch_worker:
    with open(ARGS.torch_worker) as f:
        WORKER = json.load(f)
    THREADS = WORKER["threads"]
else:
    THREADS = ARGS.threads_per_rank or max(1, len(os.sched_getaffinity(0)) // 2)
# Before NumPy and PyTorch load OpenBLAS / OpenMP: both read these once.
# dist-run's ranks and PyTorch's worker processes inherit them.
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "DISTC_NUM_THREADS"):
    os.environ[var] = str(THREADS)
os.environ["OMP_WAIT_POLICY"] = ARGS.omp_wait_policy
choose_blas_kernels(ARGS.keep_openblas_coretype)
# Both frameworks' Gloo transports on loopback.
os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import torch_models  # noqa: E402

torch.set_num_threads(THREADS)


# --- Models ---------------------------------------------------------------------

def model_shapes(quick):
    """Per model: its shape, the per-rank batch, warm-up and timed steps."""
    if quick:
        return {
            "mlp": dict(dims=[784, 256, 256, 10], batch=64, warmup=3, steps=10),
            "encoder": dict(enc=dict(seq=16, d=64, heads=4, ffn=256, vocab=1000, classes=10,
                                     dropout=0.1), batch=32, warmup=2, steps=6),
            "tiny": dict(dims=[16, 16, 2], batch=8, warmup=3, steps=20),
        }
    return {
        "mlp": dict(dims=[784, 1024, 1024, 10], batch=128, warmup=5, steps=40),
        "encoder": dict(enc=dict(seq=32, d=128, heads=4, ffn=512, vocab=1000, classes=10,
                                 dropout=0.1), batch=128, warmup=3, steps=12),
        "tiny": dict(dims=[16, 16, 2], batch=8, warmup=5, steps=60),
    }


def case_name(kind, shape):
    if kind == "encoder":
        e = shape["enc"]
        return "encoder-s%d-d%d-h%d-ffn%d" % (e["seq"], e["d"], e["heads"], e["ffn"])
    return ("tiny-" if kind == "tiny" else "mlp-") + "-".join(map(str, shape["dims"]))


def make_torch_model(spec, check=False):
    if spec["kind"] == "encoder":
        enc = dict(spec["enc"])
        if check:
            enc["dropout"] = 0.0  # the frameworks draw different masks
        return torch_models.EncoderClassifier(**enc)
    return torch_models.MLP(spec["dims"])


def load_paddle_params(model, directory):
    """The inverse of paddle_params(): its tensors are views of the
    parameters (weights transposed), so copying into them sets the model."""
    with torch.no_grad():
        for name, view in model.paddle_params().items():
            view.copy_(torch.from_numpy(np.load(os.path.join(directory, name + ".npy"))))


# --- PyTorch worker (one rank; a separate process) ------------------------------

def torch_worker(cfg):
    """Trains cfg["steps"] steps as rank RANK of WORLD_SIZE and, on rank 0,
    writes the step times, losses and DDP's buckets to cfg["out"].

    world 1 trains the plain model (serial training, no process group);
    world > 1 wraps it in DistributedDataParallel over a Gloo process group
    (default bucket_cap_mb=25). Rank r takes rows [r*b, (r+1)*b) of every
    global batch of world*b rows, as dist-run does with --no-shuffle."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    b = cfg["batch"]
    if world > 1:
        dist.init_process_group("gloo", init_method="file://" + cfg["store"],
                                rank=rank, world_size=world)
    torch.manual_seed(0)
    model = make_torch_model(cfg, check=cfg["check"])
    if cfg.get("init"):
        load_paddle_params(model, cfg["init"])
    net = DDP(model) if world > 1 else model
    opt = torch_models.optimizer(cfg["optimizer"], net.parameters(), LR)
    feeds = [torch.from_numpy(np.load(f)) for f in cfg["data"]]
    feeds[-1] = feeds[-1].reshape(-1)  # label [N, 1] -> [N]
    global_batches = feeds[0].shape[0] // (world * b)

    net.train()
    times, losses = [], []
    for s in range(cfg["steps"]):
        first = (s % global_batches) * world * b + rank * b
        inputs = [t[first:first + b] for t in feeds]
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = net(*inputs)
        loss.backward()
        opt.step()
        value = loss.item()
        times.append(time.perf_counter() - t0)
        if cfg["check"] and world > 1:  # the global batch's loss, as dist-run reports it
            t = torch.tensor([value], dtype=torch.float64)
            dist.all_reduce(t)
            value = t.item() / world
        losses.append(value)

    out = dict(times=times, losses=losses)
    if world > 1:
        data = net._get_ddp_logging_data()
        out["ddp_logging"] = {k: v for k, v in data.items() if "bucket" in k}
        # PyTorch 1.13's logging data has no num_buckets_reduced; after the
        # first iteration DDP rebuilds its buckets in gradient order, and
        # rebuilt_bucket_sizes lists them (bucket_sizes before the rebuild).
        if "num_buckets_reduced" in data:
            out["buckets"], out["buckets_from"] = int(data["num_buckets_reduced"]), "num_buckets_reduced"
        elif data.get("has_rebuilt_buckets") and data.get("rebuilt_bucket_sizes"):
            out["buckets"] = len(str(data["rebuilt_bucket_sizes"]).split(","))
            out["buckets_from"] = "rebuilt_bucket_sizes"
        else:
            out["buckets"] = len(str(data.get("bucket_sizes", "")).split(","))
            out["buckets_from"] = "bucket_sizes"
        out["bucket_bytes"] = str(data.get("rebuilt_bucket_sizes") or data.get("bucket_sizes"))
    if rank == 0:
        with open(cfg["out"], "w") as f:
            json.dump(out, f)
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()
    return 0


# --- The benchmark --------------------------------------------------------------


class Bench:
    def __init__(self, work):
        self.work = work
        bindir = os.path.join(ARGS.build_dir, "bin")
        self.distc = os.path.join(bindir, "distc")
        self.dist_run = os.path.join(bindir, "dist-run")
        self.distc_dump = os.path.join(bindir, "distc-dump")
        for binary in (self.distc, self.dist_run, self.distc_dump):
            if not os.access(binary, os.X_OK):
                sys.exit("bench: %s not found; pass the build directory" % binary)
        self.runs = 0

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def fresh(self, stem):
        self.runs += 1
        return self.path("%s-%d" % (stem, self.runs))

    # --- distc ---------------------------------------------------------------

    def compile(self, name, main_json, startup_json, optimizer, nranks, flags):
        """Returns (artifact, error)."""
        out = self.fresh("%s.%s.%dr" % (name, optimizer, nranks)) + ".distc"
        cmd = [self.distc, main_json, "--startup", startup_json, "--loss", "mean_0.tmp_0",
               "--optimizer", optimizer, "--lr", str(LR), "-o", out] + list(flags)
        if nranks > 1:
            cmd += ["--nranks", str(nranks)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            return None, "%s: %s" % (" ".join(shlex.quote(c) for c in cmd[1:]),
                                     r.stderr.strip() or r.stdout.strip())
        return out, None

    def distc_help(self):
        r = subprocess.run([self.distc, "--help"], capture_output=True, text=True)
        return r.stdout

    def count_allreduces(self, artifact):
        """Calls containing c_allreduce in the train program's main
        (train/<role>/main) of distc-dump's listing."""
        r = subprocess.run([self.distc_dump, artifact], capture_output=True, text=True, check=True)
        count, inside = 0, False
        for line in r.stdout.splitlines():
            if line and not line[0].isspace():
                inside = line.startswith("train/") and line.rstrip().endswith("/main")
            elif inside and "c_allreduce" in line:
                count += 1
        return count

    def dist_run_train(self, artifact, data, nranks, batch, steps, init_from=None):
        """dist-run --mode train on nranks ranks; returns rank 0's metrics."""
        return dist_run_train(self.dist_run, artifact, data, nranks, batch, steps,
                              self.fresh("metrics") + ".jsonl",
                              log_dir=self.fresh("distc-logs") if nranks > 1 else None,
                              init_from=init_from, timeout=RUN_TIMEOUT)

    def distc_step_times(self, artifact, data, nranks, batch, warmup, steps):
        """Seconds per step for steps warmup+1 .. warmup+steps, on rank 0
        (bench_util.step_times)."""
        records = self.dist_run_train(artifact, data, nranks, batch, warmup + steps)
        return step_times(records, nranks * batch, warmup)

    # --- PyTorch -------------------------------------------------------------

    def torch_run(self, spec, optimizer, nranks, steps, check=False, init=None):
        """Starts nranks worker processes; returns rank 0's output."""
        cfg = dict(spec, optimizer=optimizer, steps=steps, check=check, init=init,
                   threads=THREADS, store=self.fresh("torch-store"),
                   out=self.fresh("torch-out") + ".json")
        cfg_path = self.fresh("torch-cfg") + ".json"
        with open(cfg_path, "w") as f:
            json.dump(cfg, f)
        procs = []
        logs = []
        for rank in range(nranks):
            env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(nranks), LOCAL_RANK=str(rank))
            logf = open(self.fresh("torch-log") + ".%d.txt" % rank, "w+")
            logs.append(logf)
            procs.append(subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--torch-worker", cfg_path],
                env=env, stdout=logf, stderr=subprocess.STDOUT))
        deadline = time.time() + RUN_TIMEOUT
        failed = None
        for rank, p in enumerate(procs):
            try:
                rc = p.wait(timeout=max(1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                rc = None
            if rc != 0 and failed is None:
                failed = rank
                for q in procs:
                    if q.poll() is None:
                        q.kill()
                        q.wait()
        for logf in logs:
            logf.seek(0)
        if failed is not None:
            text = logs[failed].read().strip()
            for logf in logs:
                logf.close()
            raise RuntimeError("PyTorch rank %d of %d failed: %s" % (failed, nranks, text[-2000:]))
        for logf in logs:
            logf.close()
        with open(cfg["out"]) as f:
            return json.load(f)

    def torch_step_times(self, spec, optimizer, nranks, warmup, steps):
        out = self.torch_run(spec, optimizer, nranks, warmup + steps)
        return out["times"][warmup:], out


def build_cases(b, shapes, models):
    """Writes data and programs; returns the cases."""
    import programs

    rng = np.random.default_rng(0)
    cases = []
    for kind in models:
        shape = shapes[kind]
        batch = shape["batch"]
        rows = BATCHES * 2 * batch  # 8 global batches at 2 ranks, 16 batches at 1
        name = case_name(kind, shape)
        labels_path = b.path(name + ".label.npy")
        spec = dict(kind=kind, batch=batch)
        if kind in ("mlp", "tiny"):
            dims = shape["dims"]
            np.save(labels_path, np.ascontiguousarray(rng.integers(0, dims[-1], (rows, 1)),
                                                      dtype=np.int64))
            x_path = b.path(name + ".x.npy")
            np.save(x_path, rng.standard_normal((rows, dims[0]), dtype=np.float32))
            timed = check = programs.mlp(dims)
            data = {"x": x_path, "label": labels_path}
            spec["dims"] = dims
        else:
            e = shape["enc"]
            np.save(labels_path, np.ascontiguousarray(rng.integers(0, e["classes"], (rows, 1)),
                                                      dtype=np.int64))
            ids_path = b.path(name + ".src_ids.npy")
            np.save(ids_path, np.ascontiguousarray(rng.integers(0, e["vocab"], (rows, e["seq"])),
                                                   dtype=np.int64))
            args = (e["seq"], e["d"], e["heads"], e["ffn"], e["vocab"], e["classes"])
            timed = programs.transformer(*args, e["dropout"], "reshape")
            check = programs.transformer(*args, 0.0, "reshape")
            data = {"src_ids": ids_path, "label": labels_path}
            spec["enc"] = e
        spec["data"] = list(data.values())
        files = {}
        for which, (main, startup, loss) in (("timed", timed), ("check", check)):
            assert loss == "mean_0.tmp_0"
            files[which] = (b.path("%s.%s.main.json" % (name, which)),
                            b.path("%s.%s.startup.json" % (name, which)))
            programs.save(main, files[which][0])
            programs.save(startup, files[which][1])
        cases.append(dict(name=name, kind=kind, spec=spec, data=data, files=files,
                          warmup=shape["warmup"], steps=shape["steps"], batch=batch))
    return cases


def loss_check(b, case, optimizer, variants):
    """3 steps on 2 ranks from the same parameters (PyTorch's, saved as
    <paddle name>.npy), every distc variant and DDP; global losses."""
    torch.manual_seed(1)
    model = make_torch_model(case["spec"], check=True)
    init = b.path("init-%s-%s" % (case["name"], optimizer))
    os.makedirs(init, exist_ok=True)
    for name, value in model.paddle_params().items():
        np.save(os.path.join(init, name + ".npy"),
                np.ascontiguousarray(value.numpy(), dtype=np.float32))
    theirs = b.torch_run(case["spec"], optimizer, 2, CHECK_STEPS, check=True, init=init)["losses"]
    result = dict(torch=theirs, distc={}, ok=True)
    for label, flags in variants:
        artifact, err = b.compile(case["name"] + "-check", *case["files"]["check"], optimizer, 2,
                                  flags)
        if err:
            result["distc"][label] = dict(error=err)
            result["ok"] = False
            continue
        ours = [r["loss"] for r in b.dist_run_train(artifact, case["data"], 2, case["batch"],
                                                     CHECK_STEPS, init_from=init)]
        rel = max(abs(a - c) / max(abs(c), 1e-12) for a, c in zip(ours, theirs))
        result["distc"][label] = dict(losses=ours, max_rel_diff=rel, ok=rel < 1e-4)
        result["ok"] = result["ok"] and rel < 1e-4
    return result


def fmt(v, spec="%.2f"):
    return "-" if v is None else spec % v


def run(work):
    b = Bench(work)
    shapes = model_shapes(ARGS.quick)
    models, optimizers = chosen_models(ARGS, list(shapes), "bench_ddp.py")
    rounds = 1 if ARGS.quick else ARGS.rounds
    # distc's 2-rank variants: the default compile, then one per --distc-flags.
    extra = ARGS.distc_flags
    if not extra and "--fuse-all-reduce" in b.distc_help():
        extra = ["--fuse-all-reduce"]  # distc's fused gradient buckets, default bucket size
    variants = [("distc", [])] + [("distc [%d]" % (i + 1), shlex.split(f))
                                  for i, f in enumerate(extra)]

    cases = build_cases(b, shapes, models)
    cores = len(os.sched_getaffinity(0))
    print("machine: %d cores, %s; PyTorch %s; float32, lr %g; distc's BLAS: %s"
          % (cores, cpu_model(), torch.__version__, LR, blas_description(b.dist_run)))
    for v, flags in variants[1:]:
        print("%s: 2 ranks, compiled with distc ... --nranks 2 %s"
              % (v, " ".join(shlex.quote(f) for f in flags)))
    print("threads per rank: %d in every run, both frameworks, 1 and 2 ranks (DISTC_NUM_THREADS, "
          "OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, torch.set_num_threads; OMP_WAIT_POLICY=%s)"
          % (THREADS, ARGS.omp_wait_policy))
    print("1 rank: serial training (distc without --nranks; PyTorch without DDP); 2 ranks: "
          "distc --nranks 2 under dist-run --nproc-per-node 2, PyTorch DDP over Gloo "
          "(bucket_cap_mb 25); both on loopback")
    sys.stdout.flush()
    total_load = OtherLoad()

    checks = []
    for c in cases:
        for o in optimizers:
            label = "%s %s" % (c["name"], o)
            log("loss check: " + label)
            r = loss_check(b, c, o, variants)
            r["case"] = label
            checks.append(r)
            for v, d in r["distc"].items():
                if "error" in d:
                    print("loss check, 2 ranks: %-32s %s: FAILED: %s" % (label, v, d["error"]))
                else:
                    print("loss check, 2 ranks: %-32s step 1: %s %.7f torch %.7f; step %d: %s "
                          "%.7f torch %.7f; max rel diff %.1e %s"
                          % (label, v, d["losses"][0], r["torch"][0], CHECK_STEPS, v,
                             d["losses"][-1], r["torch"][-1], d["max_rel_diff"],
                             "ok" if d["ok"] else "MISMATCH"))
    sys.stdout.flush()

    results = []
    for c in cases:
        for o in optimizers:
            label = "%s b%d %s" % (c["name"], c["batch"], o)
            configs = []  # (key, framework, nranks, artifact)
            errors = {}
            serial, err = b.compile(c["name"], *c["files"]["timed"], o, 1, [])
            if err:
                errors["distc 1"] = err
            else:
                configs.append(("distc 1", "distc", 1, serial))
            collectives = {}
            for v, flags in variants:
                artifact, err = b.compile(c["name"], *c["files"]["timed"], o, 2, flags)
                if err:
                    errors[v + " 2"] = err
                    continue
                collectives[v] = b.count_allreduces(artifact)
                configs.append((v + " 2", "distc", 2, artifact))
            configs += [("torch 1", "torch", 1, None), ("torch 2", "torch", 2, None)]
            runs = {k: [] for k, *_ in configs}
            loads = {k: [] for k, *_ in configs}
            ddp_out = None
            for r in range(rounds):
                order = configs if r % 2 == 0 else configs[::-1]
                for key, fw, n, artifact in order:
                    log("%s: %s rank(s) round %d/%d (%d+%d steps)"
                        % (label, key, r + 1, rounds, c["warmup"], c["steps"]))
                    if ARGS.wait_idle > 0:
                        waited = wait_idle(ARGS.wait_idle)
                        if waited > 1:
                            log("  waited %.0f s for other load to drop" % waited)
                    load = OtherLoad()
                    if fw == "distc":
                        t = b.distc_step_times(artifact, c["data"], n, c["batch"], c["warmup"],
                                               c["steps"])
                    else:
                        t, out = b.torch_step_times(c["spec"], o, n, c["warmup"], c["steps"])
                        if n == 2:
                            ddp_out = out
                    runs[key].append(t)
                    loads[key].append(load.cores())
            best = {k: min(median_ms(t) for t in ts) for k, ts in runs.items()}
            row = dict(case=label, rounds=rounds, warmup=c["warmup"], steps=c["steps"],
                       errors=errors, best_ms=best,
                       round_medians_ms={k: [median_ms(t) for t in ts] for k, ts in runs.items()},
                       round_means_ms={k: [1e3 * statistics.mean(t) for t in ts]
                                       for k, ts in runs.items()},
                       distc_allreduces=collectives,
                       ddp_buckets=ddp_out and ddp_out["buckets"],
                       ddp_buckets_from=ddp_out and ddp_out["buckets_from"],
                       ddp_bucket_bytes=ddp_out and ddp_out["bucket_bytes"],
                       other_load_cores=loads)
            known = [x for ls in loads.values() for x in ls if x is not None]
            row["other_load_mean"] = statistics.mean(known) if known else None
            t1 = best.get("torch 1")
            t2 = best.get("torch 2")
            row["torch_efficiency"] = t1 / t2 if t1 and t2 else None
            row["distc"] = {}
            d1 = best.get("distc 1")
            for v, _ in variants:
                d2 = best.get(v + " 2")
                if d2 is None:
                    continue
                row["distc"][v] = dict(ms_2=d2, ratio=d2 / t2 if t2 else None,
                                       efficiency=d1 / d2 if d1 else None,
                                       allreduces=collectives.get(v))
            results.append(row)
            for k, e in errors.items():
                print("%s: %s: distc cannot compile it: %s" % (label, k, e))
            print("%-40s 1 rank: distc %.2f ms, torch %.2f ms; 2 ranks: %s, torch %.2f ms"
                  % (label, d1 or float("nan"), t1, ", ".join(
                      "%s %.2f ms" % (v, d["ms_2"]) for v, d in row["distc"].items()), t2),
                  flush=True)

    print("\nper-step time in ms: median over the timed steps after warm-up (%s), best of %d "
          "run(s) per configuration; efficiency = t(1 rank) / t(2 ranks), per-rank batch "
          "fixed; ratio = distc / PyTorch at 2 ranks"
          % (", ".join("%s %d+%d" % (c["name"], c["warmup"], c["steps"]) for c in cases), rounds))
    head = ("case", "framework", "1 rank", "2 ranks", "effic.", "ratio 2r", "other",
            "collectives/step")
    print("%-40s %-22s %8s %8s %7s %8s %6s  %s" % head)
    for r in results:
        t1, t2 = r["best_ms"].get("torch 1"), r["best_ms"].get("torch 2")
        d1 = r["best_ms"].get("distc 1")
        for i, (v, d) in enumerate(r["distc"].items()):
            print("%-40s %-22s %8s %8.2f %7s %8s %6s  %s"
                  % (r["case"] if i == 0 else "", v, fmt(d1), d["ms_2"], fmt(d["efficiency"]),
                     fmt(d["ratio"]), fmt(r["other_load_mean"]) if i == 0 else "",
                     "%d c_allreduce" % d["allreduces"]))
        print("%-40s %-22s %8s %8s %7s %8s %6s  %s"
              % ("" if r["distc"] else r["case"], "pytorch ddp", fmt(t1), fmt(t2),
                 fmt(r["torch_efficiency"]), "", "" if r["distc"] else fmt(r["other_load_mean"]),
                 "%s buckets (%s)" % (r["ddp_buckets"], r["ddp_buckets_from"])))
    other = total_load.cores()
    print("other processes used %s cores on average while the benchmark ran (0: an otherwise "
          "idle machine; the 'other' column is the mean over a row's timed runs)"
          % fmt(other))
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump(dict(threads_per_rank=THREADS, omp_wait_policy=ARGS.omp_wait_policy,
                           cpu=cpu_model(), cores=cores, torch=torch.__version__, lr=LR,
                           quick=ARGS.quick, variants={v: f for v, f in variants},
                           other_load_cores=other,
                           loss_checks=checks, results=results), f, indent=1)
            f.write("\n")
    failed = [c for c in checks if not c["ok"]] + [r for r in results if r["errors"]]
    return 1 if failed else 0


def main():
    if ARGS.torch_worker:
        return torch_worker(WORKER)
    return run_in_work_dir(run, ARGS.work_dir, "distc-bench-ddp-")


if __name__ == "__main__":
    sys.exit(main())

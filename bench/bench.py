#!/usr/bin/python3
"""Training step time: distc's CPU runtime (dist-run --mode train) against
PyTorch, same models, batch, optimizer, float32 and thread count.

Run through bench/run-bench.sh, which installs PyTorch and NumPy. For each
model and optimizer it compiles the Paddle program with distc, trains it
with dist-run and with PyTorch, takes the per-step times after warm-up
steps, and prints one table row with both medians and their ratio
distc/PyTorch (below 1: distc is faster). A loss check first trains both
frameworks a few steps from the same parameters and compares the losses.
See docs/benchmarks.md.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_util import (add_blas_option, blas_description, choose_blas_kernels,  # noqa: E402
                        cpu_model, fusion_config, log, median_ms, run_in_work_dir)

BATCH = 128
LR = 0.01
ROWS = 8 * BATCH  # data rows; --no-shuffle cycles through them in order
MLP_DIMS = [784, 1024, 1024, 10]
# seq, d_model, heads, ffn, vocab, classes, attention dropout
ENC = dict(seq=32, d=128, heads=4, ffn=512, vocab=1000, classes=10, dropout=0.1)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir",
                   default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build"),
                   help="build directory with bin/distc and bin/dist-run")
    p.add_argument("--threads", type=int, default=0,
                   help="threads for both frameworks (default: all cores, %d here)"
                   % len(os.sched_getaffinity(0)))
    p.add_argument("--optimizers", default="sgd,adam",
                   help="comma-separated, from sgd and adam (default: sgd,adam)")
    p.add_argument("--models", default="mlp,encoder", help="comma-separated, from mlp and encoder")
    p.add_argument("--rounds", type=int, default=5,
                   help="timed runs per framework, alternating; the best median counts (default 5)")
    p.add_argument("--omp-wait-policy", default="PASSIVE", choices=("PASSIVE", "ACTIVE"),
                   help="OMP_WAIT_POLICY for PyTorch's OpenMP pool (default PASSIVE: idle "
                   "OpenMP threads sleep instead of spinning against OpenBLAS's threads)")
    p.add_argument("--encoder-heads", default="auto",
                   choices=("auto", "reshape", "split", "fused_qkv"),
                   help="how the encoder's distc program forms attention heads: reshape2 + "
                   "transpose2 as Paddle does, split + concat, one QKV projection in the "
                   "layout of Paddle's fused_attention pattern (which fused_attention fuses; "
                   "PyTorch's model then projects QKV at once too), or auto (default): "
                   "reshape when distc can train it, else split")
    p.add_argument("--encoder-dropout", default="attention", choices=("attention", "all"),
                   help="where the encoder drops out: the attention weights (default), or all "
                   "of Paddle's TransformerEncoderLayer dropouts (also the FFN's activation and "
                   "both sublayers' outputs before their residual adds, which fuse_dropout_add "
                   "and fused_feedforward fuse)")
    p.add_argument("--fusion", default="none",
                   help="comma-separated BuildStrategy fusion variants to time distc with: none "
                   "(no fusion), a fusion key (fuse_gemm_epilogue, ...), bn (the batch-norm "
                   "fusions) or all; one row each (default: none)")
    p.add_argument("--quick", action="store_true", help="few steps, one round (a smoke run)")
    p.add_argument("--work-dir", help="keep programs, artifacts and data here (default: a temp dir)")
    p.add_argument("--json", help="also write the results to this JSON file")
    add_blas_option(p)
    return p.parse_args()


ARGS = parse_args()
THREADS = ARGS.threads or len(os.sched_getaffinity(0))
# Before NumPy and PyTorch load OpenBLAS / OpenMP: both read these once.
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(THREADS)
os.environ["OMP_WAIT_POLICY"] = ARGS.omp_wait_policy
choose_blas_kernels(ARGS.keep_openblas_coretype)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import programs  # noqa: E402
import torch_models  # noqa: E402

torch.set_num_threads(THREADS)


class Bench:
    def __init__(self, work):
        self.work = work
        bindir = os.path.join(ARGS.build_dir, "bin")
        self.distc = os.path.join(bindir, "distc")
        self.dist_run = os.path.join(bindir, "dist-run")
        for binary in (self.distc, self.dist_run):
            if not os.access(binary, os.X_OK):
                sys.exit("bench: %s not found; pass the build directory" % binary)
        self.env = dict(os.environ)
        self.notes = []

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    # --- distc ----------------------------------------------------------------

    def compile(self, name, main, startup, loss, optimizer, fusion="none"):
        """Writes the programs and compiles them with the fusion variant
        `fusion` (fusion_config); returns (artifact, error)."""
        main_json, startup_json = self.path(name + ".main.json"), self.path(name + ".startup.json")
        programs.save(main, main_json)
        programs.save(startup, startup_json)
        out = self.path("%s.%s.%s.distc" % (name, optimizer, fusion))
        config = self.path("fusion-%s.json" % fusion)
        with open(config, "w") as f:
            json.dump(fusion_config(fusion), f)
        cmd = [self.distc, main_json, "--startup", startup_json, "--loss", loss,
               "--optimizer", optimizer, "--lr", str(LR), "--config", config, "-o", out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            return None, (r.stderr.strip() or r.stdout.strip())
        return out, None

    def train(self, artifact, data, steps, init_from=None):
        """dist-run --mode train; returns the metrics records."""
        metrics = self.path("metrics.jsonl")
        if os.path.exists(metrics):
            os.remove(metrics)
        cmd = [self.dist_run, artifact, "--mode", "train", "--batch-size", str(BATCH),
               "--steps", str(steps), "--no-shuffle", "--metrics", metrics]
        for feed, file in data.items():
            cmd += ["--data", "%s=@%s" % (feed, file)]
        if init_from:
            cmd += ["--init-from", init_from]
        r = subprocess.run(cmd, capture_output=True, text=True, env=self.env)
        if r.returncode != 0:
            raise RuntimeError("dist-run failed: " + (r.stderr.strip() or r.stdout.strip()))
        with open(metrics) as f:
            records = [json.loads(line) for line in f if line.strip()]
        if len(records) != steps:
            raise RuntimeError("dist-run wrote %d metrics records for %d steps" % (len(records), steps))
        return records, r.stdout.strip()

    def distc_step_times(self, artifact, data, warmup, steps):
        """Seconds per step for steps warmup+1 .. warmup+steps.

        samples_per_sec is rows over the accumulated time of model.step()
        calls (batching and metrics writing excluded), so the time after
        step s is s * BATCH / samples_per_sec (all batches are full)."""
        records, _ = self.train(artifact, data, warmup + steps)
        elapsed = [r["step"] * BATCH / r["samples_per_sec"] for r in records]
        return [b - a for a, b in zip(elapsed[warmup - 1:], elapsed[warmup:])]

    # --- PyTorch ----------------------------------------------------------------

    @staticmethod
    def torch_batches(feeds):
        tensors = [torch.from_numpy(a) for a in feeds]
        tensors[-1] = tensors[-1].reshape(-1)  # label [N, 1] -> [N]
        n = tensors[0].shape[0]
        return [[t[i:i + BATCH] for t in tensors] for i in range(0, n, BATCH)]

    @staticmethod
    def torch_train(model, optimizer, batches, steps, times=None):
        model.train()
        losses = []
        for s in range(steps):
            inputs = batches[s % len(batches)]
            t0 = time.perf_counter()
            optimizer.zero_grad(set_to_none=True)
            loss = model(*inputs)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if times is not None:
                times.append(time.perf_counter() - t0)
        return losses

    def torch_step_times(self, make_model, optimizer, batches, warmup, steps):
        torch.manual_seed(0)
        model = make_model()
        opt = torch_models.optimizer(optimizer, model.parameters(), LR)
        times = []
        self.torch_train(model, opt, batches, warmup + steps, times)
        return times[warmup:]

    # --- loss check ---------------------------------------------------------------

    def loss_check(self, label, make_model, main, startup, loss, optimizer, data, feeds, steps=3):
        """Trains `steps` steps in both frameworks from PyTorch's initial
        parameters, saved as <paddle name>.npy, on the same batches."""
        torch.manual_seed(1)
        model = make_model()
        init = self.path("init-" + label.replace(" ", "-"))
        os.makedirs(init, exist_ok=True)
        for name, value in model.paddle_params().items():
            np.save(os.path.join(init, name + ".npy"),
                    np.ascontiguousarray(value.numpy(), dtype=np.float32))
        artifact, err = self.compile("check-" + label.replace(" ", "-"), main, startup, loss, optimizer)
        if err:
            return dict(label=label, ok=False, error=err)
        records, _ = self.train(artifact, data, steps, init_from=init)
        ours = [r["loss"] for r in records]
        theirs = self.torch_train(model, torch_models.optimizer(optimizer, model.parameters(), LR),
                                  self.torch_batches(feeds), steps)
        rel = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(ours, theirs))
        return dict(label=label, ok=rel < 1e-4, distc=ours, torch=theirs, max_rel_diff=rel)


def run(work):
    b = Bench(work)
    rng = np.random.default_rng(0)
    optimizers = [o for o in ARGS.optimizers.split(",") if o]
    models = [m for m in ARGS.models.split(",") if m]
    for o in optimizers:
        if o not in ("sgd", "adam"):
            sys.exit("bench: unknown optimizer %r" % o)
    rounds = 1 if ARGS.quick else ARGS.rounds

    for m in models:
        if m not in ("mlp", "encoder"):
            sys.exit("bench: unknown model %r" % m)

    # Per model: the timed programs, the PyTorch model, the data (dist-run
    # files and the arrays), warm-up and timed steps, and the programs of
    # the loss check (without dropout, which the frameworks draw differently).
    cases = []
    labels = np.ascontiguousarray(rng.integers(0, 10, (ROWS, 1)), dtype=np.int64)
    np.save(b.path("label.npy"), labels)
    if "mlp" in models:
        x = rng.standard_normal((ROWS, MLP_DIMS[0]), dtype=np.float32)
        np.save(b.path("x.npy"), x)
        main, startup, loss = programs.mlp(MLP_DIMS)
        cases.append(dict(
            name="mlp-" + "-".join(map(str, MLP_DIMS)), main=main, startup=startup, loss=loss,
            make_model=lambda: torch_models.MLP(MLP_DIMS),
            data={"x": b.path("x.npy"), "label": b.path("label.npy")}, feeds=[x, labels],
            warmup=5, steps=20 if ARGS.quick else 40, check=(main, startup, loss)))
    if "encoder" in models:
        e = ENC
        ids = np.ascontiguousarray(rng.integers(0, e["vocab"], (ROWS, e["seq"])), dtype=np.int64)
        np.save(b.path("src_ids.npy"), ids)
        shape = (e["seq"], e["d"], e["heads"], e["ffn"], e["vocab"], e["classes"])
        # Paddle's own head layout (reshape2 + transpose2, as in
        # examples/transformer) unless distc cannot train it: then split/concat.
        via = "reshape" if ARGS.encoder_heads == "auto" else ARGS.encoder_heads
        residual = e["dropout"] if ARGS.encoder_dropout == "all" else 0.0
        main, startup, loss = programs.transformer(*shape, e["dropout"], via,
                                                   residual_dropout=residual)
        if ARGS.encoder_heads == "auto":
            _, err = b.compile("encoder-reshape-probe", main, startup, loss, "sgd")
            if err:
                b.notes.append("encoder: distc cannot train the reshape2/transpose2 attention "
                               "heads of examples/transformer:\n    " + err +
                               "\n  so the encoder's distc program splits q, k, v into heads "
                               "with split and joins them with concat (same arithmetic).")
                via = "split"
                main, startup, loss = programs.transformer(*shape, e["dropout"], via,
                                                           residual_dropout=residual)
        check = programs.transformer(*shape, 0.0, via)
        fused_qkv = via == "fused_qkv"
        cases.append(dict(
            name="encoder-s%d-d%d-h%d-ffn%d%s%s" % (shape[:4] + ("" if via == "reshape" else "-" + via,
                                                          "-dropall" if residual else "")),
            main=main, startup=startup, loss=loss,
            make_model=lambda: torch_models.EncoderClassifier(**ENC, residual_dropout=residual,
                                                              fused_qkv=fused_qkv),
            make_check_model=lambda: torch_models.EncoderClassifier(**dict(ENC, dropout=0.0),
                                                                    fused_qkv=fused_qkv),
            data={"src_ids": b.path("src_ids.npy"), "label": b.path("label.npy")},
            feeds=[ids, labels], warmup=3, steps=8 if ARGS.quick else 10, check=check,
            heads_via=via))

    print("threads: %d for both (OPENBLAS_NUM_THREADS=%d: dist-run's GEMMs and PyTorch's; "
          "torch.set_num_threads(%d) for PyTorch's OpenMP ops, OMP_WAIT_POLICY=%s; "
          "torch reports %d)" % (THREADS, THREADS, THREADS, ARGS.omp_wait_policy,
                                 torch.get_num_threads()))
    print("machine: %d cores, %s; PyTorch %s; batch %d, float32, lr %g; distc's BLAS: %s"
          % (os.cpu_count(), cpu_model(), torch.__version__, BATCH, LR,
             blas_description(b.dist_run)))
    for c in cases:
        if "heads_via" in c:
            print("encoder: distc's program forms the attention heads with %s" % {
                "reshape": "reshape2 + transpose2, as examples/transformer",
                "split": "split + concat",
                "fused_qkv": "one QKV projection, reshape2 + transpose2 + split, as Paddle's "
                             "fused_attention pattern"}[c["heads_via"]])
    for note in b.notes:
        print("note: " + note)

    # Loss check: same initial parameters, a few steps, both optimizers.
    checks = []
    for c in cases:
        for o in optimizers:
            label = "%s %s" % (c["name"], o)
            log("loss check: " + label)
            make = c.get("make_check_model", c["make_model"])
            r = b.loss_check(label, make, *c["check"], o, c["data"], c["feeds"])
            checks.append(r)
            if "error" in r:
                print("loss check %-40s FAILED: %s" % (label, r["error"]))
            else:
                print("loss check %-40s step 1: distc %.7f torch %.7f; step %d: distc %.7f "
                      "torch %.7f; max rel diff %.1e %s"
                      % (label, r["distc"][0], r["torch"][0], len(r["distc"]), r["distc"][-1],
                         r["torch"][-1], r["max_rel_diff"], "ok" if r["ok"] else "MISMATCH"))
    sys.stdout.flush()

    results = []
    variants = [v for v in ARGS.fusion.split(",") if v]
    for v in variants:
        fusion_config(v)  # rejects an unknown variant before anything runs
    for c in cases:
        batches = b.torch_batches(c["feeds"])
        for o, variant in [(o, v) for o in optimizers for v in variants]:
            label = "%s b%d %s" % (c["name"], BATCH, o)
            if variant != "none":
                label += " " + variant
            artifact, err = b.compile(c["name"], c["main"], c["startup"], c["loss"], o, variant)
            if err:
                print("%s: distc cannot compile it: %s" % (label, err))
                results.append(dict(case=label, error=err))
                continue
            runs = {"distc": [], "torch": []}
            for r in range(rounds):
                order = ("distc", "torch") if r % 2 == 0 else ("torch", "distc")
                for fw in order:
                    log("%s: %s round %d/%d (%d+%d steps)"
                        % (label, fw, r + 1, rounds, c["warmup"], c["steps"]))
                    if fw == "distc":
                        t = b.distc_step_times(artifact, c["data"], c["warmup"], c["steps"])
                    else:
                        t = b.torch_step_times(c["make_model"], o, batches, c["warmup"], c["steps"])
                    runs[fw].append(t)
            best = {fw: min(median_ms(t) for t in ts) for fw, ts in runs.items()}
            ratio = best["distc"] / best["torch"]
            row = dict(case=label, fusion=variant, distc_ms=best["distc"], torch_ms=best["torch"], ratio=ratio,
                       steps=c["steps"], warmup=c["warmup"], rounds=rounds,
                       distc_round_medians_ms=[median_ms(t) for t in runs["distc"]],
                       torch_round_medians_ms=[median_ms(t) for t in runs["torch"]],
                       distc_round_means_ms=[1e3 * statistics.mean(t) for t in runs["distc"]],
                       torch_round_means_ms=[1e3 * statistics.mean(t) for t in runs["torch"]])
            if "heads_via" in c:
                row["heads_via"] = c["heads_via"]
            results.append(row)
            print("%-48s distc %8.2f ms  torch %8.2f ms  ratio %5.2f"
                  % (label, best["distc"], best["torch"], ratio), flush=True)

    print("\nper-step time: median over %s timed steps after warm-up, best of %d run(s) per "
          "framework; ratio = distc / torch (target <= 1)" % ("/".join(
              str(c["steps"]) for c in cases), rounds))
    print("%-48s %13s %13s %7s" % ("case", "distc ms", "torch ms", "ratio"))
    for r in results:
        if "error" in r:
            print("%-48s %s" % (r["case"], "distc failed"))
        else:
            print("%-48s %13.2f %13.2f %7.2f" % (r["case"], r["distc_ms"], r["torch_ms"], r["ratio"]))
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump(dict(threads=THREADS, omp_wait_policy=ARGS.omp_wait_policy, cpu=cpu_model(), cores=os.cpu_count(),
                           torch=torch.__version__, batch=BATCH, lr=LR, notes=b.notes,
                           loss_checks=checks, results=results), f, indent=1)
            f.write("\n")
    failed = [c for c in checks if not c.get("ok")] + [r for r in results if "error" in r]
    return 1 if failed else 0


def main():
    return run_in_work_dir(run, ARGS.work_dir, "distc-bench-")


if __name__ == "__main__":
    sys.exit(main())

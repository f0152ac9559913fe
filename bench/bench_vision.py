#!/usr/bin/python3
"""Vision models on the CPU: distc against PyTorch, same program, parameters,
float32 and thread count.

Run through bench/run-bench-vision.sh, which installs PyTorch and NumPy.
Inference: a ResNet-50 program (examples/vision/gen_vision.py, Paddle's
ops and names) with random parameters, timed per batch with
`dist-run --mode predict --repeat` at each batch size, and the same program
run op by op with PyTorch's kernels (torch.nn.functional) under
torch.inference_mode(). Training: a conv-bn-relu-pool CNN's step (forward,
backward, SGD) with `dist-run --mode train` against PyTorch's autograd on
the same ops, and the same CNN with residual blocks with BuildStrategy's
fusion options off and on (--fusion); with the peak resident set of each
framework's training process. Each row prints both medians and their ratio distc/PyTorch
(below 1: distc is faster), and the largest difference of the outputs.
See docs/benchmarks.md.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "examples", "vision"))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "Inputs"))

from bench_util import (add_blas_option, blas_description, choose_blas_kernels,  # noqa: E402
                        cpu_model, fusion_config, log, median_ms, run_in_work_dir)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                   help="build directory with bin/distc and bin/dist-run")
    p.add_argument("--threads", type=int, default=0,
                   help="threads for both frameworks (default: all cores, %d here)"
                   % len(os.sched_getaffinity(0)))
    p.add_argument("--batches", default="1,32", help="inference batch sizes (default 1,32)")
    p.add_argument("--size", type=int, default=224, help="image size (default 224)")
    p.add_argument("--repeat", type=int, default=10, help="timed inference runs (default 10)")
    p.add_argument("--train-batch", type=int, default=64, help="CNN training batch (default 64)")
    p.add_argument("--train-steps", type=int, default=30, help="timed training steps (default 30)")
    p.add_argument("--fusion", default="none,bn,all",
                   help="fusion variants of the residual CNN's training: none, bn (fuse_bn_act_ops "
                        "and fuse_bn_add_act_ops), all, or one BuildStrategy key (default "
                        "none,bn,all)")
    p.add_argument("--no-inference", action="store_true", help="the training rows only")
    p.add_argument("--torch-train-only", type=int, choices=(0, 1), help=argparse.SUPPRESS)
    p.add_argument("--quick", action="store_true", help="small sizes, few runs (a smoke run)")
    p.add_argument("--work-dir", help="keep programs, artifacts and data here (default: a temp dir)")
    p.add_argument("--json", help="also write the results to this JSON file")
    add_blas_option(p)
    return p.parse_args()


ARGS = parse_args()
if ARGS.quick:
    ARGS.size, ARGS.repeat, ARGS.train_steps, ARGS.batches = 64, 3, 5, "1,4"
THREADS = ARGS.threads or len(os.sched_getaffinity(0))
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "DISTC_NUM_THREADS"):
    os.environ[var] = str(THREADS)
os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
choose_blas_kernels(ARGS.keep_openblas_coretype)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import gen_vision  # noqa: E402
import paddle_numpy  # noqa: E402

torch.set_num_threads(THREADS)


# --- The program, run with PyTorch's kernels ----------------------------------

def attrs(op):
    return paddle_numpy.attrs_of(op)


def slots(op, key):
    return {s["parameter"]: s.get("arguments", []) for s in op.get(key, [])}


def torch_op(kind, ins, a, training):
    """One Paddle op on torch tensors (the ops the vision programs use)."""
    if kind in ("conv2d", "depthwise_conv2d"):
        pads = [int(p) for p in a["paddings"]]
        return {"Output": F.conv2d(ins["Input"], ins["Filter"], stride=[int(s) for s in a["strides"]],
                                   padding=pads[:2], dilation=[int(d) for d in a["dilations"]],
                                   groups=int(a["groups"]))}
    if kind == "batch_norm":
        mean, var = ins["Mean"], ins["Variance"]
        y = F.batch_norm(ins["X"], mean, var, ins["Scale"], ins["Bias"], training=training,
                         momentum=1 - a["momentum"], eps=a["epsilon"])
        return {"Y": y}
    if kind == "pool2d":
        x = ins["X"]
        if a.get("global_pooling") or a.get("adaptive"):
            size = (1, 1) if a.get("global_pooling") else [int(k) for k in a["ksize"]]
            pool = F.adaptive_max_pool2d if a["pooling_type"] == "max" else F.adaptive_avg_pool2d
            return {"Out": pool(x, size)}
        k, s, p = ([int(v) for v in a[n]] for n in ("ksize", "strides", "paddings"))
        if a["pooling_type"] == "max":
            return {"Out": F.max_pool2d(x, k, s, p[:2])}
        return {"Out": F.avg_pool2d(x, k, s, p[:2], count_include_pad=not a.get("exclusive", True))}
    if kind == "relu":
        return {"Out": F.relu(ins["X"])}
    if kind == "relu6":
        return {"Out": F.hardtanh(ins["X"], 0.0, a.get("threshold", 6.0))}
    if kind == "hard_swish":
        return {"Out": F.hardswish(ins["X"])}
    if kind == "hard_sigmoid":
        return {"Out": torch.clamp(ins["X"] * a.get("slope", 0.2) + a.get("offset", 0.5), 0, 1)}
    if kind in ("elementwise_add", "elementwise_mul"):
        fn = torch.add if kind == "elementwise_add" else torch.mul
        return {"Out": fn(ins["X"], ins["Y"])}
    if kind == "flatten_contiguous_range":
        return {"Out": torch.flatten(ins["X"], int(a["start_axis"]), int(a["stop_axis"]))}
    if kind == "reshape2":
        return {"Out": ins["X"].reshape([int(s) for s in a["shape"]])}
    if kind == "matmul_v2":
        return {"Out": torch.matmul(ins["X"], ins["Y"])}
    if kind == "softmax":
        return {"Out": F.softmax(ins["X"], int(a["axis"]))}
    if kind == "softmax_with_cross_entropy":
        loss = F.cross_entropy(ins["Logits"], ins["Label"].reshape(-1), reduction="none")
        return {"Loss": loss.reshape(-1, 1)}
    if kind == "mean":
        return {"Out": ins["X"].mean()}
    raise SystemExit("bench: no PyTorch form of op '%s'" % kind)


def torch_run(block, env, feeds, training=False):
    """Runs block 0; returns the value of every fetch."""
    env = dict(env)
    fetched = []
    for op in block["ops"]:
        ins, outs = slots(op, "inputs"), slots(op, "outputs")
        if op["type"] == "feed":
            env[outs["Out"][0]] = feeds[outs["Out"][0]]
        elif op["type"] == "fetch":
            fetched.append(env[ins["X"][0]])
        else:
            args = {k: env[v[0]] for k, v in ins.items() if v}
            for slot, value in torch_op(op["type"], args, attrs(op), training).items():
                env[outs[slot][0]] = value
    return fetched


# --- distc ----------------------------------------------------------------------

class Bench:
    def __init__(self, work):
        self.work = work
        bindir = os.path.join(ARGS.build_dir, "bin")
        self.distc, self.dist_run = os.path.join(bindir, "distc"), os.path.join(bindir, "dist-run")
        for binary in (self.distc, self.dist_run):
            if not os.access(binary, os.X_OK):
                sys.exit("bench: %s not found; pass the build directory" % binary)

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def run(self, cmd):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s failed: %s" % (os.path.basename(cmd[0]),
                                                  (r.stderr.strip() or r.stdout.strip())[-2000:]))
        return r

    def inference(self):
        folder = self.path("resnet50")
        gen_vision.main(["resnet50", folder, str(ARGS.size)])
        main_json = os.path.join(folder, "main.json")
        params = self.path("resnet50-params")
        paddle_numpy.random_params(main_json, params, 5)
        artifact = self.path("resnet50.distc")
        t0 = time.time()
        self.run([self.distc, main_json, "-o", artifact])
        log("compiled ResNet-50 in %.1f s" % (time.time() - t0))
        with open(main_json) as f:
            block = json.load(f)["blocks"][0]
        env = {n[:-4]: torch.from_numpy(np.load(os.path.join(params, n)))
               for n in os.listdir(params)}
        fetches = [slots(op, "inputs")["X"][0] for op in block["ops"] if op["type"] == "fetch"]
        logits_name = fetches[1]
        rows = []
        for batch in (int(b) for b in ARGS.batches.split(",")):
            rng = np.random.default_rng(batch)
            image = rng.uniform(-1, 1, (batch, 3, ARGS.size, ARGS.size)).astype(np.float32)
            np.save(self.path("image.npy"), image)
            out = self.path("out.npy")
            r = self.run([self.dist_run, artifact, "--mode", "predict", "--params", params,
                          "--input", "image=@" + self.path("image.npy"),
                          "--output", "%s=@%s" % (logits_name, out), "--repeat", str(ARGS.repeat)])
            line = [l for l in r.stderr.splitlines() if "runs: median" in l][-1]
            ours = float(line.split("median ")[1].split(" ms")[0])
            feeds = {"image": torch.from_numpy(image)}
            times = []
            with torch.inference_mode():
                theirs_out = torch_run(block, env, feeds)[1]
                for _ in range(ARGS.repeat):
                    t = time.perf_counter()
                    torch_run(block, env, feeds)
                    times.append(time.perf_counter() - t)
            theirs = median_ms(times)
            # Relative to the logits' scale, which random parameters make large.
            ref = theirs_out.numpy()
            diff = float(np.abs(np.load(out) - ref).max() / max(np.abs(ref).max(), 1e-30))
            rows.append(dict(what="ResNet-50 inference, batch %d, %dx%d" % (batch, ARGS.size, ARGS.size),
                             distc_ms=ours, torch_ms=theirs, ratio=ours / theirs, max_abs_diff=diff))
            log(str(rows[-1]))
        return rows

    def train_program(self, name, net, config):
        """Writes `net` and compiles its train program with the BuildStrategy
        keys of `config`; returns the artifact."""
        folder = self.path(name)
        os.makedirs(folder, exist_ok=True)
        for part, program in (("main.json", net.main), ("startup.json", net.startup)):
            with open(os.path.join(folder, part), "w") as f:
                json.dump(program.to_json(), f)
        cmd = [self.distc, os.path.join(folder, "main.json"), "--startup",
               os.path.join(folder, "startup.json"), "--loss", "loss", "--optimizer", "sgd",
               "--lr", "0.01", "-o", self.path(name + ".distc")]
        if config:
            with open(self.path(name + ".json"), "w") as f:
                json.dump(config, f)
            cmd += ["--config", self.path(name + ".json")]
        self.run(cmd)
        return self.path(name + ".distc")

    def train_data(self, batch):
        """4 batches of random 32x32x3 images and labels, as .npy files."""
        rng = np.random.default_rng(0)
        x = rng.uniform(-1, 1, (batch * 4, 3 * 32 * 32)).astype(np.float32)
        label = rng.integers(0, 10, (batch * 4, 1)).astype(np.int64)
        np.save(self.path("x.npy"), x)
        np.save(self.path("label.npy"), label)
        return x, label

    def distc_train(self, artifact, batch, warmup, steps):
        """The median step time (ms) of `dist-run --mode train` and the
        process's peak resident set (bytes)."""
        metrics = self.path("metrics.jsonl")
        if os.path.exists(metrics):
            os.remove(metrics)
        cmd = [self.dist_run, artifact, "--mode", "train", "--batch-size", str(batch),
               "--steps", str(warmup + steps), "--no-shuffle", "--quiet", "--metrics", metrics,
               "--data", "x=@" + self.path("x.npy"), "--data", "label=@" + self.path("label.npy")]
        rss = run_peak_rss(cmd)
        with open(metrics) as f:
            records = [json.loads(line) for line in f if line.strip()]
        elapsed = [r["step"] * batch / r["samples_per_sec"] for r in records]
        return median_ms([b - a for a, b in zip(elapsed[warmup - 1:], elapsed[warmup:])]), rss

    def training(self):
        """The CNN's step without and with residual blocks; the residual one
        with each fusion variant (BuildStrategy keys) too. Peak RSS of both
        frameworks' whole training processes."""
        batch, steps, warmup = ARGS.train_batch, ARGS.train_steps, 5
        x, label = self.train_data(batch)
        rows = []
        variants = [v for v in ARGS.fusion.split(",") if v]
        for v in variants:
            fusion_config(v)  # rejects an unknown variant before anything runs
        for residual in (False, True):
            net = gen_vision.conv_net(3, 32, (32, 64, 128), is_test=False, residual=residual)
            what = ("CNN training step (conv-bn-relu%s-pool x3, 32x32x3), batch %d"
                    % (" + residual block" if residual else "", batch))
            torch_ms = torch_train_ms(net, x, label, batch, warmup, steps)
            torch_rss = torch_train_rss(residual, batch, warmup + steps)
            for variant in (variants if residual else ["none"]):
                config = fusion_config(variant)
                name = "cnn%s-%s" % ("-res" if residual else "", variant)
                artifact = self.train_program(name, net, config)
                ours, rss = self.distc_train(artifact, batch, warmup, steps)
                row = dict(what=what + ("" if variant == "none" else ", fusion " + variant),
                           distc_ms=ours, torch_ms=torch_ms, ratio=ours / torch_ms,
                           distc_rss_mb=rss / 2**20, torch_rss_mb=torch_rss / 2**20)
                log(str(row))
                rows.append(row)
        return rows


def run_peak_rss(cmd):
    """Runs `cmd` (failing on a non-zero exit); returns its peak resident
    set in bytes: the VmHWM of its own address space, polled while it runs
    once it is `cmd` (before exec the child is a copy of this process; and
    a waited child's rusage counts this process's resident set too)."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        peak = 0
        proc = "/proc/%d/" % p.pid
        want = "\0".join(cmd) + "\0"
        while p.poll() is None:
            try:
                with open(proc + "cmdline") as f:
                    execed = f.read() == want
                if execed:
                    with open(proc + "status") as f:
                        for line in f:
                            if line.startswith("VmHWM:"):
                                peak = max(peak, int(line.split()[1]) * 1024)
            except OSError:
                pass
            time.sleep(0.01)
        if p.returncode != 0:
            err.seek(0)
            raise RuntimeError("%s failed: %s" % (os.path.basename(cmd[0]),
                                                  err.read().decode()[-2000:]))
    return peak


def torch_params(net):
    """The program's persistable tensors for PyTorch: the running variance
    ones, everything else small random values; the trainable ones (not
    the running statistics) with requires_grad."""
    block = net.main.to_json()["blocks"][0]
    env = {}
    for v in block["vars"]:
        if v.get("persistable") and v["type"]["type"] == "LOD_TENSOR":
            shape = v["type"]["lod_tensor"]["tensor"]["dims"]
            value = torch.ones(shape) if v["name"].endswith((".w_2",)) else \
                torch.randn(shape) * 0.1
            env[v["name"]] = value.requires_grad_(bool(v.get("is_parameter")) and not
                                                 v["name"].endswith((".w_1", ".w_2")))
    return block, env


def torch_train_steps(net, x, label, batch, count, times=None):
    """`count` SGD steps of the program with PyTorch's autograd."""
    block, env = torch_params(net)
    opt = torch.optim.SGD([t for t in env.values() if t.requires_grad], lr=0.01)
    for s in range(count):
        i = (s % 4) * batch
        feeds = {"x": torch.from_numpy(x[i:i + batch]), "label": torch.from_numpy(label[i:i + batch])}
        t = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = torch_run(block, env, feeds, training=True)[0]
        loss.backward()
        opt.step()
        loss.item()
        if times is not None:
            times.append(time.perf_counter() - t)


def torch_train_ms(net, x, label, batch, warmup, steps):
    times = []
    torch_train_steps(net, x, label, batch, warmup + steps, times)
    return median_ms(times[warmup:])


def torch_train_rss(residual, batch, count):
    """The peak resident set of a fresh process that imports PyTorch and
    trains the CNN `count` steps (this script with --torch-train-only)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--torch-train-only", str(int(residual)),
           "--train-batch", str(batch), "--train-steps", str(count), "--threads", str(THREADS)]
    return run_peak_rss(cmd)


def run(work):
    b = Bench(work)
    blas = blas_description(b.dist_run)
    print("cpu: %s; threads: %d for both; torch %s; distc's BLAS: %s"
          % (cpu_model(), THREADS, torch.__version__, blas))
    rows = ([] if ARGS.no_inference else b.inference()) + b.training()
    baseline = run_peak_rss([sys.executable, "-c", "import torch"])
    print("peak RSS: each framework's whole training process; a process that only imports "
          "PyTorch peaks at %.0f MiB" % (baseline / 2**20))
    print("| what | distc ms | PyTorch ms | distc/PyTorch | logits: max diff / max | "
          "peak RSS distc / PyTorch MiB |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        diff = "%.2g" % r["max_abs_diff"] if "max_abs_diff" in r else "—"
        rss = ("%.0f / %.0f" % (r["distc_rss_mb"], r["torch_rss_mb"])) if "distc_rss_mb" in r \
            else "—"
        print("| %s | %.2f | %.2f | %.2f | %s | %s |" % (r["what"], r["distc_ms"], r["torch_ms"],
                                                         r["ratio"], diff, rss))
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump(dict(threads=THREADS, cpu=cpu_model(), blas=blas, rows=rows), f, indent=1)
    return 0


def torch_train_only():
    """The child of torch_train_rss: trains and exits."""
    net = gen_vision.conv_net(3, 32, (32, 64, 128), is_test=False,
                              residual=bool(ARGS.torch_train_only))
    rng = np.random.default_rng(0)
    batch = ARGS.train_batch
    x = rng.uniform(-1, 1, (batch * 4, 3 * 32 * 32)).astype(np.float32)
    label = rng.integers(0, 10, (batch * 4, 1)).astype(np.int64)
    torch_train_steps(net, x, label, batch, ARGS.train_steps)
    return 0


if __name__ == "__main__":
    if ARGS.torch_train_only is not None:
        sys.exit(torch_train_only())
    sys.exit(run_in_work_dir(run, ARGS.work_dir, "distc-bench-vision-"))

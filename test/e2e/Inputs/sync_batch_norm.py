"""Inputs and checks of data-parallel-batch-norm.test (Inputs/bn-mlp.mlir).

    sync_batch_norm.py data OUT_DIR
        writes x.npy, label.npy (ROWS rows: one global batch) and
        params/<var>.npy, the running statistics included (mean 0, var 1)
    sync_batch_norm.py compare SERIAL.jsonl OTHER.jsonl SERIAL_DIR OTHER_DIR
                       [--rtol R]
        checks that OTHER (an N-rank run) is the serial run: every step's
        loss within R relative (default 1e-5), and every variable dist-run
        saved with --save-persistables (Paddle's format) in the two
        directories within R, elementwise relative to the variable's
        largest magnitude (at least 1e-3); prints the largest differences, exits 1 on a
        mismatch
    sync_batch_norm.py differs SERIAL.jsonl OTHER.jsonl [--min M]
        checks that some step's loss differs by more than M relative
        (default 1e-3): per-rank batch statistics are not the serial run's
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from data_parallel import steps  # noqa: E402

ROWS = 16
SHAPES = {"fc_0.w_0": (16, 8), "fc_0.b_0": (8,), "bn.w": (8,), "bn.b": (8,),
          "fc_1.w_0": (8, 4), "fc_1.b_0": (4,)}


def data(out):
    rng = np.random.default_rng(21)
    os.makedirs(os.path.join(out, "params"), exist_ok=True)
    # Rows sorted by their first feature, so that the ranks' shards (taken
    # in file order) have visibly different statistics.
    x = rng.standard_normal((ROWS, 16)) * 1.5 + 0.5
    x = x[np.argsort(x[:, 0])]
    np.save(os.path.join(out, "x.npy"), x.astype(np.float32))
    np.save(os.path.join(out, "label.npy"), rng.integers(0, 4, (ROWS, 1)).astype(np.int64))
    for name, shape in SHAPES.items():
        value = rng.standard_normal(shape) * (0.4 if len(shape) == 2 else 0.1)
        if name == "bn.w":
            value += 1.0
        np.save(os.path.join(out, "params", name + ".npy"), value.astype(np.float32))
    np.save(os.path.join(out, "params", "bn.mean.npy"), np.zeros(8, np.float32))
    np.save(os.path.join(out, "params", "bn.var.npy"), np.ones(8, np.float32))


def read_paddle_tensor(path):
    """A float32 tensor in Paddle's save format (lod_tensor_serialize.cc):
    uint32 version, uint64 LoD levels (each a uint64 size and its bytes),
    uint32 tensor version, int32 desc size, the TensorDesc, then the data."""
    with open(path, "rb") as f:
        blob = f.read()
    at = 4
    levels = int.from_bytes(blob[at:at + 8], "little")
    at += 8
    for _ in range(levels):
        size = int.from_bytes(blob[at:at + 8], "little")
        at += 8 + size
    at += 4
    desc = int.from_bytes(blob[at:at + 4], "little", signed=True)
    at += 4 + desc
    return np.frombuffer(blob[at:], np.float32)


def compare(args):
    a, b = steps(args.serial), steps(args.other)
    ok = sorted(a) == sorted(b)
    if not ok:
        print(f"steps differ: {sorted(a)} vs {sorted(b)}")
        return False
    worst = 0.0
    for step in sorted(a):
        la, lb = a[step]["loss"], b[step]["loss"]
        rel = abs(la - lb) / max(abs(la), 1e-30)
        worst = max(worst, rel)
        if rel > args.rtol:
            print(f"step {step}: loss {la!r} vs {lb!r} (relative {rel:.2e})")
            ok = False
    print(f"{len(a)} steps: largest relative loss difference {worst:.1e}"
          + (" OK" if ok else " MISMATCH"))
    names = sorted(os.listdir(args.serial_dir))
    if names != sorted(os.listdir(args.other_dir)):
        print(f"saved variables differ: {names} vs {sorted(os.listdir(args.other_dir))}")
        return False
    worst, worst_name = 0.0, ""
    for name in names:
        x = read_paddle_tensor(os.path.join(args.serial_dir, name)).astype(np.float64)
        y = read_paddle_tensor(os.path.join(args.other_dir, name)).astype(np.float64)
        if x.shape != y.shape:
            print(f"{name}: {x.size} vs {y.size} elements")
            ok = False
            continue
        # Relative to the variable's largest magnitude, at least 1e-3: a
        # variable whose gradient is zero in exact arithmetic (fc_0's bias,
        # whose shift batch_norm removes, and its velocity) holds float32
        # rounding noise only (~1e-9).
        rel = np.abs(x - y).max() / max(np.abs(x).max(), 1e-3)
        if rel > worst:
            worst, worst_name = rel, name
        if rel > args.rtol:
            print(f"{name}: differs by {rel:.2e} relative")
            ok = False
    print(f"{len(names)} variables: largest relative difference {worst:.1e} ({worst_name})"
          + (" OK" if ok else " MISMATCH"))
    return ok


def differs(args):
    a, b = steps(args.serial), steps(args.other)
    worst = max(abs(a[s]["loss"] - b[s]["loss"]) / abs(a[s]["loss"]) for s in a if s in b)
    ok = worst > args.min
    print(f"largest relative loss difference {worst:.1e}" + (" DIFFERS" if ok else " SAME"))
    return ok


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("data")
    d.add_argument("out")
    c = sub.add_parser("compare")
    for name in ("serial", "other", "serial_dir", "other_dir"):
        c.add_argument(name)
    c.add_argument("--rtol", type=float, default=1e-5)
    f = sub.add_parser("differs")
    f.add_argument("serial")
    f.add_argument("other")
    f.add_argument("--min", type=float, default=1e-3)
    args = parser.parse_args()
    if args.command == "data":
        data(args.out)
        return 0
    return 0 if (compare(args) if args.command == "compare" else differs(args)) else 1


if __name__ == "__main__":
    sys.exit(main())

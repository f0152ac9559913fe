"""Compares the variables of two training checkpoints (their latest
step): every variable the second holds must be in the first and agree
within RTOL relative in norm (--exact: bit for bit); with --same-set the
two must hold the same variables.

    compare_params.py FIRST_CKPT_DIR OTHER_CKPT_DIR [--rtol R] [--exact] [--same-set]
"""
import argparse
import os

import numpy as np


def latest(root):
    steps = [s for s in os.listdir(root) if s.startswith("step-")]
    return os.path.join(root, max(steps, key=lambda s: int(s[5:])))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("serial")
    parser.add_argument("other")
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--exact", action="store_true")
    parser.add_argument("--same-set", action="store_true")
    args = parser.parse_args()
    a, b = latest(args.serial), latest(args.other)
    names = sorted(n for n in os.listdir(b) if n.endswith(".npy"))
    worst, ok = 0.0, bool(names)
    if args.same_set:
        for name in sorted(n for n in os.listdir(a) if n.endswith(".npy")):
            if name not in names:
                print(f"{name}: not in {b}")
                ok = False
    for name in names:
        if not os.path.exists(os.path.join(a, name)):
            print(f"{name}: not in {a}")
            ok = False
            continue
        x = np.load(os.path.join(a, name)).astype(np.float64)
        y = np.load(os.path.join(b, name)).astype(np.float64)
        if x.shape != y.shape:
            print(f"{name}: shape {x.shape} vs {y.shape}")
            ok = False
            continue
        if args.exact:
            raw_x, raw_y = np.load(os.path.join(a, name)), np.load(os.path.join(b, name))
            if raw_x.dtype != raw_y.dtype or raw_x.tobytes() != raw_y.tobytes():
                print(f"{name}: differs")
                ok = False
            continue
        rel = np.linalg.norm(x - y) / max(np.linalg.norm(x), 1e-30)
        worst = max(worst, rel)
        if rel > args.rtol:
            print(f"{name}: differs by {rel:.2e} relative in norm")
            ok = False
    how = "bit for bit" if args.exact else f"largest relative difference {worst:.1e}"
    print(f"{len(names)} variables: {how}" + (" OK" if ok else " MISMATCH"))


if __name__ == "__main__":
    main()

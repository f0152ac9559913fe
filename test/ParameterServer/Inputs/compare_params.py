"""Compares the parameters of two training checkpoints (their latest
step): every variable the second holds must be in the first and agree
within RTOL relative in norm. A parameter-server trainer's checkpoint holds
the parameters only (the optimizer state lives on the servers), a serial
run's holds the state too.

    compare_params.py SERIAL_CKPT_DIR OTHER_CKPT_DIR [--rtol R]
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
    args = parser.parse_args()
    a, b = latest(args.serial), latest(args.other)
    names = sorted(n for n in os.listdir(b) if n.endswith(".npy"))
    worst, ok = 0.0, bool(names)
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
        rel = np.linalg.norm(x - y) / max(np.linalg.norm(x), 1e-30)
        worst = max(worst, rel)
        if rel > args.rtol:
            print(f"{name}: differs by {rel:.2e} relative in norm")
            ok = False
    print(f"{len(names)} variables: largest relative difference {worst:.1e}"
          + (" OK" if ok else " MISMATCH"))


if __name__ == "__main__":
    main()

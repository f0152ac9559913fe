"""Inputs and checks of the data-parallel equivalence tests.

    data_parallel.py transformer OUT_DIR [--dropout P] [--act-dropout P]
                     [--post-layer-norm] [--fused-qkv [--attn-mask]]
        writes a small trainable transformer block (bench/programs.py's,
        without dropout, or with P on the attention weights, the FFN's
        activation (--act-dropout if given) and before both residual adds;
        with --post-layer-norm
        each layer_norm after its residual add; with --fused-qkv one QKV
        projection in the layout of Paddle's fused_attention pattern, with
        --attn-mask an additive mask from the ids on its scores) as
        OUT_DIR/main.json +
        startup.json, and src_ids.npy, label.npy (48 rows)
    data_parallel.py compare SERIAL.jsonl OTHER.jsonl [--rtol R]
                     [--checkpoints SERIAL_DIR OTHER_DIR]
        checks that OTHER (an N-rank run) is the serial run: the same steps,
        each step's loss (and evaluation metrics, where a step has them)
        within R relative (default 1e-5), equal learning rates, and, with
        --checkpoints, every variable of the two latest checkpoints within
        --param-rtol (default 1e-4) relative in norm; prints the largest
        differences, exits 1 on a mismatch. --zero-gradient NAME (repeated)
        leaves out a variable whose gradient is zero in exact arithmetic and
        its optimizer state: under Adam it holds rounding noise divided by
        its own size, which no two summation orders share.
"""
import argparse
import importlib.util
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def transformer(out, dropout=0.0, post_layer_norm=False, fused_qkv=False, act_dropout=None,
                attn_mask=False):
    path = os.path.join(ROOT, "bench", "programs.py")
    spec = importlib.util.spec_from_file_location("programs", path)
    programs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(programs)
    seq, vocab, classes = 8, 50, 4
    main, startup, _ = programs.transformer(seq=seq, d=16, heads=2, ffn=32, vocab=vocab,
                                            classes=classes, dropout=dropout,
                                            heads_via="fused_qkv" if fused_qkv else "reshape",
                                            residual_dropout=dropout,
                                            normalize_before=not post_layer_norm,
                                            act_dropout=act_dropout, attn_mask=attn_mask)
    programs.save(main, os.path.join(out, "main.json"))
    programs.save(startup, os.path.join(out, "startup.json"))
    rng = np.random.default_rng(5)
    np.save(os.path.join(out, "src_ids.npy"), rng.integers(0, vocab, (48, seq)).astype(np.int64))
    np.save(os.path.join(out, "label.npy"), rng.integers(0, classes, (48, 1)).astype(np.int64))


def steps(path):
    records = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            records[r["step"]] = r
    return records


def latest(root):
    with open(os.path.join(root, "latest")) as f:
        return os.path.join(root, f.read().strip())


def compare(args):
    a, b = steps(args.serial), steps(args.other)
    ok = True
    if sorted(a) != sorted(b):
        print(f"steps differ: {sorted(a)} vs {sorted(b)}")
        return False
    worst = 0.0
    for step in sorted(a):
        la, lb = a[step]["loss"], b[step]["loss"]
        rel = abs(la - lb) / max(abs(la), 1e-30)
        worst = max(worst, rel)
        if rel > args.rtol or a[step]["lr"] != b[step]["lr"]:
            print(f"step {step}: loss {la!r} vs {lb!r} (relative {rel:.2e}), "
                  f"lr {a[step]['lr']!r} vs {b[step]['lr']!r}")
            ok = False
        for key in sorted(k for k in a[step] if k.startswith("eval_")):
            ea, eb = a[step][key], b[step].get(key)
            if eb is None or abs(ea - eb) > args.rtol * abs(ea) + 1e-7:
                print(f"step {step}: {key} {ea!r} vs {eb!r}")
                ok = False
    print(f"{len(a)} steps: largest relative loss difference {worst:.1e}"
          + (" OK" if ok else " MISMATCH"))
    if args.checkpoints:
        da, db = (latest(d) for d in args.checkpoints)
        names = sorted(n for n in os.listdir(da) if n.endswith(".npy"))
        if names != sorted(n for n in os.listdir(db) if n.endswith(".npy")):
            print("checkpoint variables differ")
            return False
        skipped = [n for n in names if any(n.startswith(z + ".npy") or n.startswith(z + "_")
                                           for z in args.zero_gradient)]
        if skipped:
            print("left out (zero gradient): " + ", ".join(skipped))
            names = [n for n in names if n not in skipped]
        worst = 0.0
        for name in names:
            x = np.load(os.path.join(da, name)).astype(np.float64)
            y = np.load(os.path.join(db, name)).astype(np.float64)
            if x.shape != y.shape:
                print(f"{name}: shape {x.shape} vs {y.shape}")
                ok = False
                continue
            # Relative in norm: single elements near zero differ relatively
            # much by float32 rounding alone. A variable whose gradient is
            # zero in exact arithmetic (the attention's key bias) holds
            # rounding noise only (~1e-8), so norms below an RMS of 1e-4 count as it.
            rel = np.linalg.norm(x - y) / max(np.linalg.norm(x), 1e-4 * np.sqrt(x.size))
            worst = max(worst, rel)
            if rel > args.param_rtol:
                print(f"{name}: differs by {rel:.2e} relative in norm")
                ok = False
        print(f"{len(names)} variables: largest relative difference {worst:.1e}"
              + (" OK" if ok else " MISMATCH"))
    return ok


def same_metrics(args):
    """Two evaluations' --metrics lines agree within rtol, key by key."""
    with open(args.first) as f:
        first = json.loads(f.readline())
    with open(args.second) as f:
        second = json.loads(f.readline())
    if sorted(first) != sorted(second):
        print(f"different metrics: {sorted(first)} vs {sorted(second)}")
        return False
    bad = [k for k in first
           if abs(first[k] - second[k]) > args.rtol * abs(first[k]) + 1e-7]
    for k in bad:
        print(f"{k}: {first[k]} vs {second[k]}")
    print(f"{len(first)} metrics" + (" MISMATCH" if bad else " OK"))
    return not bad


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("transformer")
    t.add_argument("out")
    t.add_argument("--dropout", type=float, default=0.0)
    t.add_argument("--post-layer-norm", action="store_true")
    t.add_argument("--fused-qkv", action="store_true")
    t.add_argument("--act-dropout", type=float)
    t.add_argument("--attn-mask", action="store_true")
    c = sub.add_parser("compare")
    c.add_argument("serial")
    c.add_argument("other")
    c.add_argument("--rtol", type=float, default=1e-5)
    c.add_argument("--param-rtol", type=float, default=1e-4)
    c.add_argument("--checkpoints", nargs=2)
    c.add_argument("--zero-gradient", action="append", default=[])
    m = sub.add_parser("same-metrics")
    m.add_argument("first")
    m.add_argument("second")
    m.add_argument("--rtol", type=float, default=1e-5)
    args = parser.parse_args()
    if args.command == "same-metrics":
        return 0 if same_metrics(args) else 1
    if args.command == "transformer":
        os.makedirs(args.out, exist_ok=True)
        transformer(args.out, args.dropout, args.post_layer_norm, args.fused_qkv,
                    args.act_dropout, args.attn_mask)
        return 0
    return 0 if compare(args) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Inputs and float64 NumPy references for vision-ops.test.

Usage: vision_ops.py OUT_DIR

For each Paddle program of test/Inputs/programs/ops that examples/gen_programs.py
writes for the vision models' ops (batch_norm, affine_channel, relu6,
hard_swish, hard_sigmoid, swish, leaky_relu, matmul, arg_max, elementwise_min), writes
OUT_DIR/<op>/params/<var>.npy, OUT_DIR/<op>/<feed>.npy and the expected
output OUT_DIR/<op>/out.npy, following Paddle's semantics at inference
(batch_norm with its running statistics, whatever is_test says).
"""
import os
import sys

import numpy as np


def save(out, op, name, value):
    os.makedirs(os.path.join(out, op, "params"), exist_ok=True)
    np.save(os.path.join(out, op, name + ".npy"), value)


def main(out):
    rng = np.random.default_rng(5)
    f32 = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    img = (rng.standard_normal((2, 3, 4, 4)) * 3).astype(np.float32)
    x = img.astype(np.float64)

    w, b, mean = f32(3), f32(3), f32(3)
    var = rng.uniform(0.5, 2, 3).astype(np.float32)
    c = lambda v: v.astype(np.float64).reshape(1, 3, 1, 1)
    for name, value in (("bn.w", w), ("bn.b", b), ("bn.mean", mean), ("bn.var", var)):
        save(out, "batch_norm", "params/" + name, value)
    save(out, "batch_norm", "img", img)
    save(out, "batch_norm", "out", ((x - c(mean)) / np.sqrt(c(var) + 1e-5) * c(w) + c(b))
         .astype(np.float32))

    save(out, "affine_channel", "params/ac.w", w)
    save(out, "affine_channel", "params/ac.b", b)
    save(out, "affine_channel", "img", img)
    save(out, "affine_channel", "out", (x * c(w) + c(b)).astype(np.float32))

    acts = {
        "relu6": np.clip(x, 0, 6),
        "hard_swish": x * np.clip(x + 3, 0, 6) / 6,
        "hard_sigmoid": np.clip(0.2 * x + 0.5, 0, 1),
        "swish": x / (1 + np.exp(-x)),
        "leaky_relu": np.where(x > 0, x, 0.1 * x),
    }
    for op, value in acts.items():
        os.makedirs(os.path.join(out, op, "params"), exist_ok=True)
        save(out, op, "img", img)
        save(out, op, "out", value.astype(np.float32))

    mx, mw = f32(2, 4, 8), f32(3, 8)
    save(out, "matmul", "params/w", mw)
    save(out, "matmul", "x", mx)
    save(out, "matmul", "out", (0.5 * mx.astype(np.float64) @ mw.astype(np.float64).T)
         .astype(np.float32))

    ex, ey = f32(2, 4, 8), f32(8)
    os.makedirs(os.path.join(out, "elementwise_min", "params"), exist_ok=True)
    save(out, "elementwise_min", "x", ex)
    save(out, "elementwise_min", "y", ey)
    save(out, "elementwise_min", "out", np.minimum(ex, ey))

    p = f32(5, 10)
    os.makedirs(os.path.join(out, "arg_max", "params"), exist_ok=True)
    save(out, "arg_max", "p", p)
    save(out, "arg_max", "out", np.argmax(p, axis=-1).astype(np.int64))


if __name__ == "__main__":
    main(sys.argv[1])

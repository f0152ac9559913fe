"""Inputs and float64 reference of fused_attention (test/e2e/fused-attention.test).

    fused_attention.py OUT_DIR
        writes x.npy [2, 5, 8], the weights of a 2-head attention block
        (qkv_w [3, 2, 4, 8], qkv_b [3, 2, 4], out_w [8, 8], out_b [8], the
        layer norms' scale and bias [8]) and a mask [2, 1, 5, 5], and the
        block's output computed in float64 as Paddle's documentation of
        fused_multi_head_attention defines it, in the inference form with
        upscale_in_train dropout (the identity): pre.npy for the pre layer
        norm with the mask and the residual, post.npy for the post layer
        norm with the residual and without the mask; and qkv_w_t.npy
        [8, 24], qkv_b_t.npy [24], the QKV weight and bias in the
        transpose_qkv_wb form (pre.npy is that form's output too).
"""
import os
import sys

import numpy as np


def layer_norm(x, scale, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * scale + bias


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(p, x, pre, mask):
    b, s, d = x.shape
    _, h, hd, _ = p["qkv_w"].shape
    out = layer_norm(x, p["ln_s"], p["ln_b"]) if pre else x
    qkv = out.reshape(b * s, d) @ p["qkv_w"].reshape(3 * d, d).T + p["qkv_b"].reshape(3 * d)
    qkv = qkv.reshape(b, s, 3, h, hd).transpose(2, 0, 3, 1, 4)
    q, k, v = qkv[0] * hd ** -0.5, qkv[1], qkv[2]
    scores = q @ k.transpose(0, 1, 3, 2)
    if mask is not None:
        scores = scores + mask
    ctx = softmax(scores) @ v
    ctx = ctx.transpose(0, 2, 1, 3).reshape(b * s, d)
    y = (ctx @ p["out_w"] + p["out_b"]).reshape(b, s, d) + x
    return y if pre else layer_norm(y, p["ln2_s"], p["ln2_b"])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    f = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    p = dict(x=f(2, 5, 8), qkv_w=f(3, 2, 4, 8) * 0.3, qkv_b=f(3, 2, 4) * 0.1,
             out_w=f(8, 8) * 0.3, out_b=f(8) * 0.1, ln_s=1 + f(8) * 0.1, ln_b=f(8) * 0.1,
             ln2_s=1 + f(8) * 0.1, ln2_b=f(8) * 0.1)
    mask = np.where(rng.random((2, 1, 5, 5)) < 0.3, -1e4, 0).astype(np.float32)
    p["mask"] = mask
    for name, value in p.items():
        np.save(os.path.join(out, name + ".npy"), value)
    # The transpose_qkv_wb form's weight [d, 3d] and bias [3d]: the same
    # projection, so pre.npy is its output too.
    np.save(os.path.join(out, "qkv_w_t.npy"), np.ascontiguousarray(p["qkv_w"].reshape(24, 8).T))
    np.save(os.path.join(out, "qkv_b_t.npy"), p["qkv_b"].reshape(24))
    p64 = {k: v.astype(np.float64) for k, v in p.items()}
    np.save(os.path.join(out, "pre.npy"),
            attention(p64, p64["x"], True, p64["mask"]).astype(np.float32))
    np.save(os.path.join(out, "post.npy"),
            attention(p64, p64["x"], False, None).astype(np.float32))


if __name__ == "__main__":
    main()

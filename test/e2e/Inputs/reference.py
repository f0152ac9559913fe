"""Float64 NumPy references for the end-to-end tests.

Usage: reference.py CASE OUT_DIR. Writes the feeds, the parameters (under
OUT_DIR/params, one <var name>.npy each) and the expected outputs, computed
independently of distc in float64 and stored as float32.
"""
import os
import sys

import numpy as np

rng = np.random.default_rng(1234)


def save(out, name, value, dtype=np.float32):
    np.save(os.path.join(out, name + ".npy"), np.asarray(value).astype(dtype))


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def mlp(out):
    params = os.path.join(out, "params")
    os.makedirs(params, exist_ok=True)
    x = rng.standard_normal((5, 8))
    w0, b0 = rng.standard_normal((8, 16)) * 0.3, rng.standard_normal(16) * 0.1
    w1, b1 = rng.standard_normal((16, 4)) * 0.3, rng.standard_normal(4) * 0.1
    label = rng.integers(0, 4, size=(5, 1))
    for name, value in [("fc_0.w_0", w0), ("fc_0.b_0", b0), ("fc_1.w_0", w1), ("fc_1.b_0", b1)]:
        save(params, name, value)
    save(out, "x", x)
    save(out, "label", label, np.int64)
    h = np.maximum(x.astype(np.float32).astype(np.float64) @ w0.astype(np.float32) + b0.astype(np.float32), 0)
    logits = h @ w1.astype(np.float32) + b1.astype(np.float32)
    prob = softmax(logits)
    loss = -np.log(prob[np.arange(5), label[:, 0]])
    save(out, "prob", prob)
    save(out, "loss", loss.mean())
    save(out, "acc", [np.mean(prob.argmax(axis=1) == label[:, 0])])


def layer_norm(x, scale, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * scale + bias


def gelu(x):
    from math import erf
    return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))


def attention(out):
    """Embedding, layer norm, 2-head self-attention, GELU FFN, residuals."""
    params = os.path.join(out, "params")
    os.makedirs(params, exist_ok=True)
    vocab, seq, hidden, heads = 11, 3, 8, 2
    f = lambda *shape: (rng.standard_normal(shape) * 0.4).astype(np.float32).astype(np.float64)
    p = {
        "emb": f(vocab, hidden), "ln_scale": 1 + f(hidden), "ln_bias": f(hidden),
        "wq": f(hidden, hidden), "wk": f(hidden, hidden), "wv": f(hidden, hidden),
        "wo": f(hidden, hidden), "w1": f(hidden, 16), "w2": f(16, hidden),
    }
    for name, value in p.items():
        save(params, name, value)
    ids = rng.integers(0, vocab, size=(2, seq))
    save(out, "ids", ids, np.int64)
    x = p["emb"][ids]                                       # [b, s, h]
    y = layer_norm(x, p["ln_scale"], p["ln_bias"])
    def heads_of(t):                                        # [b, s, h] -> [b, n, s, d]
        return t.reshape(2, seq, heads, hidden // heads).transpose(0, 2, 1, 3)
    q, k, v = (heads_of(y @ p[w]) for w in ("wq", "wk", "wv"))
    scores = (q @ k.transpose(0, 1, 3, 2)) * (1 / np.sqrt(hidden // heads))
    ctx = softmax(scores) @ v                               # [b, n, s, d]
    ctx = ctx.transpose(0, 2, 1, 3).reshape(2, seq, hidden)
    a = x + (ctx @ p["wo"]) * 0.9                           # downgrade_in_infer dropout, p = 0.1
    out_ = a + gelu(a @ p["w1"]) @ p["w2"]
    save(out, "out", out_)
    save(out, "pooled", out_.mean(axis=1))


if __name__ == "__main__":
    os.makedirs(sys.argv[2], exist_ok=True)
    {"mlp": mlp, "attention": attention}[sys.argv[1]](sys.argv[2])

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


def mlp_grads(out):
    """The mlp case plus d loss / d parameter for every parameter, by
    central finite differences of the float64 loss."""
    mlp(out)
    x = np.load(os.path.join(out, "x.npy")).astype(np.float64)
    label = np.load(os.path.join(out, "label.npy"))[:, 0]
    names = ["fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"]
    p = {n: np.load(os.path.join(out, "params", n + ".npy")).astype(np.float64) for n in names}

    def loss(q):
        h = np.maximum(x @ q["fc_0.w_0"] + q["fc_0.b_0"], 0)
        z = h @ q["fc_1.w_0"] + q["fc_1.b_0"]
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return -logp[np.arange(len(x)), label].mean()

    eps = 1e-6
    for name in names:
        grad = np.zeros_like(p[name])
        for i in np.ndindex(grad.shape):
            hi, lo = dict(p), dict(p)
            hi[name], lo[name] = p[name].copy(), p[name].copy()
            hi[name][i] += eps
            lo[name][i] -= eps
            grad[i] = (loss(hi) - loss(lo)) / (2 * eps)
        save(out, name + "@GRAD", grad)


def layer_norm(x, scale, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * scale + bias


def gelu(x):
    from math import erf
    return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))


def transformer(out):
    """The pre-LN transformer block of examples/transformer: embedding, layer
    norm, 4-head self-attention, residual, layer norm, GELU FFN, residual.
    Parameters use the example program's variable names."""
    params = os.path.join(out, "params")
    os.makedirs(params, exist_ok=True)
    vocab, batch, seq, hidden, heads, ffn = 100, 2, 16, 32, 4, 64
    f = lambda *shape: (rng.standard_normal(shape) * 0.3).astype(np.float32).astype(np.float64)
    p = {"word_embedding": f(vocab, hidden)}
    for i in range(2):
        p[f"layer_norm_{i}.w_0"] = 1 + f(hidden)
        p[f"layer_norm_{i}.b_0"] = f(hidden)
    for i in range(4):
        p[f"linear_{i}.w_0"], p[f"linear_{i}.b_0"] = f(hidden, hidden), f(hidden)
    p["linear_4.w_0"], p["linear_4.b_0"] = f(hidden, ffn), f(ffn)
    p["linear_5.w_0"], p["linear_5.b_0"] = f(ffn, hidden), f(hidden)
    for name, value in p.items():
        save(params, name, value)
    ids = rng.integers(0, vocab, size=(batch, seq))
    save(out, "src_ids", ids, np.int64)

    def linear(t, i):
        return t @ p[f"linear_{i}.w_0"] + p[f"linear_{i}.b_0"]

    def heads_of(t):                                        # [b, s, h] -> [b, n, s, d]
        return t.reshape(batch, seq, heads, hidden // heads).transpose(0, 2, 1, 3)

    x = p["word_embedding"][ids]                            # [b, s, h]
    y = layer_norm(x, p["layer_norm_0.w_0"], p["layer_norm_0.b_0"])
    q, k, v = (heads_of(linear(y, i)) for i in range(3))
    scores = (q @ k.transpose(0, 1, 3, 2)) * (1 / np.sqrt(hidden // heads))
    ctx = softmax(scores) @ v                               # upscale_in_train dropout: identity at inference
    ctx = ctx.transpose(0, 2, 1, 3).reshape(batch, seq, hidden)
    a = x + linear(ctx, 3)
    z = layer_norm(a, p["layer_norm_1.w_0"], p["layer_norm_1.b_0"])
    save(out, "out", a + linear(gelu(linear(z, 4)), 5))


if __name__ == "__main__":
    os.makedirs(sys.argv[2], exist_ok=True)
    {"mlp": mlp, "mlp_grads": mlp_grads, "transformer": transformer}[sys.argv[1]](sys.argv[2])

"""Float64 finite-difference gradients for the grad-*.test checks.

Usage: gradcheck.py FAMILY OUT_DIR
       gradcheck.py dropout-train OUT_DIR         (inputs of grad-dropout.test)
       gradcheck.py dropout-train-check OUT_DIR   (its check, after training)
       gradcheck.py batch-norm-train OUT_DIR      (inputs of grad-norm.test's training run)
       gradcheck.py batch-norm-train-check OUT_DIR
       gradcheck.py batch-norm-eval-check OUT_DIR

Each family matches test/e2e/Inputs/grad-ops/FAMILY.mlir: a program of
independent cases, one forward op (or a short chain) each, whose float inputs
are the trainable parameters `<case>_<slot>`. Output k of a case is weighted
by the fixed, non-trainable variable `<case>_r` (`<case>_r<k>` when there are
several outputs), and the loss is

    loss = sum over cases, over outputs k:  mean(out_k * r_k).

This script re-implements every forward op in float64 NumPy, independently
of distc and following Paddle's semantics, and writes:

  OUT_DIR/params/<name>.npy   parameters, weights and integer inputs (ids,
                              labels), all persistable variables of the program
  OUT_DIR/loss.npy            the loss
  OUT_DIR/<param>@GRAD.npy    d loss / d param by central differences

Parameters are drawn in float64 and rounded to float32 before anything is
computed, so distc sees exactly the values the reference differentiates.
"""
import math
import os
import sys
import zlib

import numpy as np

EPS = 1e-6


class Family:
    def __init__(self, name):
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.cases = []

    # Parameter values. Everything is rounded to float32 on creation.
    def _f32(self, a):
        return np.asarray(a, np.float64).astype(np.float32).astype(np.float64)

    def normal(self, *shape, scale=1.0):
        return self._f32(self.rng.standard_normal(shape) * scale)

    def away(self, *shape, lo=0.2, hi=1.5):
        """Random signs, magnitudes in [lo, hi]: away from kinks and poles at 0."""
        mag = self.rng.uniform(lo, hi, shape)
        return self._f32(np.where(self.rng.random(shape) < 0.5, -mag, mag))

    def uniform(self, *shape, lo, hi):
        return self._f32(self.rng.uniform(lo, hi, shape))

    def case(self, name, params, forward, consts=None):
        """`forward(**params, **consts)` returns the case's output or a list
        of outputs; params are float64 arrays, consts are saved as given."""
        self.cases.append((name, params, consts or {}, forward))


def as_list(outs):
    return list(outs) if isinstance(outs, (list, tuple)) else [outs]


def run(family, out):
    params_dir = os.path.join(out, "params")
    os.makedirs(params_dir, exist_ok=True)
    total = 0.0
    for name, params, consts, forward in family.cases:
        outs = as_list(forward(**params, **consts))
        suffixes = [""] if len(outs) == 1 else [str(k) for k in range(len(outs))]
        weights = [family.normal(*np.shape(o)) for o in outs]

        def loss(p):
            ys = as_list(forward(**p, **consts))
            return sum(float(np.mean(y * w)) for y, w in zip(ys, weights))

        total += loss(params)
        for slot, value in params.items():
            np.save(os.path.join(params_dir, f"{name}_{slot}.npy"), value.astype(np.float32))
            grad = np.zeros_like(value)
            for i in np.ndindex(value.shape):
                hi, lo = dict(params), dict(params)
                hi[slot], lo[slot] = value.copy(), value.copy()
                hi[slot][i] += EPS
                lo[slot][i] -= EPS
                grad[i] = (loss(hi) - loss(lo)) / (2 * EPS)
            np.save(os.path.join(out, f"{name}_{slot}@GRAD.npy"), grad.astype(np.float32))
        for slot, value in consts.items():
            np.save(os.path.join(params_dir, f"{name}_{slot}.npy"), value)
        for suffix, w in zip(suffixes, weights):
            np.save(os.path.join(params_dir, f"{name}_r{suffix}.npy"), w.astype(np.float32))
    np.save(os.path.join(out, "loss.npy"), np.float32(total))


# --- Paddle's forward ops in float64 ----------------------------------------

def mul(x, y, xn=1, yn=1):
    """Paddle `mul`: X flattened to 2-D at x_num_col_dims, Y at y_num_col_dims."""
    m = int(np.prod(x.shape[:xn]))
    n = int(np.prod(y.shape[yn:]))
    out = x.reshape(m, -1) @ y.reshape(-1, n)
    return out.reshape(x.shape[:xn] + y.shape[yn:])


def matmul_v2(x, y, trans_x=False, trans_y=False):
    if trans_x:
        x = np.swapaxes(x, -1, -2)
    if trans_y:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


def paddle_broadcast(x, y, axis=-1):
    """Paddle's elementwise rule: the lower-rank operand's dims start at
    `axis` of the other's (trailing-aligned for -1), padded with 1s."""
    def place(small, rank):
        start = rank - small.ndim if axis == -1 else axis
        return small.reshape((1,) * start + small.shape + (1,) * (rank - start - small.ndim))
    if x.ndim > y.ndim:
        y = place(y, x.ndim)
    elif y.ndim > x.ndim:
        x = place(x, y.ndim)
    return x, y


def elementwise(op, axis=-1):
    def f(x, y):
        a, b = paddle_broadcast(x, y, axis)
        return op(a, b)
    return f


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def gelu(x, approximate=False):
    if approximate:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def reduce(x, fn, dim=(0,), keep_dim=False, reduce_all=False):
    axes = tuple(range(x.ndim)) if reduce_all or len(dim) == 0 else tuple(d % x.ndim for d in dim)
    return fn(x, axis=axes, keepdims=keep_dim)


def reshape2(x, shape):
    shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return x.reshape(shape)


def split(x, axis, num=0, sections=()):
    size = x.shape[axis]
    if num:
        sections = [size // num] * num
    sections = list(sections)
    if -1 in sections:
        sections[sections.index(-1)] = size - (sum(sections) + 1)
    return np.split(x, np.cumsum(sections)[:-1], axis=axis)


def paddle_slice(x, axes, starts, ends, decrease_axis=()):
    index = [slice(None)] * x.ndim
    for a, s, e in zip(axes, starts, ends):
        d = x.shape[a]
        s = min(max(s + d if s < 0 else s, 0), d)
        e = min(max(e + d if e < 0 else e, 0), d)
        index[a] = slice(s, e)
    out = x[tuple(index)]
    return out.squeeze(axis=tuple(decrease_axis)) if decrease_axis else out


def lookup_table_v2(ids, w, padding_idx=-1):
    out = w[ids]
    if padding_idx != -1:
        out = np.where((ids == padding_idx)[..., None], 0.0, out)
    return out


def layer_norm(x, scale=None, bias=None, begin_norm_axis=1, epsilon=1e-5):
    left = int(np.prod(x.shape[:begin_norm_axis]))
    x2 = x.reshape(left, -1)
    mean = x2.mean(axis=1, keepdims=True)
    var = ((x2 - mean) ** 2).mean(axis=1, keepdims=True)
    y = (x2 - mean) / np.sqrt(var + epsilon)
    if scale is not None:
        y = y * scale
    if bias is not None:
        y = y + bias
    return y.reshape(x.shape)


def softmax_with_cross_entropy(logits, label, axis=-1, soft_label=False, ignore_index=-100):
    logp = np.log(softmax(logits, axis))
    if soft_label:
        return -(label * logp).sum(axis=axis, keepdims=True)
    picked = np.take_along_axis(logp, np.where(label == ignore_index, 0, label), axis=axis)
    return np.where(label == ignore_index, 0.0, -picked)


# --- the families -------------------------------------------------------------

def per_channel(v, x, axis):
    """A [C] vector shaped to broadcast along `axis` of x."""
    shape = [1] * x.ndim
    shape[axis] = -1
    return v.reshape(shape)


def batch_norm(x, scale, bias, mean=None, var=None, axis=1, epsilon=1e-5):
    """Paddle's batch_norm: with mean/var the running statistics, else the
    batch's mean and biased variance over every axis but `axis`."""
    if mean is None:
        others = tuple(i for i in range(x.ndim) if i != axis)
        mean, var = x.mean(axis=others), x.var(axis=others)
    c = lambda v: per_channel(v, x, axis)
    return (x - c(mean)) / np.sqrt(c(var) + epsilon) * c(scale) + c(bias)


def affine_channel(x, scale, bias, axis=1):
    return x * per_channel(scale, x, axis) + per_channel(bias, x, axis)


def hard_swish(x, threshold=6.0, scale=6.0, offset=3.0):
    return x * np.clip(x + offset, 0, threshold) / scale


def matmul_v1(x, y, transpose_x=False, transpose_y=False, alpha=1.0):
    return alpha * matmul_v2(x, y, transpose_x, transpose_y)


def away_from(f, x, kinks, margin=0.05):
    """x with every element kept `margin` away from each kink."""
    for k in kinks:
        x = f._f32(np.where(np.abs(x - k) < margin, x + 2 * margin, x))
    return x


def linalg(f):
    f.case("mul", {"x": f.normal(3, 4), "y": f.normal(4, 2)}, mul)
    # X [2,3,4] at x_num_col_dims 2 is [6,4]; Y [2,2,5] at y_num_col_dims 2 is [4,5].
    f.case("mul_flat", {"x": f.normal(2, 3, 4), "y": f.normal(2, 2, 5)},
           lambda x, y: mul(x, y, 2, 2))
    # X [2,3,2] at x_num_col_dims 1 is [2,6]; Y [6,2,2] at 1 is [6,4]: Out [2,2,2].
    f.case("mul_x1", {"x": f.normal(2, 3, 2), "y": f.normal(6, 2, 2)}, mul)
    for tx in (False, True):
        for ty in (False, True):
            tag = ("t" if tx else "n") + ("t" if ty else "n")
            xs = (4, 3) if tx else (3, 4)
            ys = (2, 4) if ty else (4, 2)
            f.case(f"mm_{tag}", {"x": f.normal(*xs), "y": f.normal(*ys)},
                   lambda x, y, tx=tx, ty=ty: matmul_v2(x, y, tx, ty))
            xs = (2, 4, 3) if tx else (2, 3, 4)
            ys = (2, 5, 4) if ty else (2, 4, 5)
            f.case(f"bmm_{tag}", {"x": f.normal(*xs), "y": f.normal(*ys)},
                   lambda x, y, tx=tx, ty=ty: matmul_v2(x, y, tx, ty))
    f.case("bmm4", {"x": f.normal(2, 2, 3, 2), "y": f.normal(2, 2, 2, 3)}, matmul_v2)
    f.case("bmm4_tt", {"x": f.normal(2, 2, 2, 3), "y": f.normal(2, 2, 3, 2)},
           lambda x, y: matmul_v2(x, y, True, True))
    # A 2-D weight shared by every batch, as a linear layer on [b, s, h].
    f.case("mm_w", {"x": f.normal(2, 3, 4), "y": f.normal(4, 5)}, matmul_v2)
    f.case("mm_wt", {"x": f.normal(2, 3, 4), "y": f.normal(5, 4)},
           lambda x, y: matmul_v2(x, y, False, True))


def elementwise_ops(f):
    ops = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
    for kind, op in ops.items():
        # Divisors away from 0.
        y = (lambda *s: f.away(*s, lo=0.5)) if kind == "div" else f.normal
        f.case(f"ew_{kind}", {"x": f.normal(2, 3), "y": y(2, 3)}, elementwise(op))
        # A lower-rank Y on the trailing dims, at axis 1, at axis 0.
        f.case(f"ew_{kind}_last", {"x": f.normal(2, 3, 4), "y": y(4)}, elementwise(op))
        f.case(f"ew_{kind}_mid", {"x": f.normal(2, 3, 4), "y": y(3)}, elementwise(op, 1))
        f.case(f"ew_{kind}_lead", {"x": f.normal(2, 3, 4), "y": y(2, 3)}, elementwise(op, 0))
        # Same rank, size-1 dims of Y broadcast.
        f.case(f"ew_{kind}_ones", {"x": f.normal(2, 3, 4), "y": y(1, 3, 1)}, elementwise(op))
        # X the lower-rank operand, placed at axis 1 of Y.
        f.case(f"ew_{kind}_xsmall", {"x": f.normal(3, 1), "y": y(2, 3, 4)}, elementwise(op, 1))
    # Both broadcast: [2,1,4] with [3,1] (as [1,3,1]) is [2,3,4].
    for kind, op in ops.items():
        y = (lambda *s: f.away(*s, lo=0.5)) if kind == "div" else f.normal
        f.case(f"ew_{kind}_both", {"x": f.normal(2, 1, 4), "y": y(3, 1)}, elementwise(op))
    # One value used twice: its gradient is the sum of both uses.
    f.case("square_by_mul", {"x": f.normal(2, 3)}, lambda x: x * x)


def minmax(f):
    """elementwise_max and _min (grad-minmax.test): Y is X's values moved
    0.1-1 away (broadcast cases: fresh values, checked to stay 0.01 from
    every X they meet), so no element sits within a finite-difference step
    of the kink x == y."""
    for kind, op in (("max", np.maximum), ("min", np.minimum)):
        x = f.normal(2, 3)
        f.case(f"ew_{kind}", {"x": x, "y": f._f32(x + f.away(2, 3, lo=0.1, hi=1.0))},
               elementwise(op))
        x = f.normal(2, 3, 4)
        y = f.normal(3)
        gap = np.abs(x - y.reshape(1, 3, 1)).min()
        assert gap > 0.01, "a broadcast case too close to its kink: %g" % gap
        f.case(f"ew_{kind}_mid", {"x": x, "y": y}, elementwise(op, 1))


def activation(f):
    f.case("relu", {"x": f.away(2, 3, 4)}, lambda x: np.maximum(x, 0))
    f.case("sigmoid", {"x": f.normal(2, 3, 4, scale=2)}, lambda x: sigmoid(x))
    f.case("tanh", {"x": f.normal(2, 3, 4)}, lambda x: np.tanh(x))
    f.case("sqrt", {"x": f.uniform(2, 3, 4, lo=0.5, hi=2.0)}, lambda x: np.sqrt(x))
    f.case("square", {"x": f.normal(2, 3, 4)}, lambda x: np.square(x))
    f.case("gelu", {"x": f.normal(2, 3, 4, scale=1.5)}, lambda x: gelu(x))
    f.case("gelu_tanh", {"x": f.normal(2, 3, 4, scale=1.5)}, lambda x: gelu(x, True))
    f.case("softmax", {"x": f.normal(2, 3, 4)}, lambda x: softmax(x))
    f.case("softmax_a0", {"x": f.normal(3, 4)}, lambda x: softmax(x, 0))
    f.case("softmax_a1", {"x": f.normal(2, 3, 4)}, lambda x: softmax(x, 1))
    # clip to [-0.5, 0.8], inputs kept 0.05 away from both bounds (its kinks).
    x = f.uniform(2, 3, 4, lo=-1.5, hi=1.5)
    for bound in (-0.5, 0.8):
        x = f._f32(np.where(np.abs(x - bound) < 0.05, x + 0.1, x))
    f.case("clip", {"x": x}, lambda x: np.clip(x, -0.5, 0.8))


def reduction(f):
    f.case("sum_d1", {"x": f.normal(2, 3, 4)}, lambda x: reduce(x, np.sum, [1]))
    f.case("sum_keep", {"x": f.normal(2, 3, 4)}, lambda x: reduce(x, np.sum, [-1], True))
    f.case("sum_d02", {"x": f.normal(2, 3, 4)}, lambda x: reduce(x, np.sum, [0, 2]))
    f.case("sum_all", {"x": f.normal(2, 3, 4)}, lambda x: reduce(x, np.sum, reduce_all=True))
    f.case("sum_dflt", {"x": f.normal(3, 4)}, lambda x: reduce(x, np.sum))
    f.case("mean_d1", {"x": f.normal(2, 3, 4)}, lambda x: reduce(x, np.mean, [1]))
    f.case("mean_keep", {"x": f.normal(2, 3, 4)}, lambda x: reduce(x, np.mean, [-1, 0], True))
    f.case("mean_d02", {"x": f.normal(2, 3, 4)}, lambda x: reduce(x, np.mean, [0, 2]))
    f.case("mean_all", {"x": f.normal(2, 3, 4)}, lambda x: reduce(x, np.mean, reduce_all=True))
    f.case("mean_allk", {"x": f.normal(2, 3, 4)},
           lambda x: reduce(x, np.mean, keep_dim=True, reduce_all=True))
    f.case("mean", {"x": f.normal(2, 3, 4)}, lambda x: np.mean(x))


def shape(f):
    f.case("concat", {"a": f.normal(2, 1, 4), "b": f.normal(2, 3, 4), "c": f.normal(2, 2, 4)},
           lambda a, b, c: np.concatenate([a, b, c], axis=1))
    f.case("concat_neg", {"a": f.normal(3, 2), "b": f.normal(3, 3)},
           lambda a, b: np.concatenate([a, b], axis=-1))
    f.case("split_num", {"x": f.normal(2, 3, 4)}, lambda x: split(x, 1, num=3))
    f.case("split_sec", {"x": f.normal(2, 3, 5)}, lambda x: split(x, 2, sections=[2, -1, 1]))
    # The second piece is not used: its gradient is zero.
    f.case("split_unused", {"x": f.normal(4, 3)}, lambda x: split(x, 0, num=2)[0])
    f.case("slice", {"x": f.normal(2, 3, 4)},
           lambda x: paddle_slice(x, [1, 2], [1, -3], [2, 100]))
    f.case("slice_neg", {"x": f.normal(4, 5)},
           lambda x: paddle_slice(x, [0, 1], [-3, 0], [-1, -2]))
    f.case("slice_dec", {"x": f.normal(2, 3, 4)},
           lambda x: paddle_slice(x, [1], [2], [3], decrease_axis=[1]))
    f.case("slice_dec2", {"x": f.normal(3, 4)},
           lambda x: paddle_slice(x, [0, 1], [1, 3], [2, 4], decrease_axis=[0, 1]))


def nn(f):
    ids = np.array([[1, 3, 1], [0, 5, 3]], np.int64)
    f.case("emb", {"w": f.normal(6, 3)}, lambda w, ids: lookup_table_v2(ids, w),
           consts={"ids": ids})
    f.case("emb_i32", {"w": f.normal(4, 2)}, lambda w, ids: lookup_table_v2(ids, w),
           consts={"ids": np.array([3, 0, 3, 3], np.int32)})
    pad = np.array([[2, 4, 2, 0], [5, 2, 4, 1]], np.int64)
    f.case("emb_pad", {"w": f.normal(6, 3)}, lambda w, ids: lookup_table_v2(ids, w, 2),
           consts={"ids": pad})
    f.case("ln", {"x": f.normal(2, 3, 4), "scale": 1 + f.normal(12, scale=0.3),
                  "bias": f.normal(12, scale=0.3)},
           lambda x, scale, bias: layer_norm(x, scale, bias, 1))
    f.case("ln2", {"x": f.normal(2, 3, 4), "scale": 1 + f.normal(4, scale=0.3),
                   "bias": f.normal(4, scale=0.3)},
           lambda x, scale, bias: layer_norm(x, scale, bias, 2, 1e-6))
    f.case("ln_plain", {"x": f.normal(3, 5)}, lambda x: layer_norm(x))
    f.case("ln_s", {"x": f.normal(2, 2, 3), "scale": 1 + f.normal(3, scale=0.3)},
           lambda x, scale: layer_norm(x, scale, None, 2))
    label = np.array([[2], [0], [3]], np.int64)
    f.case("xent", {"x": f.normal(3, 4)},
           lambda x, label: softmax_with_cross_entropy(x, label), consts={"label": label})
    f.case("xent_ign", {"x": f.normal(3, 4)},
           lambda x, label: softmax_with_cross_entropy(x, label, ignore_index=1),
           consts={"label": np.array([[2], [1], [0]], np.int64)})
    # Logits [2,3,4] over axis 1, labels [2,1,4].
    f.case("xent_a1", {"x": f.normal(2, 3, 4)},
           lambda x, label: softmax_with_cross_entropy(x, label, axis=1),
           consts={"label": f.rng.integers(0, 3, (2, 1, 4)).astype(np.int64)})
    soft = softmax(f.normal(3, 4)).astype(np.float32)
    f.case("xent_soft", {"x": f.normal(3, 4)},
           lambda x, label: softmax_with_cross_entropy(x, label.astype(np.float64),
                                                       soft_label=True),
           consts={"label": soft})


def copies(f):
    f.case("scale", {"x": f.normal(2, 3)}, lambda x: 2.5 * x + 0.5)
    f.case("scale_pre", {"x": f.normal(2, 3)}, lambda x: -1.5 * (x + 0.5))
    # f32 -> f64, tanh in f64, back to f32.
    f.case("cast", {"x": f.normal(2, 3)}, lambda x: np.tanh(x))
    # assign and sum pass the output gradient through unchanged; each
    # parameter goes through another op first (see names).
    f.case("assign", {"x": f.normal(2, 3)}, lambda x: np.tanh(x))
    f.case("sum", {"a": f.normal(2, 3), "b": f.normal(2, 3)},
           lambda a, b: np.tanh(a) + np.square(b) + np.tanh(a))


# Rules that do not pass yet. No test runs these families; each program
# shows one problem (see the comments in the grad-*.test files).

def div_broadcast(f):
    """distc aborts compiling this program: lowering elementwise_div_grad
    reads operand dims after adding buffers may have moved them."""
    f.case("div_xsmall", {"x": f.normal(3, 1), "y": f.away(2, 3, 4, lo=0.5)},
           elementwise(np.divide, 1))


def xshape(f):
    """distc rejects the program: lowering reshape2 and transpose2 fails on an
    XShape result in use, and reshape2_grad/transpose2_grad use it."""
    f.case("reshape", {"x": f.normal(2, 3, 4)}, lambda x: reshape2(x, [0, -1]))
    f.case("reshape_split", {"x": f.normal(2, 6)}, lambda x: reshape2(x, [3, 2, 2]))
    f.case("transpose", {"x": f.normal(2, 3, 4)}, lambda x: x.transpose(2, 0, 1))
    f.case("transpose_neg", {"x": f.normal(2, 3, 4)}, lambda x: x.transpose(0, 2, 1))


def layer_norm_bias(f):
    """distc rejects the program: layer_norm_grad with Bias but no Scale gives
    Bias@GRAD the shape of Mean."""
    f.case("ln_b", {"x": f.normal(2, 2, 3), "bias": f.normal(3, scale=0.3)},
           lambda x, bias: layer_norm(x, None, bias, 2))


def dropout_test(f):
    """Test-time dropout (is_test, p = 0.25): downgrade_in_infer scales by
    1 - p, upscale_in_train is the identity; the computed gradients are
    1 / (1 - p) times too large."""
    f.case("drop", {"x": f.normal(2, 3)}, lambda x: x * (1 - 0.25))
    f.case("drop_up", {"x": f.normal(2, 3)}, lambda x: x)


def names(f):
    """Right values under the wrong names: a parameter read straight into
    assign or sum gets its gradient under another variable's name, so no
    <param>@GRAD is fetched."""
    f.case("assign_p", {"x": f.normal(2, 3)}, lambda x: x)
    f.case("sum_p", {"a": f.normal(2, 3), "b": f.normal(2, 3)}, lambda a, b: a + b + a)


# --- shape, padding and resize ops of image models (grad-resize.test) -------

def flatten_range(x, start, stop):
    start, stop = start % x.ndim, stop % x.ndim
    shape = x.shape[:start] + (-1,) + x.shape[stop + 1:]
    return x.reshape(shape)


def unsqueeze(x, axes):
    """Paddle's unsqueeze2: each axis in turn, against the rank reached so far."""
    for a in axes:
        x = np.expand_dims(x, a if a >= 0 else a + x.ndim + 1)
    return x


def shuffle_channel(x, group):
    n, c, h, w = x.shape
    return x.reshape(n, group, c // group, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)


def pad_nd(x, pads, mode, value=0.0):
    """pads: (before, after) per dim of x; NumPy's pad modes are Paddle's."""
    np_mode = {"constant": "constant", "reflect": "reflect", "edge": "edge",
               "replicate": "edge", "circular": "wrap"}[mode]
    if np_mode == "constant":
        return np.pad(x, pads, mode="constant", constant_values=value)
    return np.pad(x, pads, mode=np_mode)


def interp_ratio(in_size, out_size, align_corners, scale):
    if out_size <= 1:
        return 0.0
    if align_corners:
        return (in_size - 1.0) / (out_size - 1.0)
    return 1.0 / scale if scale > 0 else 1.0 * in_size / out_size


def bilinear_interp(x, out_h, out_w, align_corners, align_mode, scale=(0, 0), nhwc=False):
    """Paddle's bilinear_interp_np (test_bilinear_interp_v2_op.py) in NCHW."""
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    _, _, in_h, in_w = x.shape
    rh = interp_ratio(in_h, out_h, align_corners, scale[0])
    rw = interp_ratio(in_w, out_w, align_corners, scale[1])
    half = align_mode == 0 and not align_corners

    def src(ratio, k, size):
        i = max(0, int(ratio * (k + 0.5) - 0.5) if half else int(ratio * k))
        step = 1 if i < size - 1 else 0
        lam = (max(ratio * (k + 0.5) - 0.5, 0) if half else ratio * k) - i
        return i, step, lam

    out = np.zeros(x.shape[:2] + (out_h, out_w))
    for i in range(out_h):
        h, hid, h1 = src(rh, i, in_h)
        for j in range(out_w):
            w, wid, w1 = src(rw, j, in_w)
            out[:, :, i, j] = (1 - h1) * ((1 - w1) * x[:, :, h, w] + w1 * x[:, :, h, w + wid]) + \
                h1 * ((1 - w1) * x[:, :, h + hid, w] + w1 * x[:, :, h + hid, w + wid])
    return out.transpose(0, 2, 3, 1) if nhwc else out


def nearest_interp(x, out_h, out_w, align_corners, scale=(0, 0), nhwc=False):
    """Paddle's nearest_neighbor_interp_np (test_nearest_interp_v2_op.py)."""
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    _, _, in_h, in_w = x.shape
    rh = interp_ratio(in_h, out_h, align_corners, scale[0])
    rw = interp_ratio(in_w, out_w, align_corners, scale[1])
    add = 0.5 if align_corners else 0.0
    out = np.zeros(x.shape[:2] + (out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            out[:, :, i, j] = x[:, :, int(rh * i + add), int(rw * j + add)]
    return out.transpose(0, 2, 3, 1) if nhwc else out


def resize(f):
    f.case("flatten", {"x": f.normal(2, 3, 4, 2)}, lambda x: flatten_range(x, 1, 2))
    f.case("flatten_neg", {"x": f.normal(2, 3, 4)}, lambda x: flatten_range(x, -2, -1))
    f.case("squeeze", {"x": f.normal(2, 1, 3, 1)}, lambda x: x.reshape(2, 3, 1))
    f.case("squeeze_all", {"x": f.normal(1, 2, 1, 3)}, lambda x: x.reshape(2, 3))
    f.case("unsqueeze", {"x": f.normal(2, 3)}, lambda x: unsqueeze(x, [0, -1]))
    f.case("shuffle", {"x": f.normal(2, 6, 2, 3)}, lambda x: shuffle_channel(x, 2))
    f.case("channel_shuffle", {"x": f.normal(2, 2, 3, 6)},
           lambda x: shuffle_channel(x.transpose(0, 3, 1, 2), 3).transpose(0, 2, 3, 1))
    f.case("pad2d_reflect", {"x": f.normal(1, 2, 3, 4)},
           lambda x: pad_nd(x, [(0, 0), (0, 0), (1, 2), (2, 1)], "reflect"))
    f.case("pad2d_edge", {"x": f.normal(1, 3, 3, 2)},
           lambda x: pad_nd(x, [(0, 0), (1, 0), (0, 2), (0, 0)], "edge"))
    f.case("pad2d_const", {"x": f.normal(2, 1, 2, 3)},
           lambda x: pad_nd(x, [(0, 0), (0, 0), (1, 1), (0, 2)], "constant", 0.5))
    f.case("pad3d_circular", {"x": f.normal(1, 1, 2, 3, 3)},
           lambda x: pad_nd(x, [(0, 0), (0, 0), (1, 0), (2, 0), (1, 1)], "circular"))
    f.case("pad3d_replicate", {"x": f.normal(1, 2, 2, 3, 2)},
           lambda x: pad_nd(x, [(0, 0), (0, 1), (1, 0), (1, 2), (0, 0)], "replicate"))
    f.case("pad3d_reflect", {"x": f.normal(1, 1, 3, 3, 4)},
           lambda x: pad_nd(x, [(0, 0), (0, 0), (2, 1), (0, 1), (1, 3)], "reflect"))
    f.case("bilinear_corners", {"x": f.normal(1, 2, 3, 4)},
           lambda x: bilinear_interp(x, 5, 3, True, 1))
    f.case("bilinear_half", {"x": f.normal(1, 1, 4, 5)},
           lambda x: bilinear_interp(x, 6, 7, False, 0))
    f.case("bilinear_mode1", {"x": f.normal(1, 1, 4, 5)},
           lambda x: bilinear_interp(x, 3, 8, False, 1))
    f.case("bilinear_scale", {"x": f.normal(1, 1, 3, 4)},
           lambda x: bilinear_interp(x, 6, 2, False, 1, scale=(2.0, 0.5)))
    f.case("bilinear_nhwc", {"x": f.normal(1, 3, 4, 2)},
           lambda x: bilinear_interp(x, 5, 6, False, 0, nhwc=True))
    f.case("nearest_corners", {"x": f.normal(1, 2, 4, 5)},
           lambda x: nearest_interp(x, 3, 3, True))
    f.case("nearest_floor", {"x": f.normal(1, 1, 3, 4)},
           lambda x: nearest_interp(x, 7, 6, False))
    f.case("nearest_scale", {"x": f.normal(1, 1, 3, 4)},
           lambda x: nearest_interp(x, 6, 8, False, scale=(2.0, 2.0), nhwc=False))
def norm(f):
    c3 = lambda: f.uniform(3, lo=0.5, hi=1.5)
    f.case("bn_g", {"x": f.normal(2, 3, 2, 2), "scale": f.normal(3), "bias": f.normal(3)},
           lambda x, scale, bias, mean, var: batch_norm(x, scale, bias, mean, var),
           {"mean": f.normal(3).astype(np.float32), "var": c3().astype(np.float32)})
    f.case("bn_t", {"x": f.normal(2, 2, 2, 3), "scale": f.normal(3), "bias": f.normal(3)},
           lambda x, scale, bias, mean, var: batch_norm(x, scale, bias, mean, var, axis=3,
                                                        epsilon=1e-3),
           {"mean": f.normal(3).astype(np.float32), "var": c3().astype(np.float32)})
    f.case("ac", {"x": f.normal(2, 3, 2, 2), "scale": f.normal(3), "bias": f.normal(3)},
           lambda x, scale, bias: affine_channel(x, scale, bias))
    f.case("ac_nhwc", {"x": f.normal(2, 2, 3), "scale": f.normal(3), "bias": f.normal(3)},
           lambda x, scale, bias: affine_channel(x, scale, bias, axis=2))
    f.case("relu6", {"x": away_from(f, f.uniform(2, 3, 4, lo=-2, hi=8), (0, 6))},
           lambda x: np.clip(x, 0, 6))
    f.case("relu6_t", {"x": away_from(f, f.uniform(2, 3, 4, lo=-1, hi=3), (0, 2))},
           lambda x: np.clip(x, 0, 2))
    f.case("hswish", {"x": away_from(f, f.uniform(2, 3, 4, lo=-5, hi=5), (-3, 3))},
           lambda x: hard_swish(x))
    f.case("hsig", {"x": away_from(f, f.uniform(2, 3, 4, lo=-4, hi=4), (-2.5, 2.5))},
           lambda x: np.clip(0.2 * x + 0.5, 0, 1))
    f.case("swish", {"x": f.normal(2, 3, 4, scale=2)}, lambda x: x * sigmoid(1.5 * x))
    f.case("leaky", {"x": f.away(2, 3, 4)}, lambda x: np.where(x > 0, x, 0.1 * x))
    f.case("mm1", {"x": f.normal(2, 3, 4), "y": f.normal(4, 5)},
           lambda x, y: matmul_v1(x, y, alpha=0.5))
    f.case("mm_t", {"x": f.normal(4, 3), "y": f.normal(5, 4)},
           lambda x, y: matmul_v1(x, y, True, True, alpha=2.0))
    f.case("mm_b", {"x": f.normal(2, 3, 4), "y": f.normal(2, 4, 2)}, lambda x, y: matmul_v1(x, y))


FAMILIES = {"linalg": linalg, "elementwise": elementwise_ops, "activation": activation,
            "reduction": reduction, "shape": shape, "nn": nn, "copies": copies,
            "div-broadcast": div_broadcast,
            "reshape-transpose": xshape,
            "layer-norm-bias": layer_norm_bias,
            "dropout-test": dropout_test,
            "pass-through-names": names,
            "resize": resize,
            "norm": norm,
            "minmax": minmax}


# --- dropout at training time --------------------------------------------------

DROPOUT_P = 0.5
DROPOUT_N = 16


def dropout_train(out):
    """Inputs of Inputs/grad-ops/dropout-train.mlir: parameters drop_up_x
    (upscale_in_train) and drop_x (downgrade_in_infer), weights r0 and r1 as
    one-row data."""
    rng = np.random.default_rng(7)
    os.makedirs(os.path.join(out, "params"), exist_ok=True)
    for name in ("drop_up_x", "drop_x"):
        np.save(os.path.join(out, "params", name + ".npy"),
                rng.standard_normal(DROPOUT_N).astype(np.float32))
    for name in ("r0", "r1"):
        np.save(os.path.join(out, name + ".npy"),
                rng.standard_normal((1, DROPOUT_N)).astype(np.float32))


def read_paddle_tensor(path, n):
    """The float32 data of a tensor saved in Paddle's format: the last n
    elements of the file."""
    with open(path, "rb") as f:
        return np.frombuffer(f.read()[-4 * n:], np.float32)


def dropout_train_check(out):
    """One SGD step with lr 1 ran: the gradient is the parameter's change.
    Given the mask, the loss is linear in each parameter, so d loss / d x is
    mask * r / (n (1 - p)) for upscale_in_train and mask * r / n for
    downgrade_in_infer; the mask is where the gradient is not zero, and the
    step's loss, recomputed with it, must be the loss the run reported."""
    import json
    with open(os.path.join(out, "metrics.jsonl")) as f:
        reported = json.loads(f.readline())["loss"]
    loss, ok = 0.0, True
    for name, r, upscale in (("drop_up_x", "r0", True), ("drop_x", "r1", False)):
        x0 = np.load(os.path.join(out, "params", name + ".npy")).astype(np.float64)
        x1 = read_paddle_tensor(os.path.join(out, "after", name), DROPOUT_N).astype(np.float64)
        w = np.load(os.path.join(out, r + ".npy"))[0].astype(np.float64)
        grad = x0 - x1
        mask = grad != 0
        factor = 1 / (1 - DROPOUT_P) if upscale else 1.0
        expected = mask * w * factor / DROPOUT_N
        good = 0 < mask.sum() < DROPOUT_N and np.allclose(grad, expected, rtol=1e-4, atol=1e-6)
        ok &= good
        print(f"{name}@GRAD: {'OK' if good else 'MISMATCH'} ({mask.sum()} of {DROPOUT_N} kept)")
        if not good:
            print("  got", grad, "\n  expected", expected)
        loss += np.mean(x0 * mask * factor * w)
    good = abs(loss - reported) <= 1e-6 + 1e-5 * abs(loss)
    print(f"loss: {'OK' if good else 'MISMATCH'}" + ("" if good else f" ({reported} vs {loss})"))
    return ok and good


# --- batch_norm at training time ----------------------------------------------

BNT_LR, BNT_MOMENTUM, BNT_BATCH, BNT_STEPS = 0.5, 0.8, 2, 3


def batch_norm_train(out):
    """Inputs of Inputs/grad-ops/batch-norm-train.mlir: parameters bnt_p,
    bnt_scale, bnt_bias and the running statistics bnt_mean, bnt_var; data d
    and r, BNT_STEPS batches of BNT_BATCH rows."""
    rng = np.random.default_rng(11)
    os.makedirs(os.path.join(out, "params"), exist_ok=True)
    shapes = {"bnt_p": (3, 2, 2), "bnt_scale": (3,), "bnt_bias": (3,)}
    for name, shape in shapes.items():
        np.save(os.path.join(out, "params", name + ".npy"),
                (rng.standard_normal(shape) + (1.0 if name == "bnt_scale" else 0.0))
                .astype(np.float32))
    # The running statistics are loaded with the parameters (--init-from):
    # the startup program's values, 0.5 and 2.
    np.save(os.path.join(out, "params", "bnt_mean.npy"), np.full(3, 0.5, np.float32))
    np.save(os.path.join(out, "params", "bnt_var.npy"), np.full(3, 2.0, np.float32))
    rows = BNT_BATCH * BNT_STEPS
    np.save(os.path.join(out, "d.npy"), (rng.standard_normal((rows, 3, 2, 2)) * 2 + 1)
            .astype(np.float32))
    np.save(os.path.join(out, "r.npy"), rng.standard_normal((rows, 3, 2, 2)).astype(np.float32))


def batch_norm_train_check(out):
    """BNT_STEPS SGD steps in float64, on the batches in file order: each
    step's gradient by central differences of the NumPy forward (batch
    statistics), and the running statistics' update
    momentum * old + (1 - momentum) * batch mean / biased variance from the
    startup values 0.5 and 2. The parameters and running statistics
    dist-run saved, and the first step's loss, must match."""
    import json
    load = lambda name: np.load(os.path.join(out, name)).astype(np.float64)
    params = {n: load(f"params/{n}.npy") for n in ("bnt_p", "bnt_scale", "bnt_bias")}
    d, r = load("d.npy"), load("r.npy")
    mean, var = np.full(3, 0.5), np.full(3, 2.0)
    losses = []
    for step in range(BNT_STEPS):
        rows = slice(step * BNT_BATCH, (step + 1) * BNT_BATCH)
        db, rb = d[rows], r[rows]

        def loss(p):
            return float(np.mean(batch_norm(db + p["bnt_p"], p["bnt_scale"], p["bnt_bias"]) * rb))

        losses.append(loss(params))
        x = db + params["bnt_p"]
        mean = BNT_MOMENTUM * mean + (1 - BNT_MOMENTUM) * x.mean(axis=(0, 2, 3))
        var = BNT_MOMENTUM * var + (1 - BNT_MOMENTUM) * x.var(axis=(0, 2, 3))
        grads = {}
        for name, value in params.items():
            g = np.zeros_like(value)
            for i in np.ndindex(value.shape):
                hi, lo = dict(params), dict(params)
                hi[name], lo[name] = value.copy(), value.copy()
                hi[name][i] += EPS
                lo[name][i] -= EPS
                g[i] = (loss(hi) - loss(lo)) / (2 * EPS)
            grads[name] = g
        params = {n: params[n] - BNT_LR * grads[n] for n in params}
    ok = True
    expected = dict(params, bnt_mean=mean, bnt_var=var)
    for name, want in expected.items():
        got = read_paddle_tensor(os.path.join(out, "after", name), want.size).reshape(want.shape)
        good = np.allclose(got, want, rtol=1e-4, atol=1e-5)
        ok &= good
        print(f"{name}: {'OK' if good else 'MISMATCH'}")
        if not good:
            print("  got", got.ravel(), "\n  expected", want.ravel())
    with open(os.path.join(out, "metrics.jsonl")) as f:
        reported = [json.loads(line)["loss"] for line in f]
    good = np.allclose(reported, losses, rtol=1e-5, atol=1e-6)
    ok &= good
    print(f"losses: {'OK' if good else 'MISMATCH'}" + ("" if good else f" ({reported} vs {losses})"))
    return ok


def batch_norm_eval_check(out):
    """An eval run with --init-from the trained persistables normalizes with
    the running statistics they hold: its loss over all rows (one batch)
    must be the NumPy one."""
    import json
    load = lambda name: np.load(os.path.join(out, name)).astype(np.float64)
    after = lambda name, n: read_paddle_tensor(os.path.join(out, "after", name), n) \
        .astype(np.float64)
    d, r = load("d.npy"), load("r.npy")
    x = d + after("bnt_p", 12).reshape(3, 2, 2)
    y = batch_norm(x, after("bnt_scale", 3), after("bnt_bias", 3), after("bnt_mean", 3),
                   after("bnt_var", 3))
    want = float(np.mean(y * r))
    with open(os.path.join(out, "eval.jsonl")) as f:
        got = json.loads(f.readline())["eval_loss"]
    good = abs(got - want) <= 1e-6 + 1e-5 * abs(want)
    print(f"eval_loss: {'OK' if good else 'MISMATCH'}" + ("" if good else f" ({got} vs {want})"))
    return good


if __name__ == "__main__":
    if sys.argv[1] == "dropout-train":
        dropout_train(sys.argv[2])
    elif sys.argv[1] == "dropout-train-check":
        sys.exit(0 if dropout_train_check(sys.argv[2]) else 1)
    elif sys.argv[1] == "batch-norm-train":
        batch_norm_train(sys.argv[2])
    elif sys.argv[1] == "batch-norm-train-check":
        sys.exit(0 if batch_norm_train_check(sys.argv[2]) else 1)
    elif sys.argv[1] == "batch-norm-eval-check":
        sys.exit(0 if batch_norm_eval_check(sys.argv[2]) else 1)
    else:
        family = Family(sys.argv[1])
        FAMILIES[sys.argv[1]](family)
        run(family, sys.argv[2])

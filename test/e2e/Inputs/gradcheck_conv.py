"""Float64 finite-difference gradients of conv2d, depthwise_conv2d,
conv2d_transpose and pool2d (grad-conv.test).

Usage: gradcheck_conv.py OUT_DIR            values and gradients, as gradcheck.py
       gradcheck_conv.py --mlir             prints Inputs/grad-ops/conv.mlir
       gradcheck_conv.py --cnn OUT_DIR N    inputs and outputs of Inputs/cnn.mlir
                                            for a batch of N (conv-forward.test)

The cases, their float64 NumPy forwards (written from Paddle's definitions:
phi/infermeta ConvInferMeta, ConvTransposeInferMeta, PoolInferMeta and the
Pool2dFunctor window rules, not from distc) and the program holding them come
from one table below, so the program and the reference cannot drift apart.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradcheck import Family, run  # noqa: E402


# --- Paddle's padding rules ---------------------------------------------------

def resolve(in_hw, k, strides, paddings, dilations, algorithm):
    """[top, bottom, left, right] and dilations after padding_algorithm."""
    p = list(paddings) if len(paddings) == 4 else [paddings[0], paddings[0],
                                                   paddings[1], paddings[1]]
    d = list(dilations)
    if algorithm == "VALID":
        p = [0, 0, 0, 0]
    elif algorithm == "SAME":
        for i in range(2):
            out = -(-in_hw[i] // strides[i])
            total = max((out - 1) * strides[i] + k[i] - in_hw[i], 0)
            p[2 * i], p[2 * i + 1] = total // 2, total - total // 2
            d[i] = 1
    return p, d


def to_nchw(x, fmt):
    return x.transpose(0, 3, 1, 2) if fmt == "NHWC" else x


def from_nchw(x, fmt):
    return x.transpose(0, 2, 3, 1) if fmt == "NHWC" else x


# --- forwards -----------------------------------------------------------------

def conv2d(x, w, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
           padding_algorithm="EXPLICIT", data_format="NCHW"):
    x = to_nchw(x, data_format)
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    p, d = resolve((h, wd), (kh, kw), strides, paddings, dilations, padding_algorithm)
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[1]), (p[2], p[3])))
    oh = (h + p[0] + p[1] - (d[0] * (kh - 1) + 1)) // strides[0] + 1
    ow = (wd + p[2] + p[3] - (d[1] * (kw - 1) + 1)) // strides[1] + 1
    mg = m // groups
    out = np.zeros((n, m, oh, ow))
    for i in range(kh):
        for j in range(kw):
            y0, x0 = i * d[0], j * d[1]
            patch = xp[:, :, y0:y0 + strides[0] * (oh - 1) + 1:strides[0],
                       x0:x0 + strides[1] * (ow - 1) + 1:strides[1]]
            for g in range(groups):
                out[:, g * mg:(g + 1) * mg] += np.einsum(
                    "nchw,mc->nmhw", patch[:, g * cg:(g + 1) * cg], w[g * mg:(g + 1) * mg, :, i, j])
    return from_nchw(out, data_format)


def conv2d_transpose(x, w, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
                     output_size=(), output_padding=(), padding_algorithm="EXPLICIT",
                     data_format="NCHW"):
    """Each input element scatters input·filter into the output; the output
    starts `top`/`left` into the scattered plane."""
    x = to_nchw(x, data_format)
    n, c, h, wd = x.shape
    _, mg, kh, kw = w.shape
    p, d = resolve((h, wd), (kh, kw), strides, paddings, dilations, padding_algorithm)
    size = []
    for i, (ins, k) in enumerate(((h, kh), (wd, kw))):
        s = (ins - 1) * strides[i] - p[2 * i] - p[2 * i + 1] + d[i] * (k - 1) + 1
        if output_size:
            s = output_size[i]
        elif output_padding:
            s += output_padding[i]
        size.append(s)
    full_h = max(p[0] + size[0], (h - 1) * strides[0] + d[0] * (kh - 1) + 1)
    full_w = max(p[2] + size[1], (wd - 1) * strides[1] + d[1] * (kw - 1) + 1)
    full = np.zeros((n, mg * groups, full_h, full_w))
    cg = c // groups
    for i in range(kh):
        for j in range(kw):
            y0, x0 = i * d[0], j * d[1]
            for g in range(groups):
                contrib = np.einsum("nchw,cm->nmhw", x[:, g * cg:(g + 1) * cg],
                                    w[g * cg:(g + 1) * cg, :, i, j])
                full[:, g * mg:(g + 1) * mg, y0:y0 + strides[0] * (h - 1) + 1:strides[0],
                     x0:x0 + strides[1] * (wd - 1) + 1:strides[1]] += contrib
    out = full[:, :, p[0]:p[0] + size[0], p[2]:p[2] + size[1]]
    return from_nchw(out, data_format)


def pool2d(x, pooling_type, ksize, strides=(1, 1), paddings=(0, 0), global_pooling=False,
           adaptive=False, ceil_mode=False, exclusive=True, padding_algorithm="EXPLICIT",
           data_format="NCHW"):
    x = to_nchw(x, data_format)
    n, c, h, w = x.shape
    k = list(ksize)
    if global_pooling:
        k = [h, w]
    p, _ = resolve((h, w), k, strides, paddings, (1, 1), padding_algorithm)
    if global_pooling or adaptive:
        p = [0, 0, 0, 0]
    if adaptive:
        oh, ow = k
    else:
        def size(i, ins):
            span = ins + p[2 * i] + p[2 * i + 1] - k[i]
            return (span + (strides[i] - 1 if ceil_mode else 0)) // strides[i] + 1
        oh, ow = size(0, h), size(1, w)
    out = np.zeros((n, c, oh, ow))
    for y in range(oh):
        for xx in range(ow):
            if adaptive:
                y0, y1 = y * h // oh, -(-(y + 1) * h // oh)
                x0, x1 = xx * w // ow, -(-(xx + 1) * w // ow)
                count = (y1 - y0) * (x1 - x0)
            else:
                # Paddle's window: ends at min(start + k, size + top/left pad).
                y0, x0 = y * strides[0] - p[0], xx * strides[1] - p[2]
                y1, x1 = min(y0 + k[0], h + p[0]), min(x0 + k[1], w + p[2])
                count = (y1 - y0) * (x1 - x0)
                y0, x0, y1, x1 = max(y0, 0), max(x0, 0), min(y1, h), min(x1, w)
                if exclusive:
                    count = (y1 - y0) * (x1 - x0)
            win = x[:, :, y0:y1, x0:x1]
            if pooling_type == "max":
                out[:, :, y, xx] = win.max(axis=(2, 3))
            else:
                out[:, :, y, xx] = win.sum(axis=(2, 3)) / count
    return from_nchw(out, data_format)


# --- the cases ----------------------------------------------------------------
# (name, op type, {slot: shape}, attributes). Attribute values are given as
# Python values and printed into the program in MLIR syntax.

CONV = [
    ("conv_basic", "conv2d", {"Input": (2, 3, 6, 6), "Filter": (4, 3, 3, 3)},
     {"paddings": [1, 1]}),
    ("conv_grp", "conv2d", {"Input": (2, 4, 7, 7), "Filter": (6, 2, 3, 3)},
     {"groups": 2, "strides": [2, 2], "paddings": [1, 0, 2, 1]}),
    ("conv_dil", "conv2d", {"Input": (1, 2, 8, 8), "Filter": (3, 2, 3, 3)},
     {"dilations": [2, 2], "paddings": [2, 2]}),
    ("conv_same", "conv2d", {"Input": (2, 3, 7, 7), "Filter": (2, 3, 3, 3)},
     {"padding_algorithm": "SAME", "strides": [2, 2], "dilations": [2, 2]}),
    ("conv_valid", "conv2d", {"Input": (1, 2, 6, 5), "Filter": (2, 2, 2, 3)},
     {"padding_algorithm": "VALID", "paddings": [1, 1]}),
    ("conv_nhwc", "conv2d", {"Input": (2, 6, 6, 3), "Filter": (4, 3, 3, 3)},
     {"data_format": "NHWC", "strides": [1, 2], "paddings": [1, 1]}),
    ("conv_1x1", "conv2d", {"Input": (2, 4, 5, 5), "Filter": (3, 4, 1, 1)}, {}),
    ("conv_bias", "conv2d", {"Input": (2, 5, 6, 4), "Filter": (4, 2, 2, 3), "Bias": (4,)},
     {"groups": 2, "paddings": [1, 0], "data_format": "NHWC"}),
    ("dwconv", "depthwise_conv2d", {"Input": (2, 3, 6, 6), "Filter": (6, 1, 3, 3)},
     {"groups": 3, "strides": [2, 2], "paddings": [1, 1]}),
    ("convt_basic", "conv2d_transpose", {"Input": (2, 3, 4, 4), "Filter": (3, 2, 3, 3)},
     {"strides": [2, 2], "paddings": [1, 1]}),
    ("convt_grp", "conv2d_transpose", {"Input": (1, 4, 3, 3), "Filter": (4, 3, 3, 3)},
     {"groups": 2, "strides": [2, 2], "paddings": [0, 1, 1, 0], "output_size": [7, 6]}),
    ("convt_nhwc", "conv2d_transpose", {"Input": (2, 3, 3, 2), "Filter": (2, 3, 2, 2)},
     {"data_format": "NHWC", "dilations": [2, 1], "strides": [2, 2],
      "output_padding": [1, 1]}),
    ("convt_same", "conv2d_transpose", {"Input": (1, 2, 5, 4), "Filter": (2, 3, 3, 3)},
     {"strides": [2, 2], "padding_algorithm": "SAME"}),
    ("pool_avg_nhwc", "pool2d", {"X": (2, 5, 6, 3)},
     {"pooling_type": "avg", "ksize": [2, 3], "strides": [2, 2], "paddings": [1, 1],
      "exclusive": False, "ceil_mode": True, "data_format": "NHWC"}),
    ("pool_max", "pool2d", {"X": (2, 3, 6, 6)},
     {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]}),
    ("pool_max_ceil", "pool2d", {"X": (1, 2, 7, 7)},
     {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2], "ceil_mode": True}),
    ("pool_avg_incl", "pool2d", {"X": (2, 2, 5, 5)},
     {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1],
      "exclusive": False}),
    ("pool_avg_excl", "pool2d", {"X": (1, 2, 6, 5)},
     {"pooling_type": "avg", "ksize": [2, 3], "strides": [2, 1], "paddings": [1, 0, 0, 1],
      "ceil_mode": True}),
    ("pool_avg_adapt", "pool2d", {"X": (2, 2, 7, 5)},
     {"pooling_type": "avg", "ksize": [3, 2], "adaptive": True}),
    ("pool_max_adapt", "pool2d", {"X": (1, 2, 5, 7)},
     {"pooling_type": "max", "ksize": [2, 3], "adaptive": True}),
    ("pool_avg_global", "pool2d", {"X": (2, 4, 4, 3)},
     {"pooling_type": "avg", "ksize": [1, 1], "global_pooling": True, "data_format": "NHWC"}),
    ("pool_max_same", "pool2d", {"X": (1, 2, 7, 6)},
     {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2], "padding_algorithm": "SAME"}),
    ("pool_max_global", "pool2d", {"X": (2, 3, 4, 5)},
     {"pooling_type": "max", "ksize": [1, 1], "global_pooling": True}),
]

FORWARD = {"conv2d": conv2d, "depthwise_conv2d": conv2d,
           "conv2d_transpose": conv2d_transpose, "pool2d": pool2d}


def forward_of(op, attrs):
    fn = FORWARD[op]
    if op == "pool2d":
        return lambda X: fn(X, **attrs)
    def conv(Input, Filter, Bias=None):
        out = fn(Input, Filter, **attrs)
        if Bias is None:
            return out
        # The fused form's Bias: one value per output channel.
        channel_last = attrs.get("data_format") == "NHWC"
        return out + (Bias if channel_last else Bias[:, None, None])
    return conv


def family(f):
    for name, op, shapes, attrs in CONV:
        f.case(name, {slot: f.normal(*shape) for slot, shape in shapes.items()},
               forward_of(op, attrs))


# --- the program --------------------------------------------------------------

def tensor(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def mlir_attr(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value} : i32"
    if isinstance(value, str):
        return f'"{value}"'
    return "array<i32: " + ", ".join(str(v) for v in value) + ">"


def program():
    lines, body, losses = [], [], []
    for name, op, shapes, attrs in CONV:
        params = {slot: np.zeros(shape) for slot, shape in shapes.items()}
        out_shape = forward_of(op, attrs)(**params).shape
        for slot, shape in shapes.items():
            lines.append(f"  pd.var @{name}_{slot} persistable is_parameter : {tensor(shape)}")
        lines.append(f"  pd.var @{name}_r persistable : {tensor(out_shape)}")
        body.append(f"    // {name}")
        operands = []
        for slot, shape in shapes.items():
            body.append(f"    %{name}_{slot} = pd.read_var @{name}_{slot} : {tensor(shape)}")
            operands.append(f"%{name}_{slot}")
        attr_text = ", ".join(f"{k} = {mlir_attr(v)}" for k, v in attrs.items())
        attr_text = (attr_text + ", " if attr_text else "") + f'pd.out_names = ["{name}_o"]'
        in_types = ", ".join(tensor(s) for s in shapes.values())
        o, r = tensor(out_shape), f"%{name}_r"
        body.append(f"    %{name}_o = pd.{op} {', '.join(operands)} {{{attr_text}}} : "
                    f"({in_types}) -> {o}")
        body.append(f"    {r} = pd.read_var @{name}_r : {o}")
        body.append(f"    %{name}_m = pd.elementwise_mul %{name}_o, {r} "
                    f'{{pd.out_names = ["{name}_m"]}} : ({o}, {o}) -> {o}')
        body.append(f"    %{name}_l = pd.mean %{name}_m {{pd.out_names = [\"{name}_l\"]}} : "
                    f"({o}) -> tensor<f32>")
        losses.append(f"%{name}_l")
    types = ", ".join(["tensor<f32>"] * len(losses))
    body.append(f"    %loss = pd.sum {', '.join(losses)} {{pd.out_names = [\"loss\"]}} : "
                f"({types}) -> tensor<f32>")
    body.append("    pd.fetch %loss : tensor<f32>")
    header = [
        "// Gradient check inputs of grad-conv.test, printed by",
        "// `Inputs/gradcheck_conv.py --mlir` from its case table (do not edit by hand).",
        "//",
        "// Each case is independent: its float inputs are the parameters <case>_<slot>,",
        "// its output is weighted by the persistable <case>_r, and",
        "// loss = sum of mean(out * r).",
        "module {"]
    return "\n".join(header + lines + ["  pd.program @main {"] + body + ["  }", "}"]) + "\n"


def cnn(out, batch):
    """Parameters, input and float64 outputs of Inputs/cnn.mlir."""
    rng = np.random.default_rng(batch)
    f32 = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    params = {"conv_w": f32(8, 3, 3, 3), "dw_w": f32(16, 1, 3, 3), "up_w": f32(16, 4, 2, 2)}
    x = f32(batch, 3, 10, 10)
    os.makedirs(os.path.join(out, "params"), exist_ok=True)
    for name, value in params.items():
        np.save(os.path.join(out, "params", name + ".npy"), value)
    np.save(os.path.join(out, "x.npy"), x)
    p = {k: v.astype(np.float64) for k, v in params.items()}
    r = np.maximum(conv2d(x.astype(np.float64), p["conv_w"], paddings=(1, 1)), 0)
    pooled = pool2d(r, "max", (3, 3), strides=(2, 2), ceil_mode=True)
    d = conv2d(pooled.transpose(0, 2, 3, 1), p["dw_w"], groups=8, padding_algorithm="SAME",
               data_format="NHWC")
    u = conv2d_transpose(d.transpose(0, 3, 1, 2), p["up_w"], strides=(2, 2), groups=2,
                         output_size=(11, 10))
    g = pool2d(u, "avg", (1, 1), global_pooling=True)
    np.save(os.path.join(out, "u.npy"), u.astype(np.float32))
    np.save(os.path.join(out, "g.npy"), g.astype(np.float32))


if __name__ == "__main__":
    if sys.argv[1] == "--cnn":
        cnn(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "--mlir":
        sys.stdout.write(program())
    else:
        fam = Family("conv")
        family(fam)
        run(fam, sys.argv[1])

#!/usr/bin/env python3
"""An independent float64 reference for Paddle inference programs.

Runs block 0 of a Paddle ProgramDesc with NumPy in float64, from Paddle's
files alone: the program (`.pdmodel` protobuf, decoded with classes protoc
generates from framework.proto, or the JSON form), the parameters (a
combined `.pdiparams` file parsed here from Paddle's tensor record format,
or a directory of `<name>.npy` files) and the feeds (`.npy`). It shares no
code with distc: the ops are written from Paddle's documented semantics, so
agreement with `dist-run --mode predict` checks distc's importer, lowering
and kernels together.

    paddle_numpy.py PROGRAM PARAMS OUT_DIR WORKDIR NAME=FEED.npy...

writes every fetch as OUT_DIR/<fetch name>.npy (float64);

    paddle_numpy.py random-params PROGRAM DIR SEED

writes a float32 <name>.npy for every persistable tensor of PROGRAM (JSON):
batch-norm statistics and scales away from the identity, so that a wrong
channel or layout shows.
"""

import json
import os
import struct
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.join(HERE, "..", "..", "..", "lib", "runtime", "ProgramDesc")

# framework.proto's VarType.Type values of the tensor dtypes.
DTYPES = {0: np.bool_, 1: np.int16, 2: np.int32, 3: np.int64, 4: np.float16, 5: np.float32,
          6: np.float64, 20: np.uint8, 21: np.int8}


# --- Files ----------------------------------------------------------------------

def load_program(path, workdir):
    """Block 0 of the program as protobuf's JSON form (a dict)."""
    with open(path, "rb") as f:
        data = f.read()
    if data.lstrip()[:1] == b"{":
        return json.loads(data)["blocks"][0]
    os.makedirs(workdir, exist_ok=True)
    subprocess.run(["protoc", "--python_out=" + workdir, "-I", os.path.abspath(PROTO_DIR),
                    "framework.proto"], check=True)
    sys.path.insert(0, workdir)
    import framework_pb2
    from google.protobuf import json_format
    program = framework_pb2.ProgramDesc()
    program.ParseFromString(data)
    return json_format.MessageToDict(program, preserving_proto_field_name=True)["blocks"][0]


def read_varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def parse_tensor_desc(data):
    """(dtype code, dims) of a serialized VarType.TensorDesc."""
    at, dtype, dims = 0, None, []
    while at < len(data):
        key, at = read_varint(data, at)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, at = read_varint(data, at)
            if field == 1:
                dtype = value
            elif field == 2:
                dims.append(value - (1 << 64) if value >= 1 << 63 else value)
        elif wire == 2:  # packed dims
            length, at = read_varint(data, at)
            end = at + length
            while at < end:
                value, at = read_varint(data, at)
                dims.append(value - (1 << 64) if value >= 1 << 63 else value)
        else:
            sys.exit("unexpected wire type %d in a TensorDesc" % wire)
    return dtype, dims


def read_tensor_records(data):
    """The tensors of Paddle's record format, in file order."""
    tensors, at = [], 0
    while at < len(data):
        (version,) = struct.unpack_from("<I", data, at)
        (lod_levels,) = struct.unpack_from("<Q", data, at + 4)
        at += 12
        assert version == 0, "tensor record version %d" % version
        for _ in range(lod_levels):
            (size,) = struct.unpack_from("<Q", data, at)
            at += 8 + size
        (version,) = struct.unpack_from("<I", data, at)
        (desc_size,) = struct.unpack_from("<i", data, at + 4)
        at += 8
        dtype, dims = parse_tensor_desc(data[at:at + desc_size])
        at += desc_size
        count = int(np.prod(dims)) if dims else 1
        array = np.frombuffer(data, DTYPES[dtype], count, at).reshape(dims)
        at += array.nbytes
        tensors.append(array)
    return tensors


def load_params(path, block):
    """Parameter name -> float64 array: a directory of .npy files, or a
    combined file holding the persistable tensors in sorted name order."""
    if os.path.isdir(path):
        return {n[:-4]: np.load(os.path.join(path, n)).astype(np.float64)
                for n in os.listdir(path) if n.endswith(".npy")}
    names = sorted(v["name"] for v in block["vars"]
                   if v.get("persistable") and v["type"]["type"] == "LOD_TENSOR")
    with open(path, "rb") as f:
        tensors = read_tensor_records(f.read())
    assert len(tensors) == len(names), "%d records for %d persistables" % (len(tensors), len(names))
    return {n: t.astype(np.float64) for n, t in zip(names, tensors)}


# --- Ops ------------------------------------------------------------------------

ATTR_FIELDS = ("i", "f", "s", "ints", "floats", "strings", "b", "bools", "l", "longs",
               "float64", "float64s")


def attrs_of(op):
    out = {}
    for a in op.get("attrs", []):
        for field in ATTR_FIELDS:
            if field in a:
                out[a["name"]] = a[field]
                break
        else:  # protobuf's JSON leaves out empty lists and false/zero scalars
            kind = a.get("type", "INT")
            out[a["name"]] = [] if kind.endswith("S") else 0
    return out


def conv_padding(size, kernel, stride, dilation, pads, algorithm):
    """(before, after, dilation) of one spatial dim, as Paddle's
    UpdatePaddingAndDilation settles them."""
    if algorithm == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + kernel - size, 0)
        return total // 2, total - total // 2, 1
    if algorithm == "VALID":
        return 0, 0, dilation
    return pads[0], pads[1], dilation


def split_pads(paddings, dims):
    """Paddle's paddings: one value per dim (both sides) or two per dim."""
    paddings = [int(p) for p in paddings]
    if len(paddings) == dims:
        return [(p, p) for p in paddings]
    return [(paddings[2 * i], paddings[2 * i + 1]) for i in range(dims)]


def to_nchw(x, a, key="data_format"):
    return (x.transpose(0, 3, 1, 2), True) if a.get(key, "NCHW") == "NHWC" else (x, False)


def from_nchw(y, was_nhwc):
    return y.transpose(0, 2, 3, 1) if was_nhwc else y


def conv2d(ins, a):
    x, nhwc = to_nchw(ins["Input"], a)
    w = ins["Filter"]
    groups = int(a.get("groups", 1)) or 1
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    assert c == cg * groups, "conv2d: %d channels, filter for %d x %d groups" % (c, cg, groups)
    strides = [int(s) for s in a.get("strides", [1, 1])]
    dil = [int(d) for d in a.get("dilations", [1, 1])]
    pads = split_pads(a.get("paddings", [0, 0]), 2)
    algorithm = a.get("padding_algorithm", "EXPLICIT")
    pt, pb, dh = conv_padding(h, kh, strides[0], dil[0], pads[0], algorithm)
    pl, pr, dw = conv_padding(wd, kw, strides[1], dil[1], pads[1], algorithm)
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    oh = (h + pt + pb - (dh * (kh - 1) + 1)) // strides[0] + 1
    ow = (wd + pl + pr - (dw * (kw - 1) + 1)) // strides[1] + 1
    og = o // groups
    out = np.zeros((n, o, oh, ow))
    for g in range(groups):
        xs, ws = xp[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dh:i * dh + strides[0] * (oh - 1) + 1:strides[0],
                           j * dw:j * dw + strides[1] * (ow - 1) + 1:strides[1]]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    if "Bias" in ins:
        out += ins["Bias"].reshape(1, -1, 1, 1)
    return {"Output": from_nchw(fused_activation(out, a), nhwc)}


def fused_activation(x, a):
    """oneDNN's fused forms: `fuse_activation` (or the older `fuse_relu`)
    with its parameters in fuse_alpha / fuse_beta, as Paddle's
    conv_activation_mkldnn_fuse_pass moves them there."""
    name = a.get("fuse_activation", "") or ("relu" if a.get("fuse_relu") else "")
    alpha, beta = a.get("fuse_alpha", 0.0), a.get("fuse_beta", 0.0)
    if name in ("", "identity"):
        return x
    if name == "relu":
        return np.maximum(x, 0)
    if name == "relu6":
        return np.clip(x, 0, beta if beta > 0 else alpha if alpha > 0 else 6.0)
    if name == "leaky_relu":
        return np.where(x > 0, x, alpha * x)
    if name == "swish":
        return x / (1 + np.exp(-alpha * x))
    if name == "hard_swish":
        return x * np.clip(x + 3, 0, 6) / 6
    if name == "hard_sigmoid":
        return np.clip(alpha * x + beta, 0, 1)
    if name == "sigmoid":
        return 1 / (1 + np.exp(-x))
    if name == "tanh":
        return np.tanh(x)
    sys.exit("the reference has no fused activation '%s'" % name)


def pool2d(ins, a):
    x, nhwc = to_nchw(ins["X"], a)
    n, c, h, w = x.shape
    kind = a.get("pooling_type", "max")
    if a.get("global_pooling"):
        ks, strides, pads = [h, w], [1, 1], [(0, 0), (0, 0)]
    else:
        ks = [int(k) for k in a["ksize"]]
        strides = [int(s) for s in a.get("strides", [1, 1])]
        pads = split_pads(a.get("paddings", [0, 0]), 2)
    if a.get("adaptive"):
        oh, ow = ks
        out = np.zeros((n, c, oh, ow))
        for i in range(oh):
            for j in range(ow):
                hs, he = (i * h) // oh, -(-(i + 1) * h // oh)
                ws, we = (j * w) // ow, -(-(j + 1) * w // ow)
                window = x[:, :, hs:he, ws:we]
                out[:, :, i, j] = window.max((2, 3)) if kind == "max" else window.mean((2, 3))
        return {"Out": from_nchw(out, nhwc)}
    algorithm = a.get("padding_algorithm", "EXPLICIT")
    pt, pb, _ = conv_padding(h, ks[0], strides[0], 1, pads[0], algorithm)
    pl, pr, _ = conv_padding(w, ks[1], strides[1], 1, pads[1], algorithm)
    ceil = bool(a.get("ceil_mode"))

    def out_size(size, k, s, before, after):
        span = size + before + after - k
        return (span + s - 1) // s + 1 if ceil else span // s + 1

    oh, ow = out_size(h, ks[0], strides[0], pt, pb), out_size(w, ks[1], strides[1], pl, pr)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, ws = i * strides[0] - pt, j * strides[1] - pl
            he, we = min(hs + ks[0], h + pb), min(ws + ks[1], w + pr)
            window = x[:, :, max(hs, 0):min(he, h), max(ws, 0):min(we, w)]
            if kind == "max":
                out[:, :, i, j] = window.max((2, 3))
            else:
                exclusive = a.get("exclusive", True)
                count = window.shape[2] * window.shape[3] if exclusive else (he - hs) * (we - ws)
                out[:, :, i, j] = window.sum((2, 3)) / count
    return {"Out": from_nchw(out, nhwc)}


def batch_norm(ins, a):
    x = ins["X"]
    axis = 1 if a.get("data_layout", "NCHW") != "NHWC" else x.ndim - 1
    shape = [1] * x.ndim
    shape[axis] = -1
    eps = a.get("epsilon", 1e-5)
    y = ((x - ins["Mean"].reshape(shape)) / np.sqrt(ins["Variance"].reshape(shape) + eps) *
         ins["Scale"].reshape(shape) + ins["Bias"].reshape(shape))
    return {"Y": y}


def broadcast_y(x, y, axis):
    """Paddle's elementwise broadcast: Y's dims line up with X's from `axis`."""
    if axis == -1 or y.ndim == x.ndim:
        return y
    return y.reshape([1] * axis + list(y.shape) + [1] * (x.ndim - axis - y.ndim))


def elementwise(fn):
    def run(ins, a):
        x, y = ins["X"], ins["Y"]
        return {"Out": fn(x, broadcast_y(x, y, int(a.get("axis", -1))))}
    return run


def unary(fn):
    return lambda ins, a: {"Out": fn(ins["X"], a)}


def flatten_range(ins, a):
    x = ins["X"]
    start, stop = int(a.get("start_axis", 1)) % x.ndim, int(a.get("stop_axis", -1)) % x.ndim
    shape = list(x.shape[:start]) + [int(np.prod(x.shape[start:stop + 1]))] + list(x.shape[stop + 1:])
    return {"Out": x.reshape(shape)}


def reshape2(ins, a):
    x = ins["X"]
    shape = [x.shape[i] if s == 0 else s for i, s in enumerate(int(s) for s in a["shape"])]
    return {"Out": x.reshape(shape)}


def matmul_v2(ins, a):
    x, y = ins["X"], ins["Y"]
    if a.get("trans_x"):
        x = np.swapaxes(x, -1, -2)
    if a.get("trans_y"):
        y = np.swapaxes(y, -1, -2)
    return {"Out": np.matmul(x, y)}


def mul(ins, a):
    x, y = ins["X"], ins["Y"]
    xc, yc = int(a.get("x_num_col_dims", 1)), int(a.get("y_num_col_dims", 1))
    out = x.reshape(int(np.prod(x.shape[:xc])), -1) @ y.reshape(int(np.prod(y.shape[:yc])), -1)
    return {"Out": out.reshape(list(x.shape[:xc]) + list(y.shape[yc:]))}


def softmax(ins, a):
    x = ins["X"]
    axis = int(a.get("axis", -1))
    e = np.exp(x - x.max(axis, keepdims=True))
    return {"Out": e / e.sum(axis, keepdims=True)}


OPS = {
    "conv2d": conv2d,
    "depthwise_conv2d": conv2d,
    "pool2d": pool2d,
    "batch_norm": batch_norm,
    "elementwise_add": elementwise(np.add),
    "elementwise_sub": elementwise(np.subtract),
    "elementwise_mul": elementwise(np.multiply),
    "elementwise_div": elementwise(np.divide),
    "relu": unary(lambda x, a: np.maximum(x, 0)),
    "relu6": unary(lambda x, a: np.clip(x, 0, a.get("threshold", 6.0))),
    "sigmoid": unary(lambda x, a: 1 / (1 + np.exp(-x))),
    "hard_sigmoid": unary(lambda x, a: np.clip(a.get("slope", 0.2) * x + a.get("offset", 0.5), 0, 1)),
    "hard_swish": unary(lambda x, a: x * np.clip(x + a.get("offset", 3.0), 0, a.get("threshold", 6.0))
                        / a.get("scale", 6.0)),
    "swish": unary(lambda x, a: x / (1 + np.exp(-a.get("beta", 1.0) * x))),
    "leaky_relu": unary(lambda x, a: np.where(x > 0, x, a.get("alpha", 0.02) * x)),
    "scale": unary(lambda x, a: x * a.get("scale", 1.0) + a.get("bias", 0.0)
                   if a.get("bias_after_scale", True) else (x + a.get("bias", 0.0)) * a.get("scale", 1.0)),
    "dropout": unary(lambda x, a: x if a.get("dropout_implementation") == "upscale_in_train"
                     else x * (1 - a.get("dropout_prob", 0.5))),
    "flatten_contiguous_range": flatten_range,
    "reshape2": reshape2,
    "transpose2": lambda ins, a: {"Out": ins["X"].transpose([int(p) for p in a["axis"]])},
    "matmul_v2": matmul_v2,
    "mul": mul,
    "softmax": softmax,
}


def run(block, params, feeds):
    env = dict(params)
    fetches = {}
    for index, op in enumerate(block["ops"]):
        kind = op["type"]
        inputs = {s["parameter"]: s.get("arguments", []) for s in op.get("inputs", [])}
        outputs = {s["parameter"]: s.get("arguments", []) for s in op.get("outputs", [])}
        a = attrs_of(op)
        if kind == "feed":
            env[outputs["Out"][0]] = feeds[outputs["Out"][0]]
            continue
        if kind == "fetch":
            fetches[inputs["X"][0]] = env[inputs["X"][0]]
            continue
        if kind not in OPS:
            sys.exit("op #%d: the reference has no op '%s'" % (index, kind))
        ins = {slot: env[names[0]] for slot, names in inputs.items() if names}
        for slot, value in OPS[kind](ins, a).items():
            env[outputs[slot][0]] = value
    return fetches


def random_params(program_path, folder, seed):
    with open(program_path) as f:
        block = json.load(f)["blocks"][0]
    rng = np.random.default_rng(int(seed))
    os.makedirs(folder, exist_ok=True)
    for v in block["vars"]:
        if not v.get("persistable") or v["type"]["type"] != "LOD_TENSOR":
            continue
        shape = v["type"]["lod_tensor"]["tensor"]["dims"]
        name = v["name"]
        if name.endswith(".w_2"):  # a batch-norm variance
            value = rng.uniform(0.5, 2.0, shape)
        elif name.endswith(".w_0") and len(shape) == 4:  # a conv filter
            value = rng.normal(0, np.sqrt(2.0 / np.prod(shape[1:])), shape)
        else:
            value = rng.uniform(-0.5, 0.5, shape) + (1.0 if name.startswith("batch_norm") and
                                                     name.endswith(".w_0") else 0.0)
        np.save(os.path.join(folder, name + ".npy"), value.astype(np.float32))


def main(argv):
    if argv[0] == "random-params":
        random_params(*argv[1:4])
        return
    program_path, params_path, out_dir, workdir = argv[:4]
    block = load_program(program_path, workdir)
    params = load_params(params_path, block)
    feeds = {}
    for spec in argv[4:]:
        name, path = spec.split("=", 1)
        feeds[name] = np.load(path).astype(np.float64)
    os.makedirs(out_dir, exist_ok=True)
    for name, value in run(block, params, feeds).items():
        np.save(os.path.join(out_dir, name + ".npy"), value)


if __name__ == "__main__":
    main(sys.argv[1:])

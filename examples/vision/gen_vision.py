#!/usr/bin/env python3
"""Writes ResNet-, MobileNet- and small-CNN-shaped Paddle programs as JSON.

The programs have the ops, slots, attributes and parameter names that
Paddle's static graph writes for `paddle.vision.models` style networks
(`conv2d` + `batch_norm` + activation blocks, `pool2d`, a `matmul_v2` +
`elementwise_add` classifier), with startup programs of seeded
initializers. The MobileNet is also written as the Paddle 3 PIR inference
program of the same model (inference.json: the same computation and
parameter names). Standard library only:

    python3 examples/vision/gen_vision.py            # the committed examples
    python3 examples/vision/gen_vision.py resnet50 DIR [SIZE]
                                                     # ResNet-50 for benchmarks
"""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gen_programs import (FORWARD, LOSS, PirProgram, Program, a_bool, a_f32, a_i32,  # noqa: E402
                          a_ints, a_str, constant, gaussian, uniform, write, write_pir)


# The PIR ops of the activations the programs use, with their attributes
# (hard_swish and relu6 have none in PIR: their kernels fix them).
PIR_ACTS = {"relu": ("1.relu", ()), "relu6": ("1.relu6", ()), "hard_swish": ("1.hardswish", ()),
            "hard_sigmoid": ("1.hardsigmoid", ("slope", "offset"))}


class Net:
    """A main and a startup program with Paddle's per-layer name counters,
    and, with `pir`, the PIR inference program of the same model: `pv` maps
    each ProgramDesc variable to its PIR value."""

    def __init__(self, is_test=True, pir=False):
        self.main, self.startup = Program(), Program()
        self.counts = {}
        self.seed = 0
        self.is_test = is_test
        self.pir = PirProgram(version=1) if pir else None
        self.pv = {}

    def feed(self, name, shape):
        self.main.feed(name, shape)
        if self.pir:
            self.pv[name] = self.pir.data(name, shape)

    def param(self, name, shape):
        self.main.param(name, shape)
        if self.pir:
            self.pv[name] = self.pir.param(name, shape)

    def pir_op(self, name, operands, out, shape, attrs=()):
        """One PIR op of one result, the value of ProgramDesc variable `out`."""
        if self.pir:
            self.pv[out] = self.pir.op(name, [self.pv[v] for v in operands],
                                       [(shape, "FP32")], attrs)[0]

    def name(self, kind):
        n = self.counts.get(kind, 0)
        self.counts[kind] = n + 1
        return "%s_%d" % (kind, n)

    def next_seed(self):
        self.seed += 1
        return self.seed

    def conv(self, x, shape, out_c, k, stride=1, groups=1, padding=None):
        """conv2d (depthwise_conv2d when every group is one channel)."""
        n, c, h, w = shape
        pad = (k - 1) // 2 if padding is None else padding
        layer = self.name("conv2d")
        filt = layer + ".w_0"
        self.param(filt, [out_c, c // groups, k, k])
        fan_in = c // groups * k * k
        gaussian(self.startup, filt, [out_c, c // groups, k, k], math.sqrt(2.0 / fan_in),
                 self.next_seed())
        oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        out = self.main.var(layer + ".tmp_0", [n, out_c, oh, ow])
        depthwise = groups == c and groups == out_c and groups > 1
        self.main.op("depthwise_conv2d" if depthwise else "conv2d",
                     {"Input": [x], "Filter": [filt]}, {"Output": [out]}, {
                         "strides": ("INTS", [stride, stride]),
                         "paddings": ("INTS", [pad, pad]),
                         "padding_algorithm": ("STRING", "EXPLICIT"),
                         "dilations": ("INTS", [1, 1]),
                         "groups": ("INT", groups),
                         "data_format": ("STRING", "NCHW"),
                         "use_cudnn": ("BOOLEAN", not depthwise),
                     })
        self.pir_op("1.depthwise_conv2d" if depthwise else "1.conv2d", [x, filt], out,
                    [n, out_c, oh, ow],
                    [("strides", a_ints([stride, stride])), ("paddings", a_ints([pad, pad])),
                     ("padding_algorithm", a_str("EXPLICIT")), ("dilations", a_ints([1, 1])),
                     ("groups", a_i32(groups)), ("data_format", a_str("NCHW"))])
        return out, [n, out_c, oh, ow]

    def batch_norm(self, x, shape):
        layer = self.name("batch_norm")
        c = shape[1]
        scale, bias = layer + ".w_0", layer + ".b_0"
        mean, var = layer + ".w_1", layer + ".w_2"
        for p, value in ((scale, 1.0), (bias, 0.0), (mean, 0.0), (var, 1.0)):
            self.param(p, [c])
            constant(self.startup, p, [c], value)
        y = self.main.var(layer + ".tmp_2", shape)
        saved_mean = self.main.var(layer + ".tmp_0", [c], stop_gradient=True)
        saved_var = self.main.var(layer + ".tmp_1", [c], stop_gradient=True)
        self.main.op("batch_norm",
                     {"X": [x], "Scale": [scale], "Bias": [bias], "Mean": [mean],
                      "Variance": [var]},
                     {"Y": [y], "MeanOut": [mean], "VarianceOut": [var],
                      "SavedMean": [saved_mean], "SavedVariance": [saved_var]}, {
                         "epsilon": ("FLOAT", 1e-5),
                         "momentum": ("FLOAT", 0.9),
                         "data_layout": ("STRING", "NCHW"),
                         "is_test": ("BOOLEAN", self.is_test),
                         "use_global_stats": ("BOOLEAN", False),
                         "trainable_statistics": ("BOOLEAN", False),
                     })
        if self.pir:
            # pd_op.batch_norm(x, mean, variance, scale, bias): out, mean_out,
            # variance_out, saved_mean, saved_variance and a null reserve_space.
            results = self.pir.op("1.batch_norm", [self.pv[v] for v in (x, mean, var, scale, bias)],
                                  [(shape, "FP32")] + [([c], "FP32")] * 4,
                                  [("is_test", a_bool(self.is_test)), ("momentum", a_f32(0.9)),
                                   ("epsilon", a_f32(1e-5)), ("data_format", a_str("NCHW")),
                                   ("use_global_stats", a_bool(False)),
                                   ("trainable_statistics", a_bool(False))])
            self.pir.ops[-1]["O"].append({"%": 0, "TT": {"#": "NULL"}})
            self.pv[y] = results[0]
        return y

    def act(self, x, shape, kind, attrs=None):
        if not kind:
            return x
        out = self.main.var(self.name(kind) + ".tmp_0", shape)
        self.main.op(kind, {"X": [x]}, {"Out": [out]}, attrs or {})
        if self.pir:
            name, kept = PIR_ACTS[kind]
            self.pir_op(name, [x], out, shape, [(a, a_f32(attrs[a][1])) for a in kept])
        return out

    def conv_bn(self, x, shape, out_c, k, stride=1, groups=1, act="relu"):
        y, shape = self.conv(x, shape, out_c, k, stride, groups)
        y = self.batch_norm(y, shape)
        attrs = {"threshold": ("FLOAT", 6.0)} if act == "relu6" else None
        return self.act(y, shape, act, attrs), shape

    def add(self, x, y, shape, act=None):
        out = self.main.var(self.name("elementwise_add") + ".tmp_0", shape)
        self.main.op("elementwise_add", {"X": [x], "Y": [y]}, {"Out": [out]}, {"axis": ("INT", -1)})
        self.pir_op("1.add", [x, y], out, shape)
        return self.act(out, shape, act)

    def pool(self, x, shape, kind, k=None, stride=1, pad=0, global_pool=False, adaptive=None,
             same=False):
        """`same`: padding_algorithm SAME with ceil_mode, as ResNet-vd's
        shortcut pools (an odd size is padded at the end)."""
        n, c, h, w = shape
        if global_pool or adaptive:
            oh, ow = (1, 1) if global_pool else adaptive
        elif same:
            oh, ow = -(-h // stride), -(-w // stride)
        else:
            oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        out = self.main.var(self.name("pool2d") + ".tmp_0", [n, c, oh, ow])
        ksize = [oh, ow] if adaptive else [k or 1, k or 1]
        self.main.op("pool2d", {"X": [x]}, {"Out": [out]}, {
            "pooling_type": ("STRING", kind),
            "ksize": ("INTS", ksize),
            "strides": ("INTS", [stride, stride]),
            "paddings": ("INTS", [pad, pad]),
            "padding_algorithm": ("STRING", "SAME" if same else "EXPLICIT"),
            "global_pooling": ("BOOLEAN", global_pool),
            "adaptive": ("BOOLEAN", bool(adaptive)),
            "ceil_mode": ("BOOLEAN", same),
            "exclusive": ("BOOLEAN", True),
            "data_format": ("STRING", "NCHW"),
        })
        if self.pir:
            # pd_op.pool2d(x, kernel_size): the kernel size is an operand.
            self.pv[out] = self.pir.op(
                "1.pool2d", [self.pv[x], self.pir.full_int_array(ksize)], [([n, c, oh, ow], "FP32")],
                [("strides", a_ints([stride, stride])), ("paddings", a_ints([pad, pad])),
                 ("ceil_mode", a_bool(False)), ("exclusive", a_bool(True)),
                 ("data_format", a_str("NCHW")), ("pooling_type", a_str(kind)),
                 ("global_pooling", a_bool(global_pool)), ("adaptive", a_bool(bool(adaptive))),
                 ("padding_algorithm", a_str("EXPLICIT"))])[0]
        return out, [n, c, oh, ow]

    def flatten(self, x, shape):
        layer = self.name("flatten")
        flat = [shape[0], int(math.prod(shape[1:]))]
        out = self.main.var(layer + ".tmp_0", flat)
        xshape = self.main.var(layer + ".tmp_1", [0] + list(shape))
        self.main.op("flatten_contiguous_range", {"X": [x]}, {"Out": [out], "XShape": [xshape]},
                     {"start_axis": ("INT", 1), "stop_axis": ("INT", -1)})
        self.pir_op("1.flatten", [x], out, flat,
                    [("start_axis", a_i32(1)), ("stop_axis", a_i32(-1))])
        return out, flat

    def linear(self, x, in_dim, out_dim):
        layer = self.name("linear")
        w, b = layer + ".w_0", layer + ".b_0"
        self.param(w, [in_dim, out_dim])
        self.param(b, [out_dim])
        limit = math.sqrt(6.0 / (in_dim + out_dim))
        uniform(self.startup, w, [in_dim, out_dim], limit, self.next_seed())
        constant(self.startup, b, [out_dim], 0.0)
        t0 = self.main.var(layer + ".tmp_0", [-1, out_dim])
        t1 = self.main.var(layer + ".tmp_1", [-1, out_dim])
        self.main.op("matmul_v2", {"X": [x], "Y": [w]}, {"Out": [t0]},
                     {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", False)})
        self.main.op("elementwise_add", {"X": [t0], "Y": [b]}, {"Out": [t1]}, {"axis": ("INT", -1)})
        self.pir_op("1.matmul", [x, w], t0, [-1, out_dim],
                    [("transpose_x", a_bool(False)), ("transpose_y", a_bool(False))])
        self.pir_op("1.add", [t0, b], t1, [-1, out_dim])
        return t1

    def classify(self, logits, classes):
        prob = self.main.var("softmax_0.tmp_0", [-1, classes])
        self.main.op("softmax", {"X": [logits]}, {"Out": [prob]}, {"axis": ("INT", -1)})
        self.main.fetch(prob)
        # The logits too: with random parameters the probabilities of a deep
        # network saturate, and only the logits show a difference.
        self.main.fetch(logits, 1)
        if self.pir:
            self.pir_op("1.softmax", [logits], prob, [-1, classes], [("axis", a_i32(-1))])
            self.pir.fetch(self.pv[prob], [-1, classes], prob, 0)
            self.pir.fetch(self.pv[logits], [-1, classes], logits, 1)
        return prob


# --- ResNet -------------------------------------------------------------------

def resnet(depth_blocks, bottleneck, size, classes, widths=(64, 128, 256, 512), stem=64, vd=False):
    """A ResNet (v1.5: the stride on the 3x3 conv) of `depth_blocks`
    blocks per stage; NCHW input [-1, 3, size, size]. `vd`: ResNet-vd's
    downsampling shortcut, a 2x2 average pool (SAME, ceil_mode, exclusive)
    before a stride-1 1x1 convolution."""
    net = Net()
    net.main.feed("image", [-1, 3, size, size])
    shape = [-1, 3, size, size]
    x, shape = net.conv_bn("image", shape, stem, 7, 2)
    x, shape = net.pool(x, shape, "max", 3, 2, 1)
    expansion = 4 if bottleneck else 1
    for stage, (blocks, width) in enumerate(zip(depth_blocks, widths)):
        for block in range(blocks):
            stride = 2 if block == 0 and stage > 0 else 1
            out_c = width * expansion
            shortcut = x
            if block == 0 and (stride != 1 or shape[1] != out_c):
                if vd and stride != 1:
                    pooled, pshape = net.pool(x, shape, "avg", 2, 2, same=True)
                    shortcut, _ = net.conv_bn(pooled, pshape, out_c, 1, 1, act=None)
                else:
                    shortcut, _ = net.conv_bn(x, shape, out_c, 1, stride, act=None)
            if bottleneck:
                y, s = net.conv_bn(x, shape, width, 1)
                y, s = net.conv_bn(y, s, width, 3, stride)
                y, s = net.conv_bn(y, s, out_c, 1, act=None)
            else:
                y, s = net.conv_bn(x, shape, width, 3, stride)
                y, s = net.conv_bn(y, s, out_c, 3, act=None)
            x, shape = net.add(y, shortcut, s, act="relu"), s
    x, shape = net.pool(x, shape, "avg", adaptive=(1, 1))
    x, shape = net.flatten(x, shape)
    net.classify(net.linear(x, shape[1], classes), classes)
    return net


# --- MobileNet ----------------------------------------------------------------

def squeeze_excite(net, x, shape, reduction=4):
    """MobileNetV3's SE block: global pool, 1x1 conv + relu, 1x1 conv +
    hard_sigmoid, channel-wise scaling of `x`."""
    c = shape[1]
    s, sshape = net.pool(x, shape, "avg", adaptive=(1, 1))
    s, sshape = net.conv(s, sshape, c // reduction, 1, padding=0)
    s = net.act(s, sshape, "relu")
    s, sshape = net.conv(s, sshape, c, 1, padding=0)
    s = net.act(s, sshape, "hard_sigmoid", {"slope": ("FLOAT", 0.2), "offset": ("FLOAT", 0.5)})
    out = net.main.var(net.name("elementwise_mul") + ".tmp_0", shape)
    net.main.op("elementwise_mul", {"X": [x], "Y": [s]}, {"Out": [out]}, {"axis": ("INT", -1)})
    net.pir_op("1.multiply", [x, s], out, shape)
    return out


def mobilenet(size, classes):
    """MobileNetV2 inverted residual blocks (1x1 expand, 3x3 depthwise,
    1x1 project, relu6, residual adds) with MobileNetV3's hard_swish stem
    and a squeeze-excite block; NCHW input [-1, 3, size, size]."""
    net = Net(pir=True)
    net.feed("image", [-1, 3, size, size])
    shape = [-1, 3, size, size]
    x, shape = net.conv_bn("image", shape, 16, 3, 2, act="hard_swish")
    # (expansion, out channels, repeats, stride, squeeze-excite)
    for t, c, n, s, se in ((1, 16, 1, 1, False), (4, 24, 2, 2, False), (4, 32, 2, 2, True)):
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = shape[1] * t
            y, ys = x, shape
            if t != 1:
                y, ys = net.conv_bn(y, ys, hidden, 1, act="relu6")
            y, ys = net.conv_bn(y, ys, hidden, 3, stride, groups=hidden, act="relu6")
            if se:
                y = squeeze_excite(net, y, ys)
            y, ys = net.conv_bn(y, ys, c, 1, act=None)
            x = net.add(x, y, ys) if stride == 1 and shape[1] == c else y
            shape = ys
    x, shape = net.conv_bn(x, shape, 64, 1, act="hard_swish")
    x, shape = net.pool(x, shape, "avg", global_pool=True)
    x, shape = net.flatten(x, shape)
    net.classify(net.linear(x, shape[1], classes), classes)
    return net


# --- A small CNN to train -----------------------------------------------------

def conv_net(channels, size, widths, is_test=False, classes=10, residual=False):
    """conv-bn-relu blocks, a 2x2 max pool after each but the last and a
    global average pool after it, a linear classifier and the
    cross-entropy loss: a training program for `distc --loss loss`. The
    image is fed flat ([-1, channels*size*size], as CSV columns are) and
    reshaped to NCHW. `residual`: each block is followed by a ResNet basic
    block (conv-bn-relu, conv-bn, the block's input added, relu)."""
    net = Net(is_test=is_test)
    main = net.main
    main.feed("x", [-1, channels * size * size])
    main.feed("label", [-1, 1], "INT64", col=1)
    image = main.var("reshape2_0.tmp_0", [-1, channels, size, size])
    main.var("reshape2_0.tmp_1", [0, -1, channels * size * size])
    main.op("reshape2", {"X": ["x"]}, {"Out": [image], "XShape": ["reshape2_0.tmp_1"]},
            {"shape": ("INTS", [-1, channels, size, size])})
    x, shape = image, [-1, channels, size, size]
    for i, width in enumerate(widths):
        x, shape = net.conv_bn(x, shape, width, 3)
        if residual:
            y, _ = net.conv_bn(x, shape, width, 3)
            y, _ = net.conv_bn(y, shape, width, 3, act=None)
            x = net.add(y, x, shape, act="relu")
        if i + 1 < len(widths):
            x, shape = net.pool(x, shape, "max", 2, 2)
    x, shape = net.pool(x, shape, "avg", global_pool=True)
    x, shape = net.flatten(x, shape)
    logits = net.linear(x, shape[1], classes)
    sm = main.var("softmax_with_cross_entropy_0.tmp_0", [-1, classes])
    loss = main.var("softmax_with_cross_entropy_0.tmp_1", [-1, 1])
    main.op("softmax_with_cross_entropy", {"Logits": [logits], "Label": ["label"]},
            {"Softmax": [sm], "Loss": [loss]},
            {"soft_label": ("BOOLEAN", False), "ignore_index": ("INT", -100),
             "numeric_stable_mode": ("BOOLEAN", True), "axis": ("INT", -1)})
    avg = main.var("loss", [])
    main.op("mean", {"X": [loss]}, {"Out": [avg]}, role=FORWARD | LOSS)
    main.fetch(avg)
    prob = main.var("softmax_0.tmp_0", [-1, classes])
    main.op("softmax", {"X": [logits]}, {"Out": [prob]}, {"axis": ("INT", -1)})
    main.fetch(prob, 1)
    return net


def digits_cnn():
    """The CNN for the 8x8 digits (64 CSV columns)."""
    return conv_net(1, 8, (8, 16))


def save(net, folder):
    write(os.path.join(folder, "main.json"), net.main)
    write(os.path.join(folder, "startup.json"), net.startup)
    if net.pir:
        write_pir(os.path.join(folder, "inference.json"), net.pir)


def main(argv):
    if argv and argv[0] == "resnet50":
        size = int(argv[2]) if len(argv) > 2 else 224
        net = resnet((3, 4, 6, 3), True, size, 1000)
        folder = os.path.abspath(argv[1])
        os.makedirs(folder, exist_ok=True)
        for name, program in (("main.json", net.main), ("startup.json", net.startup)):
            with open(os.path.join(folder, name), "w") as f:
                import json
                json.dump(program.to_json(), f)
        return
    save(resnet((1, 1, 1), False, 32, 10, widths=(16, 32, 64), stem=16), "examples/vision/resnet")
    # 36x36: the stages see 9x9 and 5x5, so the SAME pools pad at the end.
    save(resnet((1, 1, 1), False, 36, 10, widths=(16, 32, 64), stem=16, vd=True),
         "examples/vision/resnet_vd")
    save(mobilenet(32, 10), "examples/vision/mobilenet")
    save(digits_cnn(), "examples/vision/cnn")


if __name__ == "__main__":
    main(sys.argv[1:])

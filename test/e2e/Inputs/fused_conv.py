#!/usr/bin/env python3
"""fused_conv.py DIR

Writes DIR/fused.json, a Paddle inference program of convolutions in the
fused forms oneDNN's passes write (fuse_activation with fuse_alpha and
fuse_beta, the older fuse_relu, a Bias input), one per activation and
chained, with random parameters in DIR/params/ and an input DIR/x.npy.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "examples"))
from gen_programs import Program, write  # noqa: E402

# (fuse_activation, fuse_alpha, fuse_beta, extra attributes)
FUSIONS = [("relu", 0.0, 0.0, {}), ("relu6", 6.0, 0.0, {}), ("relu6", 0.0, 2.5, {}),
           ("leaky_relu", 0.1, 0.0, {}), ("swish", 1.5, 0.0, {}), ("hard_swish", 0.0, 0.0, {}),
           ("hard_sigmoid", 0.2, 0.5, {}), ("sigmoid", 0.0, 0.0, {}), ("tanh", 0.0, 0.0, {}),
           ("", 0.0, 0.0, {"fuse_relu": ("BOOLEAN", True)})]


def main(folder):
    os.makedirs(os.path.join(folder, "params"), exist_ok=True)
    rng = np.random.default_rng(5)
    p = Program()
    p.feed("x", [-1, 4, 6, 6])
    x = "x"
    for i, (act, alpha, beta, extra) in enumerate(FUSIONS):
        w = "conv%d.w" % i
        p.param(w, [4, 4, 3, 3])
        np.save(os.path.join(folder, "params", w + ".npy"),
                rng.normal(0, 0.4, (4, 4, 3, 3)).astype(np.float32))
        inputs = {"Input": [x], "Filter": [w]}
        if i % 3 == 0:  # the fused form's Bias on some
            b = "conv%d.b" % i
            p.param(b, [4])
            np.save(os.path.join(folder, "params", b + ".npy"),
                    rng.normal(0, 0.3, (4,)).astype(np.float32))
            inputs["Bias"] = [b]
        out = p.var("conv%d.out" % i, [-1, 4, 6, 6])
        attrs = {"strides": ("INTS", [1, 1]), "paddings": ("INTS", [1, 1]),
                 "dilations": ("INTS", [1, 1]), "groups": ("INT", 1),
                 "data_format": ("STRING", "NCHW"), "use_mkldnn": ("BOOLEAN", True),
                 "fuse_activation": ("STRING", act), "fuse_alpha": ("FLOAT", alpha),
                 "fuse_beta": ("FLOAT", beta)}
        attrs.update(extra)
        p.op("conv2d", inputs, {"Output": [out]}, attrs)
        p.fetch(out, i)
        x = out
    write(os.path.relpath(os.path.join(folder, "fused.json"),
                          os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                       "..")), p)
    np.save(os.path.join(folder, "x.npy"), rng.uniform(-1, 1, (2, 4, 6, 6)).astype(np.float32))


if __name__ == "__main__":
    main(sys.argv[1])

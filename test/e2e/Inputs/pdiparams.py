#!/usr/bin/env python3
"""Writes seeded random parameters as a Paddle combined parameter file.

    pdiparams.py OUT.pdiparams SEED NAME=D0xD1... [NAME=...]

The records follow Paddle's save_combine (lod_tensor_serialize.cc): per
variable, in sorted name order, uint32 version 0, uint64 LoD levels 0,
uint32 tensor version 0, int32 size and a TensorDesc protobuf (data_type
FP32, dims), then the float32 data. Each array is also saved as
OUT.<name>.npy for references.
"""

import struct
import sys

import numpy as np


def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def tensor_desc(dims):
    desc = b"\x08" + varint(5)  # data_type = FP32
    for d in dims:
        desc += b"\x10" + varint(d)  # repeated int64 dims (unpacked)
    return desc


def main():
    out, seed, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    rng = np.random.default_rng(seed)
    params = {}
    for spec in specs:
        name, shape = spec.split("=")
        dims = [int(d) for d in shape.split("x")]
        params[name] = rng.uniform(-0.5, 0.5, dims).astype(np.float32)
    with open(out, "wb") as f:
        for name in sorted(params):
            a = params[name]
            desc = tensor_desc(a.shape)
            f.write(struct.pack("<IQI", 0, 0, 0) + struct.pack("<i", len(desc)) + desc)
            f.write(a.tobytes())
            np.save("%s.%s.npy" % (out, name), a)


if __name__ == "__main__":
    main()

"""Writes the bad programs of conv-errors.test from the good ones: usage
conv_errors.py OPS_DIR OUT_DIR."""
import copy
import json
import os
import sys

ops, out = sys.argv[1], sys.argv[2]


def load(name):
    with open(os.path.join(ops, name + ".json")) as f:
        return json.load(f)


def op_of(program, type_):
    return next(op for op in program["blocks"][0]["ops"] if op["type"] == type_)


def attr(op, name):
    return next(a for a in op["attrs"] if a["name"] == name)


def var(program, name):
    return next(v for v in program["blocks"][0]["vars"] if v["name"] == name)


def dims(v):
    return v["type"]["lod_tensor"]["tensor"]["dims"]


def save(name, program):
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(program, f)


p = load("conv2d")
attr(op_of(p, "conv2d"), "groups")["i"] = 3
save("groups", p)

p = load("depthwise_conv2d")
dims(var(p, "dw.w"))[1] = 2
save("filter", p)

p = load("conv2d")
attr(op_of(p, "conv2d"), "dilations")["ints"] = [5, 1]
save("kernel", p)

# The fused form's Bias and ResidualData, from a variable of the program.
base = load("conv2d")
p = copy.deepcopy(base)
bias = copy.deepcopy(var(p, "conv.w"))
bias["name"] = "conv.b"
dims(bias)[:] = [4]
p["blocks"][0]["vars"].append(bias)
op_of(p, "conv2d")["inputs"].append({"parameter": "Bias", "arguments": ["conv.b"]})
save("bias", p)
p = copy.deepcopy(base)
op_of(p, "conv2d")["inputs"].append({"parameter": "ResidualData", "arguments": ["image"]})
save("residual", p)

p = load("pool2d")
attr(op_of(p, "pool2d"), "ksize")["ints"] = [12, 3]
save("window", p)

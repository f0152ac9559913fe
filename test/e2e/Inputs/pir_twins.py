"""Inputs for comparing a single-op ProgramDesc with its PIR twin.

Usage: pir_twins.py PROGRAMS_DIR OUT_DIR OP...

For each OP, reads PROGRAMS_DIR/ops/OP.json (the ProgramDesc that
examples/gen_programs.py writes; its PIR twin is PROGRAMS_DIR/pir/ops/OP.json
with the same feeds, parameters and fetched names) and writes under
OUT_DIR/OP: random feeds (batch 2) and parameters (params/NAME.npy,
positive for variances), and three argument files for dist-run: `in`
(the feeds and parameters), `out` (--output of every fetched variable to
desc-NAME.npy) and `expect` (--expected-output of the same files).

The view ops' programs fetch their XShape too, which only gradient ops may
read, so they do not compile: for them the expected Out is written here,
from NumPy, and `out` is empty.
"""
import json
import os
import sys

import numpy as np

VIEWS = {
    "flatten_contiguous_range": lambda x: x.reshape(x.shape[0], -1),
    "squeeze2": lambda x: x.reshape(x.shape[:2]),
    "unsqueeze2": lambda x: x[:, None, :, :, None],
}
DTYPES = {"FP32": np.float32, "FP64": np.float64, "INT64": np.int64, "INT32": np.int32}


def main(programs, out, ops):
    rng = np.random.default_rng(9)
    for op in ops:
        with open(os.path.join(programs, "ops", op + ".json")) as f:
            block = json.load(f)["blocks"][0]
        d = os.path.join(out, op)
        os.makedirs(os.path.join(d, "params"), exist_ok=True)
        args = ["--params", os.path.join(d, "params")]
        feeds = []
        for var in block["vars"]:
            tensor = var["type"].get("lod_tensor", {}).get("tensor")
            if tensor is None:
                continue  # the feed and fetch lists
            shape = [2 if n < 0 else n for n in tensor["dims"]]
            dtype = DTYPES[tensor["data_type"]]
            if var.get("need_check_feed"):
                path = os.path.join(d, var["name"] + ".npy")
                feeds.append((rng.standard_normal(shape) * 2).astype(dtype))
                np.save(path, feeds[-1])
                args += ["--input", "%s=@%s" % (var["name"], path)]
            elif var.get("persistable"):
                value = (rng.uniform(0.5, 2, shape) if "var" in var["name"]
                         else rng.standard_normal(shape))
                np.save(os.path.join(d, "params", var["name"] + ".npy"), value.astype(dtype))
        fetched = [o["inputs"][0]["arguments"][0] for o in block["ops"] if o["type"] == "fetch"]
        if op in VIEWS:
            fetched = fetched[:1]
            np.save(os.path.join(d, "desc-" + fetched[0] + ".npy"), VIEWS[op](feeds[0]))
        with open(os.path.join(d, "in"), "w") as f:
            f.write(" ".join(args) + "\n")
        for name, flag in (("out", "--output"), ("expect", "--expected-output")):
            with open(os.path.join(d, name), "w") as f:
                f.write(" ".join("%s %s=@%s" % (flag, v, os.path.join(d, "desc-" + v + ".npy"))
                                 for v in fetched if name == "expect" or op not in VIEWS) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])

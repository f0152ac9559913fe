#!/usr/bin/python3
"""Per-rank bytes of parameters and optimizer state under auto-parallel
layouts: what splitting a model over a mesh saves each rank.

Run through bench/run-bench-sharding-memory.sh. For the models of
bench/run-bench.sh (bench/programs.py's MLP 784-1024-1024-10 and its
transformer encoder block), each layout (serial, data parallel, Megatron
tensor parallel, both on a 2-D mesh) and each optimizer (SGD, Adam), it
compiles the program with `distc --placements P --compile-to=artifact
--explain-sharding` and reads the explanation's bytes of parameters and of
the other persistable variables (optimizer state), serial and per rank. It
checks both against its own count from the program's shapes and the layout
(Megatron's: a column-split weight's bias is split with it, every other
parameter is whole, Adam's moments follow their parameter, its beta powers
and the learning rate are one whole float each). Exit status 1 when a
layout does not compile or a number disagrees. See docs/benchmarks.md,
"Memory per rank under sharding".
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import programs  # noqa: E402
from bench_util import add_model_options, built_tool, log, run_in_work_dir  # noqa: E402

# The models of bench/bench.py (MLP_DIMS, ENC).
MLP_DIMS = [784, 1024, 1024, 10]
ENCODER = dict(seq=32, d=128, heads=4, ffn=512, vocab=1000, classes=10, dropout=0.1)
LOSS = "mean_0.tmp_0"
DTYPE_BYTES = {"FP32": 4, "FP64": 8, "FP16": 2, "BF16": 2, "INT64": 8, "INT32": 4}

# Megatron's tensor parallel layout of each model: the weights split by
# columns (Shard(1): their outputs are split, and so are their biases) and
# by rows (Shard(0): their outputs are partial sums).
MODELS = {
    "mlp": {
        "feed": "x",
        # fc 784 -> 1024 by columns, fc 1024 -> 1024 by rows; the classifier
        # (1024 -> 10) stays whole.
        "tp": {"column": ["fc_0.w_0"], "row": ["fc_1.w_0"]},
    },
    "transformer": {
        "feed": "src_ids",
        # programs.transformer's linears, in order: q, k, v (linear_0..2),
        # the attention output (linear_3), the FFN (linear_4, linear_5) and
        # the classifier (linear_6). q, k and v by columns split the heads;
        # the embedding, layer norms and classifier stay whole.
        "tp": {"column": ["linear_0.w_0", "linear_1.w_0", "linear_2.w_0", "linear_4.w_0"],
               "row": ["linear_3.w_0", "linear_5.w_0"]},
        # The FFN alone, attention whole.
        "tp-ffn": {"column": ["linear_4.w_0"], "row": ["linear_5.w_0"]},
    },
}

# (name, mesh shape, mesh axis of the batch split or None, tensor-parallel
# layout of MODELS or None, mesh axis of the tensor-parallel split).
LAYOUTS = [
    ("dp", [2], 0, None, None),
    ("dp", [4], 0, None, None),
    ("tp", [2], None, "tp", 0),
    ("tp", [4], None, "tp", 0),
    ("dp x tp", [2, 2], 0, "tp", 1),
    ("tp-ffn", [2], None, "tp-ffn", 0),
    ("tp-ffn", [4], None, "tp-ffn", 0),
    ("dp x tp-ffn", [2, 2], 0, "tp-ffn", 1),
]

BYTES_LINE = re.compile(r"^(parameters|other persistable variables \(optimizer state\)): "
                        r"(\d+) bytes serial, (\d+) per rank")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default=os.path.join(os.path.dirname(HERE), "build"),
                   help="build directory with bin/distc")
    add_model_options(p)
    p.add_argument("--work-dir", help="keep the programs and placements here (default: a temp dir)")
    p.add_argument("--json", help="also write the results to this JSON file")
    return p.parse_args()


def build(model):
    if model == "mlp":
        return programs.mlp(MLP_DIMS)
    return programs.transformer(**ENCODER)


def parameters(main):
    """{name: (shape, bytes per element)} of the main program's parameters."""
    params = {}
    for var in main.vars:
        if var.get("is_parameter"):
            tensor = var["type"]["lod_tensor"]["tensor"]
            params[var["name"]] = (tensor["dims"], DTYPE_BYTES[tensor["data_type"]])
    return params


def layout_of(model, layout):
    """{parameter: [mesh axis splitting each tensor axis, or -1]} for the
    parameters a layout splits (the others are whole), and the placements
    file's content."""
    name, mesh, batch_axis, tp, tp_axis = layout
    rank = len(mesh)
    split = {}
    tensors = {}

    def placements(mapping):
        out = ["Replicate()"] * rank
        for tensor_axis, mesh_axis in enumerate(mapping):
            if mesh_axis >= 0:
                out[mesh_axis] = "Shard(%d)" % tensor_axis
        return out

    if batch_axis is not None:
        tensors[MODELS[model]["feed"]] = placements([batch_axis, -1])
    if tp is not None:
        for w in MODELS[model][tp]["column"]:
            split[w] = [-1, tp_axis]
            split[w.replace(".w_", ".b_")] = [tp_axis]
            tensors[w] = placements(split[w])
        for w in MODELS[model][tp]["row"]:
            split[w] = [tp_axis, -1]
            tensors[w] = placements(split[w])
    dim_names = ["dp", "mp"] if rank == 2 else ["dp" if batch_axis is not None else "mp"]
    return split, {"mesh": {"shape": mesh, "dim_names": dim_names}, "tensors": tensors}


def local_bytes(shape, elem, mapping, mesh):
    n = elem
    for axis, size in enumerate(shape):
        parts = mesh[mapping[axis]] if mapping and mapping[axis] >= 0 else 1
        if size % parts:
            raise SystemExit("sharding_memory.py: error: axis %d of size %d is not divided by %d"
                             % (axis, size, parts))
        n *= size // parts
    return n


def expected(params, split, mesh, optimizer):
    """(serial params, per-rank params, serial state, per-rank state) bytes
    from the shapes: the learning rate (one float); Adam: two moments of the
    parameter's layout, two whole one-float beta powers per parameter."""
    serial_p = local_p = 0
    serial_s = local_s = 4
    for name, (shape, elem) in params.items():
        whole = local_bytes(shape, elem, None, mesh)
        mine = local_bytes(shape, elem, split.get(name), mesh)
        serial_p += whole
        local_p += mine
        if optimizer == "adam":
            serial_s += 2 * whole + 2 * 4
            local_s += 2 * mine + 2 * 4
    return serial_p, local_p, serial_s, local_s


def compile_explained(distc, work, model, layout_name, mesh, optimizer, placements):
    """(serial params, per-rank params, serial state, per-rank state) bytes
    from --explain-sharding, or the error text."""
    tag = "%s.%s.%s.%s" % (model, layout_name.replace(" ", ""), "x".join(map(str, mesh)),
                           optimizer)
    path = os.path.join(work, tag + ".placements.json")
    with open(path, "w") as f:
        json.dump(placements, f)
    base = os.path.join(work, model)
    cmd = [distc, base + ".main.json", "--startup", base + ".startup.json", "--loss", LOSS,
           "--optimizer", optimizer, "--placements", path, "--compile-to=artifact",
           "--explain-sharding"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        errors = [line for line in proc.stderr.splitlines() if "error" in line]
        return None, (errors or proc.stderr.splitlines() or ["exit %d" % proc.returncode])[0], cmd
    found = {}
    for line in proc.stdout.splitlines():
        m = BYTES_LINE.match(line)
        if m:
            found[m.group(1).split()[0]] = (int(m.group(2)), int(m.group(3)))
    if set(found) != {"parameters", "other"}:
        return None, "no bytes in the --explain-sharding output", cmd
    return found["parameters"] + found["other"], None, cmd


def run(work):
    distc = built_tool(ARGS.build_dir, "distc", "sharding_memory.py")
    if not distc:
        return 2
    models = ARGS.models.split(",")
    optimizers = ARGS.optimizers.split(",")
    for m in models:
        if m not in MODELS:
            log("sharding_memory.py: error: unknown model '%s' (mlp, transformer)" % m)
            return 2
    rows, problems = [], []
    for model in models:
        main, startup, _ = build(model)
        programs.save(main, os.path.join(work, model + ".main.json"))
        programs.save(startup, os.path.join(work, model + ".startup.json"))
        params = parameters(main)
        for optimizer in optimizers:
            serial = expected(params, {}, [1], optimizer)
            rows.append({"model": model, "layout": "serial", "mesh": [], "optimizer": optimizer,
                         "params": serial[0], "state": serial[2]})
            for layout in LAYOUTS:
                name, mesh, _, tp, _ = layout
                if tp is not None and tp not in MODELS[model]:
                    continue
                split, placements = layout_of(model, layout)
                want = expected(params, split, mesh, optimizer)
                log("  %s, %s %s, %s" % (model, name, mesh, optimizer))
                got, error, cmd = compile_explained(distc, work, model, name, mesh, optimizer,
                                                    placements)
                row = {"model": model, "layout": name, "mesh": mesh, "optimizer": optimizer,
                       "params": None, "state": None, "expected_params": want[1],
                       "expected_state": want[3]}
                if error:
                    row["error"] = error
                    problems.append("%s %s %s %s does not compile: %s\n    %s" %
                                    (model, name, mesh, optimizer, error, " ".join(cmd)))
                else:
                    row["params"], row["state"] = got[1], got[3]
                    if got != want:
                        problems.append(
                            "%s %s %s %s: --explain-sharding says params %d serial %d per "
                            "rank, state %d serial %d per rank; the shapes give %d, %d, %d, %d"
                            % ((model, name, mesh, optimizer) + got + want))
                rows.append(row)

    print("| model | layout | mesh | optimizer | param bytes/rank | opt-state bytes/rank "
          "| params vs serial | opt-state vs serial |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    for row in rows:
        serial = next(r for r in rows if r["model"] == row["model"] and r["layout"] == "serial"
                      and r["optimizer"] == row["optimizer"])
        mesh = "[%s]" % ", ".join(map(str, row["mesh"])) if row["mesh"] else "-"
        if row["params"] is None:
            cells = ["compile error"] + ["-"] * 3
        else:
            cells = ["%d" % row["params"], "%d" % row["state"],
                     "%.3f" % (row["params"] / serial["params"]),
                     "%.3f" % (row["state"] / serial["state"])]
        print("| %s | %s | %s | %s | %s |" % (row["model"], row["layout"], mesh, row["optimizer"],
                                              " | ".join(cells)))
    print("(bytes of one rank; serial: the program's bytes, which every layout's "
          "--explain-sharding also reports)")
    for problem in problems:
        print("FAILED: " + problem)
    if problems and not ARGS.work_dir:
        print("(the files are removed; --work-dir DIR keeps them to rerun a command)")
    if not problems:
        print("every layout compiles and its bytes agree with the shapes")
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump({"rows": rows, "problems": problems}, f, indent=1)
    return 1 if problems else 0


if __name__ == "__main__":
    # Parsed here, not on import: bench/sharding_step.py imports the
    # layouts and has options of its own.
    ARGS = parse_args()
    sys.exit(run_in_work_dir(run, ARGS.work_dir, "distc-sharding-memory-"))

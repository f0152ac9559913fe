#!/usr/bin/env python3
"""Writes the example Paddle programs and the per-op test programs as JSON.

The programs look like what Paddle's static graph writes (`paddle.static`
with `fluid.layers.fc` / `nn.Linear` naming, op_role attributes, feed/fetch
ops, startup programs of seeded initializers), in protobuf's JSON form of
framework.proto, and the inference programs of the MLP and the transformer
as Paddle 3 saves them (PIR JSON, `inference.json`). Standard library only;
rerun after changing it:

    python3 examples/gen_programs.py
"""

import json
import math
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Paddle's OpRole values.
FORWARD, BACKWARD, OPTIMIZE, LOSS = 0, 1, 2, 0x100

ATTR_FIELD = {
    "INT": "i", "FLOAT": "f", "STRING": "s", "INTS": "ints", "FLOATS": "floats",
    "STRINGS": "strings", "BOOLEAN": "b", "BOOLEANS": "bools", "LONG": "l",
    "LONGS": "longs", "FLOAT64": "float64", "FLOAT64S": "float64s",
}


class Program:
    """One block of a ProgramDesc under construction."""

    def __init__(self, namescope="/"):
        self.vars = []
        self.var_names = set()
        self.ops = []
        self.namescope = namescope

    def var(self, name, shape, dtype="FP32", persistable=False, is_parameter=False,
            stop_gradient=False, need_check_feed=False):
        if name in self.var_names:
            return name
        self.var_names.add(name)
        desc = {"name": name,
                "type": {"type": "LOD_TENSOR",
                         "lod_tensor": {"tensor": {"data_type": dtype, "dims": list(shape)}}}}
        if persistable:
            desc["persistable"] = True
        if need_check_feed:
            desc["need_check_feed"] = True
        if is_parameter:
            desc["is_parameter"] = True
        if stop_gradient:
            desc["stop_gradient"] = True
        self.vars.append(desc)
        return name

    def param(self, name, shape, dtype="FP32"):
        return self.var(name, shape, dtype, persistable=True, is_parameter=True)

    def op(self, type_, inputs, outputs, attrs=None, role=FORWARD, common=True):
        all_attrs = dict(attrs or {})
        if common:
            # What Paddle puts on every op it creates.
            all_attrs.setdefault("op_role", ("INT", role))
            all_attrs.setdefault("op_role_var", ("STRINGS", []))
            all_attrs.setdefault("op_namescope", ("STRING", self.namescope))
            all_attrs.setdefault("op_device", ("STRING", ""))
            all_attrs.setdefault("with_quant_attr", ("BOOLEAN", False))
            all_attrs.setdefault("op_callstack", ("STRINGS", [
                '  File "train.py", line 42, in build_program',
                "    out = layers.%s(...)" % type_]))
        desc = {
            "inputs": [{"parameter": k, "arguments": list(v)} for k, v in inputs.items()],
            "outputs": [{"parameter": k, "arguments": list(v)} for k, v in outputs.items()],
            "type": type_,
            "attrs": [],
        }
        for name in sorted(all_attrs):  # Paddle writes attributes sorted by name
            kind, value = all_attrs[name]
            desc["attrs"].append({"name": name, "type": kind, ATTR_FIELD[kind]: value})
        self.ops.append(desc)

    def feed(self, name, shape, dtype="FP32", col=0):
        self.var("feed", [], persistable=True)
        self.vars[[v["name"] for v in self.vars].index("feed")]["type"] = {"type": "FEED_MINIBATCH"}
        self.var(name, shape, dtype, need_check_feed=True, stop_gradient=True)
        self.op("feed", {"X": ["feed"]}, {"Out": [name]}, {"col": ("INT", col)})

    def fetch(self, name, col=0):
        if "fetch" not in self.var_names:
            self.var_names.add("fetch")
            self.vars.append({"name": "fetch", "type": {"type": "FETCH_LIST"}, "persistable": True})
        self.op("fetch", {"X": [name]}, {"Out": ["fetch"]}, {"col": ("INT", col)})

    def to_json(self):
        return {"blocks": [{"idx": 0, "parent_idx": -1, "vars": self.vars, "ops": self.ops}],
                "version": {"version": 0}}


def write(path, program):
    full = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        json.dump(program.to_json(), f, indent=1)
        f.write("\n")


# --- initializers (startup program) -------------------------------------------

def uniform(startup, name, shape, limit, seed):
    startup.param(name, shape)
    startup.op("uniform_random", {}, {"Out": [name]}, {
        "shape": ("LONGS", list(shape)), "dtype": ("INT", 5), "min": ("FLOAT", -limit),
        "max": ("FLOAT", limit), "seed": ("INT", seed), "diag_num": ("INT", 0),
        "diag_step": ("INT", 0), "diag_val": ("FLOAT", 1.0)})


def gaussian(startup, name, shape, std, seed):
    startup.param(name, shape)
    startup.op("gaussian_random", {}, {"Out": [name]}, {
        "shape": ("LONGS", list(shape)), "dtype": ("INT", 5), "mean": ("FLOAT", 0.0),
        "std": ("FLOAT", std), "seed": ("INT", seed)})


def constant(startup, name, shape, value):
    startup.param(name, shape)
    startup.op("fill_constant", {}, {"Out": [name]}, {
        "shape": ("LONGS", list(shape)), "dtype": ("INT", 5), "value": ("FLOAT", value),
        "str_value": ("STRING", ""), "force_cpu": ("BOOLEAN", False),
        "place_type": ("INT", -1)})


def xavier(fan_in, fan_out):
    return math.sqrt(6.0 / (fan_in + fan_out))


# --- MLP ----------------------------------------------------------------------

def fc(main, startup, index, x, in_dim, out_dim, act, seed):
    w, b = "fc_%d.w_0" % index, "fc_%d.b_0" % index
    main.param(w, [in_dim, out_dim])
    main.param(b, [out_dim])
    uniform(startup, w, [in_dim, out_dim], xavier(in_dim, out_dim), seed)
    constant(startup, b, [out_dim], 0.0)
    t0, t1 = main.var("fc_%d.tmp_0" % index, [-1, out_dim]), main.var("fc_%d.tmp_1" % index, [-1, out_dim])
    main.op("mul", {"X": [x], "Y": [w]}, {"Out": [t0]},
            {"x_num_col_dims": ("INT", 1), "y_num_col_dims": ("INT", 1)})
    main.op("elementwise_add", {"X": [t0], "Y": [b]}, {"Out": [t1]}, {"axis": ("INT", 1)})
    if not act:
        return t1
    t2 = main.var("fc_%d.tmp_2" % index, [-1, out_dim])
    main.op(act, {"X": [t1]}, {"Out": [t2]})
    return t2


def cross_entropy_loss(main, logits, classes, loss_name):
    """Softmax cross entropy of `logits` against the INT64 feed `label`,
    averaged into the scalar `loss_name` (op_role forward|loss)."""
    sm, loss = (main.var("softmax_with_cross_entropy_0.tmp_0", [-1, classes]),
                main.var("softmax_with_cross_entropy_0.tmp_1", [-1, 1]))
    main.op("softmax_with_cross_entropy", {"Logits": [logits], "Label": ["label"]},
            {"Softmax": [sm], "Loss": [loss]},
            {"soft_label": ("BOOLEAN", False), "ignore_index": ("INT", -100),
             "numeric_stable_mode": ("BOOLEAN", True), "axis": ("INT", -1)})
    avg = main.var(loss_name, [])
    main.op("mean", {"X": [loss]}, {"Out": [avg]}, role=FORWARD | LOSS)
    return avg


def classifier_head(main, logits, classes, loss_name, prob_name, acc_name):
    """The cross-entropy loss, class probabilities and top-1 accuracy;
    fetches loss, accuracy and probabilities (columns 0, 1, 2), as Paddle's
    classifier examples do."""
    avg = cross_entropy_loss(main, logits, classes, loss_name)
    prob = main.var(prob_name, [-1, classes])
    main.op("softmax", {"X": [logits]}, {"Out": [prob]}, {"axis": ("INT", -1)})
    topk, idx = main.var("top_k_v2_0.tmp_0", [-1, 1]), main.var("top_k_v2_0.tmp_1", [-1, 1], "INT64")
    main.op("top_k_v2", {"X": [prob]}, {"Out": [topk], "Indices": [idx]},
            {"k": ("INT", 1), "axis": ("INT", -1), "largest": ("BOOLEAN", True),
             "sorted": ("BOOLEAN", True)})
    acc = main.var(acc_name, [], "FP32")
    correct = main.var("accuracy_0.tmp_1", [], "INT32")
    total = main.var("accuracy_0.tmp_2", [], "INT32")
    main.op("accuracy", {"Out": [topk], "Indices": [idx], "Label": ["label"]},
            {"Accuracy": [acc], "Correct": [correct], "Total": [total]})
    main.fetch(avg, 0)
    main.fetch(acc, 1)
    main.fetch(prob, 2)


def mlp():
    main, startup = Program(), Program()
    main.feed("x", [-1, 64])
    main.feed("label", [-1, 1], "INT64", col=1)
    h = fc(main, startup, 0, "x", 64, 32, "relu", seed=1)
    logits = fc(main, startup, 1, h, 32, 10, None, seed=2)
    classifier_head(main, logits, 10, loss_name="mean_0.tmp_0", prob_name="softmax_0.tmp_0",
                    acc_name="accuracy_0.tmp_0")
    write("examples/mlp/main.json", main)
    write("examples/mlp/startup.json", startup)


# --- Digits classifier ----------------------------------------------------------

def digits():
    """The main job's classifier for 8x8 digit images with pixels 0..16:
    scale to [0, 1], a hidden layer of 64 with dropout at training time, and
    10 classes; fetches the loss, the accuracy and the class probabilities."""
    main, startup = Program(), Program()
    main.feed("x", [-1, 64])
    main.feed("label", [-1, 1], "INT64", col=1)
    pixels = main.var("scale_0.tmp_0", [-1, 64])
    main.op("scale", {"X": ["x"]}, {"Out": [pixels]},
            {"scale": ("FLOAT", 1.0 / 16), "bias": ("FLOAT", 0.0),
             "bias_after_scale": ("BOOLEAN", True)})
    h = fc(main, startup, 0, pixels, 64, 64, "relu", seed=11)
    dropped, mask = main.var("dropout_0.tmp_0", [-1, 64]), main.var("dropout_0.tmp_1", [-1, 64], "UINT8")
    main.op("dropout", {"X": [h]}, {"Out": [dropped], "Mask": [mask]},
            {"dropout_prob": ("FLOAT", 0.1), "is_test": ("BOOLEAN", False),
             "fix_seed": ("BOOLEAN", False), "seed": ("INT", 0),
             "dropout_implementation": ("STRING", "upscale_in_train")})
    logits = fc(main, startup, 1, dropped, 64, 10, None, seed=12)
    classifier_head(main, logits, 10, loss_name="loss", prob_name="prob", acc_name="accuracy")
    write("examples/digits/main.json", main)
    write("examples/digits/startup.json", startup)


# --- Transformer encoder layer --------------------------------------------------

SEQ, D, HEADS, FFN, VOCAB = 16, 32, 4, 64, 100


class Namer:
    """Paddle's unique_name: <prefix>_<n>.tmp_<k> per layer."""

    def __init__(self):
        self.counts = {}

    def layer(self, prefix):
        n = self.counts.get(prefix, 0)
        self.counts[prefix] = n + 1
        return "%s_%d" % (prefix, n)


def linear(main, startup, names, x, shape_prefix, in_dim, out_dim, seed):
    layer = names.layer("linear")
    w, b = layer + ".w_0", layer + ".b_0"
    main.param(w, [in_dim, out_dim])
    main.param(b, [out_dim])
    uniform(startup, w, [in_dim, out_dim], xavier(in_dim, out_dim), seed)
    constant(startup, b, [out_dim], 0.0)
    t0 = main.var(layer + ".tmp_0", shape_prefix + [out_dim])
    t1 = main.var(layer + ".tmp_1", shape_prefix + [out_dim])
    main.op("matmul_v2", {"X": [x], "Y": [w]}, {"Out": [t0]},
            {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", False)})
    main.op("elementwise_add", {"X": [t0], "Y": [b]}, {"Out": [t1]}, {"axis": ("INT", -1)})
    return t1


def layer_norm(main, startup, names, x):
    layer = names.layer("layer_norm")
    scale, bias = layer + ".w_0", layer + ".b_0"
    main.param(scale, [D])
    main.param(bias, [D])
    constant(startup, scale, [D], 1.0)
    constant(startup, bias, [D], 0.0)
    mean, var = main.var(layer + ".tmp_0", [-1]), main.var(layer + ".tmp_1", [-1])
    y = main.var(layer + ".tmp_2", [-1, SEQ, D])
    main.op("layer_norm", {"X": [x], "Scale": [scale], "Bias": [bias]},
            {"Y": [y], "Mean": [mean], "Variance": [var]},
            {"epsilon": ("FLOAT", 1e-5), "begin_norm_axis": ("INT", 2)})
    return y


def split_heads(main, names, x):
    r = names.layer("reshape2")
    out, xs = main.var(r + ".tmp_0", [-1, SEQ, HEADS, D // HEADS]), main.var(r + ".tmp_1", [0, -1, SEQ, D])
    main.op("reshape2", {"X": [x]}, {"Out": [out], "XShape": [xs]},
            {"shape": ("INTS", [0, 0, HEADS, D // HEADS])})
    t = names.layer("transpose2")
    tout = main.var(t + ".tmp_0", [-1, HEADS, SEQ, D // HEADS])
    txs = main.var(t + ".tmp_1", [0, -1, SEQ, HEADS, D // HEADS])
    main.op("transpose2", {"X": [out]}, {"Out": [tout], "XShape": [txs]},
            {"axis": ("INTS", [0, 2, 1, 3])})
    return tout


def transformer():
    main, startup = Program(), Program()
    names = Namer()
    main.feed("src_ids", [-1, SEQ], "INT64")
    table = "word_embedding"
    main.param(table, [VOCAB, D])
    gaussian(startup, table, [VOCAB, D], 0.02, seed=11)
    emb = main.var(names.layer("embedding") + ".tmp_0", [-1, SEQ, D])
    main.op("lookup_table_v2", {"Ids": ["src_ids"], "W": [table]}, {"Out": [emb]},
            {"padding_idx": ("LONG", -1), "is_sparse": ("BOOLEAN", False),
             "is_distributed": ("BOOLEAN", False), "remote_prefetch": ("BOOLEAN", False)})

    ln = layer_norm(main, startup, names, emb)
    q = split_heads(main, names, linear(main, startup, names, ln, [-1, SEQ], D, D, seed=12))
    k = split_heads(main, names, linear(main, startup, names, ln, [-1, SEQ], D, D, seed=13))
    v = split_heads(main, names, linear(main, startup, names, ln, [-1, SEQ], D, D, seed=14))

    mm = names.layer("matmul_v2")
    scores = main.var(mm + ".tmp_0", [-1, HEADS, SEQ, SEQ])
    main.op("matmul_v2", {"X": [q], "Y": [k]}, {"Out": [scores]},
            {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", True)})
    sc = main.var(names.layer("scale") + ".tmp_0", [-1, HEADS, SEQ, SEQ])
    main.op("scale", {"X": [scores]}, {"Out": [sc]},
            {"scale": ("FLOAT", 1.0 / math.sqrt(D // HEADS)), "bias": ("FLOAT", 0.0),
             "bias_after_scale": ("BOOLEAN", True)})
    weights = main.var(names.layer("softmax") + ".tmp_0", [-1, HEADS, SEQ, SEQ])
    main.op("softmax", {"X": [sc]}, {"Out": [weights]}, {"axis": ("INT", -1)})
    dl = names.layer("dropout")
    dropped, mask = main.var(dl + ".tmp_0", [-1, HEADS, SEQ, SEQ]), main.var(dl + ".tmp_1", [-1, HEADS, SEQ, SEQ], "UINT8")
    main.op("dropout", {"X": [weights]}, {"Out": [dropped], "Mask": [mask]},
            {"dropout_prob": ("FLOAT", 0.1), "is_test": ("BOOLEAN", True),
             "fix_seed": ("BOOLEAN", False), "seed": ("INT", 0),
             "dropout_implementation": ("STRING", "upscale_in_train")})
    mm = names.layer("matmul_v2")
    ctx = main.var(mm + ".tmp_0", [-1, HEADS, SEQ, D // HEADS])
    main.op("matmul_v2", {"X": [dropped], "Y": [v]}, {"Out": [ctx]},
            {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", False)})
    t = names.layer("transpose2")
    merged_t, txs = main.var(t + ".tmp_0", [-1, SEQ, HEADS, D // HEADS]), main.var(t + ".tmp_1", [0, -1, HEADS, SEQ, D // HEADS])
    main.op("transpose2", {"X": [ctx]}, {"Out": [merged_t], "XShape": [txs]},
            {"axis": ("INTS", [0, 2, 1, 3])})
    r = names.layer("reshape2")
    merged, rxs = main.var(r + ".tmp_0", [-1, SEQ, D]), main.var(r + ".tmp_1", [0, -1, SEQ, HEADS, D // HEADS])
    main.op("reshape2", {"X": [merged_t]}, {"Out": [merged], "XShape": [rxs]},
            {"shape": ("INTS", [0, 0, D])})
    proj = linear(main, startup, names, merged, [-1, SEQ], D, D, seed=15)
    res1 = main.var(names.layer("tmp") + ".tmp_0", [-1, SEQ, D])
    main.op("elementwise_add", {"X": [emb], "Y": [proj]}, {"Out": [res1]}, {"axis": ("INT", -1)})

    ln2 = layer_norm(main, startup, names, res1)
    hidden = linear(main, startup, names, ln2, [-1, SEQ], D, FFN, seed=16)
    act = main.var(names.layer("gelu") + ".tmp_0", [-1, SEQ, FFN])
    main.op("gelu", {"X": [hidden]}, {"Out": [act]}, {"approximate": ("BOOLEAN", False)})
    ffn = linear(main, startup, names, act, [-1, SEQ], FFN, D, seed=17)
    out = main.var(names.layer("tmp") + ".tmp_0", [-1, SEQ, D])
    main.op("elementwise_add", {"X": [res1], "Y": [ffn]}, {"Out": [out]}, {"axis": ("INT", -1)})
    main.fetch(out, 0)
    write("examples/transformer/main.json", main)
    write("examples/transformer/startup.json", startup)


# --- one small program per catalog op (test inputs) ------------------------------

def op_program(type_, feeds, outputs, attrs=None, params=()):
    """feeds: {slot: [(name, shape, dtype)]}; outputs: {slot: [names]}."""
    p = Program()
    col = 0
    inputs = {}
    for slot, args in feeds.items():
        inputs[slot] = []
        for name, shape, dtype in args:
            if name in params:
                p.param(name, shape, dtype)
            elif name not in p.var_names:
                p.feed(name, shape, dtype, col)
                col += 1
            inputs[slot].append(name)
    p.op(type_, inputs, outputs, attrs or {})
    fcol = 0
    for slot, names in outputs.items():
        for name in names:
            p.fetch(name, fcol)
            fcol += 1
    write("test/Inputs/programs/ops/%s.json" % type_, p)


def vision_ops():
    """The normalization, activation, matmul (v1) and arg_max ops of vision
    models (PdNormOps.td)."""
    f32 = "FP32"
    img = ("img", [-1, 3, 4, 4], f32)
    bn_attrs = {"is_test": ("BOOLEAN", False), "momentum": ("FLOAT", 0.9),
                "epsilon": ("FLOAT", 1e-5), "data_layout": ("STRING", "NCHW"),
                "use_global_stats": ("BOOLEAN", False),
                "trainable_statistics": ("BOOLEAN", False), "fuse_with_relu": ("BOOLEAN", False)}
    # batch_norm as paddle.static.nn.batch_norm writes it: MeanOut and
    # VarianceOut are the running statistics' own (persistable) variables.
    p = Program()
    p.feed("img", [-1, 3, 4, 4], f32, 0)
    for name in ("bn.w", "bn.b"):
        p.param(name, [3], f32)
    for name in ("bn.mean", "bn.var"):
        p.var(name, [3], f32, persistable=True)
    p.op("batch_norm", {"X": ["img"], "Scale": ["bn.w"], "Bias": ["bn.b"], "Mean": ["bn.mean"],
                        "Variance": ["bn.var"]},
         {"Y": ["bn.tmp_0"], "MeanOut": ["bn.mean"], "VarianceOut": ["bn.var"],
          "SavedMean": ["bn.tmp_1"], "SavedVariance": ["bn.tmp_2"]},
         bn_attrs)
    p.fetch("bn.tmp_0", 0)
    write("test/Inputs/programs/ops/batch_norm.json", p)
    # Its gradient as append_backward writes it: ReserveSpace declared as
    # BatchNormInferMeta declares it ([-1], uint8), Mean and Variance absent.
    # sync_batch_norm (SyncBatchNorm layers, BuildStrategy.sync_batch_norm)
    # is the same op to Paddle, with the same slots and attributes.
    for bn in ("batch_norm", "sync_batch_norm"):
        p = Program()
        p.feed("img", [-1, 3, 4, 4], f32, 0)
        for name in ("bn.w", "bn.b"):
            p.param(name, [3], f32)
        for name in ("bn.mean", "bn.var"):
            p.var(name, [3], f32, persistable=True)
        p.var("bn.tmp_3", [-1], "UINT8")
        p.op(bn, {"X": ["img"], "Scale": ["bn.w"], "Bias": ["bn.b"], "Mean": ["bn.mean"],
                  "Variance": ["bn.var"]},
             {"Y": ["bn.tmp_0"], "MeanOut": ["bn.mean"], "VarianceOut": ["bn.var"],
              "SavedMean": ["bn.tmp_1"], "SavedVariance": ["bn.tmp_2"],
              "ReserveSpace": ["bn.tmp_3"]},
             bn_attrs)
        p.op("fill_constant", {}, {"Out": ["bn.tmp_0@GRAD"]},
             {"shape": ("LONGS", [2, 3, 4, 4]), "value": ("FLOAT", 1.0), "dtype": ("INT", 5),
              "str_value": ("STRING", ""), "force_cpu": ("BOOLEAN", False)}, role=BACKWARD)
        p.op(bn + "_grad", {"X": ["img"], "Scale": ["bn.w"], "Bias": ["bn.b"],
                            "SavedMean": ["bn.tmp_1"], "SavedVariance": ["bn.tmp_2"],
                            "ReserveSpace": ["bn.tmp_3"], "Y@GRAD": ["bn.tmp_0@GRAD"]},
             {"X@GRAD": [], "Scale@GRAD": ["bn.w@GRAD"], "Bias@GRAD": ["bn.b@GRAD"]},
             bn_attrs, role=BACKWARD)
        p.fetch("bn.w@GRAD", 0)
        write(f"test/Inputs/programs/ops/{bn}_grad.json", p)
    op_program("affine_channel", {"X": [img], "Scale": [("ac.w", [3], f32)],
                                  "Bias": [("ac.b", [3], f32)]},
               {"Out": ["affine_channel_0.tmp_0"]}, {"data_layout": ("STRING", "NCHW")},
               params=("ac.w", "ac.b"))
    act = lambda t, attrs: op_program(t, {"X": [img]}, {"Out": [t + "_0.tmp_0"]}, attrs)
    act("relu6", {"threshold": ("FLOAT", 6.0)})
    act("hard_swish", {"threshold": ("FLOAT", 6.0), "scale": ("FLOAT", 6.0),
                       "offset": ("FLOAT", 3.0)})
    act("hard_sigmoid", {"slope": ("FLOAT", 0.2), "offset": ("FLOAT", 0.5)})
    act("swish", {"beta": ("FLOAT", 1.0)})
    act("leaky_relu", {"alpha": ("FLOAT", 0.1)})
    op_program("matmul", {"X": [("x", [-1, 4, 8], f32)], "Y": [("w", [3, 8], f32)]},
               {"Out": ["matmul_0.tmp_0"]},
               {"transpose_X": ("BOOLEAN", False), "transpose_Y": ("BOOLEAN", True),
                "alpha": ("FLOAT", 0.5)}, params=("w",))
    op_program("elementwise_min", {"X": [("x", [-1, 4, 8], f32)], "Y": [("y", [8], f32)]},
               {"Out": ["elementwise_min_0.tmp_0"]}, {"axis": ("INT", -1)})
    op_program("arg_max", {"X": [("p", [-1, 10], f32)]}, {"Out": ["arg_max_0.tmp_0"]},
               {"axis": ("LONG", -1), "keepdims": ("BOOLEAN", False),
                "flatten": ("BOOLEAN", False), "dtype": ("INT", 3)})


def optimizer_ops():
    """Paddle's adaptive-rate optimizer ops as their optimizers append them
    (fluid's Adagrad, DecayedAdagrad, RMSProp, Ftrl): each reads the
    parameter, its gradient, `learning_rate_0` and its accumulators
    `<param>_<name>_0`, and writes them back in place."""
    f32 = "FP32"
    shape = [4, 3]
    cases = [
        ("adagrad", {"Param": "w", "Grad": "w@GRAD", "Moment": "w_moment_0",
                     "LearningRate": "learning_rate_0"},
         {"ParamOut": "w", "MomentOut": "w_moment_0"},
         {"epsilon": ("FLOAT", 1e-6), "multi_precision": ("BOOLEAN", False)}),
        ("decayed_adagrad", {"Param": "w", "Grad": "w@GRAD", "Moment": "w_moment_0",
                             "LearningRate": "learning_rate_0"},
         {"ParamOut": "w", "MomentOut": "w_moment_0"},
         {"decay": ("FLOAT", 0.9), "epsilon": ("FLOAT", 1e-6)}),
        ("rmsprop", {"Param": "w", "Grad": "w@GRAD", "Moment": "w_momentum_0",
                     "MeanSquare": "w_mean_square_0", "MeanGrad": "w_mean_grad_0",
                     "LearningRate": "learning_rate_0"},
         {"ParamOut": "w", "MomentOut": "w_momentum_0", "MeanSquareOut": "w_mean_square_0",
          "MeanGradOut": "w_mean_grad_0"},
         {"epsilon": ("FLOAT", 1e-6), "decay": ("FLOAT", 0.95), "momentum": ("FLOAT", 0.5),
          "centered": ("BOOLEAN", True)}),
        ("ftrl", {"Param": "w", "Grad": "w@GRAD", "SquaredAccumulator": "w_squared_0",
                  "LinearAccumulator": "w_linear_0", "LearningRate": "learning_rate_0"},
         {"ParamOut": "w", "SquaredAccumOut": "w_squared_0", "LinearAccumOut": "w_linear_0"},
         {"l1": ("FLOAT", 0.01), "l2": ("FLOAT", 0.02), "lr_power": ("FLOAT", -0.5)}),
    ]
    for type_, inputs, outputs, attrs in cases:
        p = Program()
        p.feed("w@GRAD", shape, f32, 0)
        p.param("w", shape, f32)
        p.var("learning_rate_0", [1], f32, persistable=True)
        for name in sorted(set(inputs.values()) - {"w", "w@GRAD", "learning_rate_0"}):
            p.var(name, shape, f32, persistable=True)
        p.op(type_, {slot: [name] for slot, name in inputs.items()},
             {slot: [name] for slot, name in outputs.items()}, attrs, role=OPTIMIZE)
        p.fetch("w", 0)
        write("test/Inputs/programs/ops/%s.json" % type_, p)


def catalog_ops():
    f32 = "FP32"
    x = ("x", [-1, 4, 8], f32)
    unary = lambda t, attrs=None: op_program(t, {"X": [x]}, {"Out": [t + "_0.tmp_0"]}, attrs)
    elementwise = lambda t: op_program(t, {"X": [x], "Y": [("y", [8], f32)]},
                                       {"Out": [t + "_0.tmp_0"]}, {"axis": ("INT", -1)})
    op_program("fill_constant", {}, {"Out": ["c"]},
               {"shape": ("LONGS", [2, 3]), "value": ("FLOAT", 1.5), "dtype": ("INT", 5),
                "str_value": ("STRING", ""), "force_cpu": ("BOOLEAN", False)})
    unary("assign")
    unary("cast", {"in_dtype": ("INT", 5), "out_dtype": ("INT", 3)})
    unary("scale", {"scale": ("FLOAT", 2.0), "bias": ("FLOAT", 0.5),
                    "bias_after_scale": ("BOOLEAN", False)})
    op_program("mul", {"X": [("x", [-1, 8], f32)], "Y": [("w", [8, 3], f32)]}, {"Out": ["mul_0.tmp_0"]},
               {"x_num_col_dims": ("INT", 1), "y_num_col_dims": ("INT", 1)}, params=("w",))
    op_program("matmul_v2", {"X": [x], "Y": [("y", [-1, 2, 8], f32)]}, {"Out": ["matmul_v2_0.tmp_0"]},
               {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", True)})
    for t in ("elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div"):
        elementwise(t)
    for t in ("relu", "sigmoid", "tanh", "square", "mean"):
        unary(t)
    unary("gelu", {"approximate": ("BOOLEAN", True)})
    unary("clip", {"min": ("FLOAT", -0.5), "max": ("FLOAT", 2.0)})
    unary("softmax", {"axis": ("INT", 1)})
    for t in ("reduce_sum", "reduce_mean"):
        unary(t, {"dim": ("INTS", [1]), "keep_dim": ("BOOLEAN", True),
                  "reduce_all": ("BOOLEAN", False), "in_dtype": ("INT", -1),
                  "out_dtype": ("INT", -1)})
    op_program("reshape2", {"X": [x]}, {"Out": ["reshape2_0.tmp_0"], "XShape": ["reshape2_0.tmp_1"]},
               {"shape": ("INTS", [0, 32])})
    op_program("transpose2", {"X": [x]}, {"Out": ["transpose2_0.tmp_0"], "XShape": ["transpose2_0.tmp_1"]},
               {"axis": ("INTS", [0, 2, 1])})
    op_program("concat", {"X": [x, ("y", [-1, 4, 2], f32)]}, {"Out": ["concat_0.tmp_0"]},
               {"axis": ("INT", 2)})
    op_program("split", {"X": [x]}, {"Out": ["split_0.tmp_0", "split_0.tmp_1"]},
               {"axis": ("INT", 2), "num": ("INT", 0), "sections": ("INTS", [3, 5])})
    op_program("slice", {"Input": [x]}, {"Out": ["slice_0.tmp_0"]},
               {"axes": ("INTS", [2]), "starts": ("INTS", [1]), "ends": ("INTS", [5]),
                "decrease_axis": ("INTS", []), "infer_flags": ("INTS", [1])})
    op_program("lookup_table_v2", {"Ids": [("ids", [-1, 5], "INT64")], "W": [("emb", [10, 8], f32)]},
               {"Out": ["embedding_0.tmp_0"]},
               {"padding_idx": ("LONG", 0), "is_sparse": ("BOOLEAN", False)}, params=("emb",))
    op_program("layer_norm", {"X": [x], "Scale": [("ln.w", [8], f32)], "Bias": [("ln.b", [8], f32)]},
               {"Y": ["ln.tmp_2"], "Mean": ["ln.tmp_0"], "Variance": ["ln.tmp_1"]},
               {"epsilon": ("FLOAT", 1e-5), "begin_norm_axis": ("INT", 2)}, params=("ln.w", "ln.b"))
    op_program("dropout", {"X": [x]}, {"Out": ["dropout_0.tmp_0"], "Mask": ["dropout_0.tmp_1"]},
               {"dropout_prob": ("FLOAT", 0.25), "is_test": ("BOOLEAN", False),
                "fix_seed": ("BOOLEAN", True), "seed": ("INT", 7),
                "dropout_implementation": ("STRING", "upscale_in_train")})
    op_program("softmax_with_cross_entropy",
               {"Logits": [("logits", [-1, 10], f32)], "Label": [("label", [-1, 1], "INT64")]},
               {"Softmax": ["swce.tmp_0"], "Loss": ["swce.tmp_1"]},
               {"soft_label": ("BOOLEAN", False), "ignore_index": ("INT", -100),
                "numeric_stable_mode": ("BOOLEAN", True), "axis": ("INT", -1)})
    op_program("top_k_v2", {"X": [("p", [-1, 10], f32)]}, {"Out": ["topk.tmp_0"], "Indices": ["topk.tmp_1"]},
               {"k": ("INT", 3), "axis": ("INT", -1), "largest": ("BOOLEAN", True),
                "sorted": ("BOOLEAN", True)})
    op_program("accuracy", {"Out": [("topk", [-1, 3], f32)], "Indices": [("idx", [-1, 3], "INT64")],
                            "Label": [("label", [-1, 1], "INT64")]},
               {"Accuracy": ["acc.tmp_0"], "Correct": ["acc.tmp_1"], "Total": ["acc.tmp_2"]})
    vision_ops()
    optimizer_ops()
    conv_attrs = {"strides": ("INTS", [2, 2]), "paddings": ("INTS", [1, 0, 1, 2]),
                  "padding_algorithm": ("STRING", "EXPLICIT"), "dilations": ("INTS", [1, 1]),
                  "data_format": ("STRING", "NCHW"),
                  # what Paddle's exporters add for one backend; kept, not used
                  "use_cudnn": ("BOOLEAN", True), "use_mkldnn": ("BOOLEAN", False),
                  "exhaustive_search": ("BOOLEAN", False), "workspace_size_MB": ("INT", 512),
                  "fuse_relu_before_depthwise_conv": ("BOOLEAN", False)}
    image = ("image", [-1, 4, 9, 9], f32)
    op_program("conv2d", {"Input": [image], "Filter": [("conv.w", [6, 2, 3, 3], f32)]},
               {"Output": ["conv2d_0.tmp_0"]}, dict(conv_attrs, groups=("INT", 2)),
               params=("conv.w",))
    op_program("depthwise_conv2d", {"Input": [image], "Filter": [("dw.w", [8, 1, 3, 3], f32)]},
               {"Output": ["depthwise_conv2d_0.tmp_0"]}, dict(conv_attrs, groups=("INT", 4)),
               params=("dw.w",))
    # Paddle's grad maker writes the Bias slots of conv2d_grad even when empty.
    op_program("conv2d_grad", {"Input": [image], "Filter": [("conv.w", [6, 2, 3, 3], f32)],
                               "Bias": [], "Output@GRAD": [("conv2d_0.tmp_0@GRAD", [-1, 6, 4, 5], f32)]},
               {"Input@GRAD": ["image@GRAD"], "Filter@GRAD": ["conv.w@GRAD"], "Bias@GRAD": []},
               dict(conv_attrs, groups=("INT", 2)), params=("conv.w",))
    op_program("conv2d_transpose", {"Input": [image], "Filter": [("convt.w", [4, 3, 3, 3], f32)]},
               {"Output": ["conv2d_transpose_0.tmp_0"]},
               {"strides": ("INTS", [2, 2]), "paddings": ("INTS", [1, 1]),
                "output_size": ("INTS", []), "output_padding": ("INTS", [1, 0]),
                "padding_algorithm": ("STRING", "EXPLICIT"), "groups": ("INT", 1),
                "dilations": ("INTS", [1, 1]), "data_format": ("STRING", "NCHW"),
                "use_cudnn": ("BOOLEAN", True)}, params=("convt.w",))
    op_program("pool2d", {"X": [image]}, {"Out": ["pool2d_0.tmp_0"]},
               {"pooling_type": ("STRING", "avg"), "ksize": ("INTS", [3, 3]),
                "global_pooling": ("BOOLEAN", False), "strides": ("INTS", [2, 2]),
                "paddings": ("INTS", [1, 1]), "exclusive": ("BOOLEAN", False),
                "adaptive": ("BOOLEAN", False), "ceil_mode": ("BOOLEAN", True),
                "data_format": ("STRING", "NCHW"), "padding_algorithm": ("STRING", "EXPLICIT"),
                "use_cudnn": ("BOOLEAN", False)})
    op_program("uniform_random", {}, {"Out": ["u"]},
               {"shape": ("LONGS", [4, 3]), "min": ("FLOAT", -0.5), "max": ("FLOAT", 0.5),
                "seed": ("INT", 3), "dtype": ("INT", 5)})
    op_program("gaussian_random", {}, {"Out": ["g"]},
               {"shape": ("LONGS", [4, 3]), "mean": ("FLOAT", 0.0), "std": ("FLOAT", 0.02),
                "seed": ("INT", 4), "dtype": ("INT", 5)})
    op_program("truncated_gaussian_random", {}, {"Out": ["t"]},
               {"shape": ("INTS", [4, 3]), "mean": ("FLOAT", 0.0), "std": ("FLOAT", 0.02),
                "seed": ("INT", 5), "dtype": ("INT", 5)})
    img = ("img", [-1, 4, 6, 6], f32)
    op_program("flatten_contiguous_range", {"X": [img]},
               {"Out": ["flatten_0.tmp_0"], "XShape": ["flatten_0.tmp_1"]},
               {"start_axis": ("INT", 1), "stop_axis": ("INT", -1)})
    op_program("squeeze2", {"X": [("sq", [-1, 4, 1, 1], f32)]},
               {"Out": ["squeeze_0.tmp_0"], "XShape": ["squeeze_0.tmp_1"]},
               {"axes": ("INTS", [2, 3])})
    op_program("unsqueeze2", {"X": [x]},
               {"Out": ["unsqueeze_0.tmp_0"], "XShape": ["unsqueeze_0.tmp_1"]},
               {"axes": ("INTS", [1, -1])})
    op_program("shape", {"Input": [img]}, {"Out": ["shape_0.tmp_0"]})
    op_program("shuffle_channel", {"X": [img]}, {"Out": ["shuffle_0.tmp_0"]}, {"group": ("INT", 2)})
    op_program("channel_shuffle", {"X": [("img_nhwc", [-1, 6, 6, 4], f32)]},
               {"Out": ["channel_shuffle_0.tmp_0"]},
               {"groups": ("INT", 2), "data_format": ("STRING", "NHWC")})
    op_program("pad2d", {"X": [img]}, {"Out": ["pad2d_0.tmp_0"]},
               {"paddings": ("INTS", [1, 1, 2, 0]), "mode": ("STRING", "reflect"),
                "pad_value": ("FLOAT", 0.0), "data_format": ("STRING", "NCHW")})
    op_program("pad3d", {"X": [("vol", [-1, 2, 3, 4, 4], f32)]}, {"Out": ["pad3d_0.tmp_0"]},
               {"paddings": ("INTS", [1, 1, 0, 2, 1, 0]), "mode": ("STRING", "constant"),
                "value": ("FLOAT", 0.5), "data_format": ("STRING", "NCDHW")})
    for t, method in (("bilinear_interp_v2", "bilinear"), ("nearest_interp_v2", "nearest")):
        op_program(t, {"X": [img]}, {"Out": [t + "_0.tmp_0"]},
                   {"data_layout": ("STRING", "NCHW"), "out_d": ("INT", -1), "out_h": ("INT", -1),
                    "out_w": ("INT", -1), "scale": ("FLOATS", [2.0, 2.0]),
                    "interp_method": ("STRING", method), "align_corners": ("BOOLEAN", False),
                    "align_mode": ("INT", 0)})


# --- Paddle 3 PIR programs ------------------------------------------------------
#
# PIR JSON as paddle.jit.save / paddle.static.save_inference_model write it
# in Paddle 3 (paddle/fluid/pir/serialize_deserialize: schema.h keys,
# ir_serialize.cc layout): ops are {"#": "<dialect id>.<name>", "I": operands,
# "O": results, "A": attributes}, dialect ids 0 builtin and 1 pd_op, value
# ids from 1 under "%", parameters as the compressed {"#": "p"} op. Keys are
# written sorted, as nlohmann::json does.

PIR_DTYPES = {"FP32": ("0.t_f32", "float32"), "FP64": ("0.t_f64", "float64"),
              "INT64": ("0.t_i64", "int64"),
              "INT32": ("0.t_i32", "int32"), "UINT8": ("0.t_ui8", "uint8"),
              "BOOL": ("0.t_bool", "bool")}


def pir_type(shape, dtype="FP32"):
    return {"#": "0.t_dtensor", "D": [{"#": PIR_DTYPES[dtype][0]}, list(shape), "NCHW", [], 0]}


def a_bool(v):
    return {"#": "0.a_bool", "D": v}


def a_i32(v):
    return {"#": "0.a_i32", "D": v}


def a_i64(v):
    return {"#": "0.a_i64", "D": v}


def a_f32(v):
    return {"#": "0.a_f32", "D": v}


def a_f64(v):
    return {"#": "0.a_f64", "D": v}


def a_str(v):
    return {"#": "0.a_str", "D": v}


def a_ints(v):
    return {"#": "0.a_array", "D": [a_i32(x) for x in v]}


def a_intarray(v):
    return {"#": "1.a_intarray", "D": list(v)}


def a_dtype(dtype):
    return {"#": "1.a_dtype", "D": PIR_DTYPES[dtype][1]}


A_PLACE = {"#": "1.a_place", "D": [0, 0, ""]}


class PirProgram:
    """The top-level block of a PIR program under construction."""

    def __init__(self, version=1, trainable=False):
        self.version, self.trainable = version, trainable
        self.ops = []
        self.next_id = 1

    def _value(self, shape, dtype):
        vid = self.next_id
        self.next_id += 1
        return vid, {"%": vid, "TT": pir_type(shape, dtype)}

    def _stop_gradient(self, op, *flags):
        if self.trainable:
            op["OA"] = [{"N": "stop_gradient",
                         "AT": {"#": "0.a_array", "D": [a_bool(f) for f in flags]}}]

    def param(self, name, shape, dtype="FP32"):
        vid, value = self._value(shape, dtype)
        op = {"#": "p", "A": [0, 1, 1, name], "O": value}
        if self.trainable:
            op["OA"] = [1, 0, 1]  # persistable, stop_gradient, trainable
        self.ops.append(op)
        return vid

    def data(self, name, shape, dtype="FP32"):
        vid, value = self._value(shape, dtype)
        op = {"#": "1.data", "I": [], "O": [value],
              "A": [{"N": "name", "AT": a_str(name)}, {"N": "shape", "AT": a_intarray(shape)},
                    {"N": "dtype", "AT": a_dtype(dtype)}, {"N": "place", "AT": A_PLACE}]}
        self._stop_gradient(op, True)
        self.ops.append(op)
        return vid

    def op(self, name, operands, results, attrs=()):
        """results: [(shape, dtype)]; attrs: [(name, AT)]. Returns the ids."""
        ids, values = [], []
        for shape, dtype in results:
            vid, value = self._value(shape, dtype)
            ids.append(vid)
            values.append(value)
        op = {"#": name, "I": [{"%": v} for v in operands], "O": values,
              "A": [{"N": n, "AT": at} for n, at in attrs]}
        self._stop_gradient(op, *[False] * len(results))
        self.ops.append(op)
        return ids

    def full(self, shape, value, dtype="FP32"):
        return self.op("1.full", [], [(shape, dtype)],
                       [("shape", a_intarray(shape)), ("value", a_f64(value)),
                        ("dtype", a_dtype(dtype)), ("place", A_PLACE)])[0]

    def full_int_array(self, values):
        return self.op("1.full_int_array", [], [([len(values)], "INT64")],
                       [("value", {"#": "0.a_array", "D": [a_i64(v) for v in values]}),
                        ("dtype", a_dtype("INT64")), ("place", A_PLACE)])[0]

    def fetch(self, value, shape, name, col, dtype="FP32"):
        vid, out = self._value(shape, dtype)
        op = {"#": "1.fetch", "I": [{"%": value}], "O": [out],
              "A": [{"N": "name", "AT": a_str(name)}, {"N": "col", "AT": a_i32(col)}]}
        if self.trainable:
            op["OA"] = [{"N": "persistable", "AT": {"#": "0.a_array", "D": [a_bool(True)]}},
                        {"N": "stop_gradient", "AT": {"#": "0.a_array", "D": [a_bool(False)]}}]
        self.ops.append(op)

    def to_json(self):
        return {"base_code": {"magic": "pir", "trainable": self.trainable,
                              "version": self.version},
                "program": {"regions": [{"#": "region_0", "blocks": [
                    {"#": "block_0", "args": [], "ops": self.ops}]}]}}


def write_pir(path, program):
    full = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        json.dump(program.to_json(), f, separators=(",", ":"), sort_keys=True)
        f.write("\n")


def pir_linear(p, x, w, b, shape_prefix, out_dim):
    mm = p.op("1.matmul", [x, w], [(shape_prefix + [out_dim], "FP32")],
              [("transpose_x", a_bool(False)), ("transpose_y", a_bool(False))])[0]
    return p.op("1.add", [mm, b], [(shape_prefix + [out_dim], "FP32")])[0]


def pir_mlp():
    """The MLP's inference program as Paddle 3 saves it: x -> fc 64x32, relu
    -> fc 32x10 -> softmax, fetched as softmax_0.tmp_0 (the ProgramDesc
    example's `prob`), with the same parameter names."""
    p = PirProgram(version=1, trainable=True)
    b0, w0 = p.param("fc_0.b_0", [32]), p.param("fc_0.w_0", [64, 32])
    b1, w1 = p.param("fc_1.b_0", [10]), p.param("fc_1.w_0", [32, 10])
    x = p.data("x", [-1, 64])
    h = p.op("1.relu", [pir_linear(p, x, w0, b0, [-1], 32)], [([-1, 32], "FP32")])[0]
    logits = pir_linear(p, h, w1, b1, [-1], 10)
    prob = p.op("1.softmax", [logits], [([-1, 10], "FP32")], [("axis", a_i32(-1))])[0]
    p.fetch(prob, [-1, 10], "softmax_0.tmp_0", 0)
    write_pir("examples/mlp/inference.json", p)


def pir_transformer():
    """The transformer layer's inference program in PIR form (version 3, not
    trainable: no result attributes), the same computation and parameter
    names as examples/transformer/main.json: mutable attributes (reshape's
    shape, scale's scale) as constant operands, dropout in test mode."""
    p = PirProgram(version=3, trainable=False)
    names = Namer()
    params = {}

    def param(name, shape):
        params[name] = p.param(name, shape)
        return params[name]

    table = param("word_embedding", [VOCAB, D])
    ids = p.data("src_ids", [-1, SEQ], "INT64")
    names.layer("embedding")
    emb = p.op("1.embedding", [ids, table], [([-1, SEQ, D], "FP32")],
               [("padding_idx", a_i64(-1)), ("sparse", a_bool(False))])[0]

    def layer_norm(x):
        layer = names.layer("layer_norm")
        scale, bias = param(layer + ".w_0", [D]), param(layer + ".b_0", [D])
        return p.op("1.layer_norm", [x, scale, bias],
                    [([-1, SEQ, D], "FP32"), ([-1], "FP32"), ([-1], "FP32")],
                    [("epsilon", a_f32(1e-5)), ("begin_norm_axis", a_i32(2))])[0]

    def linear(x, in_dim, out_dim):
        layer = names.layer("linear")
        w, b = param(layer + ".w_0", [in_dim, out_dim]), param(layer + ".b_0", [out_dim])
        return pir_linear(p, x, w, b, [-1, SEQ], out_dim)

    def split_heads(x):
        names.layer("reshape2")
        shape = p.full_int_array([0, 0, HEADS, D // HEADS])
        r = p.op("1.reshape", [x, shape], [([-1, SEQ, HEADS, D // HEADS], "FP32")])[0]
        names.layer("transpose2")
        return p.op("1.transpose", [r], [([-1, HEADS, SEQ, D // HEADS], "FP32")],
                    [("perm", a_ints([0, 2, 1, 3]))])[0]

    ln = layer_norm(emb)
    q, k, v = (split_heads(linear(ln, D, D)) for _ in range(3))
    scores = p.op("1.matmul", [q, k], [([-1, HEADS, SEQ, SEQ], "FP32")],
                  [("transpose_x", a_bool(False)), ("transpose_y", a_bool(True))])[0]
    factor = p.full([1], 1.0 / math.sqrt(D // HEADS))
    scaled = p.op("1.scale", [scores, factor], [([-1, HEADS, SEQ, SEQ], "FP32")],
                  [("bias", a_f32(0.0)), ("bias_after_scale", a_bool(True))])[0]
    weights = p.op("1.softmax", [scaled], [([-1, HEADS, SEQ, SEQ], "FP32")],
                   [("axis", a_i32(-1))])[0]
    dropped = p.op("1.dropout", [weights, 0],
                   [([-1, HEADS, SEQ, SEQ], "FP32"), ([-1, HEADS, SEQ, SEQ], "UINT8")],
                   [("p", a_f32(0.1)), ("is_test", a_bool(True)),
                    ("mode", a_str("upscale_in_train")), ("seed", a_i32(0)),
                    ("fix_seed", a_bool(False))])[0]
    ctx = p.op("1.matmul", [dropped, v], [([-1, HEADS, SEQ, D // HEADS], "FP32")],
               [("transpose_x", a_bool(False)), ("transpose_y", a_bool(False))])[0]
    merged_t = p.op("1.transpose", [ctx], [([-1, SEQ, HEADS, D // HEADS], "FP32")],
                    [("perm", a_ints([0, 2, 1, 3]))])[0]
    merged = p.op("1.reshape", [merged_t, p.full_int_array([0, 0, D])],
                  [([-1, SEQ, D], "FP32")])[0]
    res1 = p.op("1.add", [emb, linear(merged, D, D)], [([-1, SEQ, D], "FP32")])[0]
    hidden = linear(layer_norm(res1), D, FFN)
    act = p.op("1.gelu", [hidden], [([-1, SEQ, FFN], "FP32")], [("approximate", a_bool(False))])[0]
    out = p.op("1.add", [res1, linear(act, FFN, D)], [([-1, SEQ, D], "FP32")])[0]
    p.fetch(out, [-1, SEQ, D], "tmp_1.tmp_0", 0)
    write_pir("examples/transformer/inference.json", p)


def pir_op_twin(type_, name, feeds, operands, results, attrs=(), params=(), fetches=None):
    """The PIR form of test/Inputs/programs/ops/<type_>.json: the same feeds,
    parameters and fetched names. feeds: [(name, shape, dtype)], parameters
    the names in `params`; operands: feed or parameter names, ints (PIR
    value ids: constants, 0 for an absent operand), or callables making a
    constant in the program; results: [(shape, dtype)], None for a null
    result; fetches: [(result index, name)]."""
    p = PirProgram(version=1)
    ids = {}
    for fname, shape, dtype in feeds:
        ids[fname] = p.param(fname, shape, dtype) if fname in params else None
    for fname, shape, dtype in feeds:
        if ids[fname] is None:
            ids[fname] = p.data(fname, shape, dtype)
    ins = [ids[o] if isinstance(o, str) else o(p) if callable(o) else o for o in operands]
    outs = p.op("1." + name, ins, [r or ([], "FP32") for r in results], attrs)
    for k, r in enumerate(results):
        if r is None:
            p.ops[-1]["O"][k] = {"%": 0, "TT": {"#": "NULL"}}
    for col, (k, fname) in enumerate(fetches or [(0, type_ + "_0.tmp_0")]):
        shape, dtype = results[k]
        p.fetch(outs[k], shape, fname, col, dtype)
    write_pir("test/Inputs/programs/pir/ops/%s.json" % type_, p)


def pir_op_twins():
    """PIR twins of the vision ops' single-op programs (vision_ops() and
    catalog_ops()): pir-vision-ops.test runs both forms and compares."""
    f32 = "FP32"
    img = ("img", [-1, 3, 4, 4], f32)
    f = lambda shape: [(shape, f32)]
    bn = [("img", [-1, 3, 4, 4], f32)] + [(n, [3], f32) for n in ("bn.w", "bn.b", "bn.mean", "bn.var")]
    pir_op_twin("batch_norm", "batch_norm", bn, ["img", "bn.mean", "bn.var", "bn.w", "bn.b"],
                f([-1, 3, 4, 4]) + f([3]) * 4 + [None],
                [("is_test", a_bool(True)), ("momentum", a_f32(0.9)), ("epsilon", a_f32(1e-5)),
                 ("data_format", a_str("NCHW")), ("use_global_stats", a_bool(False)),
                 ("trainable_statistics", a_bool(False))],
                params=("bn.w", "bn.b", "bn.mean", "bn.var"), fetches=[(0, "bn.tmp_0")])
    pir_op_twin("affine_channel", "affine_channel",
                [img, ("ac.w", [3], f32), ("ac.b", [3], f32)], ["img", "ac.w", "ac.b"],
                f([-1, 3, 4, 4]), [("data_layout", a_str("NCHW"))], params=("ac.w", "ac.b"))
    for t, name, attrs in (("relu6", "relu6", []), ("hard_swish", "hardswish", []),
                           ("hard_sigmoid", "hardsigmoid",
                            [("slope", a_f32(0.2)), ("offset", a_f32(0.5))]),
                           ("swish", "swish", []),
                           ("leaky_relu", "leaky_relu", [("negative_slope", a_f32(0.1))])):
        pir_op_twin(t, name, [img], ["img"], f([-1, 3, 4, 4]), attrs)
    pir_op_twin("elementwise_min", "minimum", [("x", [-1, 4, 8], f32), ("y", [8], f32)],
                ["x", "y"], f([-1, 4, 8]))
    pir_op_twin("arg_max", "argmax", [("p", [-1, 10], f32)],
                ["p", lambda q: q.full([1], -1, "INT64")], [([-1], "INT64")],
                [("keepdims", a_bool(False)), ("flatten", a_bool(False)),
                 ("dtype", a_dtype("INT64"))])
    image = ("image", [-1, 4, 9, 9], f32)
    conv = [("strides", a_ints([2, 2])), ("paddings", a_ints([1, 0, 1, 2])),
            ("padding_algorithm", a_str("EXPLICIT")), ("dilations", a_ints([1, 1])),
            ("data_format", a_str("NCHW"))]
    pir_op_twin("conv2d", "conv2d", [image, ("conv.w", [6, 2, 3, 3], f32)], ["image", "conv.w"],
                f([-1, 6, 4, 5]), conv + [("groups", a_i32(2))], params=("conv.w",))
    pir_op_twin("depthwise_conv2d", "depthwise_conv2d", [image, ("dw.w", [8, 1, 3, 3], f32)],
                ["image", "dw.w"], f([-1, 8, 4, 5]), conv + [("groups", a_i32(4))],
                params=("dw.w",))
    # pd_op.conv2d_transpose(x, filter, output_size): output_size empty.
    pir_op_twin("conv2d_transpose", "conv2d_transpose", [image, ("convt.w", [4, 3, 3, 3], f32)],
                ["image", "convt.w", lambda q: q.full_int_array([])], f([-1, 3, 18, 17]),
                [("strides", a_ints([2, 2])), ("paddings", a_ints([1, 1])),
                 ("output_padding", a_ints([1, 0])), ("padding_algorithm", a_str("EXPLICIT")),
                 ("groups", a_i32(1)), ("dilations", a_ints([1, 1])),
                 ("data_format", a_str("NCHW"))], params=("convt.w",))
    pir_op_twin("pool2d", "pool2d", [image], ["image", lambda q: q.full_int_array([3, 3])],
                f([-1, 4, 5, 5]),
                [("strides", a_ints([2, 2])), ("paddings", a_ints([1, 1])),
                 ("ceil_mode", a_bool(True)), ("exclusive", a_bool(False)),
                 ("data_format", a_str("NCHW")), ("pooling_type", a_str("avg")),
                 ("global_pooling", a_bool(False)), ("adaptive", a_bool(False)),
                 ("padding_algorithm", a_str("EXPLICIT"))])
    img = ("img", [-1, 4, 6, 6], f32)
    # flatten and squeeze as Paddle 3.0 writes them, with an xshape result;
    # unsqueeze as later versions do, without.
    pir_op_twin("flatten_contiguous_range", "flatten", [img], ["img"],
                f([-1, 144]) + f([0, -1, 4, 6, 6]),
                [("start_axis", a_i32(1)), ("stop_axis", a_i32(-1))],
                fetches=[(0, "flatten_0.tmp_0")])
    pir_op_twin("squeeze2", "squeeze", [("sq", [-1, 4, 1, 1], f32)],
                ["sq", lambda q: q.full_int_array([2, 3])], f([-1, 4]) + f([0, -1, 4, 1, 1]),
                fetches=[(0, "squeeze_0.tmp_0")])
    pir_op_twin("unsqueeze2", "unsqueeze", [("x", [-1, 4, 8], f32)],
                ["x", lambda q: q.full_int_array([1, -1])], f([-1, 1, 4, 8, 1]),
                fetches=[(0, "unsqueeze_0.tmp_0")])
    pir_op_twin("shape", "shape", [img], ["img"], [([4], "INT32")], fetches=[(0, "shape_0.tmp_0")])
    pir_op_twin("shuffle_channel", "shuffle_channel", [img], ["img"], f([-1, 4, 6, 6]),
                [("group", a_i32(2))], fetches=[(0, "shuffle_0.tmp_0")])
    pir_op_twin("channel_shuffle", "channel_shuffle", [("img_nhwc", [-1, 6, 6, 4], f32)],
                ["img_nhwc"], f([-1, 6, 6, 4]),
                [("groups", a_i32(2)), ("data_format", a_str("NHWC"))],
                fetches=[(0, "channel_shuffle_0.tmp_0")])
    pir_op_twin("pad3d", "pad3d", [("vol", [-1, 2, 3, 4, 4], f32)],
                ["vol", lambda q: q.full_int_array([1, 1, 0, 2, 1, 0])], f([-1, 2, 4, 6, 6]),
                [("mode", a_str("constant")), ("pad_value", a_f32(0.5)),
                 ("data_format", a_str("NCDHW"))])
    for t, method in (("bilinear_interp_v2", "bilinear"), ("nearest_interp_v2", "nearest")):
        # pd_op.<method>_interp(x, out_size, size_tensor, scale_tensor), the
        # last three absent: the scale is an attribute.
        pir_op_twin(t, method + "_interp", [img], ["img", 0, 0, 0], f([-1, 4, 12, 12]),
                    [("data_format", a_str("NCHW")), ("out_d", a_i32(-1)), ("out_h", a_i32(-1)),
                     ("out_w", a_i32(-1)),
                     ("scale", {"#": "0.a_array", "D": [a_f32(2.0), a_f32(2.0)]}),
                     ("interp_method", a_str(method)), ("align_corners", a_bool(False)),
                     ("align_mode", a_i32(0))])


def pir_test_programs():
    """PIR test inputs (test/Inputs/programs/pir/): one program with every
    structural form (constants as operands, combine/split, full as a tensor,
    shadow_output) and many catalog ops, and the error cases."""
    d = "test/Inputs/programs/pir/"
    p = PirProgram(version=4, trainable=True)
    x, y = p.data("x", [-1, 8]), p.data("y", [-1, 8])
    label = p.data("label", [-1, 1], "INT64")
    f = [([-1, 8], "FP32")]
    a = p.op("1.subtract", [x, y], f)[0]
    b = p.op("1.multiply", [a, y], f)[0]
    c = p.op("1.divide", [b, y], f)[0]
    m = p.op("1.maximum", [c, x], f)[0]
    t = p.op("1.tanh_", [p.op("1.sigmoid", [m], f)[0]], f)[0]  # in place: tanh's form
    r = p.op("1.sqrt", [p.op("1.square", [t], f)[0]], f)[0]
    total = p.op("1.sum", [x, p.full_int_array([1])], [([-1], "FP32")],
                 [("dtype", {"#": "1.a_dtype", "D": "Undefined"}), ("keepdim", a_bool(False))])[0]
    avg = p.op("1.mean", [r, p.full_int_array([])], [([], "FP32")],
               [("keepdim", a_bool(False))])[0]
    both = p.op("0.combine", [x, y], [])
    both_id = p.next_id
    p.ops[-1]["O"] = [{"%": both_id, "TT": {"#": "0.t_vec", "D": [pir_type([-1, 8]), pir_type([-1, 8])]}}]
    p.next_id += 1
    cat = p.op("1.concat", [both_id, p.full([1], 1, "INT32")], [([-1, 16], "FP32")])[0]
    parts = p.next_id
    p.next_id += 1
    p.ops.append({"#": "1.split", "I": [{"%": cat}, {"%": p.full_int_array([8, 8])},
                                         {"%": p.full([1], 1, "INT32")}],
                  "O": [{"%": parts, "TT": {"#": "0.t_vec", "D": [pir_type([-1, 8]), pir_type([-1, 8])]}}],
                  "A": []})
    first, second = p.op("0.split", [parts], [([-1, 8], "FP32"), ([-1, 8], "FP32")])
    halves = p.next_id
    p.next_id += 1
    p.ops.append({"#": "1.split_with_num", "I": [{"%": cat}, {"%": p.full([1], 1, "INT32")}],
                  "O": [{"%": halves, "TT": {"#": "0.t_vec", "D": [pir_type([-1, 8]), pir_type([-1, 8])]}}],
                  "A": [{"N": "num", "AT": a_i32(2)}]})
    half = p.op("0.slice", [halves], [([-1, 8], "FP32")], [("index", a_i32(1))])[0]
    pair = p.next_id
    p.next_id += 1
    p.ops.append({"#": "0.combine", "I": [{"%": first}, {"%": second}],
                  "O": [{"%": pair, "TT": {"#": "0.t_vec", "D": [pir_type([-1, 8]), pir_type([-1, 8])]}}],
                  "A": []})
    added = p.op("1.add_n", [pair], f)[0]
    sl = p.op("1.slice", [cat, p.full_int_array([0]), p.full_int_array([4])], [([-1, 4], "FP32")],
              [("axes", {"#": "0.a_array", "D": [a_i64(1)]}),
               ("infer_flags", {"#": "0.a_array", "D": [a_i64(1)]}),
               ("decrease_axis", {"#": "0.a_array", "D": []})])[0]
    clipped = p.op("1.clip", [sl, p.full([1], 0.0), p.full([1], 1.0)], [([-1, 4], "FP32")])[0]
    top, idx = p.op("1.topk", [x, p.full([1], 2, "INT32")], [([-1, 2], "FP32"), ([-1, 2], "INT64")],
                    [("axis", a_i32(-1)), ("largest", a_bool(True)), ("sorted", a_bool(True))])
    acc = p.op("1.accuracy", [top, idx, label],
               [([], "FP32"), ([], "INT32"), ([], "INT32")])[0]
    sm, loss = p.op("1.cross_entropy_with_softmax", [x, label], [([-1, 8], "FP32"), ([-1, 1], "FP32")],
                    [("soft_label", a_bool(False)), ("use_softmax", a_bool(True)),
                     ("numeric_stable_mode", a_bool(True)), ("ignore_index", a_i32(-100)),
                     ("axis", a_i32(-1))])
    wide = p.op("1.cast", [x], [([-1, 8], "FP64")], [("dtype", a_dtype("FP64"))])[0]
    plus_two = p.op("1.add", [x, p.full([1], 2.0)], f)[0]
    shape = [p.full([1], v, "INT64") for v in (0, 4, 2)]
    shape_vec = p.next_id
    p.next_id += 1
    p.ops.append({"#": "0.combine", "I": [{"%": v} for v in shape],
                  "O": [{"%": shape_vec, "TT": {"#": "0.t_vec", "D": [pir_type([1], "INT64")] * 3}}],
                  "A": []})
    reshaped = p.op("1.reshape", [plus_two, shape_vec], [([-1, 4, 2], "FP32")])[0]
    copied = p.op("1.assign", [reshaped], [([-1, 4, 2], "FP32")])[0]
    for col, (v, shape_, name, dtype) in enumerate([
            (total, [-1], "total", "FP32"), (avg, [], "avg", "FP32"),
            (added, [-1, 8], "added", "FP32"), (clipped, [-1, 4], "clipped", "FP32"),
            (acc, [], "acc", "FP32"), (loss, [-1, 1], "loss", "FP32"),
            (copied, [-1, 4, 2], "copied", "FP32"), (wide, [-1, 8], "wide", "FP64"),
            (half, [-1, 8], "half", "FP32")]):
        p.fetch(v, shape_, name, col, dtype)
    p.ops.append({"#": "0.shadow_output", "I": [{"%": sm}], "O": [],
                  "A": [{"N": "output_name", "AT": a_str("softmax_out")}]})
    write_pir(d + "ops.json", p)

    def small(version=1):
        q = PirProgram(version=version)
        w = q.param("w", [8, 4])
        x = q.data("x", [-1, 8])
        return q, w, x

    q, w, x = small()
    # Detection ops distc does not model, one twice, and control flow.
    h = q.op("1.roi_align", [x, w], [([-1, 4], "FP32")])[0]
    h = q.op("1.matmul", [h, w], [([-1, 4], "FP32")],
             [("transpose_x", a_bool(False)), ("transpose_y", a_bool(False))])[0]
    h = q.op("1.yolo_box", [h], [([-1, 4], "FP32")])[0]
    h = q.op("1.roi_align", [h, w], [([-1, 4], "FP32")])[0]
    h = q.op("1.multiclass_nms3_", [h], [([-1, 4], "FP32")])[0]
    q.ops.append({"#": "1.if", "I": [{"%": h}], "O": [], "A": [],
                  "regions": [{"#": "region_1", "blocks": []}]})
    q.fetch(h, [-1, 4], "out", 0)
    write_pir(d + "unsupported.json", q)

    q, w, x = small(version=99)
    q.fetch(q.op("1.relu", [x], [([-1, 8], "FP32")])[0], [-1, 8], "out", 0)
    write_pir(d + "version-99.json", q)

    q, w, x = small()
    q.fetch(q.op("1.relu", [x, w], [([-1, 8], "FP32")])[0], [-1, 8], "out", 0)
    write_pir(d + "extra-operand.json", q)

    q, w, x = small()
    q.fetch(q.op("1.relu", [99], [([-1, 8], "FP32")])[0], [-1, 8], "out", 0)
    write_pir(d + "undefined-value.json", q)

    q, w, x = small()
    shape = q.data("shape", [2], "INT64")
    q.fetch(q.op("1.reshape", [x, shape], [([-1, 2], "FP32")])[0], [-1, 2], "out", 0)
    write_pir(d + "computed-attr.json", q)

    q, w, x = small()
    q.fetch(q.op("1.matmul", [x, w], [([-1, 5], "FP32")],
                 [("transpose_x", a_bool(False)), ("transpose_y", a_bool(False))])[0],
            [-1, 5], "out", 0)
    write_pir(d + "wrong-type.json", q)

    # An interpolation whose output size is a tensor operand (out_size).
    q, w, x = small()
    img = q.data("img", [-1, 3, 4, 4])
    size = q.full_int_array([8, 8])
    q.fetch(q.op("1.bilinear_interp", [img, size, 0, 0], [([-1, 3, 8, 8], "FP32")],
                 [("data_format", a_str("NCHW")), ("out_d", a_i32(-1)), ("out_h", a_i32(-1)),
                  ("out_w", a_i32(-1)), ("scale", {"#": "0.a_array", "D": []}),
                  ("interp_method", a_str("bilinear")), ("align_corners", a_bool(False)),
                  ("align_mode", a_i32(0))])[0],
            [-1, 3, 8, 8], "out", 0)
    write_pir(d + "interp-out-size.json", q)

    pir_op_twins()


if __name__ == "__main__":
    mlp()
    digits()
    transformer()
    catalog_ops()
    pir_mlp()
    pir_transformer()
    pir_test_programs()

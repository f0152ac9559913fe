"""The model of Paddle's own fused_attention pass test, as a distc program
(test/e2e/fusion-attention.test).

    paddle_attention_pass.py OUT_DIR
        writes main.json + startup.json: x [-1, 8, 8] -> linear to 16 ->
        Paddle's pass-test MultiHeadAttention (2 heads; pre layer norm,
        one QKV linear in the pattern's layout, the mask attn_mask
        [-1, 2, 8, 8] fed, dropout 0.1 on the weights, the output linear,
        dropout 1e-10, the residual add) -> reduce_mean over everything
        (the loss, fetched as mean_0.tmp_0); and x.npy, attn_mask.npy
        (4 rows each, random in [0, 1) as Paddle's test draws them).
"""
import importlib.util
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SEQ, HIDDEN, HEADS = 8, 16, 2


def load_programs():
    spec = importlib.util.spec_from_file_location(
        "programs", os.path.join(ROOT, "bench", "programs.py"))
    programs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(programs)
    return programs


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    programs = load_programs()
    gp = programs.gp
    main_prog, startup = programs.Program(), programs.Program()
    names = programs.Namer()
    main_prog.feed("x", [-1, SEQ, SEQ])
    main_prog.feed("attn_mask", [-1, HEADS, SEQ, SEQ], col=1)
    rows = [-1, SEQ]
    attn_input = gp.linear(main_prog, startup, names, "x", rows, SEQ, HIDDEN, seed=1)
    ln = programs._layer_norm(main_prog, startup, names, attn_input, SEQ, HIDDEN)
    qkv = gp.linear(main_prog, startup, names, ln, rows, HIDDEN, 3 * HIDDEN, seed=2)
    merged = programs._attention_fused_qkv(main_prog, names, qkv, SEQ, HIDDEN, HEADS, 0.1,
                                           "attn_mask")
    proj = gp.linear(main_prog, startup, names, merged, rows, HIDDEN, HIDDEN, seed=3)
    proj = programs._dropout(main_prog, names, proj, [-1, SEQ, HIDDEN], 1e-10)
    summed = main_prog.var(names.layer("tmp") + ".tmp_0", [-1, SEQ, HIDDEN])
    main_prog.op("elementwise_add", {"X": [attn_input], "Y": [proj]}, {"Out": [summed]},
                 {"axis": ("INT", -1)})
    loss = main_prog.var("mean_0.tmp_0", [])
    main_prog.op("reduce_mean", {"X": [summed]}, {"Out": [loss]},
                 {"dim": ("INTS", []), "keep_dim": ("BOOLEAN", False),
                  "reduce_all": ("BOOLEAN", True), "in_dtype": ("INT", -1),
                  "out_dtype": ("INT", -1)})
    main_prog.fetch(loss, 0)
    programs.save(main_prog, os.path.join(out, "main.json"))
    programs.save(startup, os.path.join(out, "startup.json"))
    rng = np.random.default_rng(1234)
    np.save(os.path.join(out, "x.npy"), rng.random((4, SEQ, SEQ)).astype(np.float32))
    np.save(os.path.join(out, "attn_mask.npy"),
            rng.random((4, HEADS, SEQ, SEQ)).astype(np.float32))


if __name__ == "__main__":
    main()

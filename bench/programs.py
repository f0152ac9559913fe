"""The benchmark models as Paddle ProgramDesc JSON (main + startup).

Built with the Program class and the initializer and layer functions of
examples/gen_programs.py, so they look like the example programs; the
example files themselves are not touched.

Parameter names follow Paddle's naming (fc_0.w_0, linear_3.b_0,
layer_norm_1.w_0, word_embedding, ...); bench/torch_models.py uses the same
names so that parameters can be exchanged as <name>.npy files.
"""

import importlib.util
import json
import math
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_gen_programs():
    path = os.path.join(ROOT, "examples", "gen_programs.py")
    spec = importlib.util.spec_from_file_location("gen_programs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines only; its __main__ block does not run
    return module


gp = _load_gen_programs()
Program, Namer = gp.Program, gp.Namer


def save(program, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(program.to_json(), f, indent=1)
        f.write("\n")


def _cross_entropy_loss(main, logits, classes):
    """The example programs' cross-entropy loss (mean over the batch),
    fetched as column 0: the only fetch, so timing measures training."""
    loss = gp.cross_entropy_loss(main, logits, classes, "mean_0.tmp_0")
    main.fetch(loss, 0)
    return loss


# --- MLP ----------------------------------------------------------------------

def mlp(dims):
    """fc layers dims[0] -> ... -> dims[-1], ReLU between, softmax cross
    entropy and mean. Feeds x f32[-1, dims[0]], label i64[-1, 1]."""
    main, startup = Program(), Program()
    main.feed("x", [-1, dims[0]])
    main.feed("label", [-1, 1], "INT64", col=1)
    h = "x"
    layers = len(dims) - 1
    for i in range(layers):
        act = "relu" if i + 1 < layers else None
        h = gp.fc(main, startup, i, h, dims[i], dims[i + 1], act, seed=i + 1)
    loss = _cross_entropy_loss(main, h, dims[-1])
    return main, startup, loss


# --- Transformer encoder block ------------------------------------------------

def _layer_norm(main, startup, names, x, seq, d):
    layer = names.layer("layer_norm")
    scale, bias = layer + ".w_0", layer + ".b_0"
    main.param(scale, [d])
    main.param(bias, [d])
    gp.constant(startup, scale, [d], 1.0)
    gp.constant(startup, bias, [d], 0.0)
    mean, var = main.var(layer + ".tmp_0", [-1]), main.var(layer + ".tmp_1", [-1])
    y = main.var(layer + ".tmp_2", [-1, seq, d])
    main.op("layer_norm", {"X": [x], "Scale": [scale], "Bias": [bias]},
            {"Y": [y], "Mean": [mean], "Variance": [var]},
            {"epsilon": ("FLOAT", 1e-5), "begin_norm_axis": ("INT", 2)})
    return y


def _split_heads(main, names, x, seq, d, heads):
    hd = d // heads
    r = names.layer("reshape2")
    out, xs = main.var(r + ".tmp_0", [-1, seq, heads, hd]), main.var(r + ".tmp_1", [0, -1, seq, d])
    main.op("reshape2", {"X": [x]}, {"Out": [out], "XShape": [xs]},
            {"shape": ("INTS", [0, 0, heads, hd])})
    t = names.layer("transpose2")
    tout = main.var(t + ".tmp_0", [-1, heads, seq, hd])
    txs = main.var(t + ".tmp_1", [0, -1, seq, heads, hd])
    main.op("transpose2", {"X": [out]}, {"Out": [tout], "XShape": [txs]},
            {"axis": ("INTS", [0, 2, 1, 3])})
    return tout


def _softmax_dropout(main, names, scores, shape, hd, dropout):
    """scale by 1/sqrt(hd), softmax over the last axis, dropout in training."""
    sc = main.var(names.layer("scale") + ".tmp_0", shape)
    main.op("scale", {"X": [scores]}, {"Out": [sc]},
            {"scale": ("FLOAT", 1.0 / math.sqrt(hd)), "bias": ("FLOAT", 0.0),
             "bias_after_scale": ("BOOLEAN", True)})
    weights = main.var(names.layer("softmax") + ".tmp_0", shape)
    main.op("softmax", {"X": [sc]}, {"Out": [weights]}, {"axis": ("INT", -1)})
    return _dropout(main, names, weights, shape, dropout)


def _dropout(main, names, x, shape, p):
    """Training-time dropout (upscale_in_train) of x; x itself when p <= 0."""
    if p <= 0:
        return x
    dl = names.layer("dropout")
    dropped, mask = main.var(dl + ".tmp_0", shape), main.var(dl + ".tmp_1", shape, "UINT8")
    main.op("dropout", {"X": [x]}, {"Out": [dropped], "Mask": [mask]},
            {"dropout_prob": ("FLOAT", p), "is_test": ("BOOLEAN", False),
             "fix_seed": ("BOOLEAN", False), "seed": ("INT", 0),
             "dropout_implementation": ("STRING", "upscale_in_train")})
    return dropped


def _heads_attention(main, names, q, k, v, seq, d, heads, dropout):
    """Attention over heads q, k, v [B, H, S, hd]: the batched matmuls
    around softmax (and dropout), then transpose2 + reshape2 back to
    [B, S, d]."""
    hd = d // heads
    mm = names.layer("matmul_v2")
    scores = main.var(mm + ".tmp_0", [-1, heads, seq, seq])
    main.op("matmul_v2", {"X": [q], "Y": [k]}, {"Out": [scores]},
            {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", True)})
    weights = _softmax_dropout(main, names, scores, [-1, heads, seq, seq], hd, dropout)
    return _merge_heads(main, names, weights, v, seq, d, heads)


def _merge_heads(main, names, weights, v, seq, d, heads):
    """weights·v [B, H, S, hd], transpose2 + reshape2 back to [B, S, d]."""
    hd = d // heads
    mm = names.layer("matmul_v2")
    ctx = main.var(mm + ".tmp_0", [-1, heads, seq, hd])
    main.op("matmul_v2", {"X": [weights], "Y": [v]}, {"Out": [ctx]},
            {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", False)})
    t = names.layer("transpose2")
    merged_t = main.var(t + ".tmp_0", [-1, seq, heads, hd])
    txs = main.var(t + ".tmp_1", [0, -1, heads, seq, hd])
    main.op("transpose2", {"X": [ctx]}, {"Out": [merged_t], "XShape": [txs]},
            {"axis": ("INTS", [0, 2, 1, 3])})
    r = names.layer("reshape2")
    merged, rxs = main.var(r + ".tmp_0", [-1, seq, d]), main.var(r + ".tmp_1", [0, -1, seq, heads, hd])
    main.op("reshape2", {"X": [merged_t]}, {"Out": [merged], "XShape": [rxs]},
            {"shape": ("INTS", [0, 0, d])})
    return merged


def _attention_reshape(main, names, q, k, v, seq, d, heads, dropout):
    """Paddle's MultiHeadAttention: reshape2 + transpose2 to [B, H, S, hd],
    batched matmuls, transpose2 + reshape2 back (examples/transformer)."""
    q, k, v = (_split_heads(main, names, t, seq, d, heads) for t in (q, k, v))
    return _heads_attention(main, names, q, k, v, seq, d, heads, dropout)


def _attention_fused_qkv(main, names, qkv, seq, d, heads, dropout, mask=None):
    """Multi-head attention from one fused QKV projection [B, S, 3d], in the
    layout Paddle's fused_attention pass matches: reshape2 to [B, S, 3H, hd],
    transpose2 to [B, 3H, S, hd], split into q, k, v along axis 1, q scaled
    by hd^-0.5, the batched matmuls around softmax (`mask` added before it,
    dropout after), transpose2 + reshape2 back."""
    hd = d // heads
    r = names.layer("reshape2")
    heads_qkv = main.var(r + ".tmp_0", [-1, seq, 3 * heads, hd])
    main.op("reshape2", {"X": [qkv]}, {"Out": [heads_qkv], "XShape": [main.var(r + ".tmp_1", [0, -1, seq, 3 * d])]},
            {"shape": ("INTS", [0, 0, 3 * heads, hd])})
    t = names.layer("transpose2")
    per_head = main.var(t + ".tmp_0", [-1, 3 * heads, seq, hd])
    main.op("transpose2", {"X": [heads_qkv]},
            {"Out": [per_head], "XShape": [main.var(t + ".tmp_1", [0, -1, seq, 3 * heads, hd])]},
            {"axis": ("INTS", [0, 2, 1, 3])})
    sp = names.layer("split")
    q, k, v = (main.var("%s.tmp_%d" % (sp, i), [-1, heads, seq, hd]) for i in range(3))
    main.op("split", {"X": [per_head]}, {"Out": [q, k, v]},
            {"axis": ("INT", 1), "num": ("INT", 3), "sections": ("INTS", [])})
    scaled = main.var(names.layer("scale") + ".tmp_0", [-1, heads, seq, hd])
    main.op("scale", {"X": [q]}, {"Out": [scaled]},
            {"scale": ("FLOAT", hd ** -0.5), "bias": ("FLOAT", 0.0),
             "bias_after_scale": ("BOOLEAN", True)})
    shape = [-1, heads, seq, seq]
    mm = names.layer("matmul_v2")
    scores = main.var(mm + ".tmp_0", shape)
    main.op("matmul_v2", {"X": [scaled], "Y": [k]}, {"Out": [scores]},
            {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", True)})
    if mask is not None:
        masked = main.var(names.layer("tmp") + ".tmp_0", shape)
        main.op("elementwise_add", {"X": [scores], "Y": [mask]}, {"Out": [masked]},
                {"axis": ("INT", -1)})
        scores = masked
    weights = main.var(names.layer("softmax") + ".tmp_0", shape)
    main.op("softmax", {"X": [scores]}, {"Out": [weights]}, {"axis": ("INT", -1)})
    weights = _dropout(main, names, weights, shape, dropout)
    return _merge_heads(main, names, weights, v, seq, d, heads)


def _key_mask(main, names, ids, seq):
    """An additive attention mask [B, 1, 1, S] from the token ids (-0.05 per
    id: a bias that differs per key, with no gradient)."""
    c = main.var(names.layer("cast") + ".tmp_0", [-1, seq])
    main.op("cast", {"X": [ids]}, {"Out": [c]}, {"in_dtype": ("INT", 3), "out_dtype": ("INT", 5)})
    s = main.var(names.layer("scale") + ".tmp_0", [-1, seq])
    main.op("scale", {"X": [c]}, {"Out": [s]},
            {"scale": ("FLOAT", -0.05), "bias": ("FLOAT", 0.0), "bias_after_scale": ("BOOLEAN", True)})
    u = names.layer("unsqueeze2")
    mask = main.var(u + ".tmp_0", [-1, 1, 1, seq])
    main.op("unsqueeze2", {"X": [s]}, {"Out": [mask], "XShape": [main.var(u + ".tmp_1", [0, -1, seq])]},
            {"axes": ("INTS", [1, 2])})
    return mask


def _attention_split(main, names, q, k, v, seq, d, heads, dropout):
    """The same multi-head attention without reshape2/transpose2: split q, k
    and v into heads along the feature axis ([B, S, hd] each), one batched
    matmul pair per head, concat the heads' outputs along the feature axis.
    Identical arithmetic; the head layout differs only in memory."""
    hd = d // heads

    def split(x):
        s = names.layer("split")
        outs = [main.var("%s.tmp_%d" % (s, i), [-1, seq, hd]) for i in range(heads)]
        main.op("split", {"X": [x]}, {"Out": outs},
                {"axis": ("INT", 2), "num": ("INT", heads), "sections": ("INTS", [])})
        return outs

    qs, ks, vs = split(q), split(k), split(v)
    ctxs = []
    for h in range(heads):
        mm = names.layer("matmul_v2")
        scores = main.var(mm + ".tmp_0", [-1, seq, seq])
        main.op("matmul_v2", {"X": [qs[h]], "Y": [ks[h]]}, {"Out": [scores]},
                {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", True)})
        weights = _softmax_dropout(main, names, scores, [-1, seq, seq], hd, dropout)
        mm = names.layer("matmul_v2")
        ctx = main.var(mm + ".tmp_0", [-1, seq, hd])
        main.op("matmul_v2", {"X": [weights], "Y": [vs[h]]}, {"Out": [ctx]},
                {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", False)})
        ctxs.append(ctx)
    merged = main.var(names.layer("concat") + ".tmp_0", [-1, seq, d])
    main.op("concat", {"X": ctxs}, {"Out": [merged]}, {"axis": ("INT", 2)})
    return merged


def transformer(seq, d, heads, ffn, vocab, classes, dropout, heads_via="reshape",
                sparse_embedding=False, residual_dropout=0.0, normalize_before=True,
                act_dropout=None, attn_mask=False):
    """examples/transformer's pre-LN encoder block (token embedding,
    layer_norm, 4-head self-attention with dropout on the attention weights,
    residual, layer_norm, GELU FFN, residual) with a classification head:
    mean over the sequence -> linear -> softmax cross entropy -> mean.
    Feeds src_ids i64[-1, seq], label i64[-1, 1]. `sparse_embedding`: the
    lookup is is_sparse (a row-sparse table gradient on parameter
    servers). `residual_dropout` > 0 drops out the attention's and the
    FFN's outputs before their residual adds and the FFN's activation, as
    Paddle's TransformerEncoderLayer does (dropout1, dropout2, and
    `act_dropout`, whose rate defaults to theirs). `normalize_before` False
    makes it a post-layer-norm block (Paddle's normalize_before): each
    layer_norm follows its residual add instead of starting its
    sublayer. `heads_via` forms the attention heads from q, k, v
    projections with reshape2 + transpose2 ("reshape") or split + concat
    ("split"), or from one fused QKV projection in the layout of Paddle's
    fused_attention pattern ("fused_qkv"; `attn_mask` adds a mask derived
    from the ids to its attention scores)."""
    main, startup = Program(), Program()
    names = Namer()
    main.feed("src_ids", [-1, seq], "INT64")
    main.feed("label", [-1, 1], "INT64", col=1)
    table = "word_embedding"
    main.param(table, [vocab, d])
    gp.gaussian(startup, table, [vocab, d], 0.02, seed=11)
    emb = main.var(names.layer("embedding") + ".tmp_0", [-1, seq, d])
    main.op("lookup_table_v2", {"Ids": ["src_ids"], "W": [table]}, {"Out": [emb]},
            {"padding_idx": ("LONG", -1), "is_sparse": ("BOOLEAN", sparse_embedding),
             "is_distributed": ("BOOLEAN", False), "remote_prefetch": ("BOOLEAN", False)})

    ln = _layer_norm(main, startup, names, emb, seq, d) if normalize_before else emb
    rows = [-1, seq]
    if heads_via == "fused_qkv":
        qkv = gp.linear(main, startup, names, ln, rows, d, 3 * d, seed=12)
        mask = _key_mask(main, names, "src_ids", seq) if attn_mask else None
        merged = _attention_fused_qkv(main, names, qkv, seq, d, heads, dropout, mask)
    else:
        q = gp.linear(main, startup, names, ln, rows, d, d, seed=12)
        k = gp.linear(main, startup, names, ln, rows, d, d, seed=13)
        v = gp.linear(main, startup, names, ln, rows, d, d, seed=14)
        if heads_via == "reshape":
            merged = _attention_reshape(main, names, q, k, v, seq, d, heads, dropout)
        elif heads_via == "split":
            merged = _attention_split(main, names, q, k, v, seq, d, heads, dropout)
        else:
            raise ValueError("heads_via must be 'reshape', 'split' or 'fused_qkv'")
    proj = gp.linear(main, startup, names, merged, rows, d, d, seed=15)
    proj = _dropout(main, names, proj, [-1, seq, d], residual_dropout)
    res1 = main.var(names.layer("tmp") + ".tmp_0", [-1, seq, d])
    main.op("elementwise_add", {"X": [emb], "Y": [proj]}, {"Out": [res1]}, {"axis": ("INT", -1)})
    if not normalize_before:
        res1 = _layer_norm(main, startup, names, res1, seq, d)

    ln2 = _layer_norm(main, startup, names, res1, seq, d) if normalize_before else res1
    hidden = gp.linear(main, startup, names, ln2, rows, d, ffn, seed=16)
    act = main.var(names.layer("gelu") + ".tmp_0", [-1, seq, ffn])
    main.op("gelu", {"X": [hidden]}, {"Out": [act]}, {"approximate": ("BOOLEAN", False)})
    act = _dropout(main, names, act, [-1, seq, ffn],
                   residual_dropout if act_dropout is None else act_dropout)
    out_ffn = gp.linear(main, startup, names, act, rows, ffn, d, seed=17)
    out_ffn = _dropout(main, names, out_ffn, [-1, seq, d], residual_dropout)
    out = main.var(names.layer("tmp") + ".tmp_0", [-1, seq, d])
    main.op("elementwise_add", {"X": [res1], "Y": [out_ffn]}, {"Out": [out]}, {"axis": ("INT", -1)})
    if not normalize_before:
        out = _layer_norm(main, startup, names, out, seq, d)

    pooled = main.var(names.layer("reduce_mean") + ".tmp_0", [-1, d])
    main.op("reduce_mean", {"X": [out]}, {"Out": [pooled]},
            {"dim": ("INTS", [1]), "keep_dim": ("BOOLEAN", False),
             "reduce_all": ("BOOLEAN", False), "in_dtype": ("INT", -1),
             "out_dtype": ("INT", -1)})
    logits = gp.linear(main, startup, names, pooled, [-1], d, classes, seed=18)
    loss = _cross_entropy_loss(main, logits, classes)
    return main, startup, loss

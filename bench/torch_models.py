"""The benchmark models in PyTorch, written the idiomatic way (nn.Linear,
view/transpose heads), with the same shapes and arithmetic as the Paddle
programs of bench/programs.py.

paddle_params() maps every parameter to the Paddle variable name and layout
(Paddle's fc/linear weights are [in, out], PyTorch's [out, in]) so that
both frameworks can start from the same values.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))

    def forward(self, x, label):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = F.relu(x)
        return F.cross_entropy(x, label)

    def paddle_params(self):
        out = {}
        for i, layer in enumerate(self.layers):
            out["fc_%d.w_0" % i] = layer.weight.detach().t()
            out["fc_%d.b_0" % i] = layer.bias.detach()
        return out


class EncoderClassifier(nn.Module):
    """Pre-LN encoder block + mean pooling + linear classifier. `dropout`
    drops attention weights; `residual_dropout` the attention's and the
    FFN's outputs and the FFN's activation (Paddle's dropout1, dropout2 and
    act_dropout), as bench/programs.py's transformer. `fused_qkv`: one QKV
    projection in the layout of Paddle's fused_attention pattern (its
    heads_via="fused_qkv"), q scaled before q·kᵀ."""

    def __init__(self, seq, d, heads, ffn, vocab, classes, dropout, residual_dropout=0.0,
                 fused_qkv=False):
        super().__init__()
        self.heads, self.hd, self.dropout = heads, d // heads, dropout
        self.residual_dropout = residual_dropout
        self.emb = nn.Embedding(vocab, d)
        self.ln1 = nn.LayerNorm(d, eps=1e-5)
        self.fused_qkv = fused_qkv
        if fused_qkv:
            self.qkv, self.o = nn.Linear(d, 3 * d), nn.Linear(d, d)
        else:
            self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln2 = nn.LayerNorm(d, eps=1e-5)
        self.ffn1, self.ffn2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.head = nn.Linear(d, classes)

    def forward(self, ids, label):
        b, s = ids.shape
        e = self.emb(ids)
        h = self.ln1(e)

        def heads(t):
            return t.view(b, s, self.heads, self.hd).transpose(1, 2)

        if self.fused_qkv:
            qkv = self.qkv(h).view(b, s, 3 * self.heads, self.hd).transpose(1, 2)
            q, k, v = qkv.chunk(3, dim=1)
            w = torch.softmax(torch.matmul(q * self.hd ** -0.5, k.transpose(-1, -2)), dim=-1)
        else:
            q, k, v = heads(self.q(h)), heads(self.k(h)), heads(self.v(h))
            w = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(self.hd)),
                              dim=-1)
        w = F.dropout(w, self.dropout, self.training)
        ctx = torch.matmul(w, v).transpose(1, 2).reshape(b, s, -1)
        p = self.residual_dropout
        r1 = e + F.dropout(self.o(ctx), p, self.training)
        act = F.dropout(F.gelu(self.ffn1(self.ln2(r1))), p, self.training)
        out = r1 + F.dropout(self.ffn2(act), p, self.training)
        return F.cross_entropy(self.head(out.mean(dim=1)), label)

    def paddle_params(self):
        out = {"word_embedding": self.emb.weight.detach()}
        for name, ln in (("layer_norm_0", self.ln1), ("layer_norm_1", self.ln2)):
            out[name + ".w_0"] = ln.weight.detach()
            out[name + ".b_0"] = ln.bias.detach()
        # Paddle's unique names, in the order bench/programs.py creates them.
        attention = (self.qkv, self.o) if self.fused_qkv else (self.q, self.k, self.v, self.o)
        for i, lin in enumerate(attention + (self.ffn1, self.ffn2, self.head)):
            out["linear_%d.w_0" % i] = lin.weight.detach().t()
            out["linear_%d.b_0" % i] = lin.bias.detach()
        return out


def optimizer(name, params, lr):
    """Paddle's sgd and adam (beta1 0.9, beta2 0.999, epsilon 1e-8) have
    PyTorch's update rules."""
    if name == "sgd":
        return torch.optim.SGD(params, lr=lr)
    if name == "adam":
        return torch.optim.Adam(params, lr=lr, betas=(0.9, 0.999), eps=1e-8)
    raise ValueError("unknown optimizer " + name)

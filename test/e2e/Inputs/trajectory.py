"""Float64 reference training of the test MLP (test/e2e/mlp.mlir) with
Paddle's optimizer semantics, independent of distc.

    trajectory.py data OUT_DIR
        writes x.npy, label.npy (20 rows) and params/<var>.npy
    trajectory.py check OUT_DIR METRICS_JSONL STEPS BATCH [--rtol R] SETTING...
        replays STEPS steps of sequential (unshuffled) batches of BATCH rows
        in float64 with the optimizer SETTINGs (key=value, the names of
        distc's flags without dashes) and compares the `loss` and `lr` of
        every step in METRICS_JSONL; prints one line per step, exits 1 on a
        mismatch.

The update rules are Paddle's: sgd; momentum (v = mu v + g, nesterov
p -= lr (g + mu v), L2 decay folded into g); adam (beta powers start at
beta1/beta2, lr_t = lr sqrt(1 - b2^t) / (1 - b1^t), epsilon scaled by
sqrt(1 - b2^t)); adamw (p -= lr coeff p first); adagrad (m starts at
initial-accumulator-value, m += g^2, p -= lr g / (sqrt(m) + eps));
decayed_adagrad (m = decay m + (1 - decay) g^2); rmsprop (ms = rho ms +
(1 - rho) g^2, centered mg = rho mg + (1 - rho) g, v = momentum v +
lr g / sqrt(ms [- mg^2] + eps), p -= v); ftrl (test_ftrl_op.py's
ftrl_step: l1 and l2 carry 1e-10 more, p = 0 where |linear| <= l1);
global-norm clipping before L2 decay (added to the gradient for every
optimizer but adamw); learning-rate schedules as in artifact.fbs
(LRSchedule). Defaults are those of Paddle's Python optimizers.
"""
import json
import math
import os
import sys

import numpy as np

NAMES = ["fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"]


def data(out):
    rng = np.random.default_rng(7)
    os.makedirs(os.path.join(out, "params"), exist_ok=True)
    x = rng.standard_normal((20, 8)).astype(np.float32)
    label = rng.integers(0, 4, size=(20, 1)).astype(np.int64)
    np.save(os.path.join(out, "x.npy"), x)
    np.save(os.path.join(out, "label.npy"), label)
    shapes = {"fc_0.w_0": (8, 16), "fc_0.b_0": (16,), "fc_1.w_0": (16, 4), "fc_1.b_0": (4,)}
    for name in NAMES:
        scale = 0.4 if name.endswith("w_0") else 0.1
        value = (rng.standard_normal(shapes[name]) * scale).astype(np.float32)
        np.save(os.path.join(out, "params", name + ".npy"), value)


def loss_and_grads(p, x, label):
    h_pre = x @ p["fc_0.w_0"] + p["fc_0.b_0"]
    h = np.maximum(h_pre, 0)
    z = h @ p["fc_1.w_0"] + p["fc_1.b_0"]
    z = z - z.max(axis=1, keepdims=True)
    prob = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    n = len(x)
    loss = -np.log(prob[np.arange(n), label]).mean()
    dz = prob.copy()
    dz[np.arange(n), label] -= 1
    dz /= n
    grads = {"fc_1.w_0": h.T @ dz, "fc_1.b_0": dz.sum(axis=0)}
    dh = (dz @ p["fc_1.w_0"].T) * (h_pre > 0)
    grads["fc_0.w_0"] = x.T @ dh
    grads["fc_0.b_0"] = dh.sum(axis=0)
    return loss, grads


def schedule_lr(s, step):
    base = s["lr"]
    kind = s.get("lr-schedule", "constant")
    warmup = int(s.get("warmup-steps", 0))

    def plain(t):
        if kind == "step":
            return base * s["lr-gamma"] ** (t // int(s["lr-step-size"]))
        if kind == "piecewise":
            bounds = [int(b) for b in str(s["lr-boundaries"]).split(",")]
            values = [float(v) for v in str(s["lr-values"]).split(",")]
            for b, v in zip(bounds, values):
                if t < b:
                    return v
            return values[-1]
        if kind == "cosine":
            t_max, end = int(s["lr-decay-steps"]), s.get("lr-end", 0.0)
            if t >= t_max:
                return end
            return end + (base - end) * (1 + math.cos(math.pi * t / t_max)) / 2
        return base

    if step < warmup:
        start = s.get("warmup-start-lr", 0.0)
        return start + (plain(0) - start) * step / warmup
    return plain(step - warmup)


def train(out, steps, batch, s):
    x = np.load(os.path.join(out, "x.npy")).astype(np.float64)
    label = np.load(os.path.join(out, "label.npy"))[:, 0]
    p = {n: np.load(os.path.join(out, "params", n + ".npy")).astype(np.float64) for n in NAMES}
    opt = s["optimizer"]
    mu = s.get("momentum", 0.0 if opt == "rmsprop" else 0.9)
    b1, b2 = s.get("beta1", 0.9), s.get("beta2", 0.999)
    eps = s.get("epsilon", 1e-8 if opt in ("adam", "adamw") else 1e-6)
    decay, clip = s.get("weight-decay", 0.0), s.get("clip-norm", 0.0)
    m0 = s.get("initial-accumulator-value", 0.0)
    state = {n: {"v": np.zeros_like(p[n]), "m1": np.zeros_like(p[n]), "m2": np.zeros_like(p[n]),
                 "m": np.full_like(p[n], m0 if opt == "adagrad" else 0.0),
                 "ms": np.zeros_like(p[n]), "mg": np.zeros_like(p[n]),
                 "sq": np.zeros_like(p[n]), "lin": np.zeros_like(p[n]),
                 "b1": b1, "b2": b2} for n in NAMES}
    losses, lrs = [], []
    rows = len(x)
    for step in range(steps):
        start = (step * batch) % rows
        idx = np.arange(start, min(start + batch, rows))
        loss, g = loss_and_grads(p, x[idx], label[idx])
        lr = schedule_lr(s, step)
        losses.append(loss)
        lrs.append(lr)
        if clip > 0:
            norm = math.sqrt(sum(float((g[n] ** 2).sum()) for n in NAMES))
            g = {n: g[n] * (clip / max(norm, clip)) for n in NAMES}
        for n in NAMES:
            st = state[n]
            gn = g[n]
            if decay and opt != "adamw":
                gn = gn + decay * p[n]
            if opt == "sgd":
                p[n] = p[n] - lr * gn
            elif opt == "momentum":
                st["v"] = mu * st["v"] + gn
                step_dir = gn + mu * st["v"] if s.get("nesterov") else st["v"]
                p[n] = p[n] - lr * step_dir
            elif opt == "adagrad":
                st["m"] = st["m"] + gn * gn
                p[n] = p[n] - lr * gn / (np.sqrt(st["m"]) + eps)
            elif opt == "decayed_adagrad":
                rate = s.get("decay", 0.95)
                st["m"] = rate * st["m"] + (1 - rate) * gn * gn
                p[n] = p[n] - lr * gn / (np.sqrt(st["m"]) + eps)
            elif opt == "rmsprop":
                rho = s.get("rho", 0.95)
                st["ms"] = rho * st["ms"] + (1 - rho) * gn * gn
                denominator = st["ms"] + eps
                if s.get("centered"):
                    st["mg"] = rho * st["mg"] + (1 - rho) * gn
                    denominator = denominator - st["mg"] ** 2
                st["v"] = mu * st["v"] + lr * gn / np.sqrt(denominator)
                p[n] = p[n] - st["v"]
            elif opt == "ftrl":
                l1 = s.get("l1", 0.0) + 1e-10
                l2 = s.get("l2", 0.0) + 1e-10
                k = -s.get("lr-power", -0.5)
                new_sq = st["sq"] + gn * gn
                st["lin"] = st["lin"] + gn - (new_sq ** k - st["sq"] ** k) / lr * p[n]
                shrunk = (l1 * np.sign(st["lin"]) - st["lin"]) / (new_sq ** k / lr + 2 * l2)
                p[n] = np.where(np.abs(st["lin"]) > l1, shrunk, 0.0)
                st["sq"] = new_sq
            else:
                if opt == "adamw":
                    p[n] = p[n] - lr * decay * p[n]
                st["m1"] = b1 * st["m1"] + (1 - b1) * gn
                st["m2"] = b2 * st["m2"] + (1 - b2) * gn * gn
                lr_t = lr * math.sqrt(1 - st["b2"]) / (1 - st["b1"])
                p[n] = p[n] - lr_t * st["m1"] / (np.sqrt(st["m2"]) + eps * math.sqrt(1 - st["b2"]))
                st["b1"] *= b1
                st["b2"] *= b2
    return losses, lrs


def parse_setting(text):
    key, _, value = text.partition("=")
    if value == "":
        return key, True
    try:
        return key, float(value) if key not in ("optimizer", "lr-schedule", "lr-boundaries", "lr-values") else value
    except ValueError:
        return key, value


def check(out, metrics_path, steps, batch, args):
    rtol = 1e-4
    settings = {}
    i = 0
    while i < len(args):
        if args[i] == "--rtol":
            rtol = float(args[i + 1])
            i += 2
            continue
        key, value = parse_setting(args[i])
        settings[key] = value
        i += 1
    losses, lrs = train(out, steps, batch, settings)
    records = {}
    with open(metrics_path) as f:
        for line in f:
            r = json.loads(line)
            records[r["step"]] = r  # the last record of a step counts
    ok = len(records) == steps
    if not ok:
        print(f"expected {steps} steps, metrics have {len(records)}")
    for step in range(steps):
        r = records.get(step + 1)
        if r is None:
            print(f"step {step + 1}: missing")
            ok = False
            continue
        loss_ok = abs(r["loss"] - losses[step]) <= rtol * abs(losses[step]) + 1e-7
        lr_ok = abs(r["lr"] - lrs[step]) <= 1e-6 * abs(lrs[step]) + 1e-9
        ok &= loss_ok and lr_ok
        print(f"step {step + 1}: loss {r['loss']:.7g} ref {losses[step]:.7g} lr {r['lr']:.6g} "
              f"ref {lrs[step]:.6g} {'OK' if loss_ok and lr_ok else 'MISMATCH'}")
    print("trajectory: " + ("OK" if ok else "MISMATCH"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    if sys.argv[1] == "data":
        data(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6:])

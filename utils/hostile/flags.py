"""Flags: random and extreme values, and --config files."""

import json
import shutil

from .runner import Case


VALUES = ["-1", "0", "-0", "1", "2147483648", "-2147483649", "9223372036854775807",
          "9223372036854775808", "18446744073709551616", "1e400", "-1e400", "nan", "NaN", "inf",
          "-inf", "", " ", "abc", "0x10", "1.5", "1e3", "3 ", "\x01", "A" * 5000, "-", "--",
          "--mode", "1,2", "0.5", "1e-300"]
# Values that ask for a very long run are no hostile input: a run of 2**63
# steps trains until it is stopped. (Integers past 2**63 - 1 are taken as
# 2**63 - 1, so they are left out too.)
HUGE = {"9223372036854775807", "9223372036854775808", "18446744073709551616", "2147483648", "1e3",
        "1e400", "inf"}
LONG_RUN = {"--steps": HUGE, "--epochs": HUGE}

DIST_RUN_FLAGS = {
    "value": ["--batch-size", "--steps", "--epochs", "--eval-every", "--save-every", "--holdout",
              "--seed", "--rtol", "--atol", "--nproc-per-node", "--nnodes", "--node-rank",
              "--master-port", "--rendezvous-timeout", "--collective-timeout", "--mode", "--backend",
              "--master-addr", "--job-token", "--data", "--input", "--output", "--expected-output",
              "--eval-data"],
    "path": ["--params", "--init-from", "--metrics", "--checkpoint-dir", "--save-persistables",
             "--save-inference-model", "--log-dir"],
    "switch": ["--resume", "--no-shuffle", "--split-files", "--version"],
}
DISTC_FLAGS = {
    "value": ["--lr", "--momentum", "--beta1", "--beta2", "--epsilon", "--weight-decay",
              "--clip-norm", "--lr-step-size", "--lr-gamma", "--lr-boundaries", "--lr-values",
              "--lr-decay-steps", "--lr-end", "--warmup-steps", "--warmup-start-lr", "--nranks",
              "--rank", "--fuse-grad-size-mb", "--seed", "--optimizer", "--lr-schedule",
              "--compile-to", "--emit", "--mode", "--program", "--gradient-scale",
              "--reduce-strategy", "--no-grad", "--loss"],
    "path": ["--config", "-o", "--startup"],
    "switch": ["--nesterov", "--fuse-all-reduce", "--timing"],
}
# Settings that make the flags above meaningful (a schedule for its knobs).
DISTC_CONTEXT = {"--lr-step-size": ["--lr-schedule", "step"], "--lr-gamma": ["--lr-schedule", "step"],
                 "--lr-boundaries": ["--lr-schedule", "piecewise"],
                 "--lr-values": ["--lr-schedule", "piecewise"],
                 "--lr-decay-steps": ["--lr-schedule", "cosine"],
                 "--lr-end": ["--lr-schedule", "cosine"], "--fuse-grad-size-mb": ["--fuse-all-reduce"],
                 "--rank": ["--emit", "program-json", "--nranks", "2"],
                 "--program": ["--emit", "program-json"], "--momentum": ["--optimizer", "momentum"],
                 "--beta1": ["--optimizer", "adam"], "--beta2": ["--optimizer", "adam"],
                 "--epsilon": ["--optimizer", "adam"]}
DIST_RUN_CONTEXT = {"--eval-every": ["--holdout", "0.25"], "--save-every": ["--checkpoint-dir", "ckpt"],
                    "--node-rank": ["--nnodes", "2", "--rendezvous-timeout", "2"],
                    "--rendezvous-timeout": ["--nnodes", "2", "--node-rank", "1"],
                    "--nnodes": ["--rendezvous-timeout", "2"],
                    "--master-port": ["--nproc-per-node", "1"],
                    "--collective-timeout": ["--nproc-per-node", "1"],
                    "--resume": ["--checkpoint-dir", "ckpt"]}


def path_values(d):
    """Paths for input and output flags; outputs may only land in the case's
    own directory (existing.npy is a copy of a valid input made there)."""
    return [str(d), "/dev/full", "/dev/zero", "/dev/null", "/proc/self/mem",
            str(d / "missing" / "deeper" / "x"), str(d / "existing.npy"), str(d / "new"), "",
            str(d) + "/"]


def flag_value(flag, kind, base, d, rng):
    if kind == "path":
        pool = path_values(d)
        if flag == "--save-inference-model":  # a prefix: /dev/null would add /dev/null.pdmodel
            pool = [v for v in pool if not v.startswith(("/dev/", "/proc/"))]
        return rng.choice(pool)
    pool = VALUES + path_values(d)[:5]
    if flag in ("--data", "--eval-data", "--input", "--expected-output"):
        pool = pool + [f"x=@{base.x}", f"x@{base.x}", f"=@{base.x}", "x=@", f"x=@{d}",
                       f"prob=@{base.x}", f"x=@{base.x}=@{base.x}", f"{base.x}:", ":x"]
    elif flag == "--output":
        pool = pool + ["prob=@/dev/full", f"prob=@{d}", "prob=@", "nope=@out.npy", "-", "prob"]
    return rng.choice([v for v in pool if v not in LONG_RUN.get(flag, ())])


REPEATABLE = {"--data", "--eval-data", "--input", "--output", "--expected-output", "--no-grad",
              "--lr-boundaries", "--lr-values"}


def without(command, args):
    """The command less the single-valued flags that args give anew (a flag
    given twice is refused before its value is looked at)."""
    given = {a.split("=", 1)[0] for a in args if a.startswith("-")} - REPEATABLE
    out, skip = [], False
    for tok in command:
        if skip:
            skip = False
        elif isinstance(tok, str) and tok in given:
            skip = True
        else:
            out.append(tok)
    return out


def flag_cases(base, n, first):
    cases = []
    for i in range(n):
        tool = ["dist-run train", "dist-run predict", "distc", "distc"][i % 4]
        cases.append(Case(f"f{first + i:04d}", "flags", tool, flag_case(base, tool)))
    return cases


def flag_case(base, tool):
    def build(d, rng):
        shutil.copy(base.x, d / "existing.npy")
        table = DISTC_FLAGS if tool == "distc" else DIST_RUN_FLAGS
        context = DISTC_CONTEXT if tool == "distc" else DIST_RUN_CONTEXT
        args = []
        for _ in range(rng.choice([1, 1, 2, 3])):
            kind = rng.choice(["value", "value", "value", "path", "switch"])
            flag = rng.choice(table[kind])
            args += context.get(flag, [])
            if kind == "switch":
                args.append(flag)
            elif rng.random() < 0.15:
                args.append(f"{flag}={flag_value(flag, kind, base, d, rng)}")
            else:
                args += [flag, flag_value(flag, kind, base, d, rng)]
        if tool == "distc":
            main, startup = base.json["digits"]
            command = ["distc"] + base.compile_args("digits", main, startup, d / "out.distc")
        elif tool == "dist-run predict":
            command = ["dist-run", base.artifact["digits"], "--mode", "predict", "--input",
                       f"x=@{base.x}"]
        else:
            command = base.train(base.artifact["digits"], "--data", f"x=@{base.x}", "--data",
                                 f"label=@{base.label}")
        return [without(command, args) + args]
    return build


CONFIGS = [{"lr": "abc"}, {"lr": None}, {"lr": [1]}, {"optimizer": 3}, {"nope": 1}, [],
           {"lr": 1e400}, {"lr_schedule": "cosine", "lr_decay_steps": -1}, {"lr": {"a": 1}},
           {"lr_boundaries": [2**64], "lr_schedule": "piecewise", "lr_values": [1, 2]},
           "text", {"optimizer": "adam", "beta1": float("nan")}, {"warmup_steps": 2**63},
           {"nranks": 0}, {"no_grad": [None]}, {"": ""}]


def config_cases(base, first):
    """distc --config files with wrong types, unknown keys and extremes."""
    def config_case(cfg):
        def build(d, rng):
            f = d / "config.json"
            f.write_text(json.dumps(cfg))
            main, startup = base.json["digits"]
            return [["distc"] + base.compile_args("digits", main, startup, d / "out.distc")
                    + ["--config", f]]
        return build
    return [Case(f"f{first + i:04d}", "flags", "distc --config", config_case(cfg))
            for i, cfg in enumerate(CONFIGS)]

"""Programs: byte damage of the JSON and binary forms, structural JSON damage."""

import json
import re

from .base import Base
from .mutate import mutate_bytes
from .runner import Case


HOSTILE_VALUES = [None, [], {}, "", "x", 0, -1, 1.5, True, 2**31, 2**63, 2**64, -(2**63) - 1,
                  10**30, 1e308, float("nan"), float("inf"), [None], [[]], {"a": 1}, "\u0000",
                  "A" * 100000, [2**62, 2**62]]
HOSTILE_DIMS = [[2**31], [2**62, 2**62], [-5, 64], [0, 64], [64, 0], [-1] * 40, [], [1] * 100,
                [10**12, 64], [-1, -1], [2**63 - 1], [-(2**63)], [64, 2**40]]
HOSTILE_NAMES = ["", "\x00", "a\x1b[31mb", "x\ny", "\u00e9\u4e2d", "A" * 70000, "../../etc/passwd",
                 "fc_0.w_0", " ", "%s%n", "x@GRAD", "feed", "a/b", "\ud800"]
ATTR_TYPES = ["INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "BOOLEAN", "BOOLEANS", "BLOCK",
              "LONG", "BLOCKS", "LONGS", "FLOAT64S", "VAR", "VARS", "FLOAT64", "SCALAR", "SCALARS",
              "NOPE", ""]
ATTR_FIELDS = ["i", "f", "s", "ints", "floats", "strings", "b", "bools", "l", "longs", "float64"]
OP_TYPES = ["relu", "mul", "softmax", "reshape2", "fill_constant", "c_allreduce_sum", "while",
            "conditional_block", "", "no_such_op", "relu\x00", "pd.relu", "feed", "fetch", "A" * 5000]


def nodes(obj, path=()):
    """Every (container, key, path) in a JSON value, depth first."""
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else []
    for k, v in items:
        yield obj, k, path + (k,)
        yield from nodes(v, path + (k,))


def pick(rng, seq):
    seq = list(seq)
    return rng.choice(seq) if seq else None


def all_vars(prog):
    return [v for b in prog.get("blocks", []) for v in b.get("vars", [])]


def all_ops(prog):
    return [o for b in prog.get("blocks", []) for o in b.get("ops", [])]


def rename_everywhere(prog, old, new):
    for v in all_vars(prog):
        if v.get("name") == old:
            v["name"] = new
    for op in all_ops(prog):
        for slot in op.get("inputs", []) + op.get("outputs", []):
            slot["arguments"] = [new if a == old else a for a in slot.get("arguments", [])]


def mutate_structure(prog, rng):
    """A random schema-aware damage to a parsed ProgramDesc JSON. Returns
    (label, text): some mutations (duplicate keys) exist only as text."""
    kind = rng.choice(["delete-key", "retype", "null-element", "dims", "attr", "unknown-op",
                       "rename-var", "block", "op-graph", "duplicate-key", "attr-value"])
    ops, vars_ = all_ops(prog), all_vars(prog)
    if kind == "delete-key":
        dicts = [(c, k) for c, k, _ in nodes(prog) if isinstance(c, dict)]
        c, k = rng.choice(dicts)
        del c[k]
    elif kind == "retype":
        c, k, _ = rng.choice(list(nodes(prog)))
        c[k] = rng.choice(HOSTILE_VALUES)
    elif kind == "null-element":
        lists = [v for _, _, p in nodes(prog) for v in [get_path(prog, p)] if isinstance(v, list)]
        lst = rng.choice(lists)
        lst.insert(rng.randint(0, len(lst)), rng.choice([None, [], {}, 0, "", [None]]))
    elif kind == "dims":
        with_dims = [v for v in vars_ if "dims" in json.dumps(v)]
        v = rng.choice(with_dims)
        v["type"]["lod_tensor"]["tensor"]["dims"] = rng.choice(HOSTILE_DIMS)
        if rng.random() < 0.3:
            v["type"]["lod_tensor"]["tensor"]["data_type"] = rng.choice(
                ["FP64", "INT32", "BOOL", "COMPLEX64", "FP16", "BF16", "UINT8", "RAW", "NOPE", 7])
    elif kind == "attr":
        op = rng.choice([o for o in ops if o.get("attrs")])
        a = rng.choice(op["attrs"])
        how = rng.choice(["type", "field", "drop-value", "unknown"])
        if how == "type":
            a["type"] = rng.choice(ATTR_TYPES)
        elif how == "field":
            field = pick(rng, [f for f in ATTR_FIELDS if f in a]) or "i"
            a[field] = rng.choice(HOSTILE_VALUES)
        elif how == "drop-value":
            for f in ATTR_FIELDS:
                a.pop(f, None)
        else:
            op["attrs"].append({"name": rng.choice(HOSTILE_NAMES[:6]), "type": "INT", "i": 1})
    elif kind == "attr-value":
        # The attributes ops compute with, set to extremes of their own type.
        op = rng.choice([o for o in ops if o.get("attrs")])
        a = rng.choice(op["attrs"])
        extremes = {"i": [0, -1, 2**31 - 1, -(2**31), 100], "l": [2**63 - 1, -(2**63), 0],
                    "f": [float("nan"), float("inf"), -1.0, 0.0, 1e38, 3e38],
                    "ints": [[], [0, -1, -1], [2**31 - 1, 2], [-2] * 8, [0] * 64],
                    "b": [1, 2, "true"], "s": ["", "\x00", "NCHW" * 1000]}
        field = pick(rng, [f for f in extremes if f in a])
        if field:
            a[field] = rng.choice(extremes[field])
        else:
            a["i"] = 2**31 - 1
    elif kind == "unknown-op":
        rng.choice(ops)["type"] = rng.choice(OP_TYPES)
    elif kind == "rename-var":
        v = rng.choice(vars_)
        new = rng.choice(HOSTILE_NAMES)
        where = rng.choice(["everywhere", "declaration", "uses"])
        if where == "everywhere":
            rename_everywhere(prog, v["name"], new)
        elif where == "declaration":
            v["name"] = new
        else:
            old = v["name"]
            rename_everywhere(prog, old, new)
            v["name"] = old
    elif kind == "block":
        blocks = prog.setdefault("blocks", [])
        how = rng.choice(["idx", "parent", "second", "empty", "no-ops", "no-vars"])
        if how == "idx":
            blocks[0]["idx"] = rng.choice([1, -1, 2**31, -(2**40), None, "0"])
        elif how == "parent":
            blocks[0]["parent_idx"] = rng.choice([0, 1, -2, 2**31, None])
        elif how == "second":
            blocks.append(json.loads(json.dumps(blocks[0])) | {"idx": 1, "parent_idx": 0})
        elif how == "empty":
            blocks.clear()
        else:
            blocks[0][how[3:]] = []
    elif kind == "op-graph":
        block_ops = prog["blocks"][0]["ops"]
        how = rng.choice(["delete", "duplicate", "swap", "in-out", "extra-arg", "no-args"])
        i, j = rng.randrange(len(block_ops)), rng.randrange(len(block_ops))
        if how == "delete":
            del block_ops[i]
        elif how == "duplicate":
            block_ops.insert(j, json.loads(json.dumps(block_ops[i])))
        elif how == "swap":
            block_ops[i], block_ops[j] = block_ops[j], block_ops[i]
        elif how == "in-out":
            op = block_ops[i]
            op["inputs"], op["outputs"] = op.get("outputs", []), op.get("inputs", [])
        else:
            slots = block_ops[i].get("inputs", []) + block_ops[i].get("outputs", [])
            if slots:
                slot = rng.choice(slots)
                if how == "extra-arg":
                    slot["arguments"].append(rng.choice(vars_)["name"])
                else:
                    slot["arguments"] = []
    text = json.dumps(prog, indent=1)
    if kind == "duplicate-key":
        lines = text.split("\n")
        keyed = [i for i, l in enumerate(lines) if re.match(r'\s*"[^"]+": [^\[{]', l)]
        i = rng.choice(keyed)
        line = lines[i].rstrip(",")
        lines.insert(i + 1, line + ",")
        if not lines[i].endswith(","):
            lines[i] += ","
            lines[i + 1] = line
        text = "\n".join(lines)
    return kind, text


def get_path(obj, path):
    for k in path:
        obj = obj[k]
    return obj


def program_cases(base, n, first):
    cases = []
    n_bytes = n * 2 // 5
    for i in range(n):
        example = list(Base.MODELS)[i % 3]
        if i < n_bytes:
            form = "json" if i % 2 == 0 else "pdmodel"
            cases.append(Case(f"p{first + i:04d}", "programs", f"{example} {form} bytes",
                              program_bytes_case(base, example, form)))
        else:
            cases.append(Case(f"p{first + i:04d}", "programs", f"{example} json structure",
                              program_structure_case(base, example)))
    return cases


def program_bytes_case(base, example, form):
    def build(d, rng):
        main, startup = (base.json if form == "json" else base.pb)[example]
        target = "startup" if rng.random() < 0.2 else "main"
        src = startup if target == "startup" else main
        kind, data = mutate_bytes(src.read_bytes(), rng)
        out = d / f"mutated-{target}{src.suffix}"
        out.write_bytes(data)
        main, startup = (out, startup) if target == "main" else (main, out)
        return [["distc"] + base.compile_args(example, main, startup, d / "out.distc"),
                base.follow_up(example, d / "out.distc")]
    return build


def program_structure_case(base, example):
    def build(d, rng):
        main, startup = base.json[example]
        target = "startup" if rng.random() < 0.2 else "main"
        src = startup if target == "startup" else main
        _, text = mutate_structure(json.loads(src.read_text()), rng)
        out = d / f"mutated-{target}.json"
        out.write_text(text, encoding="utf-8", errors="surrogatepass")
        main, startup = (out, startup) if target == "main" else (main, out)
        return [["distc"] + base.compile_args(example, main, startup, d / "out.distc"),
                base.follow_up(example, d / "out.distc")]
    return build

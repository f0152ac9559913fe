"""Special files (directories, devices, /proc/self/mem, a sparse 3 GB file,
empty and '['-headed files) in every input position."""

import shutil
from pathlib import Path

from .runner import Case


def private_copy(base, value, d):
    """The base's regular files are copied into the case's directory, since
    output positions (-o, --metrics) may write to them."""
    v = Path(value)
    if v.parent != base.dir or not v.is_file():
        return value
    copy = d / v.name
    if v == base.sparse:
        with open(copy, "wb") as f:
            f.truncate(v.stat().st_size)
    else:
        shutil.copy(v, copy)
    return copy


def special_cases(base, first):
    main, startup = base.json["digits"]
    art = base.artifact["digits"]
    data = ["--data", f"x=@{base.x}", "--data", f"label=@{base.label}"]
    positions = {  # label -> the command given the special path
        "distc program": lambda v: ["distc"] + base.compile_args("digits", v, startup, "out.distc"),
        "distc --startup": lambda v: ["distc"] + base.compile_args("digits", main, v, "out.distc"),
        "distc --config": lambda v: ["distc"] + base.compile_args("digits", main, startup,
                                                                  "out.distc") + ["--config", v],
        "distc -o": lambda v: ["distc"] + base.compile_args("digits", main, startup, v),
        "distc-translate": lambda v: ["distc-translate", "--export-pb", v, "-o", "out.pdmodel"],
        "distc-dump": lambda v: ["distc-dump", v],
        "dist-run artifact": lambda v: ["dist-run", v, "--mode", "predict", "--input",
                                        f"x=@{base.x}"],
        "dist-run --input": lambda v: ["dist-run", art, "--mode", "predict", "--input", f"x=@{v}"],
        "dist-run --data npy": lambda v: base.train(art, "--data", f"x=@{v}", "--data",
                                                    f"label=@{base.label}"),
        "dist-run --data npz": lambda v: base.train(art, "--data", f"{v}:x,label"),
        "dist-run --data csv": lambda v: base.train(art, "--data", f"{v}:x=0:64,label=64"),
        "dist-run --params": lambda v: ["dist-run", art, "--mode", "predict", "--input",
                                        f"x=@{base.x}", "--params", v],
        "dist-run --init-from": lambda v: base.train(art, *data, "--init-from", v),
        "dist-run --expected-output": lambda v: ["dist-run", art, "--mode", "predict", "--input",
                                                 f"x=@{base.x}", "--expected-output", f"prob=@{v}"],
        "dist-run --metrics": lambda v: base.train(art, *data, "--metrics", v),
    }
    suffix = {"dist-run --data npz": ".npz", "dist-run --data csv": ".csv"}
    cases = []
    for pos, command in positions.items():
        for label, value in base.special_values().items():
            def build(d, rng, pos=pos, command=command, value=value, label=label):
                v = private_copy(base, value, d)
                if pos in suffix:  # --data tells formats by suffix: a link gives the file one
                    link = d / f"{label}{suffix[pos]}"
                    link.symlink_to(v)
                    v = link
                return [command(v)]
            cases.append(Case(f"s{first + len(cases):04d}", "special", f"{pos}: {label}", build))
    return cases

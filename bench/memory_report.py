#!/usr/bin/python3
"""The planned arena of distc's own programs against their liveness lower
bound: `distc --memory-report` on bench/programs.py's MLP 784-1024-1024-10
and transformer encoder block (train, Adam), a small CNN
(examples/vision/gen_vision.py's conv_net, 3x32x32, widths 32-64-128;
train, SGD) and ResNet-50 at 224x224 (predict). Prints each report and a
table of the main programs at a batch of --batch rows: temporaries with no
reuse, the arena, the lower bound, arena / bound. Not a test; see
docs/benchmarks.md, "Planned arenas".

    bench/memory_report.py [BUILD_DIR] [--batch 64] [--work-dir DIR]
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "examples", "vision"))

import programs  # noqa: E402
import gen_vision  # noqa: E402
from bench_util import built_tool, log, run_in_work_dir  # noqa: E402

UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}
SIZE = r"([0-9.]+) (B|KiB|MiB|GiB|TiB)"


def parse_bytes(text):
    """'1.00 KiB + 260 B/x.dim0' -> (1024, 260)."""
    parts = re.findall(SIZE, text)
    fixed = float(parts[0][0]) * UNITS[parts[0][1]]
    per = float(parts[1][0]) * UNITS[parts[1][1]] if len(parts) > 1 else 0.0
    return fixed, per


def main_rows(report):
    """The report's main-program rows (first section only: no servers)."""
    rows = {}
    for line in report.splitlines():
        if line.startswith("persistent") or line.startswith("parameter server"):
            break
        m = re.match(r"\s+(\S+/main)\s+(\d+)\s+(.*)$", line)
        if not m:
            continue
        cells = re.split(r"\s{2,}", m.group(3).strip())
        rows[m.group(1)] = dict(temps=int(m.group(2)), no_reuse=parse_bytes(cells[0]),
                                arena=parse_bytes(cells[1]), bound=parse_bytes(cells[2]))
    return rows


def run(args, distc, work):
    models = []
    main, startup, loss = programs.mlp([784, 1024, 1024, 10])
    models.append(("MLP 784-1024-1024-10", main, startup, loss, ["--optimizer", "adam"]))
    main, startup, loss = programs.transformer(seq=32, d=128, heads=4, ffn=512, vocab=1000,
                                               classes=10, dropout=0.1)
    models.append(("transformer block (seq 32, d 128)", main, startup, loss,
                   ["--optimizer", "adam"]))
    net = gen_vision.conv_net(3, 32, (32, 64, 128))
    models.append(("CNN 3x32x32, 32-64-128", net.main, net.startup, "loss",
                   ["--optimizer", "sgd"]))
    resnet = gen_vision.resnet((3, 4, 6, 3), True, 224, 1000)
    models.append(("ResNet-50 224x224 (predict)", resnet.main, resnet.startup, None, []))
    table = []
    for name, main, startup, loss, extra in models:
        folder = os.path.join(work, re.sub(r"\W+", "-", name))
        os.makedirs(folder, exist_ok=True)
        paths = []
        for file, program in (("main.json", main), ("startup.json", startup)):
            with open(os.path.join(folder, file), "w") as f:
                json.dump(program.to_json(), f)
            paths.append(os.path.join(folder, file))
        cmd = [distc, paths[0], "--startup", paths[1], "--memory-report",
               "-o", os.path.join(folder, "model.distc")]
        if loss:
            cmd += ["--loss", loss, "--lr", "0.01"] + extra
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            log("%s: distc failed: %s" % (name, r.stderr.strip()[-2000:]))
            return 1
        print("== %s\n%s" % (name, r.stdout.rstrip()))
        for program, row in main_rows(r.stdout).items():
            at = lambda pair: pair[0] + pair[1] * args.batch  # noqa: E731
            table.append((name, program, row["temps"], at(row["no_reuse"]), at(row["arena"]),
                          at(row["bound"])))
    print("\nmain programs at a batch of %d rows (MiB):" % args.batch)
    print("| model | program | temporaries | no reuse | arena | lower bound | arena / bound | "
          "no reuse / arena |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, program, temps, no_reuse, arena, bound in table:
        mib = lambda n: "%.2f" % (n / 2 ** 20)  # noqa: E731
        print("| %s | %s | %d | %s | %s | %s | %.3f | %.2f |" %
              (name, program, temps, mib(no_reuse), mib(arena), mib(bound),
               arena / bound if bound else 0, no_reuse / arena if arena else 0))
    return 0


def main_():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build_dir", nargs="?", default=os.path.join(ROOT, "build"))
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--work-dir")
    args = p.parse_args()
    distc = built_tool(args.build_dir, "distc", "memory_report.py")
    if not distc:
        return 1
    return run_in_work_dir(lambda work: run(args, distc, work), args.work_dir, "distc-memory-")


if __name__ == "__main__":
    sys.exit(main_())

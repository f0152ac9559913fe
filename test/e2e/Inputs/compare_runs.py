"""Checks that two training runs are the same run: compare_runs.py
METRICS_A METRICS_B DIR_A DIR_B. The last record of each step counts (a
resumed run appends); `loss` and `lr` must be equal as written, and every
file of DIR_A (save_persistables output) must be byte-identical in DIR_B."""
import filecmp
import json
import os
import sys


def steps(path):
    records = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            records[r["step"]] = (r["loss"], r["lr"])
    return records


a, b = steps(sys.argv[1]), steps(sys.argv[2])
if a != b:
    for step in sorted(set(a) | set(b)):
        if a.get(step) != b.get(step):
            print(f"step {step}: {a.get(step)} vs {b.get(step)}")
    sys.exit(1)
print(f"{len(a)} steps: losses and learning rates bitwise identical")
names = sorted(os.listdir(sys.argv[3]))
match, mismatch, errors = filecmp.cmpfiles(sys.argv[3], sys.argv[4], names, shallow=False)
if mismatch or errors:
    print("differ:", mismatch + errors)
    sys.exit(1)
print(f"{len(match)} persistable files identical")

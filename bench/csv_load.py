#!/usr/bin/python3
"""Time and peak memory of loading a large gzip CSV with dist-run.

Run through bench/run-bench-csv.sh. Writes a gzip CSV of --rows rows of
four small-integer features and a label (about 13 bytes a row inflated, so
10 M rows are some 130 MB of text in a 5 MB file), compiles bench/programs.py's
mlp([4, 8, 10]) for it, and runs one training step of dist-run on it under
/usr/bin/time -v: the elapsed time and peak RSS are almost all the load.
Prints dist-run's "loaded ..." line and the two numbers. See
docs/benchmarks.md, "CSV loading".
"""

import argparse
import gzip
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import programs  # noqa: E402
from bench_util import cpu_model, log, run_in_work_dir  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default=os.path.join(os.path.dirname(HERE), "build"),
                   help="build directory with bin/distc and bin/dist-run")
    p.add_argument("--rows", type=int, default=10_000_000, help="CSV rows (default 10000000)")
    p.add_argument("--work-dir", help="keep the CSV, program and artifact here "
                   "(default: a temp dir)")
    return p.parse_args()


def write_csv(path, rows):
    rng = random.Random(7)
    # A few thousand distinct lines, repeated: fast to write, and gzip
    # compresses them about as well as real small-integer data.
    lines = ["%d,%d,%d,%d,%d\n" % (rng.randrange(17), rng.randrange(17), rng.randrange(17),
                                     rng.randrange(17), rng.randrange(10))
             for _ in range(4096)]
    block = "".join(lines).encode()
    with gzip.open(path, "wb", compresslevel=6) as f:
        for _ in range(rows // len(lines)):
            f.write(block)
        f.write("".join(lines[:rows % len(lines)]).encode())


def run(args, work):
    distc = os.path.join(args.build_dir, "bin", "distc")
    dist_run = os.path.join(args.build_dir, "bin", "dist-run")
    csv = os.path.join(work, "rows.csv.gz")
    if not os.path.exists(csv):
        log("writing %d rows to %s" % (args.rows, csv))
        write_csv(csv, args.rows)
    main, startup, loss = programs.mlp([4, 8, 10])
    programs.save(main, os.path.join(work, "main.json"))
    programs.save(startup, os.path.join(work, "startup.json"))
    artifact = os.path.join(work, "mlp.distc")
    subprocess.run([distc, os.path.join(work, "main.json"), "--startup",
                    os.path.join(work, "startup.json"), "--loss", loss, "--optimizer", "sgd",
                    "-o", artifact], check=True)
    cmd = ["/usr/bin/time", "-v", dist_run, artifact, "--mode", "train", "--data",
           csv + ":x=0:4,label=4", "--steps", "1", "--batch-size", "64"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        log(proc.stdout + proc.stderr)
        return proc.returncode
    out = proc.stdout + proc.stderr
    loaded = [l for l in out.splitlines() if l.startswith("loaded ")]
    elapsed = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", out).group(1)
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out).group(1))
    print("cpu: %s" % cpu_model())
    print("csv: %s (%.1f MB gzip)" % (csv, os.path.getsize(csv) / 1e6))
    for line in loaded:
        print(line)
    print("dist-run wall time: %s, peak RSS: %.0f MB" % (elapsed, rss_kb / 1024))
    return 0


def main():
    args = parse_args()
    return run_in_work_dir(lambda work: run(args, work), args.work_dir, "distc-csv-bench-")


if __name__ == "__main__":
    sys.exit(main())

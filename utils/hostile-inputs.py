#!/usr/bin/python3
"""Hostile-input campaign: feeds distc, distc-dump and dist-run mutated
programs, artifacts, data files, flag values and special files, and checks
that every run ends in a clean error that names what is wrong, never in a
crash or a hang.

Usage: utils/hostile-inputs.py [--build-dir DIR] [--count N] [--seed S]
                               [--json OUT] [--jobs J] [--keep DIR] [--case ID ...]
                               [--examples K]

Every case is built from its own seeded random stream, so `--seed S --case ID`
rebuilds and reruns one case alone (with `--keep DIR` its files stay for
inspection). Each run gets an address-space limit (2.5 GB) and a wall-clock
timeout. A run is classified
  ok        exit 0
  error     exit 1..127 (a refusal)
  crash     killed by a signal, or exit >= 128 (abort, segfault, ...)
  hang      still running at the timeout
and an error is `unnamed` when its message does not name the input file, a
flag given, an op (`op #N`) or a variable/feed/fetch by name. The exit status
is 1 when any run crashed or hung.

Docs: docs/robustness.md.
"""

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hostile.artifacts import artifact_cases
from hostile.base import ROOT, Base
from hostile.data import bomb_cases, data_cases
from hostile.flags import CONFIGS, config_cases, flag_cases
from hostile.programs import program_cases
from hostile.runner import ADDRESS_LIMIT, TIMEOUT_S, check_devices, run_case, summarize
from hostile.special import special_cases


def make_cases(base, count):
    """The random families share what the fixed cases (bombs, configs,
    special files) leave of count."""
    special = special_cases(base, 0)
    rest = max(count - len(special) - len(CONFIGS) - 2, 8)
    n_prog, n_art, n_data = rest * 36 // 100, rest * 22 // 100, rest * 24 // 100
    n_flag = rest - n_prog - n_art - n_data
    return (program_cases(base, n_prog, 0) + artifact_cases(base, n_art, 0)
            + data_cases(base, n_data, 0) + bomb_cases(base, n_data)
            + flag_cases(base, n_flag, 0) + config_cases(base, n_flag) + special)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default=str(ROOT / "build"),
                    help="build tree with bin/ (default build/)")
    ap.add_argument("--count", type=int, default=1100, help="mutated inputs to try (default 1100)")
    ap.add_argument("--seed", type=int, default=1, help="seed of every mutation (default 1)")
    ap.add_argument("--json", help="write every result to this JSON file")
    ap.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    ap.add_argument("--keep", help="work in DIR and keep every case's files there")
    ap.add_argument("--case", action="append", help="run only this case (repeatable)")
    ap.add_argument("--examples", type=int, default=8, help="examples listed per class (default 8)")
    args = ap.parse_args()

    bin_dir = Path(args.build_dir).resolve() / "bin"
    for tool in ("distc", "distc-dump", "dist-run", "distc-translate"):
        if not (bin_dir / tool).is_file():
            sys.exit(f"hostile-inputs: {bin_dir / tool} is missing; build the project first")
    work = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="hostile-"))
    work.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    try:
        base = Base(bin_dir, work)
        cases = make_cases(base, args.count)
        if args.case:
            cases = [c for c in cases if c.id in args.case]
            if not cases:
                sys.exit(f"hostile-inputs: no case {', '.join(args.case)} at --count {args.count}")
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(
                lambda c: run_case(c, bin_dir, work / "cases", args.seed, bool(args.keep)), cases))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    summarize(results, args)
    print(f"\n{len(results)} runs in {time.monotonic() - start:.0f} s, seed {args.seed}, "
          f"address-space limit {ADDRESS_LIMIT / 1e9:.1f} GB, timeout {TIMEOUT_S:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps([dataclasses.asdict(r) for r in results], indent=1))
    damaged = check_devices()
    for p in damaged:
        print(f"hostile-inputs: {p} is no longer a character device")
    return 1 if damaged or any(r.cls in ("crash", "hang") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

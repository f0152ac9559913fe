"""Cases, their runs under limits, and how a run is classified."""

import dataclasses
import os
import random
import re
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/urandom"]
ADDRESS_LIMIT = 2500 * 1000 * 1000  # bytes of address space per run
TIMEOUT_S = 20.0


@dataclasses.dataclass
class Case:
    """One mutated input. `build(dir, rng)` writes the case's files into dir
    and returns the commands to run there, in order: a command runs only when
    the one before it exited 0 (a program that compiles is then run)."""

    id: str
    family: str
    kind: str
    build: Callable[[Path, random.Random], list]


@dataclasses.dataclass
class Result:
    id: str
    family: str
    kind: str
    cls: str  # ok, error, crash, hang (unnamed is an error flagged below)
    unnamed: bool
    rc: int | None
    seconds: float
    message: str
    commands: list  # shell form of every command of the case
    failed: int  # index of the command that ended the case (the last one run)


def limit_resources():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_command(argv, cwd):
    """Runs argv in its own process group (dist-run's launcher starts ranks),
    returns (rc or None on timeout, stderr text)."""
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=limit_resources,
                            start_new_session=True, env=dict(os.environ, LC_ALL="C"))
    try:
        _, err = proc.communicate(timeout=TIMEOUT_S)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        rc = None
    finally:
        try:  # whatever the tool left running in its group goes too
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if rc is None:
        _, err = proc.communicate()
    return rc, err.decode("utf-8", "backslashreplace")


def error_lines(stderr):
    lines = [l for l in stderr.splitlines() if "error" in l.lower()]
    return lines or [l for l in stderr.splitlines() if l.strip()][-1:]


# Flags whose values are paths (or NAME=@path, path:mapping); short ones with
# the long name CLI11 reports them by.
PATH_FLAGS = {"--startup", "--config", "-o", "--output", "--params", "--init-from", "--metrics",
              "--checkpoint-dir", "--save-persistables", "--save-inference-model", "--log-dir",
              "--data", "--eval-data", "--input", "--expected-output"}
ALIASES = {"-o": "--output"}


def names_of(argv):
    """What an error may name: the paths in argv (whole, or their basenames;
    also inside NAME=@path, path:mapping and --flag=value) and the flags
    given."""
    names = set()
    after_path_flag = False
    for tok in argv[1:]:
        value = tok
        if re.match(r"--?[A-Za-z]", tok):
            flag, _, value = tok.partition("=")
            names.add(ALIASES.get(flag, flag))
            after_path_flag = flag in PATH_FLAGS
            if not value:
                continue
        for piece in re.split(r"=@|=|:|,", value):
            base = os.path.basename(piece.rstrip("/"))
            if "/" in piece or "." in base or (after_path_flag and base):
                names.update(n for n in (piece, base) if len(n) >= 2)
        after_path_flag = False
    return names


# An op by number or by kind and type (`'matmul' (matmul_v2 -> out)`), a
# kernel call, or a variable, feed, fetch, column, member or slot by name.
NAMED_PATTERNS = re.compile(r"op #\d+|call \d+ '|'[^']*' \([\w.]+ -> |"
                            r"(variable|var|feed|fetch|column|member|parameter|buffer|input|"
                            r"output|slot|attribute) '")


def is_named(message, argv):
    if NAMED_PATTERNS.search(message):
        return True
    return any(n in message for n in names_of(argv))


def run_case(case, bin_dir, work, seed, keep):
    case_dir = work / case.id
    case_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(f"{seed}/{case.id}")
    commands = [[str(bin_dir / c[0])] + [str(a) for a in c[1:]] for c in case.build(case_dir, rng)]
    start = time.monotonic()
    cls, rc, message, unnamed, failed = "ok", 0, "", False, len(commands) - 1
    for failed, argv in enumerate(commands):
        rc, err = run_command(argv, case_dir)
        if rc is None:
            cls, message = "hang", f"no exit within {TIMEOUT_S:.0f} s"
        elif rc < 0 or rc >= 128:
            cls = "crash"
            message = (f"signal {-rc} ({signal.Signals(-rc).name})" if rc < 0 else f"exit {rc}")
            tail = [l for l in err.splitlines() if l.strip()][-2:]
            message += (": " + " | ".join(tail)) if tail else ""
        elif rc != 0:
            cls = "error"
            message = " | ".join(error_lines(err))[:400]
            unnamed = not is_named(message, argv)
        if cls != "ok":
            break
    if not keep and cls in ("ok", "error") and not unnamed:
        shutil.rmtree(case_dir, ignore_errors=True)
    return Result(case.id, case.family, case.kind, cls, unnamed, rc, time.monotonic() - start,
                  message, [shlex.join(a) for a in commands], failed)


def summarize(results, args):
    families = list(dict.fromkeys(r.family for r in results))
    header = (f"{'family':<10} {'tried':>6} {'ok':>6} {'error':>6} {'crash':>6} {'hang':>6} "
              f"{'unnamed':>8}")
    print(header)
    print("-" * len(header))
    for fam in families + ["total"]:
        rs = [r for r in results if fam == "total" or r.family == fam]
        c = {k: sum(r.cls == k for r in rs) for k in ("ok", "error", "crash", "hang")}
        un = sum(r.unnamed for r in rs)
        print(f"{fam:<10} {len(rs):>6} {c['ok']:>6} {c['error']:>6} {c['crash']:>6} {c['hang']:>6} "
              f"{un:>8}")
    for cls in ("crash", "hang", "unnamed"):
        bad = [r for r in results if (r.unnamed if cls == "unnamed" else r.cls == cls)]
        if not bad:
            continue
        shown = f" (the first {args.examples})" if len(bad) > args.examples > 0 else ""
        print(f"\n{cls}: {len(bad)}{shown}")
        for r in bad[:args.examples]:
            print(f"  {r.id} [{r.family}: {r.kind}] {r.message[:300]}")
            print(f"    command: {r.commands[r.failed][:600]}")
            print(f"    rebuild: {sys.argv[0]} --build-dir {args.build_dir} --seed {args.seed} "
                  f"--count {args.count} --case {r.id} --keep DIR")


def check_devices():
    """Device files given as outputs must still be devices afterwards."""
    return [p for p in DEVICES if not stat.S_ISCHR(os.stat(p).st_mode)]

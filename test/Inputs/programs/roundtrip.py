#!/usr/bin/env python3
"""Import -> export -> import must reproduce the IR exactly.

For every program given (JSON, binary or MLIR; `main.json` picks up a
`startup.json` beside it), import it, export it as JSON and as binary
protobuf, import those again and compare the printed IR. IR written by hand
or by passes need not carry Paddle names, so an MLIR input is exported once
first and the check runs on that program. Prints one line per program;
exits 1 on the first difference, showing it.
"""

import difflib
import os
import subprocess
import sys
import tempfile


def translate(*args):
    result = subprocess.run(["distc-translate", *args], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("distc-translate %s failed:\n%s" % (" ".join(args), result.stderr))
    return result.stdout


def check(path, tmp):
    label = os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path)
    if path.endswith(".mlir"):
        normalized = os.path.join(tmp, "normalized.json")
        translate("--export-json", path, "-o", normalized)
        path = normalized
    startup = os.path.join(os.path.dirname(path), "startup.json")
    with_startup = os.path.basename(path) == "main.json" and os.path.exists(startup)
    extra = ["--startup", startup] if with_startup else []
    first = translate("--import", path, *extra)
    for fmt, ext in (("--export-json", "json"), ("--export-pb", "pdmodel")):
        main_out = os.path.join(tmp, "main." + ext)
        startup_out = os.path.join(tmp, "startup." + ext)
        translate(fmt, path, *extra, "-o", main_out,
                  *(["--startup-output", startup_out] if with_startup else []))
        again = translate("--import", main_out, *(["--startup", startup_out] if with_startup else []))
        if again != first:
            diff = difflib.unified_diff(first.splitlines(), again.splitlines(), "first import",
                                        "after %s" % fmt, lineterm="")
            print("MISMATCH %s (%s)\n%s" % (path, fmt, "\n".join(diff)))
            sys.exit(1)
    print("OK %s" % label)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for path in sys.argv[1:]:
            check(path, tmp)


if __name__ == "__main__":
    main()

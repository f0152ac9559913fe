#!/usr/bin/env python3
"""Compares the per-step mean losses two runs of distc-dp-api-example print
("step K: mean loss over N workers L"): the same steps, each loss within
1e-5 relative. Prints "N steps agree", or the first mismatch and exits 1."""

import re
import sys

LINE = re.compile(r"^step (\d+): mean loss over \d+ workers ([-+0-9.eE]+)")


def losses(path):
    with open(path) as f:
        return [(int(m.group(1)), float(m.group(2))) for m in map(LINE.match, f) if m]


def main():
    reference, other = losses(sys.argv[1]), losses(sys.argv[2])
    if not reference or [s for s, _ in reference] != [s for s, _ in other]:
        print("steps differ: %s vs %s" % (reference, other))
        return 1
    for (step, a), (_, b) in zip(reference, other):
        if abs(a - b) > 1e-5 * max(abs(a), abs(b)):
            print("step %d: loss %r vs %r" % (step, a, b))
            return 1
    print("%d steps agree" % len(reference))
    return 0


if __name__ == "__main__":
    sys.exit(main())

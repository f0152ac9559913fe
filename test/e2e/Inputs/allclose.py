#!/usr/bin/env python3
"""allclose.py ACTUAL.npy REFERENCE.npy RTOL ATOL

Compares an output with its float64 reference element by element
(|a - r| <= atol + rtol * |r|); prints `close: shape S (max abs err E)`
or the worst element and exits 1.
"""

import sys

import numpy as np


def main(actual_path, reference_path, rtol, atol):
    actual = np.load(actual_path).astype(np.float64)
    reference = np.load(reference_path).astype(np.float64)
    if actual.shape != reference.shape:
        sys.exit("shape %s, reference %s" % (actual.shape, reference.shape))
    err = np.abs(actual - reference)
    bound = float(atol) + float(rtol) * np.abs(reference)
    if not np.all(err <= bound) or not np.all(np.isfinite(actual)):
        worst = np.unravel_index(np.argmax(err - bound), err.shape)
        sys.exit("differs at %s: %r vs reference %r (max abs err %.3g)" %
                 (worst, actual[worst], reference[worst], err.max()))
    print("close: shape %s (max abs err %.3g)" % (tuple(actual.shape), err.max()))


if __name__ == "__main__":
    main(*sys.argv[1:5])

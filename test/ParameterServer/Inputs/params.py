"""Writes initial parameters for a pd .mlir program's variables:
params.py PROGRAM OUTDIR [SEED] writes OUTDIR/<name>.npy for every
`pd.var ... is_parameter`, uniform in +-1/sqrt(fan_in) (biases 0.1)."""
import os
import re
import sys

import numpy as np


def main():
    program, out = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    os.makedirs(out, exist_ok=True)
    for name, dims in re.findall(r"pd\.var @(\S+) persistable is_parameter : tensor<([0-9x]+)xf32>",
                                 open(program).read()):
        shape = [int(d) for d in dims.split("x")]
        if len(shape) == 1:
            value = np.full(shape, 0.1, np.float32)
        else:
            bound = 1.0 / np.sqrt(shape[0])
            value = rng.uniform(-bound, bound, shape).astype(np.float32)
        np.save(os.path.join(out, name + ".npy"), value)


if __name__ == "__main__":
    main()

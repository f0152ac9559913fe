"""Writes the feeds of embedding.mlir: embedding_data.py OUT_DIR [ROWS]
writes title_ids.npy (ROWS x 4), brand_ids.npy (ROWS x 3) and label.npy
(ROWS x 1). Ids come from a small pool of the table's rows on both sides
of its middle, so a batch repeats ids (within a row and across rows) and
touches the blocks of both servers; the label is whether most title ids
are below 500."""
import os
import sys

import numpy as np


def main():
    out = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    rng = np.random.default_rng(11)
    pool = np.array([3, 17, 17, 256, 499, 500, 501, 731, 998, 999], np.int64)
    title = rng.choice(pool, size=(rows, 4))
    brand = rng.choice(pool, size=(rows, 3))
    label = ((title < 500).sum(axis=1, keepdims=True) >= 2).astype(np.int64)
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "title_ids.npy"), title)
    np.save(os.path.join(out, "brand_ids.npy"), brand)
    np.save(os.path.join(out, "label.npy"), label)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes a synthetic buffer-lifetime trace shaped like one training step.

The program is a stack of blocks. The forward sweep runs them in order;
each op of a block produces an activation that is saved for the backward
sweep (live until the backward op of that block consumes it) and a few
short-lived temporaries (live for one to three steps). The backward sweep
runs the blocks in reverse: each op produces an input gradient, consumed
by the next backward op, a weight gradient that lives until the
optimizer step at the end, and temporaries. Sizes are drawn from shapes a
transformer block has (hidden, 4x hidden, attention scores), scaled by a
random batch factor, so the trace has the nested lifetimes and the mix of
big and small buffers of a real step.

The output is deterministic for given arguments (a seeded generator):

    gen_training_trace.py OUT.csv [--buffers 60000] [--seed 1]
"""
import argparse
import random

OPS_PER_BLOCK = 6
# Elements per row of the tensors a block makes (hidden 1024).
SHAPES = [1024, 1024, 4096, 4096, 1024, 2048]


def generate(target, seed):
    rng = random.Random(seed)
    rows = []
    step = 0

    def add(lower, upper, size):
        rows.append((len(rows), lower, upper, size))

    # Each op yields on average 1 activation + 1.5 temporaries forward and
    # 1 input gradient + 1 weight gradient + 1.5 temporaries backward.
    # A tenth more blocks than the target needs; the surplus is cut off.
    blocks = int(target / (OPS_PER_BLOCK * 6.0) * 1.1) + 2
    saved = []  # (produced at step, size) in forward order
    for _ in range(blocks):
        for op in range(OPS_PER_BLOCK):
            batch_rows = rng.choice([64, 128, 256])
            size = SHAPES[op] * batch_rows * 4
            saved.append((step, size))
            for _ in range(rng.choice([1, 2])):
                add(step, step + rng.randint(1, 3), rng.choice([size, size // 4, 4096]))
            step += 1
    weight_grads = []
    previous_grad = None
    for produced, size in reversed(saved):
        # The backward op consumes the saved activation and the gradient of
        # its output, and produces the gradient of its input.
        add(produced, step + 1, size)
        if previous_grad is not None:
            add(previous_grad[0], step + 1, previous_grad[1])
        previous_grad = (step, size)
        weight_grads.append((step, rng.choice([4, 16, 64]) * 1024 * 4))
        for _ in range(rng.choice([1, 2])):
            add(step, step + rng.randint(1, 3), rng.choice([size, size // 2, 8192]))
        step += 1
    add(previous_grad[0], step + 1, previous_grad[1])
    optimizer_step = step + 1
    for produced, size in weight_grads:
        add(produced, optimizer_step + 1, size)
    # The rows cut off are the last weight gradients: what remains is still
    # a valid trace.
    return rows[:target]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--buffers", type=int, default=60000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows = generate(args.buffers, args.seed)
    with open(args.out, "w") as out:
        out.write("id,lower,upper,size\n")
        for row in rows:
            out.write("%d,%d,%d,%d\n" % row)


if __name__ == "__main__":
    main()

"""Byte-level damage, shared by the families."""

INSERTS = [b"\x00", b"\xff" * 10, b"{", b"[", b"]", b'"', b"\\u0000", b"-1", b"99999999999999999999",
           b"1e999", b"NaN", b",", b"\n", b"\x80", b"\xc3\x28"]


def mutate_bytes(data, rng):
    """A random byte-level damage: flips, truncation, insertion, deletion or
    duplication. Returns (label, mutated bytes)."""
    n = len(data)
    kind = rng.choice(["flip", "flip", "truncate", "insert", "delete", "duplicate"])
    out = bytearray(data)
    if kind == "flip":
        for _ in range(rng.choice([1, 1, 2, 4, 8, 32])):
            i = rng.randrange(n)
            out[i] = rng.randrange(256) if rng.random() < 0.5 else out[i] ^ (1 << rng.randrange(8))
    elif kind == "truncate":
        del out[rng.randrange(n):]
    elif kind == "insert":
        chunk = rng.choice(INSERTS) if rng.random() < 0.6 else rng.randbytes(rng.randint(1, 64))
        i = rng.randrange(n + 1)
        out[i:i] = chunk
    elif kind == "delete":
        i = rng.randrange(n)
        del out[i:i + rng.randint(1, 256)]
    else:
        i = rng.randrange(n)
        j = rng.randrange(n + 1)
        out[j:j] = data[i:i + rng.randint(1, 512)]
    return kind, bytes(out)

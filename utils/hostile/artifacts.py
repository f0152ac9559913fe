"""Artifacts: payload damage with and without a re-fixed checksum, header damage."""

import struct

from .base import Base
from .runner import Case


HEADER_SIZE = 32  # magic[8], version u32, reserved u32, payload size u64, FNV-1a-64 u64


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def fix_header(data):
    """Rewrites the payload size and checksum to match the payload, so that
    the damage reaches the artifact's validator instead of the checksum."""
    payload = data[HEADER_SIZE:]
    return data[:16] + struct.pack("<QQ", len(payload), fnv1a64(payload)) + payload


def mutate_artifact(data, rng):
    kind = rng.choice(["payload", "payload", "payload-word", "header", "truncate", "append"])
    refix = kind != "header" and rng.random() < 0.7
    out = bytearray(data)
    if kind == "payload":
        for _ in range(rng.choice([1, 1, 2, 4, 16])):
            i = rng.randrange(HEADER_SIZE, len(out))
            out[i] = rng.randrange(256) if rng.random() < 0.5 else out[i] ^ (1 << rng.randrange(8))
    elif kind == "payload-word":
        # FlatBuffers offsets, lengths and sizes are 32-bit words: set one to an extreme.
        i = HEADER_SIZE + rng.randrange((len(out) - HEADER_SIZE) // 4) * 4
        out[i:i + 4] = struct.pack("<I", rng.choice([0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
                                                      0xFFFF, len(out), len(out) - 4]))
    elif kind == "header":
        field = rng.choice(["magic", "version", "reserved", "size", "checksum"])
        at, width = {"magic": (rng.randrange(8), 1), "version": (8, 4), "reserved": (12, 4),
                     "size": (16, 8), "checksum": (24, 8)}[field]
        values = {1: [rng.randrange(256)], 4: [0, 1, 3, 0xFFFFFFFF],
                  8: [0, len(out) - HEADER_SIZE - 1, len(out), 2**63, 2**64 - 1, rng.getrandbits(64)]}
        out[at:at + width] = rng.choice(values[width]).to_bytes(width, "little")
        kind = f"header-{field}"
    elif kind == "truncate":
        del out[rng.randrange(len(out)):]
    else:
        out += rng.randbytes(rng.randint(1, 4096))
    out = bytes(out)
    if refix and len(out) >= HEADER_SIZE:
        out = fix_header(out)
    return f"{kind}{' refixed' if refix else ''}", out


def artifact_cases(base, n, first):
    cases = []
    for i in range(n):
        example = list(Base.MODELS)[i % 3]
        tool = ["dump", "predict", "run"][(i // 3) % 3]
        cases.append(Case(f"a{first + i:04d}", "artifacts", f"{example} {tool}",
                          artifact_case(base, example, tool)))
    return cases


def artifact_case(base, example, tool):
    def build(d, rng):
        _, data = mutate_artifact(base.artifact[example].read_bytes(), rng)
        art = d / "mutated.distc"
        art.write_bytes(data)
        if tool == "dump":
            return [["distc-dump", art]]
        if example == "transformer" or tool == "predict":
            feed = f"src_ids=@{base.src_ids}" if example == "transformer" else f"x=@{base.x}"
            return [["dist-run", art, "--mode", "predict", "--input", feed, "--output", "-"]]
        return [base.follow_up(example, art)]
    return build

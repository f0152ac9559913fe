"""Data files: .npy, .npz, CSV and gzip CSV."""

import gzip
import io
import re
import struct
import zipfile

from .mutate import mutate_bytes
from .runner import Case


NPY_DESCRS = ["<f4", "<f8", "<i8", "<i4", "|u1", ">f4", "|O", "<c8", "<U3", "|b1", "<f2", "|V8",
              "[('a', '<f4')]", "", "<f16", "f4"]
NPY_SHAPES = ["()", "(0, 64)", "(16,)", "(16, 64, 1)", "(1099511627776, 64)", "(-1, 64)", "(16, 65)",
              "(100000000000000000000, 64)", "(16, 0)", "(4, 64)", "(16, -64)", "(2147483648, 2)",
              "(" * 5000 + ")" * 5000, "(16, 64" + ", 1" * 70 + ")"]


def npy_with_header(header_text, payload, version=(1, 0), header_len=None):
    body = header_text.encode("latin-1", "replace")
    if version[0] == 1:
        fixed = 10
        pad = (-(fixed + len(body) + 1)) % 64
        body += b" " * pad + b"\n"
        hl = struct.pack("<H", len(body) if header_len is None else header_len & 0xFFFF)
    else:
        fixed = 12
        pad = (-(fixed + len(body) + 1)) % 64
        body += b" " * pad + b"\n"
        hl = struct.pack("<I", len(body) if header_len is None else header_len & 0xFFFFFFFF)
    return b"\x93NUMPY" + bytes(version) + hl + body + payload


def mutate_npy(npy, rng):
    header_end = npy.index(b"\n") + 1
    payload = npy[header_end:]
    kind = rng.choice(["bytes", "header-bytes", "descr", "shape", "order", "text", "version",
                       "header-len"])
    descr, order, shape = "<f4", "False", "(16, 64)"
    if kind == "bytes":
        return mutate_bytes(npy, rng)[1]
    if kind == "header-bytes":
        out = bytearray(npy)
        for _ in range(rng.choice([1, 2, 4])):
            out[rng.randrange(header_end)] = rng.randrange(256)
        return bytes(out)
    if kind == "descr":
        descr = rng.choice(NPY_DESCRS)
    elif kind == "shape":
        shape = rng.choice(NPY_SHAPES)
    elif kind == "order":
        order = rng.choice(["True", "1", "None", "'no'"])
    text = "{'descr': %r, 'fortran_order': %s, 'shape': %s, }" % (descr, order, shape)
    if kind == "text":
        text = rng.choice(["{}", "{'descr': '<f4'}", "garbage", text[:-2] + "'extra': 1, }",
                           "__import__('os').system('true')", "{'descr': '<f4', 'descr': '<f8', "
                           "'fortran_order': False, 'shape': (16, 64), }", "{" * 10000,
                           text.replace("'", '"'), text + "\x00" * 8, ""])
    version = (1, 0)
    header_len = None
    if kind == "version":
        version = rng.choice([(2, 0), (3, 0), (0, 0), (255, 255), (1, 1)])
    if kind == "header-len":
        header_len = rng.choice([0, 1, 0xFFFF, 0x7FFF])
    if rng.random() < 0.2:
        payload = payload[:rng.randrange(len(payload) + 1)]
    return npy_with_header(text, payload, version, header_len)


def zip_of(members, compressed):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def mutate_npz(base, rng):
    members = {"x.npy": base.npy_x, "label.npy": base.npy_label}
    kind = rng.choice(["bytes", "crc", "sizes", "name-len", "member", "truncate", "names"])
    if kind == "member":
        m = rng.choice(list(members))
        members[m] = mutate_npy(members[m], rng)
    if kind == "names":
        name = rng.choice(["x", "x.npy.npy", "../x.npy", "/x.npy", "x\x00.npy", "X.NPY", "dir/x.npy",
                           "label.npy"])
        members = {name: base.npy_x, "label.npy": base.npy_label}
    data = bytearray(zip_of(members, compressed=rng.random() < 0.5))
    local = [m.start() for m in re.finditer(rb"PK\x03\x04", data)]
    central = [m.start() for m in re.finditer(rb"PK\x01\x02", data)]
    if kind == "bytes":
        return mutate_bytes(bytes(data), rng)[1]
    if kind == "truncate":
        return bytes(data[:rng.randrange(len(data))])
    if kind in ("crc", "sizes", "name-len"):
        # Field offsets within the local file header / the central directory entry.
        field = {"crc": (14, 16, 4), "sizes": (rng.choice([18, 22]), rng.choice([20, 24]), 4),
                 "name-len": (26, 28, 2)}[kind]
        for where in rng.choice([["local"], ["central"], ["local", "central"]]):
            if where == "local":
                at = rng.choice(local) + field[0]
            else:
                at = rng.choice(central) + field[1]
            width = field[2]
            value = rng.choice([0, 1, 0xFFFF, 0xFFFFFFFF, rng.getrandbits(8 * width)])
            data[at:at + width] = (value & ((1 << 8 * width) - 1)).to_bytes(width, "little")
    return bytes(data)


CSV_FIELDS = ["", "nan", "NaN", "inf", "-inf", "1e999", "-1e999", "0x10", "abc", " 3", "3 ", "+", "-",
              ".", "1e", "\u0661", "\x00", '"3"', "9223372036854775808", "-9223372036854775809",
              "3.5", "1e400", "-0", "1_000", "0b1", "\t", "1" * 5000]
CSV_MAPPINGS = ["x=0:64,label=64", "x=0:65,label=64", "x=64:0,label=64", "x=-1:63,label=64",
                "x=0:64,label=65", "label=64", "x=0:64", "x=0:64,label=64,x=0:64",
                "x=0:99999999999999999999,label=64", "x=0:64,label=64,extra=1", "x=a:b,label=64",
                "", "x", "x=", "=0", ",,", "x=0:64;label=64", "x=0:64,label=64:65",
                "x=0:64,label=-1", "x=0:0,label=64", "x=0:64,label=18446744073709551616"]


def mutate_csv(text, rng):
    lines = text.splitlines()
    kind = rng.choice(["field", "field", "drop-field", "add-field", "blank", "crlf", "no-newline",
                       "bom", "header", "long-line", "bytes", "empty"])
    r = rng.randrange(len(lines))
    fields = lines[r].split(",")
    if kind == "field":
        fields[rng.randrange(len(fields))] = rng.choice(CSV_FIELDS)
    elif kind == "drop-field":
        del fields[rng.randrange(len(fields))]
    elif kind == "add-field":
        fields.insert(rng.randrange(len(fields) + 1), "1")
    lines[r] = ",".join(fields)
    if kind == "blank":
        lines.insert(r, rng.choice(["", " ", ",", "#comment"]))
    elif kind == "header":
        lines.insert(0, ",".join(f"c{i}" for i in range(65)))
    elif kind == "long-line":
        lines.insert(r, ",".join(["1"] * 300000))
    elif kind == "empty":
        lines = []
    out = "\r\n".join(lines) if kind == "crlf" else "\n".join(lines)
    out = ("\ufeff" + out) if kind == "bom" else out
    out += "" if kind == "no-newline" else "\n"
    data = out.encode("utf-8", "surrogatepass")
    return mutate_bytes(data, rng)[1] if kind == "bytes" else data


def mutate_gzip(raw, rng):
    data = bytearray(gzip.compress(raw, mtime=0))
    kind = rng.choice(["bytes", "crc", "isize", "truncate", "concat", "trailing", "flags"])
    if kind == "bytes":
        for _ in range(rng.choice([1, 2, 4])):
            i = rng.randrange(len(data))
            data[i] = rng.randrange(256)
    elif kind == "crc":
        data[-8:-4] = rng.getrandbits(32).to_bytes(4, "little")
    elif kind == "isize":
        data[-4:] = rng.choice([0, 1, 0xFFFFFFFF]).to_bytes(4, "little")
    elif kind == "truncate":
        del data[rng.randrange(len(data)):]
    elif kind == "concat":
        data += gzip.compress(raw[: len(raw) // 2], mtime=0)
    elif kind == "trailing":
        data += rng.choice([b"\x00" * 16, b"garbage", b"\x1f\x8b", rng.randbytes(100)])
    else:
        data[3] = rng.choice([0x04, 0x08, 0x10, 0x02, 0xE0, 0xFF])  # FEXTRA, FNAME, FCOMMENT, FHCRC
    return bytes(data)


def data_cases(base, n, first):
    kinds = ["npy", "npz", "csv", "csv.gz"]
    return [Case(f"d{first + i:04d}", "data", kinds[i % 4], data_case(base, kinds[i % 4]))
            for i in range(n)]


def bomb_cases(base, first):
    """Small files that expand past the address-space limit: an .npz whose
    x member inflates to 3 GiB of zeros, and a gzip CSV whose one line
    inflates to 256 MiB."""
    def npz_bomb(d, rng):
        rows = 3 * 1024**3 // (64 * 4)
        f = d / "bomb.npz"
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            with z.open("x.npy", "w", force_zip64=True) as m:
                m.write(npy_with_header(f"{{'descr': '<f4', 'fortran_order': False, "
                                        f"'shape': ({rows}, 64), }}", b""))
                zeros = bytes(1 << 22)
                for _ in range(rows * 64 * 4 // len(zeros)):
                    m.write(zeros)
            z.writestr("label.npy", base.npy_label)
        return [base.train(base.artifact["digits"], "--data", f"{f}:x,label")]

    def csv_bomb(d, rng):
        f = d / "bomb.csv.gz"
        with gzip.open(f, "wb", compresslevel=1) as g:
            chunk = b"1," * (1 << 20)
            for _ in range(128):
                g.write(chunk)
        return [base.train(base.artifact["digits"], "--data", f"{f}:x=0:64,label=64")]

    return [Case(f"d{first:04d}", "data", "npz bomb", npz_bomb),
            Case(f"d{first + 1:04d}", "data", "csv.gz bomb", csv_bomb)]


def data_case(base, kind):
    def build(d, rng):
        art = base.artifact["digits"]
        if kind == "npy":
            which = rng.choice(["x", "label"])
            src = base.npy_x if which == "x" else base.npy_label
            f = d / f"mutated-{which}.npy"
            f.write_bytes(mutate_npy(src, rng))
            x, label = (f, base.label) if which == "x" else (base.x, f)
            return [base.train(art, "--data", f"x=@{x}", "--data", f"label=@{label}")]
        if kind == "npz":
            f = d / "mutated.npz"
            f.write_bytes(mutate_npz(base, rng))
            mapping = rng.choice(["", ":x,label", ":x=x,label=label", ":x=label,label=x",
                                  ":x=nope,label", ":", ":x=,label", ":x.npy,label.npy"])
            return [base.train(art, "--data", f"{f}{mapping}")]
        text = base.csv_text.encode()
        mapping = "x=0:64,label=64"
        if rng.random() < 0.25:
            mapping = rng.choice(CSV_MAPPINGS)
        else:
            text = mutate_csv(base.csv_text, rng)
        f = d / f"mutated.{kind}"
        f.write_bytes(mutate_gzip(text, rng) if kind == "csv.gz" else text)
        return [base.train(art, "--data", f"{f}:{mapping}")]
    return build

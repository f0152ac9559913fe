#!/usr/bin/env python3
"""Writes the 8x8 digits (examples/digits/digits.csv.gz) as a few-shot image
folder in the layout of Paddle's Open_KS_read: ROOT/train/<class>/*.png for
the digits 0-6 and ROOT/test/<class>/*.png for the held-out digits 7-9, one
8-bit grayscale PNG per row, pixel values 0..16 scaled to 0..255.

    make_image_folder.py DIGITS_CSV ROOT [--per-class N]

Only the standard library: the PNG files are written by hand (signature,
IHDR, one zlib-compressed IDAT of filter-0 rows, IEND).
"""
import argparse
import gzip
import os
import struct
import zlib


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png_gray(pixels, width, height):
    rows = b"".join(b"\0" + bytes(pixels[y * width:(y + 1) * width]) for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("root")
    parser.add_argument("--per-class", type=int, default=0,
                        help="at most N images per class (default: all)")
    args = parser.parse_args()
    counts = {}
    with gzip.open(args.csv, "rt") as f:
        for line in f:
            fields = line.strip().split(",")
            if len(fields) != 65:
                continue
            label = int(float(fields[64]))
            n = counts.get(label, 0)
            if args.per_class and n >= args.per_class:
                continue
            counts[label] = n + 1
            split = "train" if label <= 6 else "test"
            folder = os.path.join(args.root, split, str(label))
            os.makedirs(folder, exist_ok=True)
            pixels = [round(float(v) * 255 / 16) for v in fields[:64]]
            with open(os.path.join(folder, "%04d.png" % n), "wb") as out:
                out.write(png_gray(pixels, 8, 8))
    print("wrote %d images of %d classes to %s (train: 0-6, test: 7-9)" %
          (sum(counts.values()), len(counts), args.root))


if __name__ == "__main__":
    main()

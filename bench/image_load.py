#!/usr/bin/python3
"""Images decoded and resized per second per core by dist-run's image-folder
loader (--data images=DIR).

Run through bench/run-bench-images.sh. Writes image folders of 10 classes:
RGB 100x100 PNG files and the same pictures as baseline JPEG (quality 90),
plus 8x8 grayscale PNG files like examples/fewshot's, then loads each with
dist-run (one training step of an MLP compiled for the loaded shape, with
DISTC_NUM_THREADS=1; the loader runs on one core) and reports dist-run's
"loaded N rows ... in T s" line as N / T images per second. The load time
covers listing the folders, reading, decoding, converting, resizing
(bilinear, to 84x84x3; the 8x8 ones are not resized) and scaling. The
JPEG files are written by a small libjpeg program compiled here (Python
has no JPEG encoder without extra packages). See docs/benchmarks.md,
"Image loading".
"""

import argparse
import os
import random
import re
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import programs  # noqa: E402
from bench_util import cpu_model, log, run_in_work_dir  # noqa: E402

JPEG_WRITER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>
/* ppm2jpg IN.ppm OUT.jpg: binary P6 (maxval 255) to baseline JPEG, quality 90. */
int main(int argc, char **argv) {
  FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
  int w, h, maxval;
  if (!in || !out || fscanf(in, "P6 %d %d %d", &w, &h, &maxval) != 3) return 1;
  fgetc(in);
  unsigned char *px = malloc((size_t)w * h * 3);
  if (fread(px, 3, (size_t)w * h, in) != (size_t)w * h) return 1;
  struct jpeg_compress_struct c;
  struct jpeg_error_mgr e;
  c.err = jpeg_std_error(&e);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, out);
  c.image_width = w; c.image_height = h; c.input_components = 3; c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 90, TRUE);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = px + (size_t)c.next_scanline * w * 3;
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  fclose(out);
  return 0;
}
"""


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default=os.path.join(os.path.dirname(HERE), "build"),
                   help="build directory with bin/distc and bin/dist-run")
    p.add_argument("--images", type=int, default=2000,
                   help="images per folder (default 2000, 10 classes)")
    p.add_argument("--work-dir", help="keep the images and artifacts here (default: a temp dir)")
    return p.parse_args()


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png(pixels, width, height, color):
    step = width * (3 if color else 1)
    rows = b"".join(b"\0" + pixels[y * step:(y + 1) * step] for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2 if color else 0, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))


def picture(rng, size):
    """A smooth colour gradient with noise: compresses like a photo, roughly."""
    a, b, c = rng.random() * 4, rng.random() * 4, rng.randrange(256)
    out = bytearray()
    for y in range(size):
        for x in range(size):
            n = rng.randrange(24)
            out += bytes(((int(a * x) + n) & 255, (int(b * y) + n) & 255, (c + x + y + n) & 255))
    return bytes(out)


def write_folders(work, count):
    rng = random.Random(5)
    cc = os.environ.get("CC", "cc")
    writer = os.path.join(work, "ppm2jpg")
    src = writer + ".c"
    with open(src, "w") as f:
        f.write(JPEG_WRITER)
    subprocess.run([cc, "-O2", src, "-o", writer, "-ljpeg"], check=True)
    for i in range(count):
        cls = "c%d" % (i % 10)
        pixels = picture(rng, 100)
        for kind in ("png", "jpeg", "digits"):
            os.makedirs(os.path.join(work, kind, cls), exist_ok=True)
        with open(os.path.join(work, "png", cls, "%05d.png" % i), "wb") as f:
            f.write(png(pixels, 100, 100, True))
        ppm = os.path.join(work, "tmp.ppm")
        with open(ppm, "wb") as f:
            f.write(b"P6 100 100 255\n" + pixels)
        subprocess.run([writer, ppm, os.path.join(work, "jpeg", cls, "%05d.jpg" % i)], check=True)
        small = bytes(rng.randrange(256) if rng.random() < 0.4 else 0 for _ in range(64))
        with open(os.path.join(work, "digits", cls, "%05d.png" % i), "wb") as f:
            f.write(png(small, 8, 8, False))
    os.remove(ppm)


def compile_mlp(args, work, inputs):
    main, startup, loss = programs.mlp([inputs, 8, 10])
    name = os.path.join(work, "mlp%d" % inputs)
    programs.save(main, name + ".main.json")
    programs.save(startup, name + ".startup.json")
    subprocess.run([os.path.join(args.build_dir, "bin", "distc"), name + ".main.json", "--startup",
                    name + ".startup.json", "--loss", loss, "--optimizer", "sgd", "-o",
                    name + ".distc"], check=True)
    return name + ".distc"


def load_rate(args, artifact, spec):
    env = dict(os.environ, DISTC_NUM_THREADS="1")
    cmd = [os.path.join(args.build_dir, "bin", "dist-run"), artifact, "--mode", "train",
           "--data", spec, "--steps", "1", "--batch-size", "8"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        log(proc.stdout + proc.stderr)
        raise SystemExit(proc.returncode)
    line = [l for l in proc.stderr.splitlines() if l.startswith("loaded ")][-1]
    m = re.match(r"loaded (\d+) rows .* in (\S+) s", line)
    return line, int(m.group(1)) / float(m.group(2))


def run(args, work):
    if not os.path.isdir(os.path.join(work, "digits")):
        log("writing %d images of each kind to %s" % (args.images, work))
        write_folders(work, args.images)
    big = compile_mlp(args, work, 84 * 84 * 3)
    small = compile_mlp(args, work, 64)
    print("cpu: %s" % cpu_model())
    for label, artifact, spec in [
            ("PNG 100x100 RGB -> 84x84x3", big, "images=%s/png:x,label,size=84x84,flat" % work),
            ("JPEG 100x100 RGB -> 84x84x3", big, "images=%s/jpeg:x,label,size=84x84,flat" % work),
            ("PNG 8x8 gray, not resized", small, "images=%s/digits:x,label,channels=1,flat" % work)]:
        best = None
        for _ in range(3):  # the best of three: the files are in the page cache after the first
            line, rate = load_rate(args, artifact, spec)
            best = rate if best is None else max(best, rate)
        print(line)
        print("%s: %.0f images/s on one core" % (label, best))
    return 0


def main():
    args = parse_args()
    return run_in_work_dir(lambda work: run(args, work), args.work_dir, "distc-image-bench-")


if __name__ == "__main__":
    sys.exit(main())

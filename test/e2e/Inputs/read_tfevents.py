#!/usr/bin/env python3
"""Reads dist-run's TensorBoard event file independently and checks it
against the metrics of the same run.

usage: read_tfevents.py LOGDIR METRICS.jsonl WORKDIR

LOGDIR must hold exactly one file, named events.out.tfevents.<10-digit unix
seconds>.<this host>. It is read as TFRecords (uint64 length, masked CRC-32C
of the length, data, masked CRC-32C of the data; both CRCs recomputed here
bit by bit), and each record decoded as a TensorBoard Event with
python3-protobuf, from Inputs/tensorboard/*.proto compiled into WORKDIR by
protoc. The first event must be file_version "brain.Event:2"; every other
one holds the scalars of one step, which must equal (as float32) the
metrics file's record of that step: train/<field> for loss, lr and
samples_per_sec, eval/<name> for eval_<name>.
"""
import json
import math
import os
import re
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(data):
    at = 0
    while at < len(data):
        if at + 12 > len(data):
            sys.exit("truncated record header at byte %d" % at)
        header = data[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[at + 8:at + 12])
        if length_crc != masked(crc32c(header)):
            sys.exit("record at byte %d: bad length CRC" % at)
        body = data[at + 12:at + 12 + length]
        (body_crc,) = struct.unpack("<I", data[at + 12 + length:at + 16 + length])
        if len(body) != length or body_crc != masked(crc32c(body)):
            sys.exit("record at byte %d: bad data CRC" % at)
        yield body
        at += 16 + length


def as_float32(value):
    if value is None:
        return float("nan")
    return struct.unpack("<f", struct.pack("<f", value))[0]


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def main(logdir, metrics_path, workdir):
    os.makedirs(workdir, exist_ok=True)
    subprocess.run(["protoc", "--python_out=" + workdir, "-I", os.path.join(HERE, "tensorboard"),
                    "event.proto", "summary.proto"], check=True)
    sys.path.insert(0, workdir)
    import event_pb2

    files = sorted(os.listdir(logdir))
    if len(files) != 1:
        sys.exit("expected one event file in %s, found %s" % (logdir, files))
    name = re.fullmatch(r"events\.out\.tfevents\.(\d{10})\.(.+)", files[0])
    if not name or name.group(2) != socket.gethostname():
        sys.exit("unexpected event file name %s" % files[0])
    created = int(name.group(1))

    with open(os.path.join(logdir, files[0]), "rb") as f:
        events = []
        for body in records(f.read()):
            event = event_pb2.Event()
            event.ParseFromString(body)
            events.append(event)
    first = events[0]
    if first.WhichOneof("what") != "file_version" or first.file_version != "brain.Event:2":
        sys.exit("the first event is not file_version brain.Event:2: %s" % first)
    if not created <= first.wall_time < created + 1:
        sys.exit("the first event's wall time %f is not the file name's second" % first.wall_time)

    metrics = {}
    with open(metrics_path) as f:
        for line in f:
            record = json.loads(line)
            metrics[record["step"]] = record  # the last record of a step counts
    fields = {"train/loss": "loss", "train/lr": "lr",
              "train/samples_per_sec": "samples_per_sec"}
    tags = set()
    last_time = first.wall_time
    for event in events[1:]:
        if event.WhichOneof("what") != "summary":
            sys.exit("step %d: not a summary event" % event.step)
        if not last_time <= event.wall_time <= time.time():
            sys.exit("step %d: wall time %f out of order" % (event.step, event.wall_time))
        last_time = event.wall_time
        record = metrics.get(event.step)
        if record is None:
            sys.exit("step %d: no such step in %s" % (event.step, metrics_path))
        expected = {tag: record[field] for tag, field in fields.items()}
        expected.update({"eval/" + k[5:]: v for k, v in record.items() if k.startswith("eval_")})
        got = {v.tag: v.simple_value for v in event.summary.value}
        if set(got) != set(expected):
            sys.exit("step %d: tags %s, the metrics have %s" % (event.step, sorted(got),
                                                                sorted(expected)))
        for tag, value in got.items():
            if not same(value, as_float32(expected[tag])):
                sys.exit("step %d: %s is %r, the metrics say %r" % (event.step, tag, value,
                                                                     expected[tag]))
        tags.update(got)
    steps = [e.step for e in events[1:]]
    if sorted(steps) != sorted(metrics):
        sys.exit("steps %s, the metrics have %s" % (steps, sorted(metrics)))
    print("%d events: brain.Event:2, then steps %d..%d; scalars match the metrics" %
          (len(events), steps[0], steps[-1]))
    print("tags: " + " ".join(sorted(tags)))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])

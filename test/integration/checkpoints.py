"""Reads DTF checkpoint files (runtime/checkpoint/README.md, format 1) for
the integration tests, independently of the C++ reader: the tests check
what the files hold against what a run should have computed."""

import array
import os
import re
import struct
import subprocess
import tempfile

ARRAY_TYPES = {1: "f", 2: "d", 3: "i", 4: "q", 5: "B"}
SHARD = re.compile(r"/part_(\d+)")


def read(path):
    """(global step, {name: (shape, array of the elements)})."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"DTFCKPT1" or data[-16:-8] != b"DTFCKEND":
        raise AssertionError("%s: not a DTF checkpoint" % path)
    version, count, step = struct.unpack_from("<IIq", data, 8)
    if version != 1:
        raise AssertionError("%s: format version %d" % (path, version))
    offset = 32
    tensors = {}
    for _ in range(count):
        (length,) = struct.unpack_from("<I", data, offset)
        name = data[offset + 4:offset + 4 + length].decode()
        offset += 4 + length
        dtype, rank = struct.unpack_from("<II", data, offset)
        shape = list(struct.unpack_from("<%dq" % rank, data, offset + 8))
        offset += 8 + 8 * rank
        (size,) = struct.unpack_from("<Q", data, offset)
        offset += 8 + 4
        values = array.array(ARRAY_TYPES[dtype])
        values.frombytes(data[offset:offset + size])
        offset += size + 4
        tensors[name] = (shape, values)
    return step, tensors


def merge_shards(tensors):
    """Shards "w/part_0", "w/part_1" (and their slots "w/Adam/part_0", ...)
    concatenated along dimension 0 under the unsharded name."""
    merged, parts = {}, {}
    for name, (shape, values) in tensors.items():
        match = SHARD.search(name)
        if not match:
            merged[name] = (shape, values)
            continue
        whole = name[:match.start()] + name[match.end():]
        parts.setdefault(whole, []).append((int(match.group(1)), shape, values))
    for name, shards in parts.items():
        shards.sort()
        shape = list(shards[0][1])
        shape[0] = sum(s[1][0] for s in shards)
        values = array.array(shards[0][2].typecode)
        for _, _, part in shards:
            values.extend(part)
        merged[name] = (shape, values)
    return merged


def max_difference(expected, actual):
    """The largest absolute difference of two checkpoints' tensors, and the
    name where it is; AssertionError if their names or shapes differ."""
    if sorted(expected) != sorted(actual):
        raise AssertionError("variables differ: %s vs %s" % (sorted(expected), sorted(actual)))
    worst, where = 0.0, None
    for name, (shape, values) in expected.items():
        other_shape, other = actual[name]
        if shape != other_shape:
            raise AssertionError("%s: shape %s vs %s" % (name, shape, other_shape))
        for a, b in zip(values, other):
            if abs(a - b) > worst or a != a or b != b:
                worst, where = abs(a - b) if a == a and b == b else float("inf"), name
    return worst, where


def snapshot(dtf_snapshot, flags):
    """What a running task holds, read by dtf-snapshot with `flags`
    (["--ps=HOST:PORT"] or ["--worker=HOST:PORT", "--task=NAME"]): (step,
    tensors) as read() returns them."""
    with tempfile.TemporaryDirectory(prefix="dtf-snapshot-") as directory:
        path = os.path.join(directory, "held.dtf")
        subprocess.run([dtf_snapshot] + flags + ["--out=" + path], check=True, timeout=60)
        return read(path)

#!/usr/bin/env python3
"""Writes a large TFRecord data set for the streaming-input benchmarks, on demand.

Never committed: the benchmarks call this to write, say, 4 GB of shards into
a scratch directory.

  build/bench-venv/bin/python bench/make_stream_data.py --out=DIR --bytes=4G \\
      [--shards=16] [--compression=none|gzip|zlib] [--kind=fashion|ctr] [--test]

writes DIR/train-0000K-of-0000N.tfrecord[.gz|.zlib] (as
examples/fashion_mnist_to_tfrecord.py names them; .gz is one gzip stream
over the whole file, .zlib one zlib-wrapped deflate stream, as TensorFlow's
TFRecordOptions(compression_type="GZIP" / "ZLIB") write them) and
DIR/meta.json, and prints each file, their total bytes and examples and the
time taken.

--kind=fashion (the default): Fashion-MNIST's 60,000 training images
(--data, the IDX files) repeated until --bytes, copy c of image i with the
id c * 60000 + i, each a tf.train.Example of

  image  bytes_list: 784 pixel bytes, a per-copy deterministic perturbation
         of the original: copy 0 as it is, copy c shifted by one of the 49
         shifts of up to 3 pixels each way (c mod 49, zeros shifted in),
         mirrored left to right for odd c div 49, and its non-zero pixels
         brightened by c div 98 (saturating), so no two copies are equal
  label  int64_list: the class id, 0 to 9
  id     int64_list: unique over the whole training set, 0 to examples - 1

(the features of fashion_mnist_to_tfrecord.py --id, in the same order).
Shards hold contiguous ranges of ids. --bytes is the size of the framed
records before compression (exactly the files' size with --compression=none),
so one --bytes gives the same examples whatever the compression; --examples
gives the count instead. --test also writes DIR/test-00000-of-00001.* of the
10,000 test images as they are, ids 0 to 9,999 (with --test and neither
--bytes nor --examples, only that file).

--kind=ctr: examples/ctr/make_ctr_data.py's click-through data (its
defaults; no id feature), --shards shards of examples_per_shard sized from
the bytes per example of a small probe run, and its test file (100,000
examples with --test, else 1,000), meta.json and inputs.txt. That generator
draws each example in Python: about 7,500 examples (2.7 MB) per second
and process, so 1G takes 3 to 4 minutes on 2 cores.

Speed (fashion): a process per shard (--jobs at a time, default the CPUs),
each building blocks of 8,192 framed records at once with NumPy (the
records' bytes as rows of one array, the CRC-32C of all rows computed
together, four bytes a step, with the two 65,536-entry tables of
examples/tfrecord_writer.py), about 250 MB/s a process before compression
(4G plain in 10 s on 2 cores); zlib's deflate (gzip, zlib at --level,
default 6 as TensorFlow's) is then the slow part, about 32 MB/s of records
a process (4G gzip in 66 s on 2 cores). Needs NumPy: build/bench-venv has
it (bash bench/setup_venv.sh), or Debian's python3-numpy. Files are
written under hidden temporary names and renamed when complete; shards of
another --shards or --compression left in DIR by an earlier run are
removed, so DIR/train-* is always one data set.
"""

import argparse
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLES = os.path.join(ROOT, "examples")
CTR_GENERATOR = os.path.join(EXAMPLES, "ctr", "make_ctr_data.py")
sys.path.insert(0, EXAMPLES)

import tfrecord_writer as writer  # noqa: E402
from fashion_mnist_to_tfrecord import read_idx  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None

BLOCK = 8192  # records built at once
PIXELS = 784
TRAIN_IMAGES = 60000
# The shifts (dy, dx) of the copies: (0, 0) first, then by distance.
SHIFTS = sorted(((dy, dx) for dy in range(-3, 4) for dx in range(-3, 4)),
                key=lambda s: (abs(s[0]) + abs(s[1]), s))
# ids below 128**k have varints of at most k bytes.
VARINT_LIMITS = [128 ** k for k in range(1, 10)]
SHARD_NAME = re.compile(r"^(train|test)-\d{5}-of-\d{5}\.tfrecord(\.gz|\.zlib)?$")


def parse_size(text):
    """'4G', '200M', '1.5g', '123456': bytes (K, M, G, T: powers of 1024)."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]?)i?b?\s*", text, re.IGNORECASE)
    if not match:
        raise argparse.ArgumentTypeError("%r: not a size such as 200M or 4G" % text)
    scale = 1024 ** " kmgt".index(match.group(2).lower() or " ")
    return int(float(match.group(1)) * scale)


# --- The fashion kind's records, built a block at a time -----------------

class Layout:
    """Where an Example{image, label, id} with an id varint of `id_bytes`
    bytes keeps its varying bytes, and its constant bytes; the framed
    record is header + record + masked CRC of the record."""

    def __init__(self, id_bytes):
        field, int64_feature, bytes_feature = writer.field, writer.int64_feature, \
            writer.bytes_feature
        image = field(1, field(1, b"image") + field(2, bytes_feature([bytes(PIXELS)])))
        label = field(1, field(1, b"label") + field(2, int64_feature([0])))
        sample_id = 1 << (7 * (id_bytes - 1))
        ident = field(1, field(1, b"id") + field(2, int64_feature([sample_id])))
        body = image + label + ident
        record = field(1, body)
        self.id_bytes = id_bytes
        self.size = len(record)
        # Each piece: (offset in the record, constant bytes or None).
        outer = len(record) - len(body)
        self.image_at = outer + len(image) - PIXELS
        self.label_at = outer + len(image) + len(label) - 1
        self.id_at = len(record) - id_bytes
        self.template = np.frombuffer(record, dtype=np.uint8).copy()
        length = len(record).to_bytes(8, "little")
        self.header = np.frombuffer(length + writer.masked_crc(length).to_bytes(4, "little"),
                                    dtype=np.uint8)
        # The constant runs between the varying bytes.
        self.constants = [(0, self.image_at),
                          (self.image_at + PIXELS, self.label_at),
                          (self.label_at + 1, self.id_at)]


_LAYOUTS = {}


def layout(id_bytes):
    if id_bytes not in _LAYOUTS:
        _LAYOUTS[id_bytes] = Layout(id_bytes)
    return _LAYOUTS[id_bytes]


def varint_bytes(value):
    return next(k for k, limit in enumerate(VARINT_LIMITS, 1) if value < limit)


_CRC_TABLES = None


def crc_tables():
    global _CRC_TABLES
    if _CRC_TABLES is None:
        low, high = writer._word_tables()
        _CRC_TABLES = (np.frombuffer(low, dtype=np.uint32).copy(),
                       np.frombuffer(high, dtype=np.uint32).copy(),
                       np.array(writer._TABLE, dtype=np.uint32))
    return _CRC_TABLES


def masked_crc_rows(rows):
    """The masked CRC-32C of each row of a uint8 array (n, m), as uint32,
    all rows at once: four bytes a step as examples/tfrecord_writer.py
    does, each step a few NumPy operations over the n rows."""
    low, high, table = crc_tables()
    n, m = rows.shape
    m4 = m & ~3
    # Words of column-major order: words[j] is the j-th word of every row.
    words = np.ascontiguousarray(rows[:, :m4]).view("<u4").T.copy()
    crc = np.full(n, 0xFFFFFFFF, dtype=np.uint32)
    x = np.empty(n, dtype=np.uint32)
    halves = x.view(np.uint16)  # little-endian: [0::2] the low halves
    x_low, x_high = halves[0::2], halves[1::2]
    t = np.empty(n, dtype=np.uint32)
    for column in words:
        np.bitwise_xor(crc, column, out=x)
        np.take(low, x_low, out=crc)
        np.take(high, x_high, out=t)
        crc ^= t
    for j in range(m4, m):
        np.bitwise_xor(crc, rows[:, j], out=x)
        x &= 0xFF
        crc >>= 8
        crc ^= table.take(x)
    crc ^= np.uint32(0xFFFFFFFF)
    # ((crc >> 15) | (crc << 17)) + 0xA282EAD8, mod 2^32.
    return ((crc >> np.uint32(15)) | (crc << np.uint32(17))) + np.uint32(0xA282EAD8)


def framed_block(images, labels, ids, id_bytes):
    """The framed records of Examples{image, label, id}, one row each:
    images uint8 (n, 784), labels and ids int64 (n,), every id a varint
    of id_bytes bytes."""
    lay = layout(id_bytes)
    n, m = len(ids), lay.size
    out = np.empty((n, 12 + m + 4), dtype=np.uint8)
    out[:, :12] = lay.header
    record = out[:, 12:12 + m]
    for begin, end in lay.constants:
        record[:, begin:end] = lay.template[begin:end]
    record[:, lay.image_at:lay.image_at + PIXELS] = images
    record[:, lay.label_at] = labels
    for k in range(id_bytes):
        byte = (ids >> (7 * k)) & 0x7F
        if k < id_bytes - 1:
            byte |= 0x80
        record[:, lay.id_at + k] = byte
    out[:, 12 + m:] = masked_crc_rows(record).astype("<u4").view(np.uint8).reshape(n, 4)
    return out


def perturb(images, copy):
    """Copy `copy` of images (n, 28, 28) uint8, as (n, 784)."""
    n = len(images)
    if copy == 0:
        return images.reshape(n, PIXELS)
    dy, dx = SHIFTS[copy % len(SHIFTS)]
    out = np.zeros_like(images)
    rows, cols = images.shape[1:]
    out[:, max(dy, 0):rows + min(dy, 0), max(dx, 0):cols + min(dx, 0)] = \
        images[:, max(-dy, 0):rows + min(-dy, 0), max(-dx, 0):cols + min(-dx, 0)]
    if (copy // len(SHIFTS)) % 2:
        out = out[:, :, ::-1]
    brighten = copy // (2 * len(SHIFTS))
    if brighten:
        wide = out.astype(np.uint16)
        wide[wide > 0] += brighten
        out = np.minimum(wide, 255).astype(np.uint8)
    return np.ascontiguousarray(out).reshape(n, PIXELS)


def check_layout():
    """The block builder's records against tfrecord_writer's, byte for byte."""
    from fashion_mnist_to_tfrecord import example
    rng = np.random.default_rng(0)
    for value in (0, 127, 128, 16383, 16384, 2097151, 2097152, 300000000):
        images = rng.integers(0, 256, size=(2, PIXELS), dtype=np.uint8)
        labels = np.array([3, 9], dtype=np.int64)
        ids = np.array([value, value], dtype=np.int64)
        block = framed_block(images, labels, ids, varint_bytes(value))
        expected = b"".join(writer.frame(example(bytes(images[i]), int(labels[i]), value))
                            for i in range(2))
        if block.tobytes() != expected:
            sys.exit("internal error: the records of id %d differ from tfrecord_writer's" % value)


# --- Shards ---------------------------------------------------------------

_DATA = {}


def load(directory, split):
    key = (directory, split)
    if key not in _DATA:
        _, dims, pixels = read_idx(directory, split + "-images-idx3-ubyte")
        _, _, labels = read_idx(directory, split + "-labels-idx1-ubyte")
        images = np.frombuffer(pixels, dtype=np.uint8).reshape(dims[0], dims[1], dims[2])
        _DATA[key] = (images, np.frombuffer(labels, dtype=np.uint8).astype(np.int64))
    return _DATA[key]


def write_fashion_shard(task):
    """Writes the examples of ids [begin, end) of split ("train" or "t10k")."""
    path, split, begin, end, compression, level, directory = task
    start = time.time()
    images, labels = load(directory, split)
    count = len(images)
    with writer.RecordFile(path, compression, level) as f:
        position = begin
        while position < end:
            copy = position // count
            id_bytes = varint_bytes(position)
            stop = min(end, position + BLOCK, (copy + 1) * count, VARINT_LIMITS[id_bytes - 1])
            first, last = position - copy * count, stop - copy * count
            block = framed_block(perturb(images[first:last], copy), labels[first:last],
                                 np.arange(position, stop, dtype=np.int64), id_bytes)
            f.write(memoryview(block).cast("B"))
            position = stop
        raw = f.bytes_in
    return {"path": path, "examples": end - begin, "bytes": os.path.getsize(path),
            "raw_bytes": raw, "seconds": time.time() - start}


def remove_stale(out, keep, splits=("train", "test")):
    """Removes the shards of `splits` in `out` not named in `keep`."""
    for name in sorted(os.listdir(out)):
        match = SHARD_NAME.match(name)
        if match and match.group(1) in splits and name not in keep:
            os.unlink(os.path.join(out, name))
            print("removed %s (of an earlier run)" % os.path.join(out, name))


def run_fashion(args, out):
    check_layout()
    suffix = writer.SUFFIXES[args.compression]
    tasks = []
    examples = 0
    if args.examples or args.bytes:
        if args.examples:
            examples = args.examples
        else:  # the framed size of a record with the largest id's varint
            examples = max(1, args.bytes // (16 + layout(4).size))
            examples = max(1, args.bytes // (16 + layout(varint_bytes(examples - 1)).size))
        for k in range(args.shards):
            name = "train-%05d-of-%05d%s" % (k, args.shards, suffix)
            tasks.append((os.path.join(out, name), "train",
                          examples * k // args.shards, examples * (k + 1) // args.shards,
                          args.compression, args.level, args.data))
    if args.test:
        tasks.append((os.path.join(out, "test-00000-of-00001" + suffix), "t10k", 0, 10000,
                      args.compression, args.level, args.data))
    remove_stale(out, {os.path.basename(t[0]) for t in tasks},
                 {"train" if t[1] == "train" else "test" for t in tasks})
    # Long shards first, so that the test file fills a gap at the end.
    tasks.sort(key=lambda t: t[2] - t[3])
    results = run_tasks(write_fashion_shard, tasks, args.jobs)
    meta = {
        "generator": "bench/make_stream_data.py",
        "kind": "fashion",
        "compression": args.compression,
        "features": {"image": "bytes (784 pixels)", "label": "int64", "id": "int64"},
        "train": {"files": os.path.join(out, "train-*"), "shards": args.shards,
                  "examples": examples,
                  "bytes": sum(r["bytes"] for r in results if "/train-" in r["path"]),
                  "raw_bytes": sum(r["raw_bytes"] for r in results if "/train-" in r["path"])}
        if examples else None,
        "test": {"files": os.path.join(out, "test-*"), "examples": 10000} if args.test else None,
    }
    return results, meta


def run_tasks(function, tasks, jobs):
    results = []
    processes = max(1, min(jobs, len(tasks)))
    if processes == 1:
        for task in tasks:
            results.append(function(task))
            report(results[-1])
    else:
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            for result in pool.imap_unordered(function, tasks):
                results.append(result)
                report(result)
    return results


def report(result):
    print("%s: %d examples, %d bytes (%.1f MB/s)" % (
        result["path"], result["examples"], result["bytes"],
        result["raw_bytes"] / max(result["seconds"], 1e-9) / 1e6), flush=True)


# --- The ctr kind: examples/ctr/make_ctr_data.py ---------------------------

def run_ctr(args, out):
    if args.shards < 1:
        sys.exit("--shards: must be at least 1")
    if args.examples:
        per_shard = -(-args.examples // args.shards)
    else:
        probe_examples = 2000
        probe = tempfile.mkdtemp(prefix="ctr-probe-")
        try:
            subprocess.run([sys.executable, CTR_GENERATOR, "--out=" + probe, "--train_shards=1",
                            "--examples_per_shard=%d" % probe_examples, "--test_examples=1",
                            "--jobs=1", "--seed=%d" % args.seed],
                           check=True, stdout=subprocess.DEVNULL)
            per_example = os.path.getsize(
                os.path.join(probe, "train-00000-of-00001.tfrecord")) / probe_examples
        finally:
            shutil.rmtree(probe, ignore_errors=True)
        per_shard = max(1, int(args.bytes / per_example / args.shards))
        print("ctr: about %.0f bytes per example: %d examples per shard"
              % (per_example, per_shard))
    remove_stale(out, set())
    subprocess.run([sys.executable, CTR_GENERATOR, "--out=" + out,
                    "--train_shards=%d" % args.shards, "--examples_per_shard=%d" % per_shard,
                    "--test_examples=%d" % (100000 if args.test else 1000),
                    "--compression=" + args.compression, "--jobs=%d" % args.jobs,
                    "--seed=%d" % args.seed], check=True)
    with open(os.path.join(out, "meta.json")) as f:
        written = json.load(f)
    results = []
    for name in sorted(os.listdir(out)):
        if SHARD_NAME.match(name):
            split = "train" if name.startswith("train") else "test"
            examples = (written["train"]["examples_per_shard"] if split == "train"
                        else written["test"]["examples"])
            size = os.path.getsize(os.path.join(out, name))
            results.append({"path": os.path.join(out, name), "examples": examples,
                            "bytes": size,
                            "raw_bytes": size if args.compression == "none" else None})
    return results, None  # make_ctr_data.py writes its own meta.json


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="directory of the TFRecord files")
    parser.add_argument("--bytes", type=parse_size,
                        help="about this many bytes of framed records before compression "
                             "(K, M, G: powers of 1024), e.g. 1G")
    parser.add_argument("--examples", type=int, help="this many training examples instead")
    parser.add_argument("--shards", type=int, default=8, help="training shards (default 8)")
    parser.add_argument("--compression", choices=writer.COMPRESSIONS, default="none")
    parser.add_argument("--level", type=int, default=6,
                        help="gzip/zlib compression level, 1 to 9 (default 6)")
    parser.add_argument("--kind", choices=["fashion", "ctr"], default="fashion")
    parser.add_argument("--test", action="store_true",
                        help="also write test-00000-of-00001 (fashion: the 10,000 test images, "
                             "ids 0 to 9,999)")
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist",
                        help="directory of the Fashion-MNIST IDX files")
    parser.add_argument("--seed", type=int, default=1, help="--kind=ctr: the generator's seed")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes writing shards at a time (default: the CPUs)")
    args = parser.parse_args()
    if args.bytes is not None and args.examples is not None:
        sys.exit("--bytes and --examples: give one")
    if not (args.bytes or args.examples or args.test):
        sys.exit("--bytes or --examples (or --test): how much to write")
    for name in ("shards", "jobs"):
        if getattr(args, name) < 1:
            sys.exit("--%s: must be at least 1" % name)
    if not 1 <= args.level <= 9:
        sys.exit("--level: 1 to 9")
    if args.kind == "fashion" and np is None:
        sys.exit("make_stream_data.py needs NumPy: run it with build/bench-venv/bin/python "
                 "(bash bench/setup_venv.sh) or apt-get install python3-numpy")
    if args.kind == "ctr" and not (args.bytes or args.examples):
        sys.exit("--kind=ctr: --bytes or --examples")
    os.makedirs(args.out, exist_ok=True)
    out = os.path.abspath(args.out)

    start = time.time()
    results, meta = (run_fashion if args.kind == "fashion" else run_ctr)(args, out)
    seconds = time.time() - start
    total_bytes = sum(r["bytes"] for r in results)
    total_examples = sum(r["examples"] for r in results)
    if meta is not None:
        meta["seconds"] = round(seconds, 1)
        meta_path = os.path.join(out, "meta.json")
        try:  # a split not written this time keeps its entry (--test alone)
            with open(meta_path) as f:
                earlier = json.load(f)
            if (earlier.get("kind"), earlier.get("compression")) == ("fashion", args.compression):
                for split in ("train", "test"):
                    if meta[split] is None:
                        meta[split] = earlier.get(split)
        except (OSError, ValueError):
            pass
        with open(os.path.join(out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=2)
            f.write("\n")
    processes = max(1, min(args.jobs, len(results)))
    if all(r["raw_bytes"] is not None for r in results):
        raw = sum(r["raw_bytes"] for r in results)
        print("%d files, %d bytes (%.1f MiB; %.1f MiB before compression), %d examples "
              "(%s, %s) in %.1f s: %.1f MB/s of records with %d processes"
              % (len(results), total_bytes, total_bytes / 2 ** 20, raw / 2 ** 20,
                 total_examples, args.kind, args.compression, seconds, raw / seconds / 1e6,
                 processes))
    else:
        print("%d files, %d bytes (%.1f MiB), %d examples (%s, %s) in %.1f s: "
              "%.1f MB/s of files with %d processes"
              % (len(results), total_bytes, total_bytes / 2 ** 20, total_examples, args.kind,
                 args.compression, seconds, total_bytes / seconds / 1e6, processes))


if __name__ == "__main__":
    main()

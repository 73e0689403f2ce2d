#!/usr/bin/env python3
"""tf.data's reading of TFRecord files: the peer of DTF's reader benchmark.

  build/bench-venv/bin/python bench/tfdata_reader.py --files='DIR/train-*' \\
      --threads=T --batch=B [--epochs=E] [--compression=none|gzip|zlib|auto] \\
      --feature=image:bytes --feature=label:int64 --feature=id:int64

reads the files as

  tf.data.TFRecordDataset(files, compression_type=..., num_parallel_reads=T)
    .batch(B)
    .map(lambda x: tf.io.parse_example(x, features), num_parallel_calls=T)
    .prefetch(2)

each --feature=NAME:TYPE[:N] a tf.io.FixedLenFeature([] or [N], TYPE) (TYPE
bytes, int64 or float; N=varlen: a tf.io.VarLenFeature), a bytes feature
then decoded as DTF's reader decodes a `scale=` binding:
tf.io.decode_raw(x, tf.uint8), cast to float32 and multiplied by --scale
(default 1/255), so that both do the same work. TensorFlow's inter-op and
intra-op thread pools and tf.data's own (private_threadpool_size) are
pinned to T threads. --epochs=E reads the files E times (Dataset.repeat
before the batching: one stream); --shuffle_buffer=N adds a shuffle buffer
of N records after the reading (default 0: none).

Only the iteration is timed, from after the first (warm-up) batch to the
last; it prints one line in the shape of DTF's reader benchmark
(`reader: R records in S s: X records/s, Y MB/s (N threads)`):

  tf.data: R records in S s: X records/s, Y MB/s (T threads)

R the records after the warm-up batch and Y their bytes as DTF's reader
benchmark counts them: the records' bytes as read, decompressed, framing
included (each record's length + 16), MB = 10^6 bytes; the map adds them up
per batch (tf.strings.length, a small cost beside parse_example).
"""

import argparse
import glob
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def parse_feature(text, tf):
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[0]:
        sys.exit("--feature=%s: not NAME:TYPE[:N|:varlen]" % text)
    name, kind = parts[0], parts[1]
    dtypes = {"bytes": tf.string, "int64": tf.int64, "float": tf.float32}
    if kind not in dtypes:
        sys.exit("--feature=%s: TYPE is bytes, int64 or float" % text)
    if len(parts) == 3 and parts[2] == "varlen":
        return name, kind, tf.io.VarLenFeature(dtypes[kind])
    shape = []
    if len(parts) == 3:
        try:
            shape = [int(parts[2])]
        except ValueError:
            sys.exit("--feature=%s: N is a number or varlen" % text)
    return name, kind, tf.io.FixedLenFeature(shape, dtypes[kind])


def detect(path):
    """GZIP or ZLIB by the file's suffix (.gz, .zlib), else GZIP by gzip's
    magic bytes, else plain ("")."""
    if path.endswith(".gz"):
        return "GZIP"
    if path.endswith(".zlib"):
        return "ZLIB"
    with open(path, "rb") as f:
        return "GZIP" if f.read(3) == b"\x1f\x8b\x08" else ""


def compression_of(files, flag):
    if flag != "auto":
        return {"none": "", "gzip": "GZIP", "zlib": "ZLIB"}[flag]
    kinds = {detect(f) for f in files}
    if len(kinds) != 1:
        sys.exit("--compression=auto: the files mix compressions; give --compression")
    return kinds.pop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", required=True,
                        help="a glob of the TFRecord files (comma-separated globs allowed)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--compression", choices=["auto", "none", "gzip", "zlib"],
                        default="auto",
                        help="default: by the files' suffix (.gz, .zlib) or gzip's magic bytes")
    parser.add_argument("--feature", action="append", default=[],
                        help="NAME:TYPE[:N|:varlen], TYPE bytes, int64 or float (repeatable)")
    parser.add_argument("--scale", type=float, default=1.0 / 255,
                        help="a bytes feature's uint8 values are multiplied by this")
    parser.add_argument("--shuffle_buffer", type=int, default=0,
                        help="a shuffle buffer of this many records (default 0: none)")
    args = parser.parse_args()
    if args.threads < 1 or args.batch < 1 or args.epochs < 1 or args.shuffle_buffer < 0:
        sys.exit("--threads, --batch, --epochs: at least 1; --shuffle_buffer: at least 0")
    files = sorted({f for pattern in args.files.split(",") for f in glob.glob(pattern)})
    if not files:
        sys.exit("--files=%s: no such files" % args.files)
    if not args.feature:
        sys.exit("--feature: give at least one (e.g. --feature=image:bytes)")

    import tensorflow as tf
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    features = [parse_feature(text, tf) for text in args.feature]
    spec = {name: feature for name, _, feature in features}
    decoded = [name for name, kind, feature in features
               if kind == "bytes" and isinstance(feature, tf.io.FixedLenFeature)]
    scale = tf.constant(args.scale, tf.float32)

    def parse(serialized):
        parsed = tf.io.parse_example(serialized, spec)
        for name in decoded:
            parsed[name] = tf.cast(tf.io.decode_raw(parsed[name], tf.uint8), tf.float32) * scale
        # The records and their framed bytes, as DTF's reader counts them.
        records = tf.size(serialized, out_type=tf.int64)
        framed = tf.reduce_sum(tf.cast(tf.strings.length(serialized), tf.int64)) + 16 * records
        return parsed, tf.stack([records, framed])

    compression = compression_of(files, args.compression)
    dataset = tf.data.TFRecordDataset(files, compression_type=compression,
                                      num_parallel_reads=args.threads)
    if args.epochs > 1:
        dataset = dataset.repeat(args.epochs)
    if args.shuffle_buffer:
        dataset = dataset.shuffle(args.shuffle_buffer)
    dataset = dataset.batch(args.batch)
    dataset = dataset.map(parse, num_parallel_calls=args.threads)
    dataset = dataset.prefetch(2)
    options = tf.data.Options()
    options.threading.private_threadpool_size = args.threads
    dataset = dataset.with_options(options)

    iterator = iter(dataset)
    try:
        next(iterator)  # the warm-up batch, not timed
    except StopIteration:
        sys.exit("%s: no records" % args.files)
    records = framed = 0
    start = time.perf_counter()
    for _, counts in iterator:
        batch_records, batch_bytes = counts.numpy()
        records += int(batch_records)
        framed += int(batch_bytes)
    seconds = time.perf_counter() - start
    print("tf.data: %d records in %.3f s: %.0f records/s, %.1f MB/s (%d threads)"
          % (records, seconds, records / seconds if seconds else 0.0,
             framed / seconds / 1e6 if seconds else 0.0, args.threads), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Converts the Fashion-MNIST IDX files into TFRecord shards of tf.train.Example.

As TensorFlow's convert_to_records.py does for MNIST: one Example per image,
with the features

  image  bytes_list: the 784 raw pixel bytes, row by row
  label  int64_list: the class id, 0 to 9
  id     int64_list (with --id only): the example's index in its split,
         0 to 59,999 over all the training shards (0 to 9,999 in the
         test file), which tests count to check that each example is
         trained exactly once per epoch

written to <out>/train-0000K-of-0000N.tfrecord[.gz|.zlib] and
<out>/test-00000-of-00001.tfrecord[.gz|.zlib], each file gzip-compressed
(--compression=gzip, the default), zlib-compressed (--compression=zlib) or
plain (--compression=none) as a whole, as TensorFlow's
TFRecordOptions(compression_type="GZIP" / "ZLIB" / "") writes it. DTF
reads them with

  dtf-run --batch_size=100 \\
    --input=image=tfrecord:<out>/train-*,scale=1/255 \\
    --input=label=tfrecord:<out>/train-* \\
    --eval_input=image=tfrecord:<out>/test-*,scale=1/255 \\
    --eval_input=label=tfrecord:<out>/test-* examples/image_label_mlp.mlir

Only the standard library is needed (TensorFlow is not): the Example protos
are encoded by hand in protobuf's wire format, and the records are framed
with their masked CRC-32C as TensorFlow's record_writer.cc frames them
(examples/tfrecord_writer.py, beside this script). Each file is written
under a temporary name and renamed when complete, so an interrupted run
leaves no half-written shard.
"""

import argparse
import gzip
import os
import struct
import sys

from tfrecord_writer import COMPRESSIONS, SUFFIXES, bytes_feature, \
    example as encode_example, int64_feature, write_records


def example(pixels, label, example_id=None):
    """tf.train.Example{features{feature{"image": bytes_list, "label": int64_list}}},
    and "id": int64_list when example_id is not None."""
    features = [("image", bytes_feature([pixels])), ("label", int64_feature([label]))]
    if example_id is not None:
        features.append(("id", int64_feature([example_id])))
    return encode_example(features)


def read_idx(directory, name):
    for path in (os.path.join(directory, name + ".gz"), os.path.join(directory, name)):
        if os.path.exists(path):
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rb") as f:
                data = f.read()
            magic, = struct.unpack(">I", data[:4])
            rank = magic & 0xFF
            if magic >> 8 != 0x08 or rank < 1:
                sys.exit("%s: not an IDX file of unsigned bytes (magic 0x%08x)" % (path, magic))
            dims = struct.unpack(">%dI" % rank, data[4:4 + 4 * rank])
            return path, dims, data[4 + 4 * rank:]
    sys.exit("%s: not found (nor %s.gz)" % (os.path.join(directory, name),
                                            os.path.join(directory, name)))


def convert(directory, split, out, prefix, shards, compression, ids=False):
    images_path, dims, pixels = read_idx(directory, split + "-images-idx3-ubyte")
    labels_path, label_dims, labels = read_idx(directory, split + "-labels-idx1-ubyte")
    count, size = dims[0], dims[1] * dims[2]
    if label_dims[0] != count:
        sys.exit("%s and %s: %d images but %d labels" %
                 (images_path, labels_path, count, label_dims[0]))
    suffix = SUFFIXES[compression]
    for shard in range(shards):
        name = "%s-%05d-of-%05d%s" % (prefix, shard, shards, suffix)
        path = os.path.join(out, name)
        # Contiguous shards: a reader's own Dataset.shard() interleaves them.
        begin, end = count * shard // shards, count * (shard + 1) // shards
        write_records(path, (example(pixels[i * size:(i + 1) * size], labels[i],
                                     i if ids else None)
                             for i in range(begin, end)),
                      compression=compression, level=9)
        print("%s: %d examples" % (path, end - begin))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist",
                        help="directory of the IDX files")
    parser.add_argument("--out", required=True, help="directory of the TFRecord files")
    parser.add_argument("--train-shards", type=int, default=4)
    parser.add_argument("--compression", choices=COMPRESSIONS, default="gzip",
                        help="each file compressed as a whole (default gzip)")
    parser.add_argument("--id", action="store_true",
                        help="add the int64 feature id: each example's index in its split")
    args = parser.parse_args()
    if args.train_shards < 1:
        sys.exit("--train-shards: must be at least 1")
    os.makedirs(args.out, exist_ok=True)
    convert(args.data, "train", args.out, "train", args.train_shards, args.compression, args.id)
    convert(args.data, "t10k", args.out, "test", 1, args.compression, args.id)


if __name__ == "__main__":
    main()

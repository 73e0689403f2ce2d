"""Any model on any data (dtf-run's --input, --eval_input, --batch_size).

- convert: examples/fashion_mnist_to_tfrecord.py writes Fashion-MNIST as
  gzip-compressed TFRecord shards of tf.train.Example (the fixture of the
  cases below).
- tfrecord: examples/image_label_mlp.mlir (placeholders `image` and int64
  `label`, dynamic batch) trains from those shards on 1 PS + 2 workers to a
  test accuracy of at least 0.80.
- npz: the classic MLP (`x`, one-hot `y_`) trains from a .npz archive
  written here with the standard library, the labels one-hot encoded by
  `onehot=10`; bindings come from an --input_file.
- batch-sizes: the dynamic-batch model runs with --batch_size=32 and 128,
  each compiled for its batch (the workers say their batch size).
- errors: each bad input is one line naming the file (and record) or the
  placeholder at fault, with a non-zero exit, before any task starts and
  before --logdir holds anything.
"""

import argparse
import gzip
import io
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

import cluster

EXAMPLES = os.path.join(cluster.ROOT, "examples")
IMAGE_LABEL = os.path.join(EXAMPLES, "image_label_mlp.mlir")
CONVERTER = os.path.join(EXAMPLES, "fashion_mnist_to_tfrecord.py")


def tfrecord_inputs(directory, split="train", flag="--input"):
    files = os.path.join(directory, split + "-*")
    return [flag + "=image=tfrecord:" + files + ",scale=1/255",
            flag + "=label=tfrecord:" + files]


def convert(args):
    shutil.rmtree(args.tfrecords, ignore_errors=True)
    subprocess.run([sys.executable, CONVERTER, "--data=" + cluster.DATA,
                    "--out=" + args.tfrecords, "--train-shards=4"], check=True)
    names = sorted(os.listdir(args.tfrecords))
    cluster.check(names == ["test-00000-of-00001.tfrecord.gz"] +
                  ["train-%05d-of-00004.tfrecord.gz" % i for i in range(4)],
                  "unexpected files: %s" % names)


def tfrecord(args):
    accuracy, _ = cluster.train_local(
        args.dtf_run,
        ["--train_steps=1500", "--batch_size=100"] +
        tfrecord_inputs(args.tfrecords) +
        tfrecord_inputs(args.tfrecords, "test", "--eval_input"),
        IMAGE_LABEL)
    print("TFRecord input, 1 PS + 2 workers: test accuracy %.4f" % accuracy)
    cluster.check(accuracy >= 0.80, "test accuracy %.4f < 0.80" % accuracy)


def read_idx(name):
    with gzip.open(os.path.join(cluster.DATA, name + ".gz"), "rb") as f:
        data = f.read()
    rank = data[3]
    dims = struct.unpack(">%dI" % rank, data[4:4 + 4 * rank])
    return dims, data[4 + 4 * rank:]


def npy(descr, shape, payload):
    """The bytes of a version 1.0 .npy file, as numpy.save writes them."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % d for d in shape).rstrip(" "))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + payload


def write_npz(path, split):
    dims, pixels = read_idx(split + "-images-idx3-ubyte")
    _, labels = read_idx(split + "-labels-idx1-ubyte")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("images.npy", npy("|u1", (dims[0], dims[1] * dims[2]), pixels))
        archive.writestr("labels.npy", npy("|u1", (dims[0],), labels))


def npz(args):
    train, test = os.path.join(args.work, "train.npz"), os.path.join(args.work, "test.npz")
    write_npz(train, "train")
    write_npz(test, "t10k")
    bindings = os.path.join(args.work, "inputs.txt")
    with open(bindings, "w") as f:
        f.write("# Fashion-MNIST from NumPy archives\n"
                "input x=npz:%s,key=images,scale=1/255\n"
                "input y_=npz:%s,key=labels,onehot=10\n"
                "eval_input x=npz:%s,key=images,scale=1/255\n"
                "eval_input y_=npz:%s,key=labels,onehot=10\n" % (train, train, test, test))
    accuracy, _ = cluster.train_local(args.dtf_run, ["--train_steps=600", "--input_file=" + bindings],
                              cluster.MLP)
    print(".npz input: test accuracy %.4f" % accuracy)
    cluster.check(accuracy >= 0.75, "test accuracy %.4f < 0.75" % accuracy)


def batch_sizes(args):
    for batch in [32, 128]:
        accuracy, output = cluster.train_local(
            args.dtf_run,
            ["--train_steps=300", "--batch_size=%d" % batch, "--log_every=100"] +
            tfrecord_inputs(args.tfrecords) +
            tfrecord_inputs(args.tfrecords, "test", "--eval_input"),
            IMAGE_LABEL)
        print("--batch_size=%d: test accuracy %.4f" % (batch, accuracy))
        cluster.check("async, batches of %d," % batch in output,
                      "the workers do not report batches of %d:\n%s" % (batch, output[-2000:]))
        cluster.check(accuracy >= 0.6, "--batch_size=%d: test accuracy %.4f" % (batch, accuracy))


def expect_error(dtf_run, name, flags, model, expected, logdir):
    """One line holding each of `expected`, a non-zero exit, an empty logdir."""
    shutil.rmtree(logdir, ignore_errors=True)
    argv = [dtf_run, "--local", "--ps=1", "--workers=2", "--progress=false",
            "--logdir=" + logdir] + flags + [model]
    start = time.time()
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=120)
    output = result.stdout.strip()
    print("%s: exit %d after %.1f s: %s" % (name, result.returncode, time.time() - start, output))
    cluster.check(result.returncode != 0, "%s: exit status 0" % name)
    cluster.check(len(output.splitlines()) == 1,
                  "%s: expected one line, got:\n%s" % (name, output))
    for text in expected:
        cluster.check(text in output, "%s: %r is not in %r" % (name, text, output))
    cluster.check(not os.path.exists(logdir) or not os.listdir(logdir),
                  "%s: the logdir holds %s" % (name, os.listdir(logdir)))


def errors(args):
    dtf, logdir = args.dtf_run, os.path.join(args.work, "logdir")
    shards = os.path.join(args.tfrecords, "train-*")
    test = os.path.join(args.tfrecords, "test-00000-of-00001.tfrecord.gz")
    static = ["--batch_size=100"]

    expect_error(dtf, "a placeholder with no input",
                 static + ["--input=image=tfrecord:%s,scale=1/255" % shards], IMAGE_LABEL,
                 ["placeholder 'label'", "has no input", "--input=label="], logdir)
    expect_error(dtf, "a feature missing from an Example",
                 static + ["--input=image=tfrecord:%s,scale=1/255" % shards,
                           "--input=label=tfrecord:%s,feature=class" % shards], IMAGE_LABEL,
                 [os.path.join(args.tfrecords, "train-00000-of-00004.tfrecord.gz"),
                  "record 0: the Example has no feature 'class' (it has: image, label)"],
                 logdir)
    expect_error(dtf, "a shape that does not fit the placeholder",
                 static + ["--input=image=tfrecord:%s,feature=label" % shards,
                           "--input=label=tfrecord:%s" % shards], IMAGE_LABEL,
                 ["input of placeholder 'image' (f32 [784] per example)",
                  "holds int64 [1] per example (1 elements), not 784"], logdir)
    floats = os.path.join(args.work, "labels.npy")
    with open(floats, "wb") as f:
        f.write(npy("<f4", (60000,), struct.pack("<60000f", *([1.0] * 60000))))
    expect_error(dtf, "a dtype that does not fit the placeholder",
                 static + ["--input=image=tfrecord:%s,scale=1/255" % shards,
                           "--input=label=npy:" + floats], IMAGE_LABEL,
                 ["input of placeholder 'label' (i64 [] per example) from " + floats,
                  "floats do not convert to an integer placeholder"], logdir)

    # A plain copy of the test shard, a byte of record 5's data flipped, and
    # the same copy cut short in record 7.
    with gzip.open(test, "rb") as f:
        plain = bytearray(f.read())
    offset, record = 0, 0
    offsets = []
    while offset < len(plain):
        length, = struct.unpack("<Q", plain[offset:offset + 8])
        offsets.append(offset)
        offset += 16 + length
    corrupt = os.path.join(args.work, "corrupt.tfrecord")
    flipped = bytearray(plain)
    flipped[offsets[5] + 12 + 40] ^= 0x01
    with open(corrupt, "wb") as f:
        f.write(flipped)
    expect_error(dtf, "a TFRecord with a bad CRC",
                 static + ["--input=image=tfrecord:%s,scale=1/255" % corrupt,
                           "--input=label=tfrecord:%s" % corrupt], IMAGE_LABEL,
                 [corrupt + ": record 5 at offset %d: data CRC mismatch" % offsets[5]], logdir)
    truncated = os.path.join(args.work, "truncated.tfrecord")
    with open(truncated, "wb") as f:
        f.write(plain[:offsets[7] + 100])
    expect_error(dtf, "a truncated TFRecord",
                 static + ["--input=image=tfrecord:%s,scale=1/255" % truncated,
                           "--input=label=tfrecord:%s" % truncated], IMAGE_LABEL,
                 [truncated + ": record 7 at offset %d: truncated" % offsets[7]], logdir)
    empty = os.path.join(args.work, "nothing-here-*.tfrecord")
    expect_error(dtf, "an empty glob",
                 static + ["--input=image=tfrecord:%s,scale=1/255" % empty,
                           "--input=label=tfrecord:%s" % shards], IMAGE_LABEL,
                 [empty + ": no file matches"], logdir)

    # Batch sizes: a dynamic model needs one; a static model keeps its own.
    expect_error(dtf, "a dynamic batch without --batch_size",
                 tfrecord_inputs(args.tfrecords), IMAGE_LABEL,
                 ["image_label_mlp.mlir:", "placeholder 'image' has a dynamic batch "
                  "('tensor<?x784xf32>'): give --batch_size"], logdir)
    expect_error(dtf, "a --batch_size that contradicts a static model",
                 ["--batch_size=32"], cluster.MLP,
                 ["--batch_size=32 does not match the model's batch of 100"], logdir)
    expect_error(dtf, "a malformed binding", static + ["--input=image"], IMAGE_LABEL,
                 ["--input=image: 'image' is not NAME=FORMAT:PATH"], logdir)


CASES = {"convert": convert, "tfrecord": tfrecord, "npz": npz,
         "batch-sizes": batch_sizes, "errors": errors}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--case", required=True, choices=sorted(CASES))
    parser.add_argument("--tfrecords", required=True,
                        help="directory of the converted TFRecord files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        args.work = work
        cluster.run_test(lambda: CASES[args.case](args))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""TFRecord input against IDX input, in the same run.

The classic MLP (examples/mnist_mlp.mlir, between-graph async, 1 PS + 2
workers) trained on Fashion-MNIST read three ways:

- IDX files (--data, the default): the peer;
- TFRecord files of tf.train.Example, gzip-compressed, 4 shards
  (examples/fashion_mnist_to_tfrecord.py), the pixels a bytes_list scaled by
  1/255 and the class ids one-hot encoded by the binding;
- the same TFRecord files with --prefetch=0, batches gathered in the step's
  own thread.

Training time excludes reading the files (it starts after the chief has
initialized the variables), so the rows say whether the input shows in the
step: with the reader thread, TFRecord's steps/s should equal IDX's within
the run-to-run spread.

  python3 bench/inputs.py --dtf_run=build/bin/dtf-run [--steps=1000] [--reps=3]

Writes bench/results/inputs.json; bench/report.py adds its table to
REPORT.md.
"""

import argparse
import os
import subprocess
import sys

import local_runs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MLP = os.path.join(ROOT, "examples", "mnist_mlp.mlir")


def tfrecord_flags(directory, prefetch):
    flags = []
    for flag, split in (("--input", "train"), ("--eval_input", "test")):
        files = os.path.join(directory, split + "-*")
        flags += [flag + "=x=tfrecord:%s,feature=image,scale=1/255" % files,
                  flag + "=y_=tfrecord:%s,feature=label,onehot=10" % files]
    return flags + ["--prefetch=%d" % prefetch]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dtf_run", default=os.path.join(ROOT, "build", "bin", "dtf-run"))
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--tfrecords", default=os.path.join(ROOT, "build", "bench-tfrecord"),
                   help="where the converted TFRecord files go (made when missing)")
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--out", default=os.path.join(HERE, "results", "inputs.json"))
    args = p.parse_args()
    if not os.path.exists(os.path.join(args.tfrecords, "test-00000-of-00001.tfrecord.gz")):
        subprocess.run([sys.executable, os.path.join(ROOT, "examples",
                                                     "fashion_mnist_to_tfrecord.py"),
                        "--data=" + args.data, "--out=" + args.tfrecords,
                        "--train-shards=4"], check=True)
    configs = [
        {"name": "IDX files (--data)", "key": "idx", "ps": 1,
         "flags": ["--async", "--data=" + args.data], "model": MLP},
        {"name": "TFRecord, gzip, 4 shards (--input)", "key": "tfrecord", "ps": 1,
         "flags": ["--async"] + tfrecord_flags(args.tfrecords, 2), "model": MLP,
         "peer": "idx"},
        {"name": "TFRecord, --prefetch=0", "key": "tfrecord-no-prefetch", "ps": 1,
         "flags": ["--async"] + tfrecord_flags(args.tfrecords, 0), "model": MLP,
         "peer": "idx"},
    ]
    local_runs.study(configs, args, "python3 bench/inputs.py --steps=%d --reps=%d"
                     % (args.steps, args.reps))


if __name__ == "__main__":
    main()

"""TensorFlow reads a V2 checkpoint that DTF wrote, bit-exact.

CTest's checkpoint.tf_reads_dtf_bundle: dtf-write-test-bundle writes a
checkpoint as 2 PS tasks and a chief save it (a sharded save, merged), with
expected.txt beside it; then, in a Python that has TensorFlow (the bench
venv), `tf.train.latest_checkpoint` finds it through the `checkpoint` file,
`tf.train.load_checkpoint` reads every tensor, whose dtype, shape and bits
must be those of expected.txt (the partitioned variable assembled from its 2
slices), and `tf.compat.v1.train.Saver` restores that variable into 3
partitions. Exits 77 (skipped) when there is no TensorFlow.
"""

import argparse
import os
import subprocess
import sys
import tempfile

SKIP = 77


def check(directory):
    """Runs in the Python that has TensorFlow."""
    import numpy as np
    import tensorflow as tf

    dtypes = {"float": np.float32, "double": np.float64, "int32": np.int32,
              "int64": np.int64, "bool": np.bool_}
    bit_views = {"float": np.uint32, "double": np.uint64}
    expected = {}
    with open(os.path.join(directory, "expected.txt")) as lines:
        for line in lines:
            name, dtype, dims, *elements = line.split()
            shape = () if dims == "-" else tuple(int(d) for d in dims.split(","))
            if dtype in bit_views:
                bits = np.array([int(e, 16) for e in elements], bit_views[dtype])
                value = bits.view(dtypes[dtype])
            else:
                value = np.array([int(e) for e in elements]).astype(dtypes[dtype])
            expected[name] = value.reshape(shape)

    prefix = tf.train.latest_checkpoint(directory)
    assert prefix == os.path.join(directory, "model.ckpt-300"), prefix
    reader = tf.train.load_checkpoint(prefix)
    shapes = reader.get_variable_to_shape_map()
    assert sorted(shapes) == sorted(expected), (sorted(shapes), sorted(expected))
    for name, want in expected.items():
        got = reader.get_tensor(name)
        assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
        assert got.shape == want.shape, (name, got.shape, want.shape)
        assert tuple(shapes[name]) == want.shape, (name, shapes[name])
        assert got.tobytes() == want.tobytes(), (name, got, want)

    # The variable saved in 2 slices restores into 3 partitions.
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        embedding = v1.get_variable(
            "partitioned/embedding", shape=[5, 3], dtype=tf.float32,
            partitioner=v1.fixed_size_partitioner(3))
        saver = v1.train.Saver({"partitioned/embedding": embedding})
        with v1.Session() as session:
            saver.restore(session, prefix)
            parts = session.run(list(embedding))
    assert [p.shape for p in parts] == [(2, 3), (2, 3), (1, 3)], parts
    restored = np.concatenate(parts)
    assert restored.tobytes() == expected["partitioned/embedding"].tobytes()
    print("TensorFlow %s read %d tensors of %s bit-exact, and restored "
          "partitioned/embedding into 3 partitions"
          % (tf.__version__, len(expected), prefix))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--write-bundle", help="dtf-write-test-bundle")
    parser.add_argument("--tf-python", help="a Python with TensorFlow")
    parser.add_argument("--check", help="(internal) the directory to check")
    args = parser.parse_args()
    if args.check:
        check(args.check)
        return 0

    if not os.path.exists(args.tf_python) or subprocess.run(
            [args.tf_python, "-c", "import tensorflow"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
        print("skipped: no TensorFlow in %s (bench/setup_venv.sh installs it)"
              % args.tf_python)
        return SKIP
    with tempfile.TemporaryDirectory(prefix="dtf-tf-bundle.") as directory:
        subprocess.run([args.write_bundle, directory], check=True)
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
        result = subprocess.run(
            [args.tf_python, os.path.abspath(__file__), "--check", directory],
            env=env)
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())

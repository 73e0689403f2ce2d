"""Writes the TensorFlow-written fixture of TensorBundleTest: a V2 checkpoint.

Run with a Python that has TensorFlow (the bench venv):

    build/bench-venv/bin/python runtime/checkpoint/testdata/write_tf_bundle.py \
        runtime/checkpoint/testdata/tf_bundle

It builds a small TF1 graph: a dense layer trained two steps with Adam (its
slots `dense/kernel/Adam`, `dense/kernel/Adam_1`, `beta1_power`, ...), a
`global_step`, a variable of each other dtype DTF has, and a variable
partitioned into 2 slices by `fixed_size_partitioner`, and saves it with
`tf.compat.v1.train.Saver` as `model.ckpt-2` (`.index`, `.data-00000-of-00001`
and the `checkpoint` state file). Beside it, `expected.txt` holds the value
of every tensor saved, as the session read it: one line per tensor,
`<name> <dtype> <dims, comma-separated, or - for a scalar> <elements>`, the
floating-point elements as the hexadecimal bits of their IEEE-754 encoding
(so that the comparison is bit-exact) and the others in decimal.
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

# How expected.txt spells dtypes, and how each writes an element.
ELEMENT_FORMATS = {
    np.dtype(np.float32): ("float", lambda a: ["%08x" % b for b in a.view(np.uint32)]),
    np.dtype(np.float64): ("double", lambda a: ["%016x" % b for b in a.view(np.uint64)]),
    np.dtype(np.int32): ("int32", lambda a: ["%d" % v for v in a]),
    np.dtype(np.int64): ("int64", lambda a: ["%d" % v for v in a]),
    np.dtype(np.bool_): ("bool", lambda a: ["%d" % v for v in a]),
}


def expected_line(name, value):
    value = np.asarray(value)
    dtype_name, format_elements = ELEMENT_FORMATS[value.dtype]
    dims = ",".join(str(d) for d in value.shape) if value.ndim else "-"
    return " ".join([name, dtype_name, dims] + format_elements(value.reshape(-1)))


def main(output_dir):
    os.makedirs(output_dir, exist_ok=True)
    graph = tf.Graph()
    with graph.as_default():
        global_step = tf.train.get_or_create_global_step()
        features = tf.constant([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
        labels = tf.constant([[1.0, 0.0], [0.0, 1.0]])
        with tf.variable_scope("dense"):
            kernel = tf.get_variable(
                "kernel",
                initializer=np.arange(6, dtype=np.float32).reshape(3, 2) / 7.0 - 0.3)
            bias = tf.get_variable("bias", initializer=np.float32([0.1, -0.2]))
        loss = tf.reduce_mean(tf.square(tf.matmul(features, kernel) + bias - labels))
        train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)

        # One variable of each other dtype, with the values at the edges of
        # their types: the comparison is bit-exact.
        tf.get_variable("values/double", initializer=np.float64(
            [np.pi, -0.0, 5e-324, np.inf, -1e300]))
        tf.get_variable("values/float_edges", initializer=np.float32(
            [-0.0, 1e-45, np.inf, -np.inf, 3.4028235e38]))
        tf.get_variable("values/int32", initializer=np.int32(
            [[-2147483648, 2147483647], [0, -7]]))
        tf.get_variable("values/int64", initializer=np.int64(
            [-9223372036854775808, 9223372036854775807, 1 << 40]))
        tf.get_variable("values/bool", initializer=np.array([True, False, True]))
        tf.get_variable("values/empty", initializer=np.zeros((0, 4), np.float32))

        # Saved as TensorFlow saves a partitioned variable: one logical name,
        # `partitioned/embedding`, whose 2 slices (rows 0-2 and 3-4) are
        # `partitioned/embedding/part_0` and `part_1` in the graph.
        embedding_value = np.arange(15, dtype=np.float32).reshape(5, 3) * 0.5 - 1.0

        def embedding_initializer(shape, dtype=None, partition_info=None):
            rows = partition_info.var_offset[0] if partition_info else 0
            return tf.constant(embedding_value[rows:rows + shape[0]], dtype=dtype)

        embedding = tf.get_variable(
            "partitioned/embedding", shape=[5, 3], dtype=tf.float32,
            initializer=embedding_initializer,
            partitioner=tf.fixed_size_partitioner(2))

        # Relative paths in the `checkpoint` file: the fixture can move.
        saver = tf.train.Saver(save_relative_paths=True)
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            session.run(train)
            session.run(train)
            saver.save(session, os.path.join(output_dir, "model.ckpt"),
                       global_step=global_step, write_meta_graph=False)
            # What was saved, by the name it was saved under: the
            # partitioned variable's parts as one tensor.
            parts = {part.op.name for part in embedding}
            values = {variable.op.name: session.run(variable)
                      for variable in tf.global_variables()
                      if variable.op.name not in parts}
            values["partitioned/embedding"] = session.run(embedding.as_tensor())

    with open(os.path.join(output_dir, "expected.txt"), "w") as out:
        for name in sorted(values):
            out.write(expected_line(name, values[name]) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])

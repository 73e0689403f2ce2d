#!/usr/bin/env python3
"""Writes the GraphDefs of import-graphdef-conv-transpose.mlir and
TensorFlow's values for them (conv_transpose_values/).

- conv_transpose.pbtxt: tf.compat.v1.layers.conv2d_transpose (3x3, 2
  filters, stride 2, SAME, with its bias) of a batch of 4 5x5x3 images,
  then a VALID stride-1 one, a mean squared error to a target, SGD; a
  static batch, so that dtf-gradcheck checks the import as it is.
- conv_transpose_batch.pbtxt: the same with the batch unknown (None), as
  scripts write it: the layer computes its output shape from tf.shape.
- conv_transpose_values/: a batch (x.npy, y_.npy), the variables
  (variables.npz) and TensorFlow's results (expected.npz: result_0 the
  loss, result_1 the output).

  build/bench-venv/bin/python test/Translate/Inputs/make_conv_transpose_graphs.py
"""

import os

import tensorflow.compat.v1 as tf

import conv_fixture_values

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def graph(batch):
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [batch, 5, 5, 3], name="x")
        y_ = tf.placeholder(tf.float32, [batch, 12, 12, 1], name="y_")
        up = tf.layers.conv2d_transpose(x, 2, 3, strides=2, padding="same",
                                        activation=tf.tanh, name="up")
        out = tf.layers.conv2d_transpose(up, 1, 3, padding="valid", name="out")
        out = tf.identity(out, name="output")
        loss = tf.identity(tf.losses.mean_squared_error(y_, out), name="loss")
        global_step = tf.train.get_or_create_global_step()
        tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
    return graph


def main():
    static = graph(4)
    for name, g in (("conv_transpose", static), ("conv_transpose_batch", graph(None))):
        tf.io.write_graph(g.as_graph_def(), HERE, name + ".pbtxt", as_text=True)
        print("wrote %s.pbtxt" % name)
    conv_fixture_values.write_values(static, os.path.join(HERE, "conv_transpose_values"), 5,
                                     (4, 5, 5, 3), (4, 12, 12, 1))
    print("wrote conv_transpose_values/")


if __name__ == "__main__":
    main()

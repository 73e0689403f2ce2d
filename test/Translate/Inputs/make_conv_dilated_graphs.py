#!/usr/bin/env python3
"""Writes the GraphDef of import-graphdef-conv-dilated.mlir and TensorFlow's
values for it (conv_dilated_values/).

- conv_dilated.pbtxt: a batch of 2 9x9x2 images through three dilated
  convolutions, each as a TF1 script writes one, into a mean squared error
  to a target, SGD:
  - tf.compat.v1.layers.conv2d (3x3, 3 filters, dilation_rate=2, SAME, tanh,
    with its bias), which tf.nn.convolution builds as SpaceToBatchND,
    Conv2D, BatchToSpaceND (9 is not a multiple of 2: the paddings and
    crops are uneven);
  - tf.nn.conv2d with dilations=[1, 3, 3, 1] (2x2, 2 filters, VALID), one
    Conv2D with its dilations attribute;
  - tf.nn.atrous_conv2d (3x1, 1 filter, rate 2, VALID), SpaceToBatchND
    again, with a filter of one tap along the width.
- conv_dilated_values/: a batch (x.npy, y_.npy), the variables
  (variables.npz) and TensorFlow's results (expected.npz: result_0 the
  loss, result_1 the output).

  TF_USE_LEGACY_KERAS=1 build/bench-venv/bin/python \\
      test/Translate/Inputs/make_conv_dilated_graphs.py

TensorFlow's CPU kernels compute the forward values; the input gradient of
a dilated Conv2D (Conv2DBackpropInput with dilations, in the training op)
runs on GPUs only, so the gradients are checked by dtf-gradcheck against
finite differences instead.
"""

import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

import tensorflow.compat.v1 as tf

import conv_fixture_values

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def graph():
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [2, 9, 9, 2], name="x")
        y_ = tf.placeholder(tf.float32, [2, 2, 6, 1], name="y_")
        h = tf.layers.conv2d(x, 3, 3, dilation_rate=2, padding="same",
                             activation=tf.tanh, name="c1")
        w2 = tf.get_variable("c2/kernel", [2, 2, 3, 2])
        h = tf.nn.conv2d(h, w2, strides=1, padding="VALID", dilations=3,
                         name="c2")
        w3 = tf.get_variable("c3/kernel", [3, 1, 2, 1])
        out = tf.nn.atrous_conv2d(h, w3, rate=2, padding="VALID", name="c3")
        out = tf.identity(out, name="output")
        loss = tf.identity(tf.losses.mean_squared_error(y_, out), name="loss")
        global_step = tf.train.get_or_create_global_step()
        tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
    return graph


def main():
    g = graph()
    tf.io.write_graph(g.as_graph_def(), HERE, "conv_dilated.pbtxt", as_text=True)
    print("wrote conv_dilated.pbtxt")
    conv_fixture_values.write_values(g, os.path.join(HERE, "conv_dilated_values"), 7,
                                     (2, 9, 9, 2), (2, 2, 6, 1))
    print("wrote conv_dilated_values/")


if __name__ == "__main__":
    main()

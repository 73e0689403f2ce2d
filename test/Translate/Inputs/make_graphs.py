#!/usr/bin/env python3
"""Writes the GraphDefs the importer's lit tests read beside the examples'.

ops.pbtxt (and ops.pb, the same graph in binary): a softmax regression on
normalized inputs that uses the ops and initializers the example models do
not: Add, Sub, RealDiv, ClipByValue, SoftmaxCrossEntropyWithLogits, MatMul
with transpose_b, Sum with keep_dims, a Fill and a non-zero Const as initial
values, Identity, and plain gradient descent (ApplyGradientDescent).

  build/bench-venv/bin/python test/Translate/Inputs/make_graphs.py
"""

import os

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def softmax_regression():
    graph = tf.Graph()
    with graph.as_default():
        global_step = tf.train.get_or_create_global_step()
        w = tf.Variable(tf.fill([10, 784], 0.0), name="w")
        b = tf.Variable(tf.constant(0.1, shape=[10]), name="b")
        x = tf.placeholder(tf.float32, [None, 784], name="x")
        y_ = tf.placeholder(tf.float32, [None, 10], name="y_")
        normalized = tf.realdiv(tf.subtract(x, 0.5), 0.25)
        logits = tf.raw_ops.Add(x=tf.matmul(normalized, w, transpose_b=True), y=b)
        clipped = tf.raw_ops.ClipByValue(t=logits, clip_value_min=-30.0,
                                         clip_value_max=30.0)
        losses = tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=y_, logits=tf.identity(clipped))
        total = tf.reduce_sum(tf.reshape(losses, [-1, 1]), axis=0, keepdims=True)
        loss = tf.reshape(total, [], name="loss")
        tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=global_step)
        correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1))
        tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
    return graph


def main():
    graph_def = softmax_regression().as_graph_def()
    tf.io.write_graph(graph_def, HERE, "ops.pbtxt", as_text=True)
    tf.io.write_graph(graph_def, HERE, "ops.pb", as_text=False)
    print("wrote ops.pbtxt and ops.pb (%d nodes)" % len(graph_def.node))


if __name__ == "__main__":
    main()

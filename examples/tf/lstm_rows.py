#!/usr/bin/env python3
"""An LSTM classifier over Fashion-MNIST rows, as a TF1 tutorial writes it.

Each image is a sequence of 28 steps of 28 pixels (its rows): `tf.unstack`
into 28 inputs, `tf.compat.v1.nn.static_rnn` (unrolled, no while loop) of
a `tf.compat.v1.nn.rnn_cell.BasicLSTMCell` of 128 units, the last output
through `tf.compat.v1.layers.dense` to 10 logits,
`tf.compat.v1.losses.sparse_softmax_cross_entropy`; the gradients of
`AdamOptimizer` (0.001) clipped by `tf.clip_by_global_norm` (5.0), then
`apply_gradients` with a global step; batch 128. The variables are placed
by `replica_device_setter` over 2 PS tasks.

Write its training GraphDef (placeholders `x` [None, 28, 28], `y`; fetches
`loss`, `accuracy` and the train op), for `dtf-translate --import-graphdef`:

  TF_USE_LEGACY_KERAS=1 build/bench-venv/bin/python examples/tf/lstm_rows.py --write_graph=examples/tf

Train it in TensorFlow and print the test accuracy (last line
`test_metric accuracy <value>`):

  TF_USE_LEGACY_KERAS=1 build/bench-venv/bin/python examples/tf/lstm_rows.py --train_steps=2000 --seed=1

It trains the written graph itself, placed as written, on an in-process
cluster (2 PS tasks and a worker, gRPC servers on localhost). (bash
bench/setup_venv.sh installs TensorFlow and tf-keras into that venv.)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tf1_common  # noqa: E402

import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()

NAME = "lstm_rows"
STEPS, PIXELS, UNITS = 28, 28, 128


def build(seed):
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf.train.replica_device_setter(
            ps_tasks=2, worker_device="/job:worker")):
        tf.set_random_seed(seed)
        x = tf.placeholder(tf.float32, [None, STEPS, PIXELS], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")

        rows = tf.unstack(x, STEPS, axis=1)
        cell = tf.nn.rnn_cell.BasicLSTMCell(UNITS)
        outputs, _ = tf.nn.static_rnn(cell, rows, dtype=tf.float32)
        logits = tf.layers.dense(outputs[-1], 10, name="logits")

        loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
        loss = tf.identity(loss, name="loss")

        global_step = tf.train.get_or_create_global_step()
        optimizer = tf.train.AdamOptimizer(0.001)
        gradients, variables = zip(*optimizer.compute_gradients(loss))
        gradients, _ = tf.clip_by_global_norm(gradients, 5.0)
        train_op = optimizer.apply_gradients(zip(gradients, variables), global_step=global_step)

        correct = tf.equal(tf.argmax(logits, 1), y)
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
        init = tf.global_variables_initializer()
    return graph, dict(x=x, y=y, loss=loss, accuracy=accuracy, train_op=train_op, init=init)


def main():
    tf1_common.main(tf, __doc__, NAME, build, train_steps=2000, batch_size=128,
                     metric="accuracy", example_shape=(STEPS, PIXELS), log_every=500)


if __name__ == "__main__":
    main()

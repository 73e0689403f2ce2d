#!/usr/bin/env python3
"""A tf.layers MLP with dropout on Fashion-MNIST, as a TF1 tutorial writes it.

784-300-100-10, `tf.compat.v1.layers.dense` with its default (glorot
uniform) kernel initializer and relu, `tf.compat.v1.layers.dropout` (rate
0.2) after each hidden layer switched on by a `training` placeholder with
default False (`tf.compat.v1.placeholder_with_default`, so evaluation feeds
nothing), `tf.compat.v1.losses.sparse_softmax_cross_entropy`, a learning
rate `tf.compat.v1.train.exponential_decay` (0.05, times 0.9 every 1000
steps, staircase) of `get_or_create_global_step()`, and
`MomentumOptimizer` (momentum 0.9); batch 100. The variables are placed by
`replica_device_setter` over 2 PS tasks.

Write its training GraphDef (placeholders `x`, `y`, `training`; fetches
`loss`, `accuracy` and the train op), for `dtf-translate --import-graphdef`:

  TF_USE_LEGACY_KERAS=1 build/bench-venv/bin/python examples/tf/mlp_layers.py --write_graph=examples/tf

Train it in TensorFlow and print the test accuracy (last line
`test_metric accuracy <value>`):

  TF_USE_LEGACY_KERAS=1 build/bench-venv/bin/python examples/tf/mlp_layers.py --train_steps=6000 --seed=1

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

NAME = "mlp_layers"


def build(seed):
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf.train.replica_device_setter(
            ps_tasks=2, worker_device="/job:worker")):
        tf.set_random_seed(seed)
        x = tf.placeholder(tf.float32, [None, 784], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        training = tf.placeholder_with_default(False, shape=(), name="training")

        hidden1 = tf.layers.dense(x, 300, activation=tf.nn.relu, name="hidden1")
        hidden1 = tf.layers.dropout(hidden1, rate=0.2, training=training)
        hidden2 = tf.layers.dense(hidden1, 100, activation=tf.nn.relu, name="hidden2")
        hidden2 = tf.layers.dropout(hidden2, rate=0.2, training=training)
        logits = tf.layers.dense(hidden2, 10, name="logits")

        loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
        loss = tf.identity(loss, name="loss")

        global_step = tf.train.get_or_create_global_step()
        learning_rate = tf.train.exponential_decay(0.05, global_step, decay_steps=1000,
                                                   decay_rate=0.9, staircase=True)
        optimizer = tf.train.MomentumOptimizer(learning_rate, momentum=0.9)
        train_op = optimizer.minimize(loss, global_step=global_step)

        correct = tf.equal(tf.argmax(logits, 1), y)
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
        init = tf.global_variables_initializer()
    return graph, dict(x=x, y=y, training=training, loss=loss, accuracy=accuracy,
                       train_op=train_op, init=init)


def main():
    tf1_common.main(tf, __doc__, NAME, build, train_steps=6000, batch_size=100,
                     metric="accuracy")


if __name__ == "__main__":
    main()

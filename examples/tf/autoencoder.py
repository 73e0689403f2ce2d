#!/usr/bin/env python3
"""A dense autoencoder on Fashion-MNIST, as a TF1 tutorial writes it.

784-256-64-256-784: `tf.compat.v1.layers.dense` encoder and decoder with
tanh hidden layers and a sigmoid output, each kernel with an L2 regularizer
(`tf.compat.v1.keras.regularizers.l2(1e-5)`, collected in
`REGULARIZATION_LOSSES`), the loss `tf.compat.v1.losses.mean_squared_error`
of the reconstruction plus `tf.compat.v1.losses.get_regularization_loss()`,
`AdagradOptimizer` (1.0), a global step; batch 128. The metric is the
reconstruction's mean squared error (`mse`, without the regularization).
The variables are placed by `replica_device_setter` over 2 PS tasks.

Write its training GraphDef (placeholder `x`; fetches `loss`, `mse` and
the train op), for `dtf-translate --import-graphdef`:

  TF_USE_LEGACY_KERAS=1 build/bench-venv/bin/python examples/tf/autoencoder.py --write_graph=examples/tf

Train it in TensorFlow and print the test reconstruction MSE (last line
`test_metric mse <value>`):

  TF_USE_LEGACY_KERAS=1 build/bench-venv/bin/python examples/tf/autoencoder.py --train_steps=6000 --seed=1

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

NAME = "autoencoder"
L2 = 1e-5


def build(seed):
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf.train.replica_device_setter(
            ps_tasks=2, worker_device="/job:worker")):
        tf.set_random_seed(seed)
        x = tf.placeholder(tf.float32, [None, 784], name="x")

        regularizer = tf.keras.regularizers.l2(L2)
        hidden1 = tf.layers.dense(x, 256, activation=tf.nn.tanh,
                                  kernel_regularizer=regularizer, name="encoder1")
        codings = tf.layers.dense(hidden1, 64, activation=tf.nn.tanh,
                                  kernel_regularizer=regularizer, name="codings")
        hidden3 = tf.layers.dense(codings, 256, activation=tf.nn.tanh,
                                  kernel_regularizer=regularizer, name="decoder1")
        outputs = tf.layers.dense(hidden3, 784, activation=tf.nn.sigmoid,
                                  kernel_regularizer=regularizer, name="outputs")

        reconstruction_loss = tf.losses.mean_squared_error(labels=x, predictions=outputs)
        mse = tf.identity(reconstruction_loss, name="mse")
        loss = tf.add(reconstruction_loss, tf.losses.get_regularization_loss(), name="loss")

        global_step = tf.train.get_or_create_global_step()
        optimizer = tf.train.AdagradOptimizer(1.0)
        train_op = optimizer.minimize(loss, global_step=global_step)
        init = tf.global_variables_initializer()
    return graph, dict(x=x, loss=loss, mse=mse, train_op=train_op, init=init)


def main():
    tf1_common.main(tf, __doc__, NAME, build, train_steps=6000, batch_size=128,
                     metric="mse", labeled=False)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A convnet with batch normalization on Fashion-MNIST, as a TF1 tutorial writes it.

conv 5x5x16 (SAME, no bias) - batch norm - relu - max-pool 2x2,
conv 3x3x32 (SAME, no bias) - batch norm - relu - avg-pool 2x2,
conv 3x3x64 (stride 2, VALID) - batch norm - relu, dense 128 relu, dense 10:
`tf.compat.v1.layers.conv2d`, `tf.compat.v1.layers.batch_normalization`
with `training=` a placeholder with default False (batch statistics and the
moving-average updates in training, the moving averages in inference), the
moving-average updates in `tf.GraphKeys.UPDATE_OPS` made control
dependencies of the train op, `tf.compat.v1.layers.max_pooling2d` and
`average_pooling2d`, `tf.compat.v1.losses.sparse_softmax_cross_entropy`,
`RMSPropOptimizer` with a learning rate `tf.compat.v1.train.cosine_decay`
from 0.001 to 0 over 3000 steps of the global step; batch 64. The
variables are placed by `replica_device_setter` over 2 PS tasks.

Write its training GraphDef (placeholders `x`, `y`, `training`; fetches
`loss`, `accuracy` and the train op), for `dtf-translate --import-graphdef`:

  TF_USE_LEGACY_KERAS=1 build/bench-venv/bin/python examples/tf/cnn_batchnorm.py --write_graph=examples/tf

Train it in TensorFlow and print the test accuracy (last line
`test_metric accuracy <value>`):

  TF_USE_LEGACY_KERAS=1 build/bench-venv/bin/python examples/tf/cnn_batchnorm.py --train_steps=3000 --seed=1

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

NAME = "cnn_batchnorm"
DECAY_STEPS = 3000


def conv_bn_relu(inputs, filters, kernel_size, training, name, strides=1, padding="same"):
    conv = tf.layers.conv2d(inputs, filters, kernel_size, strides=strides, padding=padding,
                            use_bias=False, name=name)
    bn = tf.layers.batch_normalization(conv, training=training, name=name + "_bn")
    return tf.nn.relu(bn, name=name + "_relu")


def build(seed):
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf.train.replica_device_setter(
            ps_tasks=2, worker_device="/job:worker")):
        tf.set_random_seed(seed)
        x = tf.placeholder(tf.float32, [None, 784], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        training = tf.placeholder_with_default(False, shape=(), name="training")
        images = tf.reshape(x, [-1, 28, 28, 1])

        conv1 = conv_bn_relu(images, 16, 5, training, "conv1")
        pool1 = tf.layers.max_pooling2d(conv1, pool_size=2, strides=2, name="pool1")
        conv2 = conv_bn_relu(pool1, 32, 3, training, "conv2")
        pool2 = tf.layers.average_pooling2d(conv2, pool_size=2, strides=2, name="pool2")
        conv3 = conv_bn_relu(pool2, 64, 3, training, "conv3", strides=2, padding="valid")
        flat = tf.layers.flatten(conv3)
        dense = tf.layers.dense(flat, 128, activation=tf.nn.relu, name="dense")
        logits = tf.layers.dense(dense, 10, name="logits")

        loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
        loss = tf.identity(loss, name="loss")

        global_step = tf.train.get_or_create_global_step()
        learning_rate = tf.train.cosine_decay(0.001, global_step, decay_steps=DECAY_STEPS)
        optimizer = tf.train.RMSPropOptimizer(learning_rate)
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(update_ops):
            train_op = optimizer.minimize(loss, global_step=global_step)

        correct = tf.equal(tf.argmax(logits, 1), y)
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
        init = tf.global_variables_initializer()
    return graph, dict(x=x, y=y, training=training, loss=loss, accuracy=accuracy,
                       train_op=train_op, init=init)


def main():
    tf1_common.main(tf, __doc__, NAME, build, train_steps=3000, batch_size=64,
                     metric="accuracy", log_every=500)


if __name__ == "__main__":
    main()

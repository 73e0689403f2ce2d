#!/usr/bin/env python3
"""Writes the GraphDefs of classic TensorFlow 1.x distributed-MNIST models.

The models as TF1 scripts build them with tf.compat.v1 (placeholders,
variables, tf.device and replica_device_setter, an optimizer's minimize),
written as text GraphDefs for `dtf-translate --import-graphdef`:

  mnist_mlp.pbtxt           dist_mnist / mnist_replica: 784-100-10, relu,
                            softmax and the summed cross-entropy on clipped
                            probabilities, Adam 0.01, batch 100, a global step;
                            replica_device_setter over 1 PS task
  mnist_mlp_2ps.pbtxt       the same over 2 PS tasks (round-robin placement)
  model_parallel_mlp.pbtxt  its layers pinned to /job:worker/task:0 and
                            /job:worker/task:1, the variables on 2 PS tasks
  mnist_cnn.pbtxt           a small convnet (conv 5x5x16, max-pool, dense),
                            resource variables, int64 labels and the sparse
                            cross-entropy, momentum

The loss is named `cross_entropy` and the batch accuracy `accuracy`, the
fetches a TF1 script would run; `dtf-translate --outputs=...` makes them the
imported function's results.

  build/bench-venv/bin/python examples/tf/mnist_graphs.py --out=examples/tf

(bench/setup_venv.sh installs TensorFlow into that venv.) The .pbtxt files
are committed, so importing them needs no TensorFlow.
"""

import argparse
import os

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def classic_mlp(ps_tasks, use_resource=False):
    """The distributed-MNIST MLP of TensorFlow's mnist_replica.py."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf.train.replica_device_setter(
            ps_tasks=ps_tasks, worker_device="/job:worker")):
        global_step = tf.Variable(0, name="global_step", trainable=False,
                                  use_resource=use_resource)
        hid_w = tf.Variable(tf.truncated_normal([784, 100], stddev=1.0 / 28, seed=1),
                            name="hid_w", use_resource=use_resource)
        hid_b = tf.Variable(tf.zeros([100]), name="hid_b", use_resource=use_resource)
        sm_w = tf.Variable(tf.truncated_normal([100, 10], stddev=0.1, seed=2),
                           name="sm_w", use_resource=use_resource)
        sm_b = tf.Variable(tf.zeros([10]), name="sm_b", use_resource=use_resource)
        x = tf.placeholder(tf.float32, [None, 784], name="x")
        y_ = tf.placeholder(tf.float32, [None, 10], name="y_")
        hid = tf.nn.relu(tf.nn.xw_plus_b(x, hid_w, hid_b))
        y = tf.nn.softmax(tf.nn.xw_plus_b(hid, sm_w, sm_b))
        cross_entropy = tf.negative(
            tf.reduce_sum(y_ * tf.log(tf.clip_by_value(y, 1e-10, 1.0))),
            name="cross_entropy")
        tf.train.AdamOptimizer(0.01).minimize(cross_entropy, global_step=global_step)
        correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
        tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
    return graph


def model_parallel_mlp():
    """The MLP split by layer over two workers, variables on 2 PS tasks."""
    graph = tf.Graph()
    with graph.as_default():
        with tf.device(tf.train.replica_device_setter(
                ps_tasks=2, worker_device="/job:worker/task:0")):
            global_step = tf.Variable(0, name="global_step", trainable=False)
            hid_w = tf.Variable(tf.truncated_normal([784, 100], stddev=1.0 / 28, seed=1),
                                name="hid_w")
            hid_b = tf.Variable(tf.zeros([100]), name="hid_b")
            x = tf.placeholder(tf.float32, [100, 784], name="x")
            hid = tf.nn.relu(tf.nn.xw_plus_b(x, hid_w, hid_b))
        with tf.device(tf.train.replica_device_setter(
                ps_tasks=2, worker_device="/job:worker/task:1")):
            sm_w = tf.Variable(tf.truncated_normal([100, 10], stddev=0.1, seed=2),
                               name="sm_w")
            sm_b = tf.Variable(tf.zeros([10]), name="sm_b")
            y_ = tf.placeholder(tf.float32, [100, 10], name="y_")
            y = tf.nn.softmax(tf.nn.xw_plus_b(hid, sm_w, sm_b))
            cross_entropy = tf.negative(
                tf.reduce_sum(y_ * tf.log(tf.clip_by_value(y, 1e-10, 1.0))),
                name="cross_entropy")
            correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
            tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
        tf.train.AdamOptimizer(0.01).minimize(
            cross_entropy, global_step=global_step, colocate_gradients_with_ops=True)
    return graph


def convnet():
    """A small convnet on 28x28 images with int64 class ids."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf.train.replica_device_setter(
            ps_tasks=1, worker_device="/job:worker")):
        global_step = tf.Variable(0, name="global_step", trainable=False,
                                  dtype=tf.int64, use_resource=True)
        conv_w = tf.Variable(tf.truncated_normal([5, 5, 1, 16], stddev=0.1, seed=3),
                             name="conv_w", use_resource=True)
        conv_b = tf.Variable(tf.zeros([16]), name="conv_b", use_resource=True)
        fc_w = tf.Variable(tf.random_normal([14 * 14 * 16, 10], stddev=0.01, seed=4),
                           name="fc_w", use_resource=True)
        fc_b = tf.Variable(tf.zeros([10]), name="fc_b", use_resource=True)
        x = tf.placeholder(tf.float32, [None, 784], name="x")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        images = tf.reshape(x, [-1, 28, 28, 1])
        conv = tf.nn.relu(tf.nn.bias_add(
            tf.nn.conv2d(images, conv_w, strides=[1, 1, 1, 1], padding="SAME"), conv_b))
        pool = tf.nn.max_pool(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
        logits = tf.add(tf.matmul(tf.reshape(pool, [-1, 14 * 14 * 16]), fc_w), fc_b,
                        name="logits")
        cross_entropy = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
            name="cross_entropy")
        tf.train.MomentumOptimizer(0.05, 0.9).minimize(cross_entropy, global_step=global_step)
        correct = tf.equal(tf.argmax(logits, 1), labels)
        tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
    return graph


MODELS = {
    "mnist_mlp": lambda: classic_mlp(1),
    "mnist_mlp_2ps": lambda: classic_mlp(2),
    "model_parallel_mlp": model_parallel_mlp,
    "mnist_cnn": convnet,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    for name, build in MODELS.items():
        graph = build()
        tf.io.write_graph(graph.as_graph_def(), args.out, name + ".pbtxt", as_text=True)
        print("wrote %s (%d nodes)" % (os.path.join(args.out, name + ".pbtxt"),
                                       len(graph.as_graph_def().node)))


if __name__ == "__main__":
    main()

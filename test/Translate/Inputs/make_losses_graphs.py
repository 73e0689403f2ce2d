#!/usr/bin/env python3
"""Writes the GraphDefs of import-graphdef-losses.mlir and TensorFlow's
values for them (losses_values/).

Both graphs are the same small model, a placeholder x (4x5) through
tf.compat.v1.layers.dense to 3 logits, then several losses of
tf.compat.v1.losses with their default reduction (SUM_BY_NONZERO_WEIGHTS),
each also an output of its own (value/<name>), summed by
tf.compat.v1.losses.get_total_loss() and minimized by
GradientDescentOptimizer:

- losses_regression.pbtxt: absolute_difference, cosine_distance (axis 1,
  of l2-normalized logits and labels), huber_loss, mean_pairwise_squared_error,
  mean_squared_error and compute_weighted_loss, and the layer's
  regularization losses in the total: a tf.keras.regularizers.l2 of the
  kernel and a tf.nn.l2_loss of the bias.
- losses_classification.pbtxt: hinge_loss, log_loss (of the sigmoid of the
  logits), sigmoid_cross_entropy and softmax_cross_entropy, each with and
  without label_smoothing, and sparse_softmax_cross_entropy.

Most losses are weighted by a constant tensor that holds zeros (those
count out of the mean), the others by the default weights 1.

losses_values/ holds the feeds (x.npy, labels.npy: one-hot rows, ids.npy:
their class ids), the layer's variables (variables.npz, the same in both
graphs) and TensorFlow's results of each graph (<graph>.npz: result_0 the
total loss, result_1 the logits, then each loss in the graph's order).

  TF_USE_LEGACY_KERAS=1 build/bench-venv/bin/python test/Translate/Inputs/make_losses_graphs.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf
from google.protobuf import text_format

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
VALUES = os.path.join(HERE, "losses_values")
BATCH, FEATURES, CLASSES = 4, 5, 3

# Weights with zeros: SUM_BY_NONZERO_WEIGHTS divides by the count of the
# nonzero ones (broadcast to the losses' shape).
ELEMENT_WEIGHTS = [[1.0, 0.0, 2.0], [0.5, 1.0, 0.0], [0.0, 0.0, 0.0], [3.0, 1.0, 1.0]]
ROW_WEIGHTS = [[1.0], [0.0], [2.0], [0.5]]
EXAMPLE_WEIGHTS = [1.0, 0.0, 2.0, 0.5]


def regression_losses(logits, labels):
    element = tf.constant(ELEMENT_WEIGHTS, name="element_weights")
    row = tf.constant(ROW_WEIGHTS, name="row_weights")
    return {
        "absolute_difference": tf.losses.absolute_difference(
            labels, logits, weights=element),
        "cosine_distance": tf.losses.cosine_distance(
            tf.nn.l2_normalize(labels, axis=1), tf.nn.l2_normalize(logits, axis=1),
            axis=1, weights=row),
        "huber": tf.losses.huber_loss(labels, logits, weights=row, delta=0.5),
        "mean_pairwise_squared_error": tf.losses.mean_pairwise_squared_error(
            labels, logits, weights=row),
        "mean_squared_error": tf.losses.mean_squared_error(labels, logits),
        "compute_weighted_loss": tf.losses.compute_weighted_loss(
            tf.square(logits - labels) + tf.abs(logits), weights=element),
    }


def classification_losses(logits, labels, ids):
    element = tf.constant(ELEMENT_WEIGHTS, name="element_weights")
    example = tf.constant(EXAMPLE_WEIGHTS, name="example_weights")
    return {
        "hinge": tf.losses.hinge_loss(labels, logits),
        "log": tf.losses.log_loss(labels, tf.sigmoid(logits), weights=element),
        "sigmoid": tf.losses.sigmoid_cross_entropy(labels, logits),
        "sigmoid_smoothed": tf.losses.sigmoid_cross_entropy(
            labels, logits, weights=element, label_smoothing=0.1),
        "softmax": tf.losses.softmax_cross_entropy(labels, logits, weights=example),
        "softmax_smoothed": tf.losses.softmax_cross_entropy(
            labels, logits, label_smoothing=0.2),
        "sparse_softmax": tf.losses.sparse_softmax_cross_entropy(
            ids, logits, weights=example),
    }


def graph(kind):
    """The graph of `kind` and the names of its outputs after the loss."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [BATCH, FEATURES], name="x")
        labels = tf.placeholder(tf.float32, [BATCH, CLASSES], name="labels")
        if kind == "regression":
            logits = tf.layers.dense(
                x, CLASSES, name="dense",
                kernel_regularizer=tf.keras.regularizers.l2(0.05),
                bias_regularizer=lambda bias: 0.1 * tf.nn.l2_loss(bias))
            losses = regression_losses(logits, labels)
        else:
            ids = tf.placeholder(tf.int32, [BATCH], name="ids")
            logits = tf.layers.dense(x, CLASSES, name="dense")
            losses = classification_losses(logits, labels, ids)
        outputs = [tf.identity(logits, name="logits").op.name]
        outputs += [tf.identity(loss, name="value/" + name).op.name
                    for name, loss in losses.items()]
        # Every tf.losses loss joins tf.GraphKeys.LOSSES, and the layer's
        # regularizers REGULARIZATION_LOSSES: the total sums them all.
        loss = tf.identity(tf.losses.get_total_loss(), name="loss")
        # GATE_NONE, as tf.gradients leaves them: no tuples gate each op's
        # gradients (Identity and NoOp nodes that would double the fixture),
        # and the seed of the backward pass goes past the total's AddN.
        tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, gate_gradients=tf.train.Optimizer.GATE_NONE)
    return graph, outputs


def write_graph(graph, name):
    """Text format with a line per node and TensorFlow's default attributes
    left out (as a SavedModel strips them), to keep the fixtures small."""
    graph_def = tf.train.export_meta_graph(graph=graph, strip_default_attrs=True).graph_def
    for node in graph_def.node:
        node.attr.pop("_output_shapes", None)  # added by the export
    with open(os.path.join(HERE, name), "w") as out:
        for node in graph_def.node:
            out.write("node { %s }\n" % text_format.MessageToString(node, as_one_line=True))
        out.write("versions { %s }\n" % text_format.MessageToString(
            graph_def.versions, as_one_line=True))


def values():
    rng = np.random.default_rng(33)
    ids = np.array([0, 2, 1, 2], np.int32)
    feeds = {
        "x": rng.normal(size=(BATCH, FEATURES)).astype(np.float32),
        "labels": np.eye(CLASSES, dtype=np.float32)[ids],
        "ids": ids,
    }
    variables = {
        "dense/kernel": rng.normal(size=(FEATURES, CLASSES)).astype(np.float32),
        "dense/bias": rng.normal(size=(CLASSES,)).astype(np.float32) * 0.5,
    }
    return feeds, variables


def main():
    os.makedirs(VALUES, exist_ok=True)
    feeds, variables = values()
    for name, value in feeds.items():
        np.save(os.path.join(VALUES, name + ".npy"), value)
    np.savez(os.path.join(VALUES, "variables.npz"), **variables)
    for kind in ("regression", "classification"):
        g, outputs = graph(kind)
        write_graph(g, "losses_%s.pbtxt" % kind)
        with tf.Session(graph=g) as session:
            session.run(tf.global_variables_initializer())
            for variable in tf.global_variables():
                variable.load(variables[variable.op.name], session)
            ops = {op.name for op in g.get_operations()}
            fed = {name + ":0": value for name, value in feeds.items() if name in ops}
            results = session.run(["loss:0"] + [name + ":0" for name in outputs], fed)
        np.savez(os.path.join(VALUES, kind + ".npz"),
                 **{"result_%d" % k: np.float32(value) for k, value in enumerate(results)})
        print("wrote losses_%s.pbtxt: outputs %s, values %s"
              % (kind, ",".join(outputs), results))


if __name__ == "__main__":
    main()

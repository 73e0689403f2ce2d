#!/usr/bin/env python3
"""Writes layer_math.pbtxt, the GraphDef of import-graphdef-layer-math.mlir:
the layer math of TF1 models as a tf.compat.v1 script builds it, one output
node per op (tf.transpose, tf.nn.log_softmax, tf.one_hot, tf.tile with
constant multiples and with multiples computed from a static shape,
tf.linalg.matmul of batches with adjoints, a batch by a matrix, two
matrices, and BatchMatMul, tf.reduce_prod), and
tiled_by_batch, a tf.tile by the batch's unknown size, which DTF refuses.

  build/bench-venv/bin/python test/Translate/Inputs/make_layer_math_graphs.py
"""

import os

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def layer_math():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 3, 4], name="x")
        tf.transpose(x, [0, 2, 1], name="transposed")
        logits = tf.placeholder(tf.float32, [None, 10], name="logits")
        tf.nn.log_softmax(logits, name="log_probabilities")
        ids = tf.placeholder(tf.int64, [None], name="ids")
        tf.one_hot(ids, 10, on_value=0.9, off_value=0.01, name="one_hot")
        tf.tile(x, [1, 2, 3], name="tiled")
        bias = tf.placeholder(tf.float32, [1, 4], name="bias")
        tf.tile(bias, tf.stack([tf.shape(bias)[1], 1]), name="tiled_by_shape")
        tf.tile(bias, tf.stack([tf.shape(x)[0], 1]), name="tiled_by_batch")
        keys = tf.placeholder(tf.float32, [None, 5, 4], name="keys")
        tf.linalg.matmul(x, keys, adjoint_b=True, name="scores")
        w = tf.placeholder(tf.float32, [4, 2], name="w")
        tf.linalg.matmul(x, w, name="projected")
        tf.raw_ops.BatchMatMulV2(x=bias, y=w, name="matrices")
        tf.raw_ops.BatchMatMul(x=keys, y=x, adj_y=True, name="batch_v1")
        tf.reduce_prod(x, axis=[1, 2], keepdims=True, name="product")
    return graph.as_graph_def()


def main():
    graph_def = layer_math()
    tf.io.write_graph(graph_def, HERE, "layer_math.pbtxt", as_text=True)
    print("wrote layer_math.pbtxt (%d nodes)" % len(graph_def.node))


if __name__ == "__main__":
    main()

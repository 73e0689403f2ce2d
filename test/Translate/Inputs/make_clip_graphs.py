#!/usr/bin/env python3
"""Writes the GraphDefs of import-graphdef-clip.mlir: variables w and b,
loss = sum(w * x) + b, trained by SGD on gradients clipped with
tf.clip_by_global_norm as a TF1 script clips them, and a graph that clips
only w's gradient (which DTF refuses).

  build/bench-venv/bin/python test/Translate/Inputs/make_clip_graphs.py
"""

import os

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def graph(clip_all):
    graph = tf.Graph()
    with graph.as_default():
        global_step = tf.train.get_or_create_global_step()
        w = tf.Variable(tf.zeros([2]), name="w")
        b = tf.Variable(0.0, name="b")
        x = tf.placeholder(tf.float32, [2], name="x")
        loss = tf.add(tf.reduce_sum(w * x), b, name="loss")
        optimizer = tf.train.GradientDescentOptimizer(0.1)
        gradients, variables = zip(*optimizer.compute_gradients(loss))
        if clip_all:
            gradients, _ = tf.clip_by_global_norm(gradients, 2.5)
        else:
            clipped, _ = tf.clip_by_global_norm(gradients[:1], 2.5)
            gradients = clipped + list(gradients[1:])
        optimizer.apply_gradients(zip(gradients, variables), global_step=global_step)
    return graph.as_graph_def()


def main():
    for name, clip_all in (("clip_by_global_norm", True), ("clip_subset", False)):
        tf.io.write_graph(graph(clip_all), HERE, name + ".pbtxt", as_text=True)
        print("wrote %s.pbtxt" % name)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes orthogonal.pbtxt of import-graphdef-initializers.mlir: variables
of tf.compat.v1.orthogonal_initializer, as get_variable builds them: w of
[3, 5] (wide: its Q transposed) with gain 2 and seed 7, and v of [4, 2, 3]
(flattened to 8 x 3) with the defaults.

  build/bench-venv/bin/python test/Translate/Inputs/make_orthogonal_graph.py
"""

import os

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    graph = tf.Graph()
    with graph.as_default():
        tf.get_variable("w", [3, 5], initializer=tf.orthogonal_initializer(gain=2.0, seed=7))
        tf.get_variable("v", [4, 2, 3], initializer=tf.orthogonal_initializer())
    tf.io.write_graph(graph.as_graph_def(), HERE, "orthogonal.pbtxt", as_text=True)
    print("wrote orthogonal.pbtxt")


if __name__ == "__main__":
    main()

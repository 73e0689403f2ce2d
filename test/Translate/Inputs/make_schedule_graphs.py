#!/usr/bin/env python3
"""Writes the GraphDefs of import-graphdef-schedules.mlir: one variable w,
loss = sum(w * x), trained by an optimizer whose learning rate is one of
tf.compat.v1.train's decay schedules of the global step, as a TF1 script
writes it.

  build/bench-venv/bin/python test/Translate/Inputs/make_schedule_graphs.py
"""

import os

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def graph_with(schedule, optimizer):
    graph = tf.Graph()
    with graph.as_default():
        global_step = tf.train.get_or_create_global_step()
        w = tf.Variable(tf.zeros([2]), name="w")
        x = tf.placeholder(tf.float32, [2], name="x")
        loss = tf.reduce_sum(w * x, name="loss")
        learning_rate = schedule(global_step)
        optimizer(learning_rate).minimize(loss, global_step=global_step)
    return graph.as_graph_def()


GRAPHS = {
    "schedule_exponential": graph_with(
        lambda step: tf.train.exponential_decay(0.05, step, decay_steps=1000,
                                                decay_rate=0.9, staircase=True),
        lambda lr: tf.train.MomentumOptimizer(lr, momentum=0.9)),
    "schedule_exponential_smooth": graph_with(
        lambda step: tf.train.exponential_decay(0.1, step, 500, 0.5),
        tf.train.GradientDescentOptimizer),
    "schedule_polynomial": graph_with(
        lambda step: tf.train.polynomial_decay(0.1, step, 2000,
                                               end_learning_rate=0.001,
                                               power=2.0),
        tf.train.AdamOptimizer),
    "schedule_polynomial_cycle": graph_with(
        lambda step: tf.train.polynomial_decay(0.1, step, 2000, cycle=True),
        tf.train.GradientDescentOptimizer),
    "schedule_cosine": graph_with(
        lambda step: tf.train.cosine_decay(0.001, step, 3000, alpha=0.1),
        tf.train.RMSPropOptimizer),
    "schedule_piecewise": graph_with(
        lambda step: tf.train.piecewise_constant(step, [100, 200, 500],
                                                 [0.1, 0.05, 0.01, 0.001]),
        lambda lr: tf.train.MomentumOptimizer(lr, momentum=0.9)),
    "schedule_piecewise_one": graph_with(
        lambda step: tf.train.piecewise_constant(step, [1000], [0.5, 0.1]),
        tf.train.GradientDescentOptimizer),
}


def main():
    for name, graph_def in GRAPHS.items():
        tf.io.write_graph(graph_def, HERE, name + ".pbtxt", as_text=True)
        print("wrote %s.pbtxt (%d nodes)" % (name, len(graph_def.node)))


if __name__ == "__main__":
    main()

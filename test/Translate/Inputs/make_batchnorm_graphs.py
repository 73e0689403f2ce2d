#!/usr/bin/env python3
"""Writes the GraphDefs of import-graphdef-batchnorm.mlir and TensorFlow's
values for them (batchnorm_values/).

- batchnorm.pbtxt: conv (no bias) - tf.compat.v1.layers.batch_normalization
  with `training` a placeholder with default False - tanh - dense, a softmax
  cross entropy, SGD with the moving-average updates of
  tf.GraphKeys.UPDATE_OPS as control dependencies of the train op; a
  static batch of 8, so that dtf-gradcheck checks the import as it is.
- batchnorm_bool.pbtxt: the same with training=True, a Python bool: no
  tf.cond, the decay a Const.
- batchnorm_other_update.pbtxt: an AssignAdd among the update ops, which
  DTF refuses.
- batchnorm_avg_factor.pbtxt: tf.nn.fused_batch_norm keeping its own
  moving average (exponential_avg_factor 0.5), which DTF refuses.
- batchnorm_values/: a batch (x.npy, y_.npy), the variables with moving
  averages away from their initial 0 and 1 (variables.npz), and
  TensorFlow's loss, logits, and the batch normalization's mean and variance
  outputs in training (expected_training.npz) and in inference
  (expected_inference.npz), as `result_K` for the Kth of
  loss, logits, bn/cond/Merge_1, bn/cond/Merge_2.

  build/bench-venv/bin/python test/Translate/Inputs/make_batchnorm_graphs.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
BATCH = 8
FETCHES = ["loss:0", "logits/BiasAdd:0", "bn/cond/Merge_1:0", "bn/cond/Merge_2:0"]


def graph(training_flag=True, other_update=False, avg_factor=False):
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [BATCH, 6, 6, 3], name="x")
        y_ = tf.placeholder(tf.float32, [BATCH, 4], name="y_")
        training = tf.placeholder_with_default(False, shape=(), name="training") \
            if training_flag else True
        conv = tf.layers.conv2d(x, 5, 3, padding="same", use_bias=False, name="conv")
        if avg_factor:
            scale = tf.Variable(tf.ones([5]), name="scale")
            offset = tf.Variable(tf.zeros([5]), name="offset")
            bn, _, _ = tf.nn.fused_batch_norm(conv, scale, offset, mean=tf.zeros([5]),
                                              variance=tf.ones([5]), is_training=True,
                                              exponential_avg_factor=0.5)
        else:
            bn = tf.layers.batch_normalization(conv, training=training, name="bn")
        flat = tf.layers.flatten(tf.tanh(bn))
        logits = tf.layers.dense(flat, 4, name="logits")
        loss = tf.identity(tf.losses.softmax_cross_entropy(y_, logits), name="loss")
        global_step = tf.train.get_or_create_global_step()
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        if other_update:
            counter = tf.Variable(0.0, trainable=False, name="counter")
            update_ops.append(tf.assign_add(counter, 1.0, name="count_batches"))
        with tf.control_dependencies(update_ops):
            tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step,
                                                            name="train")
    return graph


def write_values(graph):
    """TensorFlow's results for one batch, in training and in inference."""
    out = os.path.join(HERE, "batchnorm_values")
    rng = np.random.default_rng(3)
    x = rng.normal(size=(BATCH, 6, 6, 3)).astype(np.float32)
    y_ = np.eye(4, dtype=np.float32)[rng.integers(0, 4, size=BATCH)]
    with tf.Session(graph=graph) as session:
        session.run(tf.global_variables_initializer())
        # Moving averages and a scale and offset away from their initial
        # values, so that inference normalizes by something.
        for name, value in (("bn/moving_mean", rng.normal(size=5) * 0.3),
                            ("bn/moving_variance", rng.uniform(0.5, 2.0, size=5)),
                            ("bn/gamma", rng.uniform(0.5, 1.5, size=5)),
                            ("bn/beta", rng.normal(size=5) * 0.2)):
            variable = [v for v in tf.global_variables() if v.op.name == name][0]
            variable.load(value.astype(np.float32), session)
        variables = {v.op.name: session.run(v) for v in tf.global_variables()}
        for training, name in ((True, "expected_training"), (False, "expected_inference")):
            results = session.run(FETCHES, {"x:0": x, "y_:0": y_, "training:0": training})
            np.savez(os.path.join(out, name + ".npz"),
                     **{"result_%d" % k: np.asarray(r, dtype=np.float32)
                        for k, r in enumerate(results)})
    np.save(os.path.join(out, "x.npy"), x)
    np.save(os.path.join(out, "y_.npy"), y_)
    np.savez(os.path.join(out, "variables.npz"), **variables)


def main():
    main_graph = graph()
    for name, g in (("batchnorm", main_graph),
                    ("batchnorm_bool", graph(training_flag=False)),
                    ("batchnorm_other_update", graph(other_update=True)),
                    ("batchnorm_avg_factor", graph(avg_factor=True))):
        tf.io.write_graph(g.as_graph_def(), HERE, name + ".pbtxt", as_text=True)
        print("wrote %s.pbtxt" % name)
    write_values(main_graph)
    print("wrote batchnorm_values/")


if __name__ == "__main__":
    main()

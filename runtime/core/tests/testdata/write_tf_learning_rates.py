#!/usr/bin/env python3
"""Writes tf_learning_rates.npz: the learning rates of
tf.compat.v1.train's decay schedules at chosen global steps, as TensorFlow
computes them in a graph. runtime/core/tests/TfValuesTest.cpp holds
runtime/core/LearningRateSchedule.h to them; its table of schedules is
SCHEDULES below, case for case.

  build/bench-venv/bin/python runtime/core/tests/testdata/write_tf_learning_rates.py

Members: `steps` (int64, the global steps) and `<case>` (float32, the rate
at each step).
"""

import argparse
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

STEPS = np.array([0, 1, 2, 499, 500, 501, 999, 1000, 1001, 1500, 1999, 2000,
                  2001, 2999, 3000, 3001, 4000, 4500, 10000, 123457],
                 dtype=np.int64)

SCHEDULES = {
    "exponential_staircase": lambda step: tf.train.exponential_decay(
        0.05, step, decay_steps=1000, decay_rate=0.9, staircase=True),
    "exponential": lambda step: tf.train.exponential_decay(
        0.1, step, decay_steps=500, decay_rate=0.5),
    "polynomial": lambda step: tf.train.polynomial_decay(
        0.1, step, 2000, end_learning_rate=0.001, power=2.0),
    "polynomial_cycle": lambda step: tf.train.polynomial_decay(
        0.1, step, 2000, cycle=True),
    "cosine": lambda step: tf.train.cosine_decay(0.001, step, 3000, alpha=0.1),
    "cosine_no_alpha": lambda step: tf.train.cosine_decay(0.01, step, 1000),
    "piecewise": lambda step: tf.train.piecewise_constant(
        step, [1000, 3000], [0.1, 0.01, 0.001]),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(here,
                                                      "tf_learning_rates.npz"))
    args = parser.parse_args()
    members = {"steps": STEPS}
    graph = tf.Graph()
    with graph.as_default():
        step = tf.placeholder(tf.int64, [], name="global_step")
        rates = {name: schedule(step) for name, schedule in SCHEDULES.items()}
        with tf.Session() as session:
            for name, rate in rates.items():
                members[name] = np.array(
                    [session.run(rate, {step: s}) for s in STEPS],
                    dtype=np.float32)
    np.savez(args.out, **members)
    print("wrote %s (%d schedules at %d steps)" % (args.out, len(SCHEDULES),
                                                   len(STEPS)))


if __name__ == "__main__":
    main()

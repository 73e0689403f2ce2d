#!/usr/bin/env python3
"""Writes optimizer_fixtures.json: TensorFlow's own optimizer updates, which
OptimizerFixtureTest.cpp holds DTF's to.

DTF's optimizer kernels are otherwise only tested against formulas written
from DTF's reading of TensorFlow's; a misreading (beta1 and beta2 swapped,
Nesterov's look-ahead dropped) would be in both. Here TensorFlow itself
(tf.compat.v1 graph mode, reference variables, as in TF 1.x training) runs
each optimizer configuration DTF offers:

  - GradientDescentOptimizer,
  - MomentumOptimizer, without and with use_nesterov,
  - AdamOptimizer with its defaults, and with beta1, beta2 and epsilon far
    from them (so that a swap of beta1 and beta2, or a lost epsilon, shows),
  - RMSPropOptimizer with its defaults, with decay, momentum and epsilon
    far from them, and centered,
  - AdadeltaOptimizer with its defaults, and with rho and epsilon far from
    them,

on the same two variables (w: 3x4, b: 4; values of mixed magnitudes from a
fixed seed, one exact zero in a gradient) and three steps of fixed, distinct
float32 gradients fed through `apply_gradients(..., global_step)`. After the
initializers ran ("initialized") and after each step ("steps") it records
every global variable by TensorFlow's name: the variables, the slots
("w/Momentum", "w/Adam", "w/Adam_1", "w/RMSProp", "w/RMSProp_1",
"w/Adadelta", "w/Adadelta_1"), the non-slot variables ("beta1_power",
"beta2_power") and the global step.

Each float is written as the shortest decimal string of its float32 value;
the script checks that parsing that string as a double and rounding it to
float32 (what the C++ test does) gives back the very same float32, so the
fixture is exact. Each configuration also carries the `#dtf...` attribute
with the same hyper-parameters, for the test to compile.

Rerun (TensorFlow is in the benchmark's venv, bench/setup_venv.sh):

  build/bench-venv/bin/python runtime/exec/testdata/make_optimizer_fixtures.py
"""

import json
import os

# TensorFlow's plain Eigen kernels, not oneDNN's rewrites of them: the
# fixture should not depend on the CPU the script ran on.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "optimizer_fixtures.json")
STEPS = 3
SHAPES = {"w": (3, 4), "b": (4,)}


def mixed(rng, shape, low, high):
    """float32 values of both signs with magnitudes spread over 10^low to
    10^high, so that an update's rounding shows at several scales."""
    magnitude = 10.0 ** rng.uniform(low, high, size=shape)
    sign = rng.choice([-1.0, 1.0], size=shape)
    return (sign * magnitude).astype(np.float32)


def inputs():
    rng = np.random.RandomState(20240529)
    initial = {name: mixed(rng, shape, -3, 1) for name, shape in SHAPES.items()}
    gradients = []
    for step in range(STEPS):
        gradients.append({"g" + name: mixed(rng, shape, -4, 1)
                          for name, shape in SHAPES.items()})
    # A zero gradient: Adam's update of it is 0 / (0 + epsilon).
    gradients[0]["gb"][1] = 0.0
    return initial, gradients


# name -> (TensorFlow optimizer, its constructor as text, the DTF attribute).
CONFIGS = [
    ("sgd",
     lambda: tf.train.GradientDescentOptimizer(learning_rate=0.1),
     "GradientDescentOptimizer(learning_rate=0.1)",
     "#dtf.sgd<learning_rate = 0.1>"),
    ("momentum",
     lambda: tf.train.MomentumOptimizer(learning_rate=0.05, momentum=0.9),
     "MomentumOptimizer(learning_rate=0.05, momentum=0.9)",
     "#dtf.momentum<learning_rate = 0.05, momentum = 0.9>"),
    ("momentum_nesterov",
     lambda: tf.train.MomentumOptimizer(learning_rate=0.05, momentum=0.9,
                                        use_nesterov=True),
     "MomentumOptimizer(learning_rate=0.05, momentum=0.9, use_nesterov=True)",
     "#dtf.momentum<learning_rate = 0.05, momentum = 0.9, use_nesterov = true>"),
    # No parameters on either side: DTF's defaults must be TensorFlow's.
    ("adam_defaults",
     lambda: tf.train.AdamOptimizer(),
     "AdamOptimizer()",
     "#dtf.adam<>"),
    ("adam",
     lambda: tf.train.AdamOptimizer(learning_rate=0.02, beta1=0.6, beta2=0.95,
                                    epsilon=1e-3),
     "AdamOptimizer(learning_rate=0.02, beta1=0.6, beta2=0.95, epsilon=1e-3)",
     "#dtf.adam<learning_rate = 0.02, beta1 = 0.6, beta2 = 0.95, epsilon = 1.0e-3>"),
    # TensorFlow 1's defaults (decay 0.9, no momentum, epsilon 1e-10; ms
    # starts at ones), then every parameter away from them, then centered.
    ("rmsprop_defaults",
     lambda: tf.train.RMSPropOptimizer(learning_rate=0.001),
     "RMSPropOptimizer(learning_rate=0.001)",
     "#dtf.rmsprop<learning_rate = 0.001>"),
    ("rmsprop",
     lambda: tf.train.RMSPropOptimizer(learning_rate=0.01, decay=0.8,
                                       momentum=0.5, epsilon=1e-4),
     "RMSPropOptimizer(learning_rate=0.01, decay=0.8, momentum=0.5, "
     "epsilon=1e-4)",
     "#dtf.rmsprop<learning_rate = 0.01, decay = 0.8, momentum = 0.5, "
     "epsilon = 1.0e-4>"),
    ("rmsprop_centered",
     lambda: tf.train.RMSPropOptimizer(learning_rate=0.01, momentum=0.3,
                                       centered=True),
     "RMSPropOptimizer(learning_rate=0.01, momentum=0.3, centered=True)",
     "#dtf.rmsprop<learning_rate = 0.01, momentum = 0.3, centered = true>"),
    # TensorFlow's defaults (rho 0.95, epsilon 1e-8), then rho and epsilon
    # away from them and a learning rate of 1, as Zeiler's paper uses.
    ("adadelta_defaults",
     lambda: tf.train.AdadeltaOptimizer(learning_rate=0.001),
     "AdadeltaOptimizer(learning_rate=0.001)",
     "#dtf.adadelta<learning_rate = 0.001>"),
    ("adadelta",
     lambda: tf.train.AdadeltaOptimizer(learning_rate=1.0, rho=0.7, epsilon=1e-3),
     "AdadeltaOptimizer(learning_rate=1.0, rho=0.7, epsilon=1e-3)",
     "#dtf.adadelta<learning_rate = 1.0, rho = 0.7, epsilon = 1.0e-3>"),
]


def run(make_optimizer, initial, gradients):
    """The global variables after initialization, and after each step, by
    name."""
    graph = tf.Graph()
    with graph.as_default():
        global_step = tf.train.get_or_create_global_step()
        variables = {name: tf.Variable(value, name=name)
                     for name, value in initial.items()}
        feeds = {name: tf.placeholder(tf.float32, SHAPES[name], name="g" + name)
                 for name in SHAPES}
        train = make_optimizer().apply_gradients(
            [(feeds[name], variables[name]) for name in SHAPES],
            global_step=global_step)
        everything = {v.op.name: v for v in tf.global_variables()}
        config = tf.ConfigProto(intra_op_parallelism_threads=1,
                                inter_op_parallelism_threads=1)
        steps = []
        with tf.Session(graph=graph, config=config) as session:
            session.run(tf.global_variables_initializer())
            initialized = session.run(everything)
            for step in range(STEPS):
                session.run(train, {feeds[name]: gradients[step]["g" + name]
                                    for name in SHAPES})
                steps.append(session.run(everything))
    return initialized, steps


def exact(value):
    """The shortest decimal string of a float32 that, read as a double and
    rounded to float32, is that float32 again."""
    value = np.float32(value)
    text = np.format_float_positional(value, unique=True, trim="-") \
        if 1e-4 <= abs(value) < 1e6 or value == 0 else \
        np.format_float_scientific(value, unique=True, trim="-")
    assert np.float32(float(text)) == value, (value, text)
    return text


class Raw:
    """A JSON fragment written as is: a tensor's values on one line."""
    table = []

    def __init__(self, text):
        self.key = "@raw%d@" % len(Raw.table)
        Raw.table.append(text)


def tensor(array):
    array = np.asarray(array)
    if array.dtype == np.int64:
        return int(array)
    if array.ndim == 0:
        return Raw(exact(array)).key
    return Raw("[" + ", ".join(exact(x) for x in array.reshape(-1)) + "]").key


def state(values):
    """Variables by name, in name order."""
    return {name: tensor(value) for name, value in sorted(values.items())}


def main():
    initial, gradients = inputs()
    fixture = {
        "generator": "runtime/exec/testdata/make_optimizer_fixtures.py",
        "tensorflow": tf.__version__,
        "numpy": np.__version__,
        "shapes": {name: Raw(json.dumps(list(shape))).key
                   for name, shape in SHAPES.items()},
        "initial": {name: tensor(value) for name, value in initial.items()},
        "gradients": [{name: tensor(value) for name, value in step.items()}
                      for step in gradients],
        "configurations": [],
    }
    for name, make_optimizer, tf_text, dtf_text in CONFIGS:
        initialized, steps = run(make_optimizer, initial, gradients)
        fixture["configurations"].append({
            "name": name,
            "tensorflow": "tf.compat.v1.train." + tf_text,
            "dtf": dtf_text,
            "initialized": state(initialized),
            "steps": [state(step) for step in steps],
        })
    text = json.dumps(fixture, indent=1)
    for index, raw in enumerate(Raw.table):
        text = text.replace('"@raw%d@"' % index, raw)
    with open(OUT, "w") as f:
        f.write(text + "\n")
    print("wrote %s (%d bytes)" % (OUT, len(text) + 1))


if __name__ == "__main__":
    main()

"""TensorFlow's values of a conv test graph (input `x`, target `y_`, outputs
`loss` and `output`), written for `dtf-eval-model --expect`: the batch
(x.npy, y_.npy), the variables (variables.npz, every bias drawn away from its
initial zeros) and the results (expected.npz: result_0 the loss, result_1
the output). Shared by make_conv_transpose_graphs.py and
make_conv_dilated_graphs.py.
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf


def write_values(graph, out, seed, x_shape, y_shape):
    """Runs `graph` on a batch drawn from `seed` and writes its values into
    the directory `out`."""
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(seed)
    x = rng.normal(size=x_shape).astype(np.float32)
    y_ = rng.normal(size=y_shape).astype(np.float32)
    with tf.Session(graph=graph) as session:
        session.run(tf.global_variables_initializer())
        for variable in tf.global_variables():
            if variable.op.name.endswith("/bias"):
                variable.load(rng.normal(size=variable.shape).astype(np.float32) * 0.1,
                              session)
        variables = {v.op.name: session.run(v) for v in tf.global_variables()}
        loss, output = session.run(["loss:0", "output:0"], {"x:0": x, "y_:0": y_})
    np.save(os.path.join(out, "x.npy"), x)
    np.save(os.path.join(out, "y_.npy"), y_)
    np.savez(os.path.join(out, "variables.npz"), **variables)
    np.savez(os.path.join(out, "expected.npz"), result_0=np.float32(loss), result_1=output)

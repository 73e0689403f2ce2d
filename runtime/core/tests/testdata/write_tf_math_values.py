#!/usr/bin/env python3
"""Writes tf_math_values.npz: TensorFlow's own results of the elementwise
math ops DTF imports (Tanh, Exp, Sqrt, Rsqrt, Abs, Sign, Floor, Pow,
Minimum, Maximum, DivNoNan, the comparisons, the logical ops, SelectV2, Max
and Min, AvgPool and AvgPoolGrad), on
inputs that include what kernels get wrong: zeros of both signs, negatives,
ties, infinities and NaN. runtime/core/tests/TfValuesTest.cpp holds DTF's
kernels to them.

  build/bench-venv/bin/python runtime/core/tests/testdata/write_tf_math_values.py

Each op's members are `<op>.x` (and `<op>.y`, `<op>.condition`), its inputs,
and `<op>.out`, TensorFlow's output; all float32 or bool.
"""

import argparse
import os

import numpy as np
import tensorflow as tf

INF = np.inf
NAN = np.nan

# Values that each unary op sees: signs, zeros, small and large magnitudes,
# the non-finite ones.
UNARY_X = np.array([-3.5, -1.0, -0.5, -0.0, 0.0, 1e-30, 0.25, 0.5, 1.0, 2.5,
                    20.0, 90.0, -90.0, INF, -INF, NAN], dtype=np.float32)

# Pairs for the binary ops: ties, zeros of both signs, NaN on either side;
# y is broadcast along the rows ([2, 8] against [8]).
BINARY_X = np.array([[-2.0, 0.0, -0.0, 1.5, 3.0, NAN, 2.0, INF],
                     [0.5, -1.0, 4.0, 0.0, -3.0, 1.0, NAN, -INF]],
                    dtype=np.float32)
BINARY_Y = np.array([-2.0, -0.0, 0.0, 0.5, 0.0, 1.0, NAN, 2.0],
                    dtype=np.float32)

# Pow: a positive base to any power, a negative base to integer powers,
# zero to positive and negative powers.
POW_X = np.array([[2.0, 2.0, 0.5, -2.0, -2.0, 0.0, 0.0, 1.0],
                  [3.0, 10.0, 0.25, -0.5, -3.0, 0.0, 4.0, NAN]],
                 dtype=np.float32)
POW_Y = np.array([3.0, -1.5, 0.5, 2.0, 3.0, 2.0, -1.0, 0.0],
                 dtype=np.float32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "tf_math_values.npz"))
    args = parser.parse_args()

    arrays = {}
    unary = {"tanh": tf.math.tanh, "exp": tf.math.exp, "sqrt": tf.math.sqrt,
             "rsqrt": tf.math.rsqrt, "abs": tf.math.abs, "sign": tf.math.sign,
             "floor": tf.math.floor}
    for name, fn in unary.items():
        arrays[name + ".x"] = UNARY_X
        arrays[name + ".out"] = fn(UNARY_X).numpy()

    binary = {"minimum": tf.math.minimum, "maximum": tf.math.maximum,
              "div_no_nan": tf.math.divide_no_nan,
              "equal": tf.math.equal, "not_equal": tf.math.not_equal,
              "greater": tf.math.greater,
              "greater_equal": tf.math.greater_equal, "less": tf.math.less,
              "less_equal": tf.math.less_equal}
    for name, fn in binary.items():
        arrays[name + ".x"] = BINARY_X
        arrays[name + ".y"] = BINARY_Y
        arrays[name + ".out"] = fn(BINARY_X, BINARY_Y).numpy()
    arrays["pow.x"] = POW_X
    arrays["pow.y"] = POW_Y
    arrays["pow.out"] = tf.math.pow(POW_X, POW_Y).numpy()

    p = np.array([[True, False, True, False], [True, True, False, False]])
    q = np.array([True, False, False, True])
    for name, fn in {"logical_and": tf.math.logical_and,
                     "logical_or": tf.math.logical_or}.items():
        arrays[name + ".x"] = p
        arrays[name + ".y"] = q
        arrays[name + ".out"] = fn(p, q).numpy()
    arrays["logical_not.x"] = p
    arrays["logical_not.out"] = tf.math.logical_not(p).numpy()

    # SelectV2 broadcasts all three: a [2, 1] condition, [2, 8] and [8].
    condition = np.array([[True], [False]])
    arrays["select.condition"] = condition
    arrays["select.x"] = BINARY_X
    arrays["select.y"] = BINARY_Y
    arrays["select.out"] = tf.where(condition, BINARY_X, BINARY_Y).numpy()

    # Reductions over rows and over columns, NaN in one row.
    reduce_x = np.array([[1.0, -2.0, 3.0, 3.0], [NAN, 0.0, -1.0, 2.0],
                         [-0.0, 0.0, -INF, 5.0]], dtype=np.float32)
    for name, fn in {"reduce_max": tf.math.reduce_max,
                     "reduce_min": tf.math.reduce_min}.items():
        arrays[name + ".x"] = reduce_x
        arrays[name + ".out"] = fn(reduce_x, axis=1).numpy()
        arrays[name + "_columns.x"] = reduce_x
        arrays[name + "_columns.out"] = fn(reduce_x, axis=0,
                                           keepdims=True).numpy()

    # Average pooling and its gradient, SAME (edge windows hold fewer
    # cells, padding not counted) and VALID with overlapping windows.
    pool_x = np.arange(50, dtype=np.float32).reshape(1, 5, 5, 2) / 7.0
    for name, ksize, strides, padding in [
            ("avg_pool_same", [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
            ("avg_pool_valid", [1, 2, 2, 1], [1, 1, 1, 1], "VALID")]:
        pooled = tf.nn.avg_pool2d(pool_x, ksize, strides, padding).numpy()
        arrays[name + ".x"] = pool_x
        arrays[name + ".out"] = pooled
        dy = (np.arange(pooled.size, dtype=np.float32).reshape(pooled.shape)
              - 3.0) / 5.0
        arrays[name + "_grad.dy"] = dy
        arrays[name + "_grad.out"] = tf.raw_ops.AvgPoolGrad(
            orig_input_shape=pool_x.shape, grad=dy, ksize=ksize,
            strides=strides, padding=padding).numpy()

    np.savez(args.out, **arrays)
    print("wrote %d arrays to %s (TensorFlow %s)" % (len(arrays), args.out,
                                                     tf.__version__))


if __name__ == "__main__":
    main()

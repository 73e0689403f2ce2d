#!/usr/bin/env python3
"""Writes tf_math_values.npz: TensorFlow's own results of the elementwise
math ops DTF imports (Tanh, Exp, Sqrt, Rsqrt, Abs, Sign, Floor, Pow,
Minimum, Maximum, DivNoNan, the comparisons, the logical ops, SelectV2, Max
and Min, AvgPool and AvgPoolGrad, and the layer math of write_layer_math),
on inputs that include what kernels get wrong: zeros of both signs,
negatives, ties, infinities and NaN. runtime/core/tests/TfValuesTest.cpp
holds DTF's kernels to them.

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


def write_layer_math(arrays):
    """The layer math of TF1 models: Transpose, LogSoftmax, OneHot, Tile,
    BatchMatMulV2 and Prod, with their gradients where DTF has a separate
    gradient kernel."""
    # Transpose: a 3-D and a 4-D (NHWC to NCHW) permutation; non-finite
    # values move like any other.
    transpose_x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5
    transpose_x[1, 2, 3] = NAN
    transpose_x[0, 1, 0] = -INF
    arrays["transpose.x"] = transpose_x
    arrays["transpose.out"] = tf.transpose(transpose_x, [2, 0, 1]).numpy()
    nhwc = np.arange(2 * 3 * 2 * 4, dtype=np.float32).reshape(2, 3, 2, 4)
    arrays["transpose_nchw.x"] = nhwc
    arrays["transpose_nchw.out"] = tf.transpose(nhwc, [0, 3, 1, 2]).numpy()

    # LogSoftmax over the last axis: logits far apart (one class takes all
    # the mass), ties, a -inf logit, a NaN.
    logits = np.array([[1.0, 2.0, 3.0, 4.0], [1000.0, -1000.0, 0.0, 1.0],
                       [0.5, 0.5, 0.5, 0.5], [-INF, 1.0, 2.0, -3.0],
                       [1.0, NAN, 0.0, 2.0], [-1e-3, 2e-3, 0.0, -30.0]],
                      dtype=np.float32)
    arrays["log_softmax.x"] = logits
    arrays["log_softmax.out"] = tf.nn.log_softmax(logits).numpy()

    # OneHot of int32 and int64 ids, ids outside [0, depth) (negative too)
    # giving rows of the off value.
    ids32 = np.array([0, 3, -1, 4, 2, 9], dtype=np.int32)
    arrays["one_hot.x"] = ids32
    arrays["one_hot.out"] = tf.one_hot(ids32, 4).numpy()
    ids64 = np.array([[1, 0, 2], [2, 7, -3]], dtype=np.int64)
    arrays["one_hot_values.x"] = ids64
    arrays["one_hot_values.out"] = tf.one_hot(ids64, 3, on_value=5.0,
                                              off_value=-0.5).numpy()

    # Tile: every dimension repeated, one not, and a 3-D tensor with a NaN.
    tile_x = np.array([[1.0, -2.0, 3.5], [NAN, 0.0, -INF]], dtype=np.float32)
    arrays["tile.x"] = tile_x
    arrays["tile.out"] = tf.tile(tile_x, [3, 2]).numpy()
    tile_3d = np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 4.0
    arrays["tile_3d.x"] = tile_3d
    arrays["tile_3d.out"] = tf.tile(tile_3d, [2, 1, 3]).numpy()

    # BatchMatMulV2: equal batch dimensions under each adjoint pairing, and
    # batch dimensions broadcast ([2, 1] against [3]).
    rng = np.random.RandomState(5)
    for adj_x in (False, True):
        for adj_y in (False, True):
            name = "batch_matmul_%s%s" % ("t" if adj_x else "n",
                                          "t" if adj_y else "n")
            x = rng.randn(*((3, 4, 2) if adj_x else (3, 2, 4)))
            y = rng.randn(*((3, 5, 4) if adj_y else (3, 4, 5)))
            arrays[name + ".x"] = x.astype(np.float32)
            arrays[name + ".y"] = y.astype(np.float32)
            arrays[name + ".out"] = tf.linalg.matmul(
                x.astype(np.float32), y.astype(np.float32), adjoint_a=adj_x,
                adjoint_b=adj_y).numpy()
    x = rng.randn(2, 1, 2, 3).astype(np.float32)
    y = rng.randn(3, 3, 4).astype(np.float32)
    arrays["batch_matmul_broadcast.x"] = x
    arrays["batch_matmul_broadcast.y"] = y
    arrays["batch_matmul_broadcast.out"] = tf.linalg.matmul(x, y).numpy()

    # Prod over rows and over columns, and its gradient (_ProdGrad) where a
    # slice holds no zero, one zero (whose gradient is the product of the
    # others) and two zeros (all gradients zero).
    prod_x = np.array([[1.5, -2.0, 0.5, 3.0], [2.0, 0.0, -1.0, 4.0],
                       [0.0, 3.0, 0.0, -0.5]], dtype=np.float32)
    prod_nan = prod_x.copy()
    prod_nan[0, 3] = NAN
    arrays["reduce_prod.x"] = prod_nan
    arrays["reduce_prod.out"] = tf.math.reduce_prod(prod_nan, axis=1).numpy()
    arrays["reduce_prod_columns.x"] = prod_x
    arrays["reduce_prod_columns.out"] = tf.math.reduce_prod(
        prod_x, axis=0, keepdims=True).numpy()
    for name, axis, keepdims in [("reduce_prod_grad", [1], False),
                                 ("reduce_prod_grad_all", [0, 1], True)]:
        x = tf.constant(prod_x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.reduce_prod(x, axis=axis, keepdims=keepdims)
        dy = (np.arange(y.shape.num_elements(), dtype=np.float32)
              .reshape(y.shape) - 1.5)
        arrays[name + ".x"] = prod_x
        arrays[name + ".dy"] = dy
        arrays[name + ".out"] = tape.gradient(y, x, output_gradients=dy).numpy()


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

    write_layer_math(arrays)

    np.savez(args.out, **arrays)
    print("wrote %d arrays to %s (TensorFlow %s)" % (len(arrays), args.out,
                                                     tf.__version__))


if __name__ == "__main__":
    main()

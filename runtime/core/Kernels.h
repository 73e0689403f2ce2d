//===- Kernels.h - CPU kernels with TensorFlow semantics ------------------===//
//
// Every kernel takes and returns dtf::Tensor, checks its operands and throws
// std::invalid_argument with the offending shapes/dtypes on a mismatch, and
// dispatches on the run-time dtype. Operands of one kernel must share a dtype
// (no implicit promotion, as in TensorFlow). Supported dtypes are listed per
// kernel; "float" means f32 and f64.
//
// Names follow the TensorFlow ops they implement so that an interpreter can
// map ops to kernels one to one.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"

#include <string_view>
#include <vector>

namespace dtf::kernels {

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// op(a) x op(b) for 2-D float tensors, op = transpose when requested.
Tensor matmul(const Tensor &a, const Tensor &b, bool transpose_a = false,
              bool transpose_b = false);

//===----------------------------------------------------------------------===//
// Element-wise (NumPy broadcasting for binary ops)
//===----------------------------------------------------------------------===//

/// f32, f64, i32, i64. Integer div truncates toward zero and throws
/// std::domain_error on division by zero.
Tensor add(const Tensor &a, const Tensor &b);
Tensor sub(const Tensor &a, const Tensor &b);
Tensor mul(const Tensor &a, const Tensor &b);
Tensor div(const Tensor &a, const Tensor &b);
/// a / b, and 0 wherever b is 0 (TF DivNoNan, even for a NaN or infinite a);
/// float only.
Tensor div_no_nan(const Tensor &a, const Tensor &b);
/// TF Minimum and Maximum: a NaN in either operand gives NaN; f32, f64,
/// i32, i64.
Tensor minimum(const Tensor &a, const Tensor &b);
Tensor maximum(const Tensor &a, const Tensor &b);
/// a to the power b (std::pow); float only.
Tensor pow(const Tensor &a, const Tensor &b);

/// Comparisons as Bool tensors. equal and not_equal take every dtype; the
/// ordered ones f32, f64, i32, i64, false where an operand is NaN.
Tensor equal(const Tensor &a, const Tensor &b);
Tensor not_equal(const Tensor &a, const Tensor &b);
Tensor greater(const Tensor &a, const Tensor &b);
Tensor greater_equal(const Tensor &a, const Tensor &b);
Tensor less(const Tensor &a, const Tensor &b);
Tensor less_equal(const Tensor &a, const Tensor &b);

/// Bool only.
Tensor logical_and(const Tensor &a, const Tensor &b);
Tensor logical_or(const Tensor &a, const Tensor &b);
Tensor logical_not(const Tensor &x);

/// on_true where `condition` (Bool) holds, else on_false, the three
/// broadcast together (TF SelectV2); on_true and on_false of one dtype, any.
Tensor select(const Tensor &condition, const Tensor &on_true,
              const Tensor &on_false);

/// max(x, 0); f32, f64, i32, i64.
Tensor relu(const Tensor &x);
/// dy where x > 0, else 0 (TF ReluGrad); dy and x have the same shape.
Tensor relu_grad(const Tensor &dy, const Tensor &x);
/// -x; f32, f64, i32, i64.
Tensor neg(const Tensor &x);
/// |x| and the sign of x (-1, 0 or 1; NaN for NaN, as TF's Sign); f32, f64,
/// i32, i64.
Tensor abs(const Tensor &x);
Tensor sign(const Tensor &x);
/// Float only.
Tensor log(const Tensor &x);
Tensor exp(const Tensor &x);
Tensor sqrt(const Tensor &x);
Tensor rsqrt(const Tensor &x);
Tensor tanh(const Tensor &x);
Tensor floor(const Tensor &x);

/// x + b with the 1-D `b` added along the last dimension of x (rank >= 2,
/// as TF's BiasAdd requires); f32, f64, i32, i64.
Tensor bias_add(const Tensor &x, const Tensor &b);
/// Sum of dy over all but the last dimension (TF BiasAddGrad).
Tensor bias_add_grad(const Tensor &dy);

/// min(max(x, clip_min), clip_max); f32, f64, i32, i64. Throws if
/// clip_min > clip_max.
Tensor clip_by_value(const Tensor &x, double clip_min, double clip_max);
/// dy where clip_min <= x <= clip_max, else 0.
Tensor clip_by_value_grad(const Tensor &dy, const Tensor &x, double clip_min,
                          double clip_max);

/// Element-wise conversion between any two dtypes (C++ static_cast
/// semantics: float -> int truncates, Bool <-> number is 0/1, number -> Bool
/// is != 0). Casting to the same dtype copies.
Tensor cast(const Tensor &x, DType dtype);

//===----------------------------------------------------------------------===//
// Logistic regression (float only)
//===----------------------------------------------------------------------===//

/// 1 / (1 + exp(-x)) elementwise, as exp(x) / (1 + exp(x)) for x < 0 so
/// that neither side overflows or loses its small values.
Tensor sigmoid(const Tensor &x);
/// dy * y * (1 - y), y being sigmoid's output (TF SigmoidGrad(y, dy)); y and
/// dy have the same type.
Tensor sigmoid_grad(const Tensor &y, const Tensor &dy);
/// tf.nn.sigmoid_cross_entropy_with_logits, elementwise on operands of one
/// type: max(x, 0) - x * z + log1p(exp(-|x|)), finite for any finite x.
Tensor sigmoid_cross_entropy_with_logits(const Tensor &logits,
                                         const Tensor &labels);
/// Its gradient w.r.t. the logits: dloss * (sigmoid(x) - z), all three of
/// one type.
Tensor sigmoid_cross_entropy_with_logits_grad(const Tensor &dloss,
                                              const Tensor &logits,
                                              const Tensor &labels);

//===----------------------------------------------------------------------===//
// Softmax and losses (float only)
//===----------------------------------------------------------------------===//

/// Softmax along the last axis (rank >= 1), computed as exp(x - max).
Tensor softmax(const Tensor &x);
/// (dy - sum(dy * y, last axis, keepdims)) * y, y being softmax's output.
Tensor softmax_grad(const Tensor &dy, const Tensor &y);

/// Per-example loss[N] = -sum_c labels * log_softmax(logits) for
/// logits/labels [N, C], via log-sum-exp so large logits do not overflow.
Tensor softmax_cross_entropy_with_logits(const Tensor &logits,
                                         const Tensor &labels);
/// Gradient w.r.t. logits: dloss[:, None] * (softmax(logits) - labels).
Tensor softmax_cross_entropy_with_logits_grad(const Tensor &dloss,
                                              const Tensor &logits,
                                              const Tensor &labels);
/// Per-example loss[N] = -log_softmax(logits)[n, labels[n]] for logits
/// [N, C] and class ids [N] (i32 or i64). Throws std::invalid_argument
/// naming the example whose class id is outside [0, C).
Tensor sparse_softmax_cross_entropy_with_logits(const Tensor &logits,
                                                const Tensor &labels);
/// Gradient w.r.t. logits: dloss[:, None] * (softmax(logits) -
/// one_hot(labels, C)).
Tensor sparse_softmax_cross_entropy_with_logits_grad(const Tensor &dloss,
                                                     const Tensor &logits,
                                                     const Tensor &labels);

//===----------------------------------------------------------------------===//
// Reductions and shape manipulation
//===----------------------------------------------------------------------===//

/// Sums over `axes` (empty = all axes; negative axes count from the back;
/// duplicates are an error). keep_dims keeps reduced axes as size 1.
/// f32, f64, i32, i64; float sums accumulate in double.
Tensor reduce_sum(const Tensor &x, const std::vector<int64_t> &axes,
                  bool keep_dims = false);
/// Mean over `axes`, same conventions as reduce_sum; float only.
Tensor reduce_mean(const Tensor &x, const std::vector<int64_t> &axes,
                   bool keep_dims = false);
/// Maximum and minimum over `axes`, same conventions as reduce_sum; a NaN
/// in a reduced slice gives NaN, as TensorFlow's; f32, f64, i32, i64. An
/// empty slice gives -inf (max) or inf (min), for integers the lowest or
/// highest value.
Tensor reduce_max(const Tensor &x, const std::vector<int64_t> &axes,
                  bool keep_dims = false);
Tensor reduce_min(const Tensor &x, const std::vector<int64_t> &axes,
                  bool keep_dims = false);
/// Index of the largest element along `axis` (first one on ties) as i64;
/// the axis is removed. f32, f64, i32, i64.
Tensor argmax(const Tensor &x, int64_t axis);

/// Replicates x to `shape` by NumPy broadcasting (x's shape must broadcast to
/// exactly `shape`); every dtype.
Tensor broadcast_to(const Tensor &x, const Shape &shape);
/// Joins `inputs` along `axis` (negative counts from the back): one dtype
/// and rank (>= 1), equal sizes except along `axis`; every dtype.
Tensor concat(const std::vector<const Tensor *> &inputs, int64_t axis);
/// The box of x starting at `offsets` with `sizes` (one per dimension; -1
/// extends to the end of the dimension), as TF's Slice; every dtype.
Tensor slice(const Tensor &x, const std::vector<int64_t> &offsets,
             const std::vector<int64_t> &sizes);
/// Reinterprets x's buffer with a new shape; at most one dimension may be -1
/// and is then inferred. Takes x by value: pass std::move(t) to reuse the
/// buffer without copying, or t.clone() to keep t.
Tensor reshape(Tensor x, const Shape &shape);

//===----------------------------------------------------------------------===//
// Convolution and pooling (NHWC, float only)
//===----------------------------------------------------------------------===//

enum class Padding { Same, Valid };
/// Parses TF's padding attribute, "SAME" or "VALID".
Padding parse_padding(std::string_view padding);

/// input [N,H,W,Cin] conv filter [KH,KW,Cin,Cout] -> [N,OH,OW,Cout], strides
/// {1,sh,sw,1}. Output size and SAME padding as TensorFlow: OH = ceil(H/sh)
/// for SAME with the odd padding row/column at the bottom/right, OH =
/// ceil((H-KH+1)/sh) for VALID. Dilations {1,dh,dw,1} space the filter's
/// taps dh and dw cells apart, and KH above is the span (KH-1)*dh+1 (TF's
/// atrous convolution). Implemented as im2col + GEMM.
Tensor conv2d(const Tensor &input, const Tensor &filter,
              const std::vector<int64_t> &strides, Padding padding,
              const std::vector<int64_t> &dilations = {1, 1, 1, 1});
/// Gradient of conv2d w.r.t. its input (shape `input_shape`), given dy.
Tensor
conv2d_backprop_input(const Shape &input_shape, const Tensor &filter,
                      const Tensor &dy, const std::vector<int64_t> &strides,
                      Padding padding,
                      const std::vector<int64_t> &dilations = {1, 1, 1, 1});
/// Gradient of conv2d w.r.t. its filter (shape `filter_shape`), given dy.
Tensor
conv2d_backprop_filter(const Tensor &input, const Shape &filter_shape,
                       const Tensor &dy, const std::vector<int64_t> &strides,
                       Padding padding,
                       const std::vector<int64_t> &dilations = {1, 1, 1, 1});

/// Max over windows ksize {1,kh,kw,1} moved by strides {1,sh,sw,1}; padding
/// cells never win. Output size as for conv2d.
Tensor max_pool(const Tensor &x, const std::vector<int64_t> &ksize,
                const std::vector<int64_t> &strides, Padding padding);
/// Routes each dy element to the position of its window's maximum in x (the
/// first in row-major window order on ties), summing where windows overlap.
/// The mean of each window's input cells, padding cells not counted (TF
/// AvgPool).
Tensor avg_pool(const Tensor &x, const std::vector<int64_t> &ksize,
                const std::vector<int64_t> &strides, Padding padding);
/// avg_pool's gradient, of the shape `inputShape` of its input: each
/// window's dy / n added to its n input cells (TF AvgPoolGrad).
Tensor avg_pool_grad(const Shape &inputShape, const Tensor &dy,
                     const std::vector<int64_t> &ksize,
                     const std::vector<int64_t> &strides, Padding padding);
/// y is max_pool's output; only its shape is checked.
Tensor max_pool_grad(const Tensor &x, const Tensor &y, const Tensor &dy,
                     const std::vector<int64_t> &ksize,
                     const std::vector<int64_t> &strides, Padding padding);

//===----------------------------------------------------------------------===//
// Layer math of TF1 models (LayerMath.cpp)
//===----------------------------------------------------------------------===//

/// Dimension i of the result is dimension permutation[i] of x (TF
/// Transpose); every dtype.
Tensor transpose(const Tensor &x, const std::vector<int64_t> &permutation);
/// x - max - log(sum(exp(x - max))) along the last axis (rank >= 1; TF
/// LogSoftmax); float only.
Tensor log_softmax(const Tensor &x);
/// The ids `indices` (i32 or i64) one-hot encoded along a new last axis of
/// size `depth`: on_value where the last index is the id, off_value
/// elsewhere; an id outside [0, depth) gives a row of off_value (TF OneHot,
/// axis -1). `dtype` is float.
Tensor one_hot(const Tensor &indices, int64_t depth, double on_value,
               double off_value, DType dtype);
/// x repeated multiples[i] times along each dimension i (one multiple >= 0
/// per dimension; TF Tile); every dtype.
Tensor tile(const Tensor &x, const std::vector<int64_t> &multiples);
/// op(x) op(y) of the matrices of the last two dimensions (rank >= 2), op
/// transposing when adj_x/adj_y is set, over the batch dimensions before
/// them, which broadcast (TF BatchMatMulV2); float only.
Tensor batch_matmul(const Tensor &x, const Tensor &y, bool adj_x = false,
                    bool adj_y = false);
/// Product over `axes`, same conventions as reduce_sum (Reduction.cpp; an
/// empty slice gives 1); f32, f64, i32, i64.
Tensor reduce_prod(const Tensor &x, const std::vector<int64_t> &axes,
                   bool keep_dims = false);
/// reduce_prod's gradient (TF _ProdGrad): each element of x gets the dy of
/// its reduced slice (dy of reduce_prod's result shape) times the product
/// of the slice's other elements, multiplied from both ends without
/// division, so that zeros are exact; float only.
Tensor reduce_prod_grad(const Tensor &x, const Tensor &dy,
                        const std::vector<int64_t> &axes, bool keep_dims);

//===----------------------------------------------------------------------===//
// Variable updates (in place, float only unless noted)
//===----------------------------------------------------------------------===//

/// var -= lr * grad.
void apply_gradient_descent(Tensor &var, double lr, const Tensor &grad);
/// accum = accum * momentum + grad; then var -= lr * accum, or with Nesterov
/// var -= lr * grad + lr * momentum * accum.
void apply_momentum(Tensor &var, Tensor &accum, double lr, const Tensor &grad,
                    double momentum, bool use_nesterov = false);
/// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power);
/// m = beta1 * m + (1 - beta1) * g; v = beta2 * v + (1 - beta2) * g * g;
/// var -= lr_t * m / (sqrt(v) + epsilon).
void apply_adam(Tensor &var, Tensor &m, Tensor &v, double beta1_power,
                double beta2_power, double lr, double beta1, double beta2,
                double epsilon, const Tensor &grad);
/// RMSProp as TensorFlow's ApplyRMSProp computes it:
/// ms += (g * g - ms) * (1 - decay); mom = mom * momentum + g * lr /
/// sqrt(ms + epsilon); var -= mom. With `mg` (ApplyCenteredRMSProp), also
/// mg += (g - mg) * (1 - decay), and the denominator is
/// sqrt(ms - mg * mg + epsilon).
void apply_rmsprop(Tensor &var, Tensor &ms, Tensor &mom, Tensor *mg, double lr,
                   double decay, double momentum, double epsilon,
                   const Tensor &grad);
/// Adadelta as TensorFlow's ApplyAdadelta computes it:
/// accum = rho * accum + (1 - rho) * g * g;
/// update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * g;
/// var -= lr * update; accum_update = rho * accum_update + (1 - rho) *
/// update * update.
void apply_adadelta(Tensor &var, Tensor &accum, Tensor &accum_update,
                    double lr, double rho, double epsilon, const Tensor &grad);
/// var += delta; f32, f64, i32, i64.
void assign_add(Tensor &var, const Tensor &delta);
/// var -= (var - value) * (1 - decay), as TensorFlow's
/// assign_moving_average computes it: 1 - decay in T, then the update.
void assign_moving_average(Tensor &var, const Tensor &value, double decay);

} // namespace dtf::kernels

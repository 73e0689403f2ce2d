//===- Softmax.cpp - Softmax and cross-entropy kernels --------------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/KernelSupport.h"

#include <algorithm>
#include <cmath>

namespace dtf::kernels {

namespace {

/// Writes softmax(row) to `out` and returns log(sum(exp(row - max))) + max,
/// i.e. log-sum-exp of the row, which cross-entropy needs as well.
template <typename T> T softmaxRow(const T *row, int64_t length, T *out) {
  const T maxValue = *std::max_element(row, row + length);
  T sum = 0;
  for (int64_t i = 0; i < length; ++i) {
    out[i] = std::exp(row[i] - maxValue);
    sum += out[i];
  }
  const T inverse = T(1) / sum;
  for (int64_t i = 0; i < length; ++i)
    out[i] *= inverse;
  return maxValue + std::log(sum);
}

void checkLogitsAndLabels(const char *op, const Tensor &logits,
                          const Tensor &labels) {
  requireRank(op, logits, "logits", 2);
  requireSameType(op, logits, "logits", labels, "labels");
}

/// Checks that `dloss` holds one loss gradient per row of `logits`.
void requireLossPerRow(const char *op, const Tensor &dloss,
                       const Tensor &logits) {
  requireSameDType(op, dloss, "dloss", logits, "logits");
  if (dloss.shape() != Shape{logits.dim(0)})
    throw std::invalid_argument(
        opError(op, "dloss " + dloss.typeString() +
                        " must be 1-D with one entry per row of logits " +
                        logits.typeString()));
}

/// Checks sparse logits [N, C] against class ids [N] and returns the ids
/// as int64, each in [0, C).
std::vector<int64_t> classIdsOf(const char *op, const Tensor &logits,
                                const Tensor &labels) {
  requireRank(op, logits, "logits", 2);
  requireRank(op, labels, "class ids", 1);
  if (labels.dim(0) != logits.dim(0))
    throw std::invalid_argument(
        opError(op, "class ids " + labels.typeString() + " and logits " +
                        logits.typeString() +
                        " hold different numbers of examples"));
  std::vector<int64_t> ids(static_cast<size_t>(labels.dim(0)));
  for (int64_t n = 0; n < labels.dim(0); ++n) {
    if (labels.dtype() == DType::I64)
      ids[n] = labels.data<int64_t>()[n];
    else if (labels.dtype() == DType::I32)
      ids[n] = labels.data<int32_t>()[n];
    else
      throw std::invalid_argument(opError(
          op, "class ids must be i32 or i64, got " + labels.typeString()));
    if (ids[n] < 0 || ids[n] >= logits.dim(1))
      throw std::invalid_argument(opError(
          op, "class id " + std::to_string(ids[n]) + " of example " +
                  std::to_string(n) + " is outside [0, " +
                  std::to_string(logits.dim(1)) + ")"));
  }
  return ids;
}

} // namespace

Tensor softmax(const Tensor &x) {
  requireMinRank("softmax", x, "logits", 1);
  return dispatchFloat("softmax", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
    const int64_t length = x.dim(-1);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    if (length > 0)
      for (int64_t base = 0, n = x.numElements(); base < n; base += length)
        softmaxRow(px + base, length, po + base);
    return out;
  });
}

Tensor softmax_grad(const Tensor &dy, const Tensor &y) {
  requireMinRank("softmax_grad", y, "softmax output", 1);
  requireSameType("softmax_grad", dy, "dy", y, "softmax output");
  return dispatchFloat("softmax_grad", y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = Tensor::uninitialized(y.dtype(), y.shape());
    const int64_t length = y.dim(-1);
    const T *pdy = dy.data<T>();
    const T *py = y.data<T>();
    T *po = out.data<T>();
    if (length > 0)
      for (int64_t base = 0, n = y.numElements(); base < n; base += length) {
        T dot = 0;
        for (int64_t i = 0; i < length; ++i)
          dot += pdy[base + i] * py[base + i];
        for (int64_t i = 0; i < length; ++i)
          po[base + i] = (pdy[base + i] - dot) * py[base + i];
      }
    return out;
  });
}

Tensor softmax_cross_entropy_with_logits(const Tensor &logits,
                                         const Tensor &labels) {
  const char *op = "softmax_cross_entropy_with_logits";
  checkLogitsAndLabels(op, logits, labels);
  return dispatchFloat(op, logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t batch = logits.dim(0);
    const int64_t classes = logits.dim(1);
    Tensor loss(logits.dtype(), {batch});
    const T *pl = logits.data<T>();
    const T *py = labels.data<T>();
    T *out = loss.data<T>();
    std::vector<T> probabilities(classes);
    if (classes > 0)
      for (int64_t n = 0; n < batch; ++n) {
        const T *row = pl + n * classes;
        const T *target = py + n * classes;
        // -sum(labels * (logits - logsumexp)), never forming log(softmax)
        // from a softmax that may have underflowed to zero.
        const T logSumExp = softmaxRow(row, classes, probabilities.data());
        T sum = 0;
        for (int64_t c = 0; c < classes; ++c)
          sum += target[c] * (logSumExp - row[c]);
        out[n] = sum;
      }
    return loss;
  });
}

Tensor softmax_cross_entropy_with_logits_grad(const Tensor &dloss,
                                              const Tensor &logits,
                                              const Tensor &labels) {
  const char *op = "softmax_cross_entropy_with_logits_grad";
  checkLogitsAndLabels(op, logits, labels);
  requireLossPerRow(op, dloss, logits);
  return dispatchFloat(op, logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t batch = logits.dim(0);
    const int64_t classes = logits.dim(1);
    Tensor grad(logits.dtype(), logits.shape());
    const T *pd = dloss.data<T>();
    const T *pl = logits.data<T>();
    const T *py = labels.data<T>();
    T *po = grad.data<T>();
    if (classes > 0)
      for (int64_t n = 0; n < batch; ++n) {
        T *row = po + n * classes;
        softmaxRow(pl + n * classes, classes, row);
        for (int64_t c = 0; c < classes; ++c)
          row[c] = pd[n] * (row[c] - py[n * classes + c]);
      }
    return grad;
  });
}

Tensor sparse_softmax_cross_entropy_with_logits(const Tensor &logits,
                                                const Tensor &labels) {
  const char *op = "sparse_softmax_cross_entropy_with_logits";
  std::vector<int64_t> ids = classIdsOf(op, logits, labels);
  return dispatchFloat(op, logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t batch = logits.dim(0);
    const int64_t classes = logits.dim(1);
    Tensor loss(logits.dtype(), {batch});
    const T *pl = logits.data<T>();
    T *out = loss.data<T>();
    std::vector<T> probabilities(classes);
    for (int64_t n = 0; n < batch; ++n) {
      const T *row = pl + n * classes;
      out[n] = softmaxRow(row, classes, probabilities.data()) - row[ids[n]];
    }
    return loss;
  });
}

Tensor sparse_softmax_cross_entropy_with_logits_grad(const Tensor &dloss,
                                                     const Tensor &logits,
                                                     const Tensor &labels) {
  const char *op = "sparse_softmax_cross_entropy_with_logits_grad";
  std::vector<int64_t> ids = classIdsOf(op, logits, labels);
  requireLossPerRow(op, dloss, logits);
  return dispatchFloat(op, logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t batch = logits.dim(0);
    const int64_t classes = logits.dim(1);
    Tensor grad(logits.dtype(), logits.shape());
    const T *pd = dloss.data<T>();
    const T *pl = logits.data<T>();
    T *po = grad.data<T>();
    for (int64_t n = 0; n < batch; ++n) {
      T *row = po + n * classes;
      softmaxRow(pl + n * classes, classes, row);
      row[ids[n]] -= 1;
      for (int64_t c = 0; c < classes; ++c)
        row[c] *= pd[n];
    }
    return grad;
  });
}

} // namespace dtf::kernels

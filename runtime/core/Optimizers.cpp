//===- Optimizers.cpp - In-place variable updates -------------------------===//
//
// Each update computes in the variable's own precision, like TensorFlow's
// Apply* kernels: scalar hyper-parameters are converted to T once up front.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/KernelSupport.h"
#include "runtime/core/VectorWidths.h"

#include <cmath>
#include <type_traits>

namespace dtf::kernels {

namespace {

// Adam's update is bound by the throughput of sqrt and division, which
// doubles with each doubling of the vector width (VectorWidths.h).

/// The float update, on plain pointers (no aliasing between the four).
DTF_VECTOR_WIDTHS
void adamF32(float *__restrict w, float *__restrict m, float *__restrict v,
             const float *__restrict g, int64_t n, float b1, float b2,
             float eps, float lr) {
  for (int64_t i = 0; i < n; ++i) {
    m[i] = b1 * m[i] + (1.0f - b1) * g[i];
    v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
    w[i] -= lr * m[i] / (std::sqrt(v[i]) + eps);
  }
}

} // namespace

void apply_gradient_descent(Tensor &var, double lr, const Tensor &grad) {
  const char *op = "apply_gradient_descent";
  requireSameType(op, var, "var", grad, "grad");
  dispatchFloat(op, var.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T alpha = static_cast<T>(lr);
    T *w = var.data<T>();
    const T *g = grad.data<T>();
    for (int64_t i = 0, n = var.numElements(); i < n; ++i)
      w[i] -= alpha * g[i];
  });
}

void apply_momentum(Tensor &var, Tensor &accum, double lr, const Tensor &grad,
                    double momentum, bool use_nesterov) {
  const char *op = "apply_momentum";
  requireSameType(op, var, "var", accum, "accum");
  requireSameType(op, var, "var", grad, "grad");
  dispatchFloat(op, var.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T alpha = static_cast<T>(lr);
    const T mu = static_cast<T>(momentum);
    T *w = var.data<T>();
    T *a = accum.data<T>();
    const T *g = grad.data<T>();
    const int64_t n = var.numElements();
    if (use_nesterov) {
      for (int64_t i = 0; i < n; ++i) {
        a[i] = a[i] * mu + g[i];
        w[i] -= g[i] * alpha + a[i] * mu * alpha;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        a[i] = a[i] * mu + g[i];
        w[i] -= a[i] * alpha;
      }
    }
  });
}

void apply_rmsprop(Tensor &var, Tensor &ms, Tensor &mom, Tensor *mg, double lr,
                   double decay, double momentum, double epsilon,
                   const Tensor &grad) {
  const char *op = mg ? "apply_centered_rmsprop" : "apply_rmsprop";
  requireSameType(op, var, "var", ms, "ms");
  requireSameType(op, var, "var", mom, "mom");
  requireSameType(op, var, "var", grad, "grad");
  if (mg)
    requireSameType(op, var, "var", *mg, "mg");
  dispatchFloat(op, var.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T alpha = static_cast<T>(lr);
    const T oneMinusDecay = static_cast<T>(1) - static_cast<T>(decay);
    const T mu = static_cast<T>(momentum);
    const T eps = static_cast<T>(epsilon);
    T *w = var.data<T>();
    T *s = ms.data<T>();
    T *m = mom.data<T>();
    const T *g = grad.data<T>();
    const int64_t n = var.numElements();
    if (mg) {
      T *a = mg->data<T>();
      for (int64_t i = 0; i < n; ++i) {
        s[i] += (g[i] * g[i] - s[i]) * oneMinusDecay;
        a[i] += (g[i] - a[i]) * oneMinusDecay;
        m[i] = m[i] * mu + g[i] * alpha / std::sqrt(s[i] - a[i] * a[i] + eps);
        w[i] -= m[i];
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        s[i] += (g[i] * g[i] - s[i]) * oneMinusDecay;
        m[i] = m[i] * mu + g[i] * alpha / std::sqrt(s[i] + eps);
        w[i] -= m[i];
      }
    }
  });
}

void apply_adadelta(Tensor &var, Tensor &accum, Tensor &accum_update, double lr,
                    double rho, double epsilon, const Tensor &grad) {
  const char *op = "apply_adadelta";
  requireSameType(op, var, "var", accum, "accum");
  requireSameType(op, var, "var", accum_update, "accum_update");
  requireSameType(op, var, "var", grad, "grad");
  dispatchFloat(op, var.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T alpha = static_cast<T>(lr);
    const T r = static_cast<T>(rho);
    const T oneMinusRho = static_cast<T>(1) - r;
    const T eps = static_cast<T>(epsilon);
    T *w = var.data<T>();
    T *a = accum.data<T>();
    T *u = accum_update.data<T>();
    const T *g = grad.data<T>();
    for (int64_t i = 0, n = var.numElements(); i < n; ++i) {
      // In TensorFlow's ApplyAdadelta order.
      a[i] = a[i] * r + g[i] * g[i] * oneMinusRho;
      const T update = std::sqrt(u[i] + eps) / std::sqrt(a[i] + eps) * g[i];
      w[i] -= update * alpha;
      u[i] = u[i] * r + update * update * oneMinusRho;
    }
  });
}

void apply_adam(Tensor &var, Tensor &m, Tensor &v, double beta1_power,
                double beta2_power, double lr, double beta1, double beta2,
                double epsilon, const Tensor &grad) {
  const char *op = "apply_adam";
  requireSameType(op, var, "var", m, "m");
  requireSameType(op, var, "var", v, "v");
  requireSameType(op, var, "var", grad, "grad");
  dispatchFloat(op, var.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T b1 = static_cast<T>(beta1);
    const T b2 = static_cast<T>(beta2);
    const T eps = static_cast<T>(epsilon);
    const T lrT = static_cast<T>(lr) *
                  std::sqrt(T(1) - static_cast<T>(beta2_power)) /
                  (T(1) - static_cast<T>(beta1_power));
    T *w = var.data<T>();
    T *pm = m.data<T>();
    T *pv = v.data<T>();
    const T *g = grad.data<T>();
    if constexpr (std::is_same_v<T, float>) {
      adamF32(w, pm, pv, g, var.numElements(), b1, b2, eps, lrT);
      return;
    }
    for (int64_t i = 0, n = var.numElements(); i < n; ++i) {
      pm[i] = b1 * pm[i] + (T(1) - b1) * g[i];
      pv[i] = b2 * pv[i] + (T(1) - b2) * g[i] * g[i];
      w[i] -= lrT * pm[i] / (std::sqrt(pv[i]) + eps);
    }
  });
}

void assign_add(Tensor &var, const Tensor &delta) {
  requireSameType("assign_add", var, "var", delta, "delta");
  dispatchNumeric("assign_add", var.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *w = var.data<T>();
    const T *d = delta.data<T>();
    for (int64_t i = 0, n = var.numElements(); i < n; ++i)
      w[i] += d[i];
  });
}

void assign_moving_average(Tensor &var, const Tensor &value, double decay) {
  const char *op = "assign_moving_average";
  requireSameType(op, var, "var", value, "value");
  dispatchFloat(op, var.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    // TensorFlow subtracts the momentum from 1 in the variable's type
    // (batch normalization's Sub(1, momentum) node).
    const T valueWeight = static_cast<T>(1) - static_cast<T>(decay);
    T *w = var.data<T>();
    const T *v = value.data<T>();
    for (int64_t i = 0, n = var.numElements(); i < n; ++i)
      w[i] -= (w[i] - v[i]) * valueWeight;
  });
}

} // namespace dtf::kernels

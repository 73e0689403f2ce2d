//===- Matmul.cpp - Matrix multiplication ---------------------------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/Blas.h"
#include "runtime/core/KernelSupport.h"

namespace dtf::kernels {

Tensor matmul(const Tensor &a, const Tensor &b, bool transpose_a,
              bool transpose_b) {
  requireRank("matmul", a, "a", 2);
  requireRank("matmul", b, "b", 2);
  requireSameDType("matmul", a, "a", b, "b");
  const int64_t m = a.dim(transpose_a ? 1 : 0);
  const int64_t k = a.dim(transpose_a ? 0 : 1);
  const int64_t kb = b.dim(transpose_b ? 1 : 0);
  const int64_t n = b.dim(transpose_b ? 0 : 1);
  if (k != kb)
    throw std::invalid_argument(opError(
        "matmul", "inner dimensions differ: a is " + a.typeString() +
                      (transpose_a ? " (transposed)" : "") + ", b is " +
                      b.typeString() + (transpose_b ? " (transposed)" : "")));
  return dispatchFloat("matmul", a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    // gemm with beta 0 writes every element.
    Tensor out = Tensor::uninitialized(a.dtype(), {m, n});
    gemm(transpose_a, transpose_b, m, n, k, T(1), a.data<T>(), a.dim(1),
         b.data<T>(), b.dim(1), T(0), out.data<T>(), n);
    return out;
  });
}

} // namespace dtf::kernels

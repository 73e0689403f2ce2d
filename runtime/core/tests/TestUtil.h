//===- TestUtil.h - Helpers shared by the runtime tests -------------------===//

#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/Initializers.h"
#include "runtime/core/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dtf::testing {

/// The message of what `body` throws; "(no error)" when it throws nothing.
inline std::string errorOf(const std::function<void()> &body) {
  try {
    body();
  } catch (const std::exception &error) {
    return error.what();
  }
  return "(no error)";
}

/// The dtf::Error `call` throws; fails the test if it throws none.
inline Error expectError(const std::function<void()> &call) {
  try {
    call();
  } catch (const Error &error) {
    return error;
  }
  ADD_FAILURE() << "expected a dtf::Error";
  return Error(ErrorCode::Unknown, "");
}

/// Same dtype and shape, elements within `tolerance` (absolute).
template <typename T>
void expectTensorNear(const Tensor &actual, const Tensor &expected,
                      double tolerance) {
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape())
      << actual.typeString() << " vs " << expected.typeString();
  const T *a = actual.data<T>();
  const T *e = expected.data<T>();
  for (int64_t i = 0; i < actual.numElements(); ++i)
    EXPECT_NEAR(a[i], e[i], tolerance) << "at flat index " << i;
}

/// Same dtype, shape and exactly equal elements.
template <typename T>
void expectTensorEq(const Tensor &actual, const Tensor &expected) {
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape())
      << actual.typeString() << " vs " << expected.typeString();
  EXPECT_EQ(actual.toVector<T>(), expected.toVector<T>());
}

/// A tensor of N(0, 1) samples.
inline Tensor randomTensor(DType dtype, const Shape &shape, uint64_t seed) {
  Tensor t(dtype, shape);
  initializers::random_normal(t, 0.0, 1.0, seed);
  return t;
}

/// Runs `statement` expecting an exception of type `Exception` whose
/// message contains every string in `fragments`.
template <typename Exception, typename Fn>
void expectThrowWith(Fn statement, const std::vector<std::string> &fragments,
                     const char *expected) {
  try {
    statement();
    ADD_FAILURE() << "expected " << expected;
  } catch (const Exception &e) {
    for (const std::string &fragment : fragments)
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << "message \"" << e.what() << "\" lacks \"" << fragment << "\"";
  }
}

/// Runs `statement` expecting std::invalid_argument whose message contains
/// every string in `fragments`.
template <typename Fn>
void expectInvalidArgument(Fn statement,
                           const std::vector<std::string> &fragments) {
  expectThrowWith<std::invalid_argument>(statement, fragments,
                                         "std::invalid_argument");
}

/// The same for std::out_of_range (an id outside a table, as TensorFlow's
/// InvalidArgument of a gather).
template <typename Fn>
void expectOutOfRange(Fn statement, const std::vector<std::string> &fragments) {
  expectThrowWith<std::out_of_range>(statement, fragments, "std::out_of_range");
}

} // namespace dtf::testing

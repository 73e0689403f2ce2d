//===- ClusterTestSupport.h - Helpers of the cluster tests ------*- C++ -*-===//

#pragma once

#include "runtime/cluster/ClusterSpec.h"

#include <gtest/gtest.h>

#include <string>

namespace dtf::cluster::testing {

/// The message of the ClusterError `body` throws.
template <typename Body> std::string errorOf(Body body) {
  try {
    body();
  } catch (const ClusterError &error) {
    return error.what();
  }
  ADD_FAILURE() << "expected a ClusterError";
  return "";
}

} // namespace dtf::cluster::testing

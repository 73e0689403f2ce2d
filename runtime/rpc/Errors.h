//===- Errors.h - Failed calls as runtime errors ----------------*- C++ -*-===//
//
// The transport is the one place where gRPC statuses and dtf::Error meet
// (StatusConversion.h): every failed call becomes a dtf::Error of the
// matching code whose message says which peer, at which address, failed
// which RPC and how, e.g.
//
//   PS /job:ps/task:1 at localhost:2223: Pull failed: failed to connect to
//   all addresses; ... Connection refused (UNAVAILABLE)
//
// Above the transport nothing sees a gRPC code: recovery decides on the
// dtf::ErrorCode (dtf::isRecoverable).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Error.h"

#include <grpcpp/support/status.h>

#include <string>

namespace dtf::rpc {

/// The error for `rpc` to `peer` having failed with `status`:
/// "<peer>: <rpc> failed: <status message> (<CODE>)", of the status's code.
Error callError(const std::string &peer, const std::string &rpc,
                const grpc::Status &status);

} // namespace dtf::rpc

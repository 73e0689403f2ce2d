//===- StatusConversion.h - Runtime errors to gRPC status and back -*- C++ -*-===//
//
// A step that fails on one task fails on the others with the same code: the
// worker service answers with the gRPC status of the runtime error, and a
// client turns a failed call back into a dtf::Error of the matching code.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Error.h"

#include <grpcpp/support/status.h>

#include <exception>

namespace dtf::rpc {

grpc::StatusCode toStatusCode(ErrorCode code);
ErrorCode fromStatusCode(grpc::StatusCode code);

/// The status of a call that failed with `error`: the code of a dtf::Error
/// (InvalidArgument for std::logic_error, else Unknown) and its message.
grpc::Status toStatus(const std::exception_ptr &error);

} // namespace dtf::rpc

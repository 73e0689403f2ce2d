//===- StatusConversion.cpp - Runtime errors to gRPC status and back ------===//

#include "runtime/rpc/StatusConversion.h"

namespace dtf::rpc {

grpc::StatusCode toStatusCode(ErrorCode code) {
  switch (code) {
  case ErrorCode::Unknown:
    return grpc::StatusCode::UNKNOWN;
  case ErrorCode::InvalidArgument:
    return grpc::StatusCode::INVALID_ARGUMENT;
  case ErrorCode::NotFound:
    return grpc::StatusCode::NOT_FOUND;
  case ErrorCode::AlreadyExists:
    return grpc::StatusCode::ALREADY_EXISTS;
  case ErrorCode::FailedPrecondition:
    return grpc::StatusCode::FAILED_PRECONDITION;
  case ErrorCode::Aborted:
    return grpc::StatusCode::ABORTED;
  case ErrorCode::Cancelled:
    return grpc::StatusCode::CANCELLED;
  case ErrorCode::DeadlineExceeded:
    return grpc::StatusCode::DEADLINE_EXCEEDED;
  case ErrorCode::ResourceExhausted:
    return grpc::StatusCode::RESOURCE_EXHAUSTED;
  case ErrorCode::Unavailable:
    return grpc::StatusCode::UNAVAILABLE;
  case ErrorCode::Internal:
    return grpc::StatusCode::INTERNAL;
  case ErrorCode::Unauthenticated:
    return grpc::StatusCode::UNAUTHENTICATED;
  case ErrorCode::PermissionDenied:
    return grpc::StatusCode::PERMISSION_DENIED;
  case ErrorCode::Unimplemented:
    return grpc::StatusCode::UNIMPLEMENTED;
  case ErrorCode::OutOfRange:
    return grpc::StatusCode::OUT_OF_RANGE;
  case ErrorCode::DataLoss:
    return grpc::StatusCode::DATA_LOSS;
  }
  return grpc::StatusCode::UNKNOWN;
}

ErrorCode fromStatusCode(grpc::StatusCode code) {
  switch (code) {
  case grpc::StatusCode::INVALID_ARGUMENT:
    return ErrorCode::InvalidArgument;
  case grpc::StatusCode::OUT_OF_RANGE:
    return ErrorCode::OutOfRange;
  case grpc::StatusCode::NOT_FOUND:
    return ErrorCode::NotFound;
  case grpc::StatusCode::ALREADY_EXISTS:
    return ErrorCode::AlreadyExists;
  case grpc::StatusCode::FAILED_PRECONDITION:
    return ErrorCode::FailedPrecondition;
  case grpc::StatusCode::ABORTED:
    return ErrorCode::Aborted;
  case grpc::StatusCode::CANCELLED:
    return ErrorCode::Cancelled;
  case grpc::StatusCode::DEADLINE_EXCEEDED:
    return ErrorCode::DeadlineExceeded;
  case grpc::StatusCode::UNAVAILABLE:
    return ErrorCode::Unavailable;
  case grpc::StatusCode::INTERNAL:
    return ErrorCode::Internal;
  case grpc::StatusCode::DATA_LOSS:
    return ErrorCode::DataLoss;
  case grpc::StatusCode::UNAUTHENTICATED:
    return ErrorCode::Unauthenticated;
  case grpc::StatusCode::PERMISSION_DENIED:
    return ErrorCode::PermissionDenied;
  case grpc::StatusCode::UNIMPLEMENTED:
    return ErrorCode::Unimplemented;
  case grpc::StatusCode::RESOURCE_EXHAUSTED:
    return ErrorCode::ResourceExhausted;
  default:
    return ErrorCode::Unknown;
  }
}

grpc::Status toStatus(const std::exception_ptr &error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception &failed) {
    return grpc::Status(toStatusCode(errorCodeOf(failed)), failed.what());
  } catch (...) {
    return grpc::Status(grpc::StatusCode::UNKNOWN, "unknown exception");
  }
}

} // namespace dtf::rpc

//===- Error.cpp - Runtime errors with a status code ----------------------===//

#include "runtime/core/Error.h"

namespace dtf {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Unknown:
    return "UNKNOWN";
  case ErrorCode::InvalidArgument:
    return "INVALID_ARGUMENT";
  case ErrorCode::NotFound:
    return "NOT_FOUND";
  case ErrorCode::AlreadyExists:
    return "ALREADY_EXISTS";
  case ErrorCode::FailedPrecondition:
    return "FAILED_PRECONDITION";
  case ErrorCode::Aborted:
    return "ABORTED";
  case ErrorCode::Cancelled:
    return "CANCELLED";
  case ErrorCode::DeadlineExceeded:
    return "DEADLINE_EXCEEDED";
  case ErrorCode::ResourceExhausted:
    return "RESOURCE_EXHAUSTED";
  case ErrorCode::Unavailable:
    return "UNAVAILABLE";
  case ErrorCode::Internal:
    return "INTERNAL";
  case ErrorCode::Unauthenticated:
    return "UNAUTHENTICATED";
  case ErrorCode::PermissionDenied:
    return "PERMISSION_DENIED";
  case ErrorCode::Unimplemented:
    return "UNIMPLEMENTED";
  case ErrorCode::OutOfRange:
    return "OUT_OF_RANGE";
  case ErrorCode::DataLoss:
    return "DATA_LOSS";
  }
  return "UNKNOWN";
}

bool isRecoverable(ErrorCode code) {
  switch (code) {
  case ErrorCode::Unavailable:        // a task is down or restarting
  case ErrorCode::DeadlineExceeded:   // a link is cut, a task hangs
  case ErrorCode::Aborted:            // the model was restored
  case ErrorCode::FailedPrecondition: // a restarted task waits for the chief
  case ErrorCode::Cancelled:
  case ErrorCode::Unknown:
  case ErrorCode::ResourceExhausted:
    return true;
  default:
    return false;
  }
}

Error callFailed(const std::string &peer, const std::string &call,
                 ErrorCode code, const std::string &detail) {
  return Error(code, peer + ": " + call + " failed: " + detail + " (" +
                         errorCodeName(code) + ")");
}

ErrorCode errorCodeOf(const std::exception &error) {
  if (auto *coded = dynamic_cast<const Error *>(&error))
    return coded->code();
  if (dynamic_cast<const std::logic_error *>(&error))
    return ErrorCode::InvalidArgument;
  return ErrorCode::Unknown;
}

ErrorCode errorCodeOf(const std::exception_ptr &error) {
  try {
    if (error)
      std::rethrow_exception(error);
  } catch (const std::exception &caught) {
    return errorCodeOf(caught);
  } catch (...) {
  }
  return ErrorCode::Unknown;
}

std::string errorMessageOf(const std::exception_ptr &error) {
  try {
    if (error)
      std::rethrow_exception(error);
  } catch (const std::exception &caught) {
    return caught.what();
  } catch (...) {
  }
  return "unknown exception";
}

} // namespace dtf

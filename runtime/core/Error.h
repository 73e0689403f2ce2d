//===- Error.h - Runtime errors with a status code -------------*- C++ -*-===//
//
// The runtime reports failures as exceptions. Errors that cross a thread or a
// process boundary (a step cancelled because another op failed, a deadline,
// an unreachable peer) carry a code, so that a caller can tell them apart and
// an RPC layer can map them to and from its own status codes.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace dtf {

/// The kind of a failure; the values follow gRPC's status codes.
enum class ErrorCode {
  Unknown,
  InvalidArgument,
  NotFound,
  AlreadyExists,
  FailedPrecondition,
  Aborted,
  Cancelled,
  DeadlineExceeded,
  ResourceExhausted,
  Unavailable,
  Internal,
  Unauthenticated,
  PermissionDenied,
  Unimplemented,
  OutOfRange,
  DataLoss,
};

/// "DEADLINE_EXCEEDED", ...
const char *errorCodeName(ErrorCode code);

/// Whether a call that failed with `code` may succeed when retried once the
/// cluster has recovered (a task down or restarting, a cut link, a restored
/// model), as opposed to a refusal that stays (a bad token, a bad
/// argument, a missing graph). Recovery decides by this, whatever the
/// transport.
bool isRecoverable(ErrorCode code);

/// A runtime failure with a code.
class Error : public std::runtime_error {
public:
  Error(ErrorCode code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

private:
  ErrorCode code_;
};

/// The code of an exception: an Error's own, InvalidArgument for the
/// std::logic_error family the kernels throw on bad operands, otherwise
/// Unknown.
ErrorCode errorCodeOf(const std::exception &error);
/// Same for a captured exception; Unknown for a non-std exception.
ErrorCode errorCodeOf(const std::exception_ptr &error);
/// The what() of a captured exception ("unknown exception" otherwise).
std::string errorMessageOf(const std::exception_ptr &error);

/// The error a call named `call` ("Pull") to `peer` ended with, as every
/// connection reports it, in process or over a transport:
/// "<peer>: <call> failed: <detail> (<CODE>)".
Error callFailed(const std::string &peer, const std::string &call,
                 ErrorCode code, const std::string &detail);

/// Runs `call` on the peer's object directly, turning a failure into the
/// Error a remote call would end with (callFailed, of the failure's
/// code): what an in-process connection reports where a transport would
/// report its status.
template <typename Call>
auto callInProcess(const std::string &peer, const char *callName,
                   const Call &call) -> decltype(call()) {
  try {
    return call();
  } catch (const std::exception &error) {
    throw callFailed(peer, callName, errorCodeOf(error), error.what());
  }
}

/// A captured Error, for callbacks that report failures as exception_ptr.
inline std::exception_ptr makeError(ErrorCode code,
                                    const std::string &message) {
  return std::make_exception_ptr(Error(code, message));
}

} // namespace dtf

//===- Errors.h - Errors of the RPC layer -----------------------*- C++ -*-===//
//
// Every failed call becomes an RpcError whose message says which peer, at
// which address, failed which RPC and how, e.g.
//
//   PS /job:ps/task:1 at localhost:2223: Pull failed: failed to connect to
//   all addresses; ... Connection refused (UNAVAILABLE)
//
//===----------------------------------------------------------------------===//

#ifndef DTF_RUNTIME_RPC_ERRORS_H
#define DTF_RUNTIME_RPC_ERRORS_H

#include <grpcpp/support/status.h>

#include <stdexcept>
#include <string>

namespace dtf::rpc {

class RpcError : public std::runtime_error {
public:
  RpcError(grpc::StatusCode code, const std::string &message)
      : std::runtime_error(message), code_(code) {}

  /// The gRPC status code of the failure (UNAVAILABLE for a dead peer,
  /// DEADLINE_EXCEEDED for one that does not answer in time, ...).
  grpc::StatusCode code() const { return code_; }

private:
  grpc::StatusCode code_;
};

/// The canonical name of a status code: "UNAVAILABLE", "NOT_FOUND", ...
const char *statusCodeName(grpc::StatusCode code);

/// The error for `rpc` to `peer` having failed with `status`:
/// "<peer>: <rpc> failed: <status message> (<CODE>)".
RpcError callError(const std::string &peer, const std::string &rpc,
                   const grpc::Status &status);

} // namespace dtf::rpc

#endif // DTF_RUNTIME_RPC_ERRORS_H

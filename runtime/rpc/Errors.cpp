//===- Errors.cpp - Failed calls as runtime errors ------------------------===//

#include "runtime/rpc/Errors.h"

#include "runtime/rpc/StatusConversion.h"

namespace dtf::rpc {

Error callError(const std::string &peer, const std::string &rpc,
                const grpc::Status &status) {
  std::string detail = status.error_message();
  if (detail.empty())
    detail = "no details";
  return callFailed(peer, rpc, fromStatusCode(status.error_code()), detail);
}

} // namespace dtf::rpc

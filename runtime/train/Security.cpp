//===- Security.cpp - TLS, cluster token and bind address of dtf-run ------===//

#include "runtime/train/Reliability.h"

#include "runtime/rpc/Server.h"

#include <sstream>

namespace dtf::train {

rpc::ServerOptions taskServerOptions(const std::string &address,
                                     const ReliabilityOptions &options,
                                     const std::string &taskLabel,
                                     std::string &notice) {
  rpc::ServerOptions server;
  std::ostringstream log;
  server.tls = options.tls;
  server.clusterToken = options.clusterToken;
  server.localTransport = options.localTransport;
  size_t colon = address.rfind(':');
  std::string port =
      colon == std::string::npos ? address : address.substr(colon + 1);
  std::string token = options.clusterToken.empty()
                          ? "no cluster token"
                          : "cluster token required";
  if (options.tls.enabled()) {
    server.address = "[::]:" + port;
    log << taskLabel << ": mutual TLS, " << token
        << ", listening on every interface, port " << port;
  } else if (options.insecureBindAll) {
    server.address = "[::]:" + port;
    log << taskLabel << ": WARNING: no TLS, yet listening on every interface, "
        << "port " << port << " (--insecure_bind_all): anyone who reaches it "
        << "can read and change the model" << (options.clusterToken.empty()
                                                   ? ""
                                                   : " or sniff the token");
  } else {
    server.address = "localhost:" + port;
    log << taskLabel << ": no TLS: listening on loopback only (localhost:"
        << port << ", " << token
        << "); give --tls_cert, --tls_key and --tls_ca to serve other "
           "machines (or --insecure_bind_all)";
  }
  notice = log.str();
  return server;
}

void applySecurity(rpc::ClientOptions &client,
                   const ReliabilityOptions &options) {
  client.tls = options.tls;
  client.clusterToken = options.clusterToken;
  client.localTransport = options.localTransport;
}

} // namespace dtf::train

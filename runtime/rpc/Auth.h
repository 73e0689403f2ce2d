//===- Auth.h - Cluster token and TLS credentials ---------------*- C++ -*-===//
//
// Two layers (runtime/rpc/README.md, "Security"):
//
// - a shared cluster token, sent by every client call as metadata
//   `dtf-cluster-token` and checked by every handler of the services before
//   it reads a request or touches any state (UNAUTHENTICATED otherwise);
// - mutual TLS: servers present their certificate and require one from
//   each client, both signed by the cluster's CA.
//
// The token is checked per call, not by a gRPC AuthMetadataProcessor: that
// only exists on TLS servers, and the token must also guard a plaintext
// cluster on loopback.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/rpc/Options.h"

#include <grpcpp/client_context.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_context.h>

#include <memory>
#include <string>
#include <string_view>

namespace dtf::rpc {

/// OK when `token` is empty or `context` carries exactly it;
/// UNAUTHENTICATED naming `service` and the peer otherwise. Compares in
/// constant time.
grpc::Status checkClusterToken(const grpc::ServerContextBase &context,
                               const std::string &token,
                               const std::string &service);

/// Whether `given` is `token`, compared in time independent of where they
/// differ.
bool clusterTokenEquals(std::string_view given, const std::string &token);

/// Adds the options' cluster token, if any, to a call.
void addClusterToken(grpc::ClientContext &context,
                     const ClientOptions &options);

/// Mutual TLS with `tls`'s certificate, key and CA, else insecure.
std::shared_ptr<grpc::ServerCredentials>
serverCredentials(const TlsSettings &tls);
std::shared_ptr<grpc::ChannelCredentials>
channelCredentials(const TlsSettings &tls);

/// The contents of a secret file (PEM, token); throws std::runtime_error
/// naming `what` and the path when it cannot be read or is empty.
std::string readSecretFile(const std::string &path, const std::string &what);

} // namespace dtf::rpc

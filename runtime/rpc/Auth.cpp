//===- Auth.cpp - Cluster token and TLS credentials -----------------------===//

#include "runtime/rpc/Auth.h"

#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace dtf::rpc {

bool clusterTokenEquals(std::string_view given, const std::string &token) {
  unsigned char difference = given.size() == token.size() ? 0 : 1;
  for (size_t i = 0; i < token.size(); ++i)
    difference |= static_cast<unsigned char>((i < given.size() ? given[i] : 0) ^
                                             token[i]);
  return difference == 0;
}

grpc::Status checkClusterToken(const grpc::ServerContextBase &context,
                               const std::string &token,
                               const std::string &service) {
  if (token.empty())
    return grpc::Status::OK;
  const auto &metadata = context.client_metadata();
  auto range = metadata.equal_range(kClusterTokenKey);
  std::string why = "the call carries no cluster token";
  for (auto it = range.first; it != range.second; ++it) {
    if (clusterTokenEquals({it->second.data(), it->second.size()}, token))
      return grpc::Status::OK;
    why = "the call's cluster token is wrong";
  }
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                      service + ": refused a call from " + context.peer() +
                          ": " + why +
                          " (give every task the same --cluster_token or "
                          "--cluster_token_file)");
}

void addClusterToken(grpc::ClientContext &context,
                     const ClientOptions &options) {
  if (!options.clusterToken.empty())
    context.AddMetadata(kClusterTokenKey, options.clusterToken);
}

std::shared_ptr<grpc::ServerCredentials>
serverCredentials(const TlsSettings &tls) {
  if (!tls.enabled())
    return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions ssl(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_root_certs = tls.caCertificates;
  ssl.pem_key_cert_pairs.push_back({tls.privateKey, tls.certificateChain});
  return grpc::SslServerCredentials(ssl);
}

std::shared_ptr<grpc::ChannelCredentials>
channelCredentials(const TlsSettings &tls) {
  if (!tls.enabled())
    return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = tls.caCertificates;
  ssl.pem_private_key = tls.privateKey;
  ssl.pem_cert_chain = tls.certificateChain;
  return grpc::SslCredentials(ssl);
}

std::string readSecretFile(const std::string &path, const std::string &what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(what + ": cannot read " + path);
  std::string contents((std::istreambuf_iterator<char>(in)),
                       std::istreambuf_iterator<char>());
  if (contents.empty())
    throw std::runtime_error(what + ": " + path + " is empty");
  return contents;
}

} // namespace dtf::rpc

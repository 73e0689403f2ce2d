//===- Server.cpp - A task's gRPC server ----------------------------------===//

#include "runtime/rpc/Server.h"

#include "runtime/rpc/Auth.h"
#include "runtime/rpc/CoordinationService.h"
#include "runtime/rpc/Errors.h"
#include "runtime/rpc/LocalTransport.h"
#include "runtime/rpc/ParameterServerService.h"
#include "runtime/rpc/TensorCodec.h"
#include "runtime/rpc/WorkerService.h"

#include <grpc/grpc.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include <cerrno>
#include <cstring>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

namespace dtf::rpc {

namespace {

/// Splits "host:port" or "[v6]:port".
bool splitAddress(const std::string &address, std::string &host,
                  std::string &port) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos)
    return false;
  host = address.substr(0, colon);
  port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return true;
}

/// Why `address` cannot be bound: gRPC only reports that it could not. Binds
/// a socket of our own to find out.
std::string diagnoseBindFailure(const std::string &address) {
  std::string host, port;
  if (!splitAddress(address, host, port))
    return "the address must be host:port";
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo *candidates = nullptr;
  int resolved = getaddrinfo(host.empty() ? nullptr : host.c_str(),
                             port.c_str(), &hints, &candidates);
  if (resolved != 0)
    return "cannot resolve '" + host + "': " + gai_strerror(resolved);
  int bindError = 0;
  for (addrinfo *candidate = candidates; candidate && !bindError;
       candidate = candidate->ai_next) {
    int fd = socket(candidate->ai_family, candidate->ai_socktype,
                    candidate->ai_protocol);
    if (fd < 0)
      continue;
    if (bind(fd, candidate->ai_addr, candidate->ai_addrlen) != 0)
      bindError = errno;
    close(fd);
  }
  freeaddrinfo(candidates);
  switch (bindError) {
  case 0:
    return "gRPC could not bind it (it is free now; another process may have "
           "held it)";
  case EADDRINUSE:
    return "port " + port + " is already in use";
  case EADDRNOTAVAIL:
    return "'" + host + "' is not an address of this machine";
  case EACCES:
    return "permission denied for port " + port;
  default:
    return std::strerror(bindError);
  }
}

} // namespace

Server::Server(ServerOptions options) : options(std::move(options)) {}

Server::~Server() {
  requestStop();
  if (stopper.joinable())
    stopper.join();
}

void Server::addService(grpc::Service &service,
                        std::function<void()> beginShutdown) {
  services.push_back(&service);
  if (beginShutdown)
    shutdownHooks.push_back(std::move(beginShutdown));
}

void Server::addService(ParameterServerService &service) {
  checkChunkSize(service.chunkBytes(), options.maxMessageBytes);
  service.requireClusterToken(options.clusterToken);
  addService(service, [&service] { service.task().beginShutdown(); });
  psServices.push_back(&service);
  if (options.localTransport && !options.tls.enabled())
    localServers.emplace_back(
        std::make_unique<LocalServer>(
            "dtf-ps", options.clusterToken,
            "PS task " + service.task().taskName(),
            static_cast<uint64_t>(options.maxMessageBytes),
            [this, &service](LocalMethod method,
                             const grpc::ByteBuffer &request,
                             grpc::ByteBuffer &response) {
              if (method == LocalMethod::ReportData ||
                  method == LocalMethod::AcquireUnit)
                return coordination
                           ? coordination->serveLocal(method, request, response)
                           : grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                          "this task hosts no coordinator");
              return service.serveLocal(method, request, response);
            }),
        &service);
}

void Server::addService(WorkerService &service) {
  service.requireClusterToken(options.clusterToken);
  addService(service, [&service] { service.beginShutdown(); });
}

void Server::addService(CoordinationService &service) {
  service.requireClusterToken(options.clusterToken);
  coordination = &service;
  addService(service, [&service] { service.beginShutdown(); });
}

void Server::start() {
  if (coordination)
    for (ParameterServerService *service : psServices)
      service->acceptDataReports(
          [coordination = coordination](
              std::string_view request,
              ParameterServerService::SettleRidingBatch &settle) {
            return coordination->applyRidingReport(request, settle);
          });
  for (auto &[local, service] : localServers) {
    local->start();
    service->offerLocalEndpoint(local->name());
    if (coordination)
      coordination->offerLocalEndpoint(local->name());
  }
  grpc::ServerBuilder builder;
  // With SO_REUSEPORT (gRPC's default on Linux) a second server on a busy
  // port would start and silently share its connections.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // The sync server starts a thread whenever a call leaves fewer than
  // MIN_POLLERS threads waiting, and ends waiting threads beyond it after
  // a poll timeout. With the defaults (1 and 2) every pull and push of a
  // training step started and ended a thread: a PS task spent more CPU on
  // that than on its updates.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS,
                              options.idleThreads);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS,
                              2 * options.idleThreads);
  builder.SetMaxReceiveMessageSize(options.maxMessageBytes);
  builder.SetMaxSendMessageSize(options.maxMessageBytes);
  builder.AddListeningPort(options.address, serverCredentials(options.tls),
                           &port_);
  for (grpc::Service *service : services)
    builder.RegisterService(service);
  server = builder.BuildAndStart();
  if (!server || port_ == 0) {
    for (auto &local : localServers)
      local.first->stop();
    server.reset();
    port_ = 0;
    throw Error(ErrorCode::Unavailable,
                "cannot listen on " + options.address + ": " +
                    diagnoseBindFailure(options.address));
  }
  stopper = std::thread([this] { stopWhenRequested(); });
}

std::vector<std::string> Server::localEndpoints() const {
  std::vector<std::string> names;
  for (const auto &local : localServers)
    names.push_back(local.first->name());
  return names;
}

std::string Server::address() const {
  // A Unix-domain socket's address is its path: no port to fill in.
  if (options.address.rfind("unix:", 0) == 0)
    return options.address;
  std::string host, port;
  if (!splitAddress(options.address, host, port))
    return options.address;
  if (host.find(':') != std::string::npos)
    host = "[" + host + "]";
  return host + ":" + std::to_string(port_);
}

void Server::requestStop() {
  std::lock_guard<std::mutex> lock(mutex);
  stopRequested = true;
  stateChanged.notify_all();
}

void Server::wait() {
  if (!server)
    return;
  std::unique_lock<std::mutex> lock(mutex);
  stateChanged.wait(lock, [this] { return stopped; });
}

void Server::shutdown() {
  requestStop();
  wait();
}

void Server::stopWhenRequested() {
  {
    std::unique_lock<std::mutex> lock(mutex);
    stateChanged.wait(lock, [this] { return stopRequested; });
  }
  // Release blocked waits first, so that they end well within the grace.
  for (const std::function<void()> &hook : shutdownHooks)
    hook();
  for (auto &local : localServers)
    local.first->stop();
  server->Shutdown(std::chrono::system_clock::now() + options.shutdownGrace);
  server->Wait();
  std::lock_guard<std::mutex> lock(mutex);
  stopped = true;
  stateChanged.notify_all();
}

} // namespace dtf::rpc

//===- Server.h - A task's gRPC server --------------------------*- C++ -*-===//
//
// Binds host:port (port 0: the OS picks a free port, which port() reports),
// with explicit message size limits, serves the services added before
// start() and runs until requestStop() (e.g. from a Stop RPC) or
// destruction. A port already in use is an error naming it: gRPC's
// SO_REUSEPORT, which would let two servers share a port silently, is off.
//
//   Server server({"localhost:2222"});
//   ParameterServerService ps(function, replication,
//                             [&server] { server.requestStop(); });
//   server.addService(ps);
//   server.start();
//   server.wait(); // until a Stop RPC
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/rpc/Options.h"

#include <grpcpp/server.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dtf::rpc {

class CoordinationService;
class LocalServer;
class ParameterServerService;
class WorkerService;

struct ServerOptions {
  /// "host:port"; port 0 picks a free port.
  std::string address = "0.0.0.0:0";
  int maxMessageBytes = kDefaultMaxMessageBytes;
  /// How long calls in flight may finish after a stop before they are
  /// cancelled.
  std::chrono::milliseconds shutdownGrace{1'000};
  /// When set, every call of the services must carry it (metadata
  /// kClusterTokenKey), else it fails with UNAUTHENTICATED before the
  /// handler reads or changes anything.
  std::string clusterToken{};
  /// Mutual TLS when enabled: clients must present a certificate signed by
  /// tls.caCertificates.
  TlsSettings tls{};
  /// Threads kept waiting for calls: at least the calls the server serves
  /// at once (a PS task: every worker's pull or push, and its long poll),
  /// so that no call has to start a thread.
  int idleThreads = 8;
  /// PS tasks also serve their step's calls on a local socket for clients
  /// on this host (LocalTransport.h). Never with TLS: a local socket
  /// cannot check a client certificate.
  bool localTransport = true;
};

class Server {
public:
  explicit Server(ServerOptions options);
  /// Stops the server if it runs.
  ~Server();
  Server(const Server &) = delete;
  Server &operator=(const Server &) = delete;

  /// Adds a service to serve; before start(). The service must outlive the
  /// server. `beginShutdown` runs first when the server stops, to release
  /// the service's blocked calls.
  void addService(grpc::Service &service,
                  std::function<void()> beginShutdown = {});
  /// Throws std::invalid_argument if the service's Pull chunks do not fit
  /// in the server's messages.
  void addService(ParameterServerService &service);
  void addService(CoordinationService &service);
  void addService(WorkerService &service);

  /// Binds the address and starts serving. Throws dtf::Error
  /// (UNAVAILABLE) when the address cannot be bound, saying why when it can
  /// tell (port in use, not an address of this machine, ...).
  void start();

  /// The names of the local sockets it serves (LocalTransport.h).
  std::vector<std::string> localEndpoints() const;

  /// The bound port (the picked one for port 0).
  int port() const { return port_; }
  /// The address with the bound port, e.g. "127.0.0.1:40123".
  std::string address() const;

  /// Asks the server to stop and returns at once; safe from an RPC handler
  /// and from any thread. In-flight calls get options.shutdownGrace.
  void requestStop();
  /// Blocks until the server has stopped (at once if it never started).
  void wait();
  /// requestStop() and wait().
  void shutdown();

private:
  /// Waits for a stop request, then shuts the gRPC server down.
  void stopWhenRequested();

  ServerOptions options;
  std::vector<grpc::Service *> services;
  std::vector<std::function<void()>> shutdownHooks;
  /// The PS services, which take the data reports riding pushes when this
  /// server hosts the coordinator too.
  std::vector<ParameterServerService *> psServices;
  /// The local sockets of PS services, with the service each serves.
  std::vector<std::pair<std::unique_ptr<LocalServer>, ParameterServerService *>>
      localServers;
  /// Takes the ReportData calls of the local sockets and the data reports
  /// riding pushes, when this server hosts the coordinator.
  CoordinationService *coordination = nullptr;
  std::unique_ptr<grpc::Server> server;
  int port_ = 0;

  std::mutex mutex;
  std::condition_variable stateChanged;
  bool stopRequested = false;
  bool stopped = false;
  std::thread stopper;
};

} // namespace dtf::rpc

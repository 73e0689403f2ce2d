//===- LocalTransport.h - A PS task's step calls within one host -*- C++
//-*-===//
//
// gRPC costs a pull of 4 KB about 170 µs on loopback where the socket's own
// round trip takes 35 µs: HTTP/2 framing, a combiner and executor threads
// that hand every call from thread to thread (perf: about nine context
// switches a call, three quarters of the CPU in wake-ups). A Unix-domain
// socket under gRPC (`unix:` addresses) removes TCP but none of that.
//
// For a worker and a PS task on one host, Pull, Push and PushPull therefore
// go over a Unix-domain socket of their own, and so do the data
// coordinator's ReportData, a call a step of each worker that streams its
// input (PS task 0's gRPC server spent as much CPU on it as on the step's
// update), and its AcquireUnit polls, which its readers make as a unit
// ends (over gRPC, one in a few hundred took 50 ms to be answered, an idle
// 50 ms for the whole cluster when the input ran dry meanwhile; perf
// sched, 1 worker on 2 cores): the same messages (protobuf wire format,
// TensorWire.h) in frames of a 16-byte header, a call a frame each way, one
// serving thread per connection blocked in read(), the calling thread blocked
// in poll(). A round trip is two wake-ups, as the socket's own. Everything else
// (initialization, steps, snapshots, the rest of the coordinator, workers)
// stays on gRPC, and so do these calls between hosts.
//
// Finding it: the PS task's gRPC service answers LocalEndpoint with the name
// of an abstract socket (Linux; "@dtf-ps-<pid>-<random>"). Abstract names
// live in the network namespace, so a client in another host or container
// fails to connect and keeps gRPC. The coordination service of PS task 0
// answers its own LocalEndpoint with the name of the same socket. The first
// frame on a connection carries the cluster token, checked as gRPC's metadata
// is; a server with TLS offers no endpoint, since a local socket cannot check a
// client certificate.
//
// Frames: {uint32 magic "DTFL", uint16 code, uint16 aligned offset, uint64
// length} then `length` bytes, little-endian. A request's code is its
// LocalMethod; a response's is a grpc::StatusCode, its bytes the response
// message when OK, else the error message. The aligned offset is where the
// largest slice of the message starts, modulo 64: the receiver places the
// payload so that a tensor's data lands aligned and is read in place, a
// copy fewer than over gRPC.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/status.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace dtf::rpc {

/// The calls a local connection carries.
enum class LocalMethod : uint32_t {
  Hello = 0,
  Pull = 1,
  Push = 2,
  PushPull = 3,
  ReportData = 4,
  /// The coordinator's AcquireUnit with timeout_ms 0 only (a poll: a wait
  /// could not tell that its caller left, as gRPC's can).
  AcquireUnit = 5
};

/// Serves LocalMethod calls on an abstract Unix-domain socket.
class LocalServer {
public:
  /// Serves one call: `method` with `request`; sets `response` when OK.
  using Handler = std::function<grpc::Status(LocalMethod method,
                                             const grpc::ByteBuffer &request,
                                             grpc::ByteBuffer &response)>;

  /// `prefix` starts the socket's name ("dtf-ps"); `clusterToken`, when not
  /// empty, must open every connection; `what` names the server in errors
  /// ("PS task /job:ps/task:0"); frames beyond `maxMessageBytes` are
  /// refused.
  LocalServer(std::string prefix, std::string clusterToken, std::string what,
              uint64_t maxMessageBytes, Handler handler);
  /// stop().
  ~LocalServer();
  LocalServer(const LocalServer &) = delete;
  LocalServer &operator=(const LocalServer &) = delete;

  /// Binds the socket and starts accepting. Throws dtf::Error
  /// (Unavailable) if the socket cannot be had.
  void start();
  /// The abstract socket's name, without the leading NUL.
  const std::string &name() const { return name_; }
  /// Stops accepting; each connection finishes the call it serves, then
  /// closes. Returns when every thread has ended. Idempotent.
  void stop();

private:
  void acceptLoop();
  void serve(int fd);

  std::string name_;
  std::string clusterToken;
  std::string what;
  uint64_t maxMessageBytes;
  Handler handler;

  int listenFd = -1;
  std::thread acceptor;
  std::mutex mutex;
  bool stopping = false;
  struct Connection {
    int fd;
    std::thread thread;
  };
  std::list<Connection> connections;
};

/// Local connections to one LocalServer, one per call in flight. Shared:
/// a call in flight keeps it alive.
class LocalChannel : public std::enable_shared_from_this<LocalChannel> {
public:
  /// Connects lazily to the abstract socket `name`, saying hello with
  /// `clusterToken`; responses beyond `maxMessageBytes` are refused.
  LocalChannel(std::string name, std::string clusterToken,
               uint64_t maxMessageBytes);
  ~LocalChannel();
  LocalChannel(const LocalChannel &) = delete;
  LocalChannel &operator=(const LocalChannel &) = delete;

  /// Opens one connection now: UNAVAILABLE when nothing listens at the
  /// name (another host or network namespace), else the server's answer
  /// to hello (UNAUTHENTICATED for a wrong token).
  grpc::Status open(std::chrono::steady_clock::time_point deadline);

  /// A call sent, its response not yet read. Holds its connection; one
  /// dropped unread closes it.
  class PendingCall {
  public:
    PendingCall(PendingCall &&other) noexcept;
    PendingCall &operator=(PendingCall &&) = delete;
    ~PendingCall();

    /// Reads the response by `deadline`: DEADLINE_EXCEEDED after it,
    /// UNAVAILABLE if the connection breaks, else the server's status.
    grpc::Status finish(grpc::ByteBuffer &response,
                        std::chrono::steady_clock::time_point deadline);

  private:
    friend class LocalChannel;
    PendingCall(std::shared_ptr<LocalChannel> channel, int fd,
                grpc::Status failure)
        : channel(std::move(channel)), fd(fd), failure(std::move(failure)) {}
    std::shared_ptr<LocalChannel> channel;
    /// -1 once read, or when the call could not be sent.
    int fd;
    /// Why the call could not be sent.
    grpc::Status failure;
  };

  /// Sends `request` as a call of `method` (it is written before this
  /// returns: the caller may free what it points at). A failed send is a
  /// PendingCall whose finish() says why.
  PendingCall start(LocalMethod method, const grpc::ByteBuffer &request,
                    std::chrono::steady_clock::time_point deadline);

private:
  /// Returns a connection with no call in flight to the idle ones.
  void release(int fd);
  grpc::Status connectAndGreet(std::chrono::steady_clock::time_point deadline,
                               int &connected);

  std::string name;
  std::string clusterToken;
  uint64_t maxMessageBytes;
  std::mutex mutex;
  std::vector<int> idle;
};

/// A client's way to its server's local socket: asks the server for the
/// name once it answers, connects, and keeps the channel until a call on
/// it finds the server gone (a restarted server is behind another socket).
/// Thread-safe.
class LocalEndpoint {
public:
  /// What the server answered its LocalEndpoint RPC with: the socket's
  /// name ("": it offers none), or nullopt when it could not be asked (it
  /// is asked again at the next call).
  using Ask = std::function<std::optional<std::string>()>;

  LocalEndpoint(std::string clusterToken, uint64_t maxMessageBytes)
      : clusterToken(std::move(clusterToken)),
        maxMessageBytes(maxMessageBytes) {}

  /// The channel, or null when the server offers no socket or this client
  /// cannot connect to it (another host or network namespace): gRPC then.
  std::shared_ptr<LocalChannel>
  channel(const Ask &ask, std::chrono::steady_clock::time_point deadline);
  /// A call on `failed` found the server gone: ask again at the next call.
  void forget(const std::shared_ptr<LocalChannel> &failed);

private:
  std::string clusterToken;
  uint64_t maxMessageBytes;
  std::mutex mutex;
  bool decided = false;
  std::shared_ptr<LocalChannel> local;
};

} // namespace dtf::rpc

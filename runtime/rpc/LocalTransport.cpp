//===- LocalTransport.cpp - A PS task's step calls within one host --------===//

#include "runtime/rpc/LocalTransport.h"

#include "runtime/core/Denormals.h"
#include "runtime/core/Error.h"
#include "runtime/rpc/Auth.h"

#include <grpc/slice.h>
#include <grpcpp/support/slice.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstring>
#include <new>
#include <poll.h>
#include <random>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "local frames are written in host order, little-endian");

namespace dtf::rpc {

namespace {

using Clock = std::chrono::steady_clock;

/// How long a server waits for room to send a response.
constexpr std::chrono::seconds kSendTimeout{10};

/// "DTFL" as the first four bytes of every frame.
constexpr uint32_t kFrameMagic = 0x4c465444;

struct FrameHeader {
  uint32_t magic;
  uint16_t code;
  /// Where the payload's largest slice starts, modulo kBufferAlignment: the
  /// receiver places the payload so that it lands aligned, and a tensor's
  /// data (the largest slice of a step's message) is read in place.
  uint16_t alignedOffset;
  uint64_t length;
};
static_assert(sizeof(FrameHeader) == 16, "the header is 16 bytes on the wire");

/// Received payloads are placed so that the sender's largest slice is
/// aligned as a tensor's buffer is (Tensor.h).
constexpr size_t kBufferAlignment = 64;

void freeBuffer(void *bytes) {
  ::operator delete(bytes, std::align_val_t(kBufferAlignment));
}

/// How an I/O loop ended. TooLarge: a frame beyond the limit was read and
/// dropped; the connection goes on.
enum class Io { Done, Closed, TimedOut, Failed, TooLarge };

/// Waits until `fd` is ready for `events`, at most until `deadline`
/// (time_point::max(): no limit).
Io waitReady(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    int timeoutMs = -1;
    if (deadline != Clock::time_point::max()) {
      auto left =
          std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0)
        return Io::TimedOut;
      timeoutMs = static_cast<int>(std::min<int64_t>(left.count(), INT_MAX));
    }
    pollfd waiting{fd, events, 0};
    int ready = ::poll(&waiting, 1, timeoutMs);
    if (ready > 0)
      return Io::Done;
    if (ready == 0)
      continue; // the deadline decides
    if (errno != EINTR)
      return Io::Failed;
  }
}

/// Writes all of `parts`, waiting for room until `deadline` (a blocking
/// socket's send gives up after its SO_SNDTIMEO, and the deadline decides
/// whether to go on).
Io writeAll(int fd, std::vector<iovec> parts, Clock::time_point deadline) {
  size_t next = 0;
  while (next < parts.size()) {
    msghdr message{};
    message.msg_iov = &parts[next];
    message.msg_iovlen = std::min<size_t>(parts.size() - next, IOV_MAX);
    ssize_t written = ::sendmsg(fd, &message, MSG_NOSIGNAL);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        if (Io waited = waitReady(fd, POLLOUT, deadline); waited != Io::Done)
          return waited;
        continue;
      }
      return errno == EPIPE || errno == ECONNRESET ? Io::Closed : Io::Failed;
    }
    auto left = static_cast<size_t>(written);
    while (next < parts.size() && left >= parts[next].iov_len)
      left -= parts[next++].iov_len;
    if (left != 0) {
      parts[next].iov_base = static_cast<char *>(parts[next].iov_base) + left;
      parts[next].iov_len -= left;
    }
  }
  return Io::Done;
}

/// Reads exactly `size` bytes, waiting until `deadline` on a non-blocking
/// socket (a blocking one waits in recv()). Closed: the peer closed before
/// the first byte of them.
Io readAll(int fd, void *out, size_t size, Clock::time_point deadline) {
  auto *bytes = static_cast<char *>(out);
  size_t done = 0;
  while (done < size) {
    ssize_t got = ::recv(fd, bytes + done, size - done, 0);
    if (got > 0) {
      done += static_cast<size_t>(got);
      continue;
    }
    if (got == 0)
      return done == 0 ? Io::Closed : Io::Failed;
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (Io waited = waitReady(fd, POLLIN, deadline); waited != Io::Done)
        return waited;
      continue;
    }
    return errno == ECONNRESET ? Io::Closed : Io::Failed;
  }
  return Io::Done;
}

/// Sends one frame: the header and the slices of `payload`.
Io writeFrame(int fd, uint32_t code, const grpc::ByteBuffer &payload,
              Clock::time_point deadline) {
  std::vector<grpc::Slice> slices;
  if (payload.Valid() && !payload.Dump(&slices).ok())
    return Io::Failed;
  FrameHeader header{kFrameMagic, static_cast<uint16_t>(code), 0, 0};
  std::vector<iovec> parts;
  parts.reserve(slices.size() + 1);
  parts.push_back({&header, sizeof header});
  size_t largest = 0;
  for (const grpc::Slice &slice : slices) {
    if (slice.size() == 0)
      continue;
    if (slice.size() > largest) {
      largest = slice.size();
      header.alignedOffset =
          static_cast<uint16_t>(header.length % kBufferAlignment);
    }
    header.length += slice.size();
    parts.push_back({const_cast<uint8_t *>(slice.begin()), slice.size()});
  }
  return writeAll(fd, std::move(parts), deadline);
}

/// `text` as a message of one slice (copied); empty: no message.
grpc::ByteBuffer bufferOf(std::string_view text) {
  if (text.empty())
    return grpc::ByteBuffer();
  grpc::Slice slice(text.data(), text.size());
  return grpc::ByteBuffer(&slice, 1);
}

/// A response frame for `status`: its message when it failed.
Io writeStatus(int fd, const grpc::Status &status, const grpc::ByteBuffer &ok,
               Clock::time_point deadline) {
  if (status.ok())
    return writeFrame(fd, grpc::StatusCode::OK, ok, deadline);
  return writeFrame(fd, static_cast<uint32_t>(status.error_code()),
                    bufferOf(status.error_message()), deadline);
}

/// One received frame.
struct Frame {
  uint32_t code = 0;
  grpc::ByteBuffer payload;
};

/// Reads a frame of at most `maxBytes`. `why` says what was wrong with one
/// that is refused (Failed).
Io readFrame(int fd, uint64_t maxBytes, Frame &frame, std::string &why,
             Clock::time_point deadline) {
  FrameHeader header;
  if (Io read = readAll(fd, &header, sizeof header, deadline); read != Io::Done)
    return read;
  if (header.magic != kFrameMagic || header.alignedOffset >= kBufferAlignment) {
    why = "a frame does not start with a DTFL header";
    return Io::Failed;
  }
  if (header.length > maxBytes) {
    // Read and dropped, in pieces: the limit bounds memory, and the
    // connection stays in step for the calls after it.
    char discard[64 << 10];
    for (uint64_t left = header.length; left > 0;) {
      size_t piece = std::min<uint64_t>(left, sizeof discard);
      if (Io read = readAll(fd, discard, piece, deadline); read != Io::Done)
        return read == Io::Closed ? Io::Failed : read;
      left -= piece;
    }
    why = "received message larger than max (" + std::to_string(header.length) +
          " vs. " + std::to_string(maxBytes) + ")";
    return Io::TooLarge;
  }
  frame.code = header.code;
  frame.payload.Clear();
  if (header.length == 0)
    return Io::Done;
  size_t lead = (kBufferAlignment - header.alignedOffset) % kBufferAlignment;
  void *buffer =
      ::operator new(lead + header.length, std::align_val_t(kBufferAlignment));
  char *bytes = static_cast<char *>(buffer) + lead;
  grpc::Slice slice(
      grpc_slice_new_with_user_data(bytes, header.length, freeBuffer, buffer),
      grpc::Slice::STEAL_REF);
  if (Io read = readAll(fd, bytes, header.length, deadline); read != Io::Done)
    return read == Io::Closed ? Io::Failed : read;
  frame.payload = grpc::ByteBuffer(&slice, 1);
  return Io::Done;
}

std::string frameText(const Frame &frame) {
  std::vector<grpc::Slice> slices;
  std::string text;
  if (frame.payload.Valid() && frame.payload.Dump(&slices).ok())
    for (const grpc::Slice &slice : slices)
      text.append(reinterpret_cast<const char *>(slice.begin()), slice.size());
  return text;
}

/// Fills `address` with the abstract name `name`; returns its length.
socklen_t abstractAddress(const std::string &name, sockaddr_un &address) {
  address = {};
  address.sun_family = AF_UNIX;
  if (name.size() + 1 > sizeof address.sun_path)
    throw Error(ErrorCode::InvalidArgument,
                "local socket name '" + name + "' is too long");
  std::memcpy(address.sun_path + 1, name.data(), name.size());
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 +
                                name.size());
}

/// Lets one write take a whole step's message (the MLP's hid_w is 313,600
/// bytes; the default buffer, about 200 KB, cut it in two and cost two more
/// wake-ups). The kernel caps it at net.core.wmem_max.
void enlargeSendBuffer(int fd) {
  int bytes = 4 << 20;
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
}

std::string peerOf(int fd) {
  ucred credentials{};
  socklen_t size = sizeof credentials;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0)
    return "a local process";
  return "local process " + std::to_string(credentials.pid);
}

} // namespace

//===----------------------------------------------------------------------===//
// LocalServer
//===----------------------------------------------------------------------===//

LocalServer::LocalServer(std::string prefix, std::string clusterToken,
                         std::string what, uint64_t maxMessageBytes,
                         Handler handler)
    : clusterToken(std::move(clusterToken)), what(std::move(what)),
      maxMessageBytes(maxMessageBytes), handler(std::move(handler)) {
  // Unguessable, so that no other process can take the name first.
  std::random_device random;
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%08x%08x", random(), random());
  name_ = prefix + "-" + std::to_string(::getpid()) + "-" + suffix;
}

LocalServer::~LocalServer() { stop(); }

void LocalServer::start() {
  sockaddr_un address;
  socklen_t length = abstractAddress(name_, address);
  listenFd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listenFd < 0 ||
      ::bind(listenFd, reinterpret_cast<sockaddr *>(&address), length) != 0 ||
      ::listen(listenFd, SOMAXCONN) != 0) {
    int error = errno;
    if (listenFd >= 0)
      ::close(listenFd);
    listenFd = -1;
    throw Error(ErrorCode::Unavailable, what +
                                            ": cannot listen on local "
                                            "socket @" +
                                            name_ + ": " +
                                            std::strerror(error));
  }
  acceptor = std::thread([this] { acceptLoop(); });
}

void LocalServer::acceptLoop() {
  for (;;) {
    // Blocking: a serving thread waits for its next request in recv()
    // alone, one system call where a non-blocking socket takes three (recv,
    // poll, recv). Sends are bounded by SO_SNDTIMEO instead.
    int fd = ::accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      return; // stop() shut the socket down
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping) {
      ::close(fd);
      return;
    }
    // Reap the threads of connections that have ended.
    for (auto it = connections.begin(); it != connections.end();) {
      if (it->fd < 0) {
        it->thread.join();
        it = connections.erase(it);
      } else {
        ++it;
      }
    }
    enlargeSendBuffer(fd);
    timeval sendTimeout{kSendTimeout.count(), 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, sizeof sendTimeout);
    Connection &connection = connections.emplace_back();
    connection.fd = fd;
    connection.thread = std::thread([this, &connection] {
      serve(connection.fd);
      std::lock_guard<std::mutex> lock(mutex);
      ::close(connection.fd);
      connection.fd = -1;
    });
  }
}

void LocalServer::serve(int fd) {
  // Updates run on this thread: it flushes denormals as compute threads do.
  flushDenormalsInThisThread();
  // Requests may be far apart (a worker computing): reads wait as long as it
  // takes (stop() ends them). A response that a live client does not take
  // within kSendTimeout ends its connection, so that no client can hold up
  // stop().
  const auto never = Clock::time_point::max();
  auto sendDeadline = [] { return Clock::now() + kSendTimeout; };
  Frame frame;
  std::string why;
  auto refuse = [&](grpc::StatusCode code, const std::string &text) {
    writeStatus(fd, grpc::Status(code, what + ": " + text), {}, sendDeadline());
  };
  if (Io read = readFrame(fd, /*maxBytes=*/4096, frame, why, never);
      read != Io::Done) {
    if (!why.empty())
      refuse(grpc::StatusCode::INVALID_ARGUMENT,
             why + "; closing the local connection");
    return;
  }
  if (frame.code != uint32_t(LocalMethod::Hello)) {
    refuse(grpc::StatusCode::INVALID_ARGUMENT,
           "a local connection must begin with hello");
    return;
  }
  if (!clusterToken.empty() &&
      !clusterTokenEquals(frameText(frame), clusterToken)) {
    refuse(grpc::StatusCode::UNAUTHENTICATED,
           "refused a local connection from " + peerOf(fd) +
               ": its cluster token is missing or wrong (give every task the "
               "same --cluster_token or --cluster_token_file)");
    return;
  }
  if (writeStatus(fd, grpc::Status::OK, {}, sendDeadline()) != Io::Done)
    return;
  for (;;) {
    Io read = readFrame(fd, maxMessageBytes, frame, why, never);
    if (read == Io::TooLarge) {
      refuse(grpc::StatusCode::RESOURCE_EXHAUSTED, why);
      continue;
    }
    if (read == Io::Failed && !why.empty()) {
      refuse(grpc::StatusCode::INVALID_ARGUMENT,
             why + "; closing the local connection");
      return;
    }
    if (read != Io::Done)
      return;
    auto method = static_cast<LocalMethod>(frame.code);
    grpc::ByteBuffer response;
    grpc::Status status;
    if (method == LocalMethod::Pull || method == LocalMethod::Push ||
        method == LocalMethod::PushPull || method == LocalMethod::ReportData ||
        method == LocalMethod::AcquireUnit)
      status = handler(method, frame.payload, response);
    else
      status = grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                            what + ": no local method " +
                                std::to_string(frame.code));
    frame.payload.Clear();
    if (writeStatus(fd, status, response, sendDeadline()) != Io::Done)
      return;
  }
}

void LocalServer::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping)
      return;
    stopping = true;
    if (listenFd >= 0)
      ::shutdown(listenFd, SHUT_RDWR);
    // A connection's thread sees the end of its requests once it has
    // answered the one it serves.
    for (Connection &connection : connections)
      if (connection.fd >= 0)
        ::shutdown(connection.fd, SHUT_RD);
  }
  if (acceptor.joinable())
    acceptor.join();
  for (Connection &connection : connections)
    connection.thread.join();
  connections.clear();
  if (listenFd >= 0)
    ::close(listenFd);
  listenFd = -1;
}

//===----------------------------------------------------------------------===//
// LocalChannel
//===----------------------------------------------------------------------===//

LocalChannel::LocalChannel(std::string name, std::string clusterToken,
                           uint64_t maxMessageBytes)
    : name(std::move(name)), clusterToken(std::move(clusterToken)),
      maxMessageBytes(maxMessageBytes) {}

LocalChannel::~LocalChannel() {
  for (int fd : idle)
    ::close(fd);
}

grpc::Status LocalChannel::open(Clock::time_point deadline) {
  int fd = -1;
  grpc::Status status = connectAndGreet(deadline, fd);
  if (status.ok())
    release(fd);
  return status;
}

grpc::Status LocalChannel::connectAndGreet(Clock::time_point deadline,
                                           int &connected) {
  sockaddr_un address;
  socklen_t length = abstractAddress(name, address);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0)
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        std::string("no local socket: ") +
                            std::strerror(errno));
  enlargeSendBuffer(fd);
  if (::connect(fd, reinterpret_cast<sockaddr *>(&address), length) != 0) {
    int error = errno;
    ::close(fd);
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        "cannot connect to local socket @" + name + ": " +
                            std::strerror(error));
  }
  Frame answer;
  std::string why;
  Io io = writeFrame(fd, uint32_t(LocalMethod::Hello), bufferOf(clusterToken),
                     deadline);
  if (io == Io::Done)
    io = readFrame(fd, maxMessageBytes, answer, why, deadline);
  if (io != Io::Done || answer.code != grpc::StatusCode::OK) {
    ::close(fd);
    if (io == Io::Done)
      return grpc::Status(static_cast<grpc::StatusCode>(answer.code),
                          frameText(answer));
    return grpc::Status(io == Io::TimedOut ? grpc::StatusCode::DEADLINE_EXCEEDED
                                           : grpc::StatusCode::UNAVAILABLE,
                        "local socket @" + name + " did not answer hello" +
                            (why.empty() ? "" : ": " + why));
  }
  connected = fd;
  return grpc::Status::OK;
}

void LocalChannel::release(int fd) {
  std::lock_guard<std::mutex> lock(mutex);
  idle.push_back(fd);
}

LocalChannel::PendingCall LocalChannel::start(LocalMethod method,
                                              const grpc::ByteBuffer &request,
                                              Clock::time_point deadline) {
  if (request.Length() > maxMessageBytes)
    return PendingCall(shared_from_this(), -1,
                       grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                    "sent message larger than max (" +
                                        std::to_string(request.Length()) +
                                        " vs. " +
                                        std::to_string(maxMessageBytes) + ")"));
  int fd = -1;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!idle.empty()) {
      fd = idle.back();
      idle.pop_back();
    }
  }
  if (fd < 0)
    if (grpc::Status status = connectAndGreet(deadline, fd); !status.ok())
      return PendingCall(shared_from_this(), -1, std::move(status));
  Io sent = writeFrame(fd, uint32_t(method), request, deadline);
  if (sent != Io::Done) {
    ::close(fd);
    return PendingCall(
        shared_from_this(), -1,
        grpc::Status(sent == Io::TimedOut ? grpc::StatusCode::DEADLINE_EXCEEDED
                                          : grpc::StatusCode::UNAVAILABLE,
                     sent == Io::TimedOut
                         ? "the local send did not finish by the deadline"
                         : "the local connection to @" + name + " broke"));
  }
  return PendingCall(shared_from_this(), fd, grpc::Status::OK);
}

LocalChannel::PendingCall::PendingCall(PendingCall &&other) noexcept
    : channel(std::move(other.channel)), fd(other.fd),
      failure(std::move(other.failure)) {
  other.fd = -1;
}

LocalChannel::PendingCall::~PendingCall() {
  // Its response would be read as the next call's.
  if (fd >= 0)
    ::close(fd);
}

grpc::Status LocalChannel::PendingCall::finish(grpc::ByteBuffer &response,
                                               Clock::time_point deadline) {
  if (fd < 0)
    return failure.ok() ? grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                                       "the local call was finished before")
                        : failure;
  Frame frame;
  std::string why;
  // The answer is rarely there yet: wait first, then read, rather than
  // fail a read first.
  Io read = waitReady(fd, POLLIN, deadline);
  if (read == Io::Done)
    read = readFrame(fd, channel->maxMessageBytes, frame, why, deadline);
  if (read == Io::TooLarge) {
    channel->release(fd);
    fd = -1;
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, why);
  }
  if (read != Io::Done) {
    ::close(fd);
    fd = -1;
    if (read == Io::TimedOut)
      return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                          "no local answer by the deadline");
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        why.empty() ? "the local connection to @" +
                                          channel->name + " closed"
                                    : why);
  }
  channel->release(fd);
  fd = -1;
  if (frame.code != grpc::StatusCode::OK)
    return grpc::Status(static_cast<grpc::StatusCode>(frame.code),
                        frameText(frame));
  response = std::move(frame.payload);
  return grpc::Status::OK;
}

std::shared_ptr<LocalChannel>
LocalEndpoint::channel(const Ask &ask,
                       std::chrono::steady_clock::time_point deadline) {
  std::lock_guard<std::mutex> lock(mutex);
  if (decided)
    return local;
  std::optional<std::string> name = ask();
  if (!name)
    return nullptr;
  decided = true;
  if (name->empty())
    return nullptr;
  auto opened =
      std::make_shared<LocalChannel>(*name, clusterToken, maxMessageBytes);
  if (!opened->open(deadline).ok())
    return nullptr;
  local = std::move(opened);
  return local;
}

void LocalEndpoint::forget(const std::shared_ptr<LocalChannel> &failed) {
  std::lock_guard<std::mutex> lock(mutex);
  if (local == failed) {
    local.reset();
    decided = false;
  }
}

} // namespace dtf::rpc

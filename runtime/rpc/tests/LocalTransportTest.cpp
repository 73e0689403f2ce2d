//===- LocalTransportTest.cpp - A PS task's local socket ------------------===//
//
// What the local socket does beyond carrying calls, which ParameterServerTest
// runs on both transports: hostile frames, calls dropped unread, a PS task
// that goes away and comes back behind another socket.
//
//===----------------------------------------------------------------------===//

#include "runtime/rpc/tests/RpcTestSupport.h"

#include "runtime/rpc/LocalTransport.h"

#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace dtf::rpc {
namespace {

using namespace dtf::rpc::testing;

/// A raw connection to a local socket, for frames no client would send.
class RawConnection {
public:
  explicit RawConnection(const std::string &name) {
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path + 1, name.data(), name.size());
    socklen_t length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) +
                                              1 + name.size());
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr *>(&address), length), 0)
        << std::strerror(errno);
    timeval limit{5, 0}; // a missing answer fails the test, not hangs it
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  }
  ~RawConnection() { ::close(fd); }

  void send(const std::string &bytes) {
    ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  /// A frame: magic, code, aligned offset 0, length, then the bytes.
  void sendFrame(uint16_t code, const std::string &payload) {
    std::string frame("DTFL", 4);
    frame.append(reinterpret_cast<const char *>(&code), 2);
    frame.append(2, '\0');
    uint64_t length = payload.size();
    frame.append(reinterpret_cast<const char *>(&length), 8);
    send(frame + payload);
  }
  /// The code of the answer, its text in `message`; -1 when the server
  /// closed without one.
  int answer(std::string &message) {
    char header[16];
    if (!readExactly(header, sizeof header))
      return -1;
    uint16_t code;
    uint64_t length;
    std::memcpy(&code, header + 4, 2);
    std::memcpy(&length, header + 8, 8);
    message.assign(length, '\0');
    if (!readExactly(message.data(), length))
      return -1;
    return code;
  }
  /// Whether the server closed the connection (rather than waiting).
  bool closedByServer() {
    char byte;
    return ::recv(fd, &byte, 1, 0) == 0;
  }

private:
  bool readExactly(char *out, size_t size) {
    while (size > 0) {
      ssize_t got = ::recv(fd, out, size, 0);
      if (got <= 0)
        return false;
      out += got;
      size -= static_cast<size_t>(got);
    }
    return true;
  }
  int fd;
};

class LocalTransportTest : public ::testing::Test {
protected:
  LocalTransportTest() : module(kOneVariableModule) {}

  std::unique_ptr<RunningPs> startPs(const std::string &address) {
    auto ps = std::make_unique<RunningPs>(
        module.function("ps_0"), Replication::async(), ServerOptions{address});
    EXPECT_EQ(ps->server.localEndpoints().size(), 1u);
    return ps;
  }

  TestModule module;
};

TEST_F(LocalTransportTest, AClientOnTheHostTakesTheSocketUnlessToldNot) {
  auto ps = startPs("127.0.0.1:0");
  PsClient local("/job:ps/task:0", ps->server.address(), fastClientOptions());
  local.initialize();
  EXPECT_TRUE(local.usesLocalTransport());
  ClientOptions grpcOnly = fastClientOptions();
  grpcOnly.localTransport = false;
  PsClient remote("/job:ps/task:0", ps->server.address(), grpcOnly);
  EXPECT_FALSE(remote.usesLocalTransport());

  // Both see the same task.
  Tensor gradient = Tensor::filled(DType::F32, {2}, 0.25);
  EXPECT_EQ(local.push(0, {{"w", &gradient}}).step, 1);
  EXPECT_EQ(remote.pull({"w"})[0].toVector<float>(),
            (std::vector<float>{0.75f, 0.75f}));

  // A server told not to offers none.
  ServerOptions without{"127.0.0.1:0"};
  without.localTransport = false;
  RunningPs plain(module.function("ps_0"), Replication::async(), without);
  EXPECT_TRUE(plain.server.localEndpoints().empty());
  PsClient client("/job:ps/task:0", plain.server.address(),
                  fastClientOptions());
  EXPECT_FALSE(client.usesLocalTransport());
}

TEST_F(LocalTransportTest, HostileFramesAreRefusedAndTheServerServesOn) {
  auto ps = startPs("127.0.0.1:0");
  const std::string name = ps->server.localEndpoints()[0];
  std::string message;
  {
    RawConnection junk(name);
    junk.send(std::string(16, 'x'));
    EXPECT_EQ(junk.answer(message), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_TRUE(contains(message, "DTFL header")) << message;
    EXPECT_TRUE(junk.closedByServer());
  }
  {
    RawConnection rude(name);
    rude.sendFrame(uint16_t(LocalMethod::Pull), "");
    EXPECT_EQ(rude.answer(message), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_TRUE(contains(message, "must begin with hello")) << message;
    EXPECT_TRUE(rude.closedByServer());
  }
  {
    // After hello: an unknown method, then a request that is not a Pull.
    RawConnection odd(name);
    odd.sendFrame(uint16_t(LocalMethod::Hello), "");
    EXPECT_EQ(odd.answer(message), grpc::StatusCode::OK);
    odd.sendFrame(77, "");
    EXPECT_EQ(odd.answer(message), grpc::StatusCode::UNIMPLEMENTED);
    odd.sendFrame(uint16_t(LocalMethod::Pull), "\x0a\xff\xff\xff\xff\x0f");
    EXPECT_EQ(odd.answer(message), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_TRUE(contains(message, "malformed Pull request")) << message;
    // A frame that says it is longer than it is, then the end.
  }
  {
    RawConnection truncated(name);
    truncated.sendFrame(uint16_t(LocalMethod::Hello), "");
    EXPECT_EQ(truncated.answer(message), grpc::StatusCode::OK);
    std::string frame("DTFL\x01\0\0\0", 8);
    uint64_t length = 1000;
    frame.append(reinterpret_cast<const char *>(&length), 8);
    truncated.send(frame + "abc");
  }
  PsClient client("/job:ps/task:0", ps->server.address(), fastClientOptions());
  client.initialize();
  EXPECT_EQ(client.pull({"w"})[0].toVector<float>(),
            (std::vector<float>{1.0f, 1.0f}));
  EXPECT_TRUE(client.usesLocalTransport());
}

TEST_F(LocalTransportTest, ACallDroppedUnreadLeavesTheNextOneItsOwnAnswer) {
  auto ps = startPs("127.0.0.1:0");
  PsClient client("/job:ps/task:0", ps->server.address(), fastClientOptions());
  client.initialize();
  ASSERT_TRUE(client.usesLocalTransport());
  std::vector<NamedTensor> gradients;
  gradients.push_back({"w", Tensor::filled(DType::F32, {2}, 0.5)});
  // Sent, never read: its connection is closed, not reused.
  client.startPushPull(0, std::move(gradients), 0, {"w"});
  // Its frame was written, so the task applies it, but on that
  // connection's serving thread, in no order with the next connection's
  // calls: the step below is the second only once it was.
  EXPECT_EQ(ps->task.waitForStep(0, 0, std::chrono::seconds(10), {}), 1);
  Tensor gradient = Tensor::filled(DType::F32, {2}, 0.25);
  ps::PushResult second = client.push(1, {{"w", &gradient}});
  EXPECT_EQ(second.step, 2);
  // Two futures in flight at once take two connections.
  auto first = client.startPull({"w"});
  auto other = client.startPull({"w"});
  EXPECT_EQ(other.get().values[0].toVector<float>(),
            (std::vector<float>{0.25f, 0.25f}));
  EXPECT_EQ(first.get().values[0].toVector<float>(),
            (std::vector<float>{0.25f, 0.25f}));
}

TEST_F(LocalTransportTest, ATaskThatRestartsIsFoundBehindItsNewSocket) {
  auto ps = startPs("127.0.0.1:0");
  std::string address = ps->server.address();
  std::string firstSocket = ps->server.localEndpoints()[0];
  PsClient client("/job:ps/task:0", address, fastClientOptions());
  client.initialize();
  ASSERT_TRUE(client.usesLocalTransport());
  auto pending = client.startPull({"w"});
  pending.get();

  // The server stops with the client's connection open and idle.
  ps->server.shutdown();
  Error gone = expectError([&] { client.pull({"w"}); });
  EXPECT_EQ(gone.code(), ErrorCode::Unavailable) << gone.what();
  EXPECT_TRUE(isRecoverable(gone.code()));
  ps.reset();

  ps = startPs(address);
  EXPECT_NE(ps->server.localEndpoints()[0], firstSocket);
  client.waitUntilReachable();
  client.initialize();
  EXPECT_EQ(client.pull({"w"})[0].toVector<float>(),
            (std::vector<float>{1.0f, 1.0f}));
  EXPECT_TRUE(client.usesLocalTransport());
}

} // namespace
} // namespace dtf::rpc

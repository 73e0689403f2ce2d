//===- ServerTest.cpp - Binding, stopping and dead peers ------------------===//

#include "runtime/rpc/tests/RpcTestSupport.h"

#include <future>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace dtf::rpc {
namespace {

using namespace dtf::rpc::testing;
using std::chrono::milliseconds;

/// A TCP socket on 127.0.0.1 and a free port, listening but never
/// answering: a peer that is up but hung.
class SilentListener {
public:
  SilentListener() {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address),
              0);
    EXPECT_EQ(listen(fd, 16), 0);
    socklen_t length = sizeof address;
    getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length);
    port = ntohs(address.sin_port);
  }
  ~SilentListener() { close(fd); }

  int port;

private:
  int fd;
};

class ServerTest : public ::testing::Test {
protected:
  ServerTest() : module(kOneVariableModule) {}
  TestModule module;
};

TEST_F(ServerTest, PortZeroPicksAFreePort) {
  RunningPs ps(module.function("ps_0"), Replication::async());
  EXPECT_GT(ps.server.port(), 0);
  EXPECT_EQ(ps.server.address(),
            "127.0.0.1:" + std::to_string(ps.server.port()));
  PsClient client("/job:ps/task:0", ps.server.address(), fastClientOptions());
  client.waitUntilReachable();
  EXPECT_TRUE(client.initialize());
}

TEST_F(ServerTest, PortInUseIsAClearError) {
  RunningPs first(module.function("ps_0"), Replication::async());
  std::string port = std::to_string(first.server.port());
  try {
    RunningPs second(module.function("ps_0"), Replication::async(),
                     ServerOptions{"127.0.0.1:" + port});
    FAIL() << "a second server started on port " << port;
  } catch (const Error &error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot listen on 127.0.0.1:" + port + ": port " + port +
                  " is already in use");
  }
}

TEST_F(ServerTest, AnAddressOfAnotherMachineIsAClearError) {
  Server server(ServerOptions{"192.0.2.1:0"}); // TEST-NET-1, never local
  Error error = expectError([&] { server.start(); });
  EXPECT_TRUE(contains(error.what(), "not an address of this machine"))
      << error.what();
}

TEST_F(ServerTest, StopRpcShutsTheServerDown) {
  RunningPs ps(module.function("ps_0"), Replication::async());
  PsClient client("/job:ps/task:0", ps.server.address(), fastClientOptions());
  client.initialize();
  std::future<void> stopped =
      std::async(std::launch::async, [&] { ps.server.wait(); });
  EXPECT_EQ(stopped.wait_for(milliseconds(100)), std::future_status::timeout);
  client.stop("training is over");
  EXPECT_EQ(stopped.wait_for(milliseconds(5'000)), std::future_status::ready);
  Error error = expectError([&] { client.step(); });
  EXPECT_EQ(error.code(), ErrorCode::Unavailable) << error.what();
}

TEST_F(ServerTest, StopReleasesBlockedWaiters) {
  RunningPs ps(module.function("ps_0"), Replication::async());
  PsClient client("/job:ps/task:0", ps.server.address(), fastClientOptions());
  client.initialize();
  std::future<void> waiter = std::async(std::launch::async, [&] {
    client.waitForStep(100, milliseconds(20'000));
  });
  std::this_thread::sleep_for(milliseconds(100));
  auto start = std::chrono::steady_clock::now();
  ps.server.shutdown();
  ASSERT_EQ(waiter.wait_for(milliseconds(5'000)), std::future_status::ready);
  Error error = expectError([&] { waiter.get(); });
  EXPECT_EQ(error.code(), ErrorCode::Unavailable) << error.what();
  EXPECT_LT(secondsSince(start), 2.0);
}

TEST_F(ServerTest, ADeadServerIsAClearErrorWithinTheDeadline) {
  auto ps = std::make_unique<RunningPs>(module.function("ps_0"),
                                        Replication::async());
  std::string address = ps->server.address();
  PsClient client("/job:ps/task:0", address, fastClientOptions());
  client.initialize();
  EXPECT_EQ(client.pull({"w"}).size(), 1u);
  ps.reset(); // The PS task dies.

  auto start = std::chrono::steady_clock::now();
  Error error = expectError([&] { client.pull({"w"}); });
  EXPECT_LT(secondsSince(start), 2.0);
  EXPECT_EQ(error.code(), ErrorCode::Unavailable);
  std::string message = error.what();
  EXPECT_EQ(message.rfind("PS /job:ps/task:0 at " + address + ": Pull failed: ",
                          0),
            0u)
      << message;
  EXPECT_TRUE(contains(message, "(UNAVAILABLE)")) << message;
}

TEST_F(ServerTest, AHungPeerHitsTheDeadline) {
  SilentListener hung;
  ClientOptions options = fastClientOptions();
  options.callTimeout = milliseconds(300);
  PsClient client("/job:ps/task:3", "127.0.0.1:" + std::to_string(hung.port),
                  options);
  auto start = std::chrono::steady_clock::now();
  Error error = expectError([&] { client.step(); });
  EXPECT_LT(secondsSince(start), 2.0);
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded) << error.what();
  EXPECT_TRUE(contains(error.what(), "PS /job:ps/task:3 at 127.0.0.1:"))
      << error.what();
  EXPECT_TRUE(contains(error.what(), "GetStep failed")) << error.what();
}

TEST_F(ServerTest, WaitUntilReachableWaitsForALateServer) {
  // Find a free port, then start the server on it only after the client
  // began waiting.
  int port;
  {
    RunningPs probe(module.function("ps_0"), Replication::async());
    port = probe.server.port();
  }
  std::string address = "127.0.0.1:" + std::to_string(port);
  PsClient client("/job:ps/task:0", address, fastClientOptions());
  std::future<void> reachable =
      std::async(std::launch::async, [&] { client.waitUntilReachable(); });
  std::this_thread::sleep_for(milliseconds(300));
  RunningPs late(module.function("ps_0"), Replication::async(),
                 ServerOptions{address});
  ASSERT_EQ(reachable.wait_for(milliseconds(3'000)), std::future_status::ready);
  reachable.get();
  EXPECT_TRUE(client.initialize());
}

TEST_F(ServerTest, WaitUntilReachableGivesUp) {
  int port;
  {
    RunningPs probe(module.function("ps_0"), Replication::async());
    port = probe.server.port();
  }
  ClientOptions options = fastClientOptions();
  options.connectTimeout = milliseconds(500);
  PsClient client("/job:ps/task:0", "127.0.0.1:" + std::to_string(port),
                  options);
  auto start = std::chrono::steady_clock::now();
  Error error = expectError([&] { client.waitUntilReachable(); });
  EXPECT_LT(secondsSince(start), 2.0);
  EXPECT_EQ(error.code(), ErrorCode::Unavailable);
  EXPECT_TRUE(contains(error.what(), "not reachable within 500 ms"))
      << error.what();
}

} // namespace
} // namespace dtf::rpc

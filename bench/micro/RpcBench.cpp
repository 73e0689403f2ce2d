//===- RpcBench.cpp - Tensor transfer over gRPC, by tensor size -----------===//
//
// PsClient::pull, push and pushPull of one f32 variable of N bytes against
// a ParameterServerService on an in-process server at 127.0.0.1 (real gRPC
// over loopback TCP, HTTP/2; the tensors written and read by TensorWire),
// the same pull over a Unix-domain socket (gRPC's unix: addresses), the
// floor under both: a plain TCP round trip on loopback that asks with 64
// bytes and answers with N (BM_TcpRoundTrip, no gRPC, no copies beyond the
// kernel's), and TensorWire's encode + decode alone (no network). Counter
// bytes_per_second is the tensor payload moved per wall-clock second (one
// way; a push-pull moves it both ways). The MLP's step moves hid_w (313,600
// bytes) and three small tensors each way.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/PsProgram.h"
#include "runtime/rpc/ParameterServerService.h"
#include "runtime/rpc/PsClient.h"
#include "runtime/rpc/Server.h"
#include "runtime/rpc/TensorWire.h"

#include "passes/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <benchmark/benchmark.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace dtf;
using namespace dtf::rpc;

namespace {

/// An async PS task holding one variable "v" of `floats` elements, updated
/// by gradient descent with learning rate 0 (pushes leave it unchanged).
std::string psModule(int64_t floats) {
  std::string type = "tensor<" + std::to_string(floats) + "xf32>";
  return "module {\n"
         "  func.func @ps_0(%g: " + type + ") attributes {\n"
         "      dtf.device = #dtf.device<\"/job:ps/task:0\">,\n"
         "      dtf.gradients = [\"v\"]} {\n"
         "    %v = dtf.variable \"v\" init(#dtf.constant<1.0>) : !dtf.resource<" +
         type + ">\n"
         "    dtf.apply_gradient_descent %v, %g learning_rate 0.0 : "
         "!dtf.resource<" + type + ">\n"
         "    return\n  }\n}\n";
}

struct Ps {
  Ps(int64_t floats, const std::string &address) {
    mlir::DialectRegistry registry;
    dtf::ir::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
    module = mlir::parseSourceString<mlir::ModuleOp>(psModule(floats), config);
    if (!module)
      throw std::runtime_error("the benchmark's PS module does not parse");
    auto function = module->lookupSymbol<mlir::func::FuncOp>("ps_0");
    server = std::make_unique<Server>(ServerOptions{address});
    task = std::make_unique<ps::ParameterServer>(
        std::make_unique<exec::PsProgram>(function), ps::Replication::async());
    service = std::make_unique<ParameterServerService>(*task, [] {});
    server->addService(*service);
    server->start();
    client = std::make_unique<PsClient>(task->taskName(), server->address());
    client->waitUntilReachable();
    client->initialize();
  }
  ~Ps() {
    server.reset(); // stops before the service goes
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::unique_ptr<ps::ParameterServer> task;
  std::unique_ptr<ParameterServerService> service;
  std::unique_ptr<Server> server;
  std::unique_ptr<PsClient> client;
};

Ps &psFor(int64_t bytes) {
  static std::map<int64_t, std::unique_ptr<Ps>> servers;
  std::unique_ptr<Ps> &ps = servers[bytes];
  if (!ps)
    ps = std::make_unique<Ps>(bytes / 4, "127.0.0.1:0");
  return *ps;
}

/// The same PS task served on a Unix-domain socket.
Ps &unixPsFor(int64_t bytes) {
  static std::map<int64_t, std::unique_ptr<Ps>> servers;
  std::unique_ptr<Ps> &ps = servers[bytes];
  if (!ps) {
    std::string path = "/tmp/dtf-bench-rpc-" + std::to_string(::getpid()) +
                       "-" + std::to_string(bytes) + ".sock";
    ::unlink(path.c_str());
    ps = std::make_unique<Ps>(bytes / 4, "unix:" + path);
  }
  return *ps;
}

void BM_Pull(benchmark::State &state) {
  Ps &ps = psFor(state.range(0));
  for (auto _ : state)
    benchmark::DoNotOptimize(ps.client->pull({"v"}));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_PullUnix(benchmark::State &state) {
  Ps &ps = unixPsFor(state.range(0));
  for (auto _ : state)
    benchmark::DoNotOptimize(ps.client->pull({"v"}));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

/// Reads or writes exactly `size` bytes; false when the peer closed.
bool transfer(int fd, char *data, size_t size, bool write) {
  while (size > 0) {
    ssize_t done = write ? ::send(fd, data, size, MSG_NOSIGNAL)
                         : ::recv(fd, data, size, 0);
    if (done <= 0)
      return false;
    data += done;
    size -= static_cast<size_t>(done);
  }
  return true;
}

/// A loopback TCP connection whose server thread answers every 64-byte
/// request with `bytes` bytes, as a PS answers a pull.
struct TcpEcho {
  explicit TcpEcho(int64_t bytes) : reply(bytes) {
    int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (::bind(listener, reinterpret_cast<sockaddr *>(&address), length) != 0 ||
        ::listen(listener, 1) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr *>(&address),
                      &length) != 0)
      throw std::runtime_error("cannot listen on loopback");
    client = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::connect(client, reinterpret_cast<sockaddr *>(&address), length) != 0)
      throw std::runtime_error("cannot connect on loopback");
    int server = ::accept(listener, nullptr, nullptr);
    ::close(listener);
    int one = 1;
    for (int fd : {client, server})
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    responder = std::thread([this, server] {
      char request[64];
      while (transfer(server, request, sizeof(request), false) &&
             transfer(server, reply.data(), reply.size(), true)) {
      }
      ::close(server);
    });
  }
  ~TcpEcho() {
    ::shutdown(client, SHUT_RDWR);
    responder.join();
    ::close(client);
  }
  std::vector<char> reply;
  int client = -1;
  std::thread responder;
};

void BM_TcpRoundTrip(benchmark::State &state) {
  TcpEcho echo(state.range(0));
  char request[64] = {};
  std::vector<char> reply(state.range(0));
  for (auto _ : state)
    if (!transfer(echo.client, request, sizeof(request), true) ||
        !transfer(echo.client, reply.data(), reply.size(), false))
      state.SkipWithError("the loopback connection closed");
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_Push(benchmark::State &state) {
  Ps &ps = psFor(state.range(0));
  Tensor gradient = Tensor::filled(DType::F32, {state.range(0) / 4}, 0.5);
  for (auto _ : state)
    benchmark::DoNotOptimize(ps.client->push(0, {{"v", &gradient}}));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_PushPull(benchmark::State &state) {
  Ps &ps = psFor(state.range(0));
  for (auto _ : state) {
    std::vector<NamedTensor> gradients;
    gradients.push_back(
        {"v", Tensor::filled(DType::F32, {state.range(0) / 4}, 0.5)});
    benchmark::DoNotOptimize(
        ps.client->startPushPull(0, std::move(gradients), 0, {"v"}).get());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_WireEncodeDecode(benchmark::State &state) {
  Tensor tensor = Tensor::filled(DType::F32, {state.range(0) / 4}, 0.5);
  for (auto _ : state) {
    WireMessageBuilder message;
    message.addTensors(1, {{"v", &tensor}}, nullptr);
    grpc::ByteBuffer buffer = message.finish();
    WireReader reader(buffer);
    int field;
    WireReader::WireType type;
    reader.readTag(field, type);
    benchmark::DoNotOptimize(
        readWholeTensor(reader, reader.readLength(), 0, {}));
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// 4 KB .. 16 MB, and the MLP's hid_w (784 x 100 floats).
void sizes(benchmark::internal::Benchmark *b) {
  for (int64_t bytes : {int64_t(4) << 10, int64_t(64) << 10, int64_t(313600),
                        int64_t(1) << 20, int64_t(4) << 20, int64_t(16) << 20})
    b->Arg(bytes);
  // The work of a call is on gRPC's and the server's threads as much as on
  // the caller's: rates are per wall-clock second.
  b->ArgName("bytes")->Unit(benchmark::kMicrosecond)->UseRealTime();
}
BENCHMARK(BM_TcpRoundTrip)->Apply(sizes);
BENCHMARK(BM_Pull)->Apply(sizes);
BENCHMARK(BM_PullUnix)->Apply(sizes);
BENCHMARK(BM_Push)->Apply(sizes);
BENCHMARK(BM_PushPull)->Apply(sizes);
BENCHMARK(BM_WireEncodeDecode)->Apply(sizes);

} // namespace

BENCHMARK_MAIN();

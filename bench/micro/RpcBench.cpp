//===- RpcBench.cpp - Tensor transfer over gRPC, by tensor size -----------===//
//
// PsClient::pull, push and pushPull of one f32 variable of N bytes against
// a ParameterServerService on an in-process server, by transport:
// - <Local>: the PS task's local socket (runtime/rpc/LocalTransport.h),
//   what a worker on the PS task's host uses;
// - <Grpc>: gRPC at 127.0.0.1 (HTTP/2 over loopback TCP), what a worker on
//   another host uses;
// - <GrpcUnix>: gRPC on a Unix-domain socket path (gRPC's unix: address).
// The messages are the same (TensorWire). Under them, the floors: a plain
// round trip that asks with 64 bytes and answers with N, on loopback TCP
// (BM_TcpRoundTrip) and on a Unix-domain socket pair (BM_UnixRoundTrip),
// no RPC, no copies beyond the kernel's; and TensorWire's encode + decode
// alone (no network). Counter bytes_per_second is the tensor payload moved
// per wall-clock second (one way; a push-pull moves it both ways). The
// MLP's step moves hid_w (313,600 bytes) and three small tensors each way.
// Beside them, BM_DataReport: what PS task 0 spends on a streaming
// worker's data report of a step, without the transport.
//
//===----------------------------------------------------------------------===//

#include "runtime/coord/Coordinator.h"
#include "runtime/exec/PsProgram.h"
#include "runtime/rpc/CoordinationService.h"
#include "runtime/rpc/CoordinationWire.h"
#include "runtime/rpc/ParameterServerService.h"
#include "runtime/rpc/PsClient.h"
#include "runtime/rpc/Server.h"
#include "runtime/rpc/TensorWire.h"

#include "bench/micro/BenchMain.h"

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

#include <chrono>
#include <map>
#include <memory>
#include <random>
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

enum Transport { Local, Grpc, GrpcUnix };

struct Ps {
  Ps(int64_t floats, const std::string &address, bool local) {
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
    // Updates in the thread of their push, as dtf-run's PS tasks run them.
    exec::ExecutorOptions executor;
    executor.runInCallerThread = true;
    task = std::make_unique<ps::ParameterServer>(
        std::make_unique<exec::PsProgram>(function, executor),
        ps::Replication::async());
    service = std::make_unique<ParameterServerService>(*task, [] {});
    server->addService(*service);
    server->start();
    ClientOptions options;
    options.localTransport = local;
    client = std::make_unique<PsClient>(task->taskName(), server->address(),
                                        options);
    client->waitUntilReachable();
    client->initialize();
    if (client->usesLocalTransport() != local)
      throw std::runtime_error(local ? "the PS offers no local socket"
                                     : "the client took the local socket");
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

/// A PS task of `bytes` reached by `transport`, kept for the whole run.
Ps &psFor(Transport transport, int64_t bytes) {
  static std::map<std::pair<Transport, int64_t>, std::unique_ptr<Ps>> servers;
  std::unique_ptr<Ps> &ps = servers[{transport, bytes}];
  if (ps)
    return *ps;
  if (transport == GrpcUnix) {
    std::string path = "/tmp/dtf-bench-rpc-" + std::to_string(::getpid()) +
                       "-" + std::to_string(bytes) + ".sock";
    ::unlink(path.c_str());
    ps = std::make_unique<Ps>(bytes / 4, "unix:" + path, false);
  } else {
    ps = std::make_unique<Ps>(bytes / 4, "127.0.0.1:0", transport == Local);
  }
  return *ps;
}

template <Transport transport> void BM_Pull(benchmark::State &state) {
  Ps &ps = psFor(transport, state.range(0));
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

/// A connected pair of sockets whose server end, on a thread of its own,
/// answers every 64-byte request with `bytes` bytes, as a PS answers a pull.
struct Echo {
  Echo(int64_t bytes, int client, int server) : reply(bytes), client(client) {
    responder = std::thread([this, server] {
      char request[64];
      while (transfer(server, request, sizeof(request), false) &&
             transfer(server, reply.data(), reply.size(), true)) {
      }
      ::close(server);
    });
  }
  ~Echo() {
    ::shutdown(client, SHUT_RDWR);
    responder.join();
    ::close(client);
  }
  std::vector<char> reply;
  int client;
  std::thread responder;
};

/// Both ends of a loopback TCP connection, without Nagle's delay.
std::pair<int, int> loopbackTcpPair() {
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
  int client = ::socket(AF_INET, SOCK_STREAM, 0);
  if (::connect(client, reinterpret_cast<sockaddr *>(&address), length) != 0)
    throw std::runtime_error("cannot connect on loopback");
  int server = ::accept(listener, nullptr, nullptr);
  ::close(listener);
  int one = 1;
  for (int fd : {client, server})
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return {client, server};
}

/// Asks with 64 bytes and reads the answer back, per iteration.
void roundTrips(benchmark::State &state, std::pair<int, int> ends) {
  Echo echo(state.range(0), ends.first, ends.second);
  char request[64] = {};
  std::vector<char> reply(state.range(0));
  for (auto _ : state)
    if (!transfer(echo.client, request, sizeof(request), true) ||
        !transfer(echo.client, reply.data(), reply.size(), false))
      state.SkipWithError("the connection closed");
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_TcpRoundTrip(benchmark::State &state) {
  roundTrips(state, loopbackTcpPair());
}

void BM_UnixRoundTrip(benchmark::State &state) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
    throw std::runtime_error("no Unix-domain socket pair");
  roundTrips(state, {pair[0], pair[1]});
}

template <Transport transport> void BM_Push(benchmark::State &state) {
  Ps &ps = psFor(transport, state.range(0));
  Tensor gradient = Tensor::filled(DType::F32, {state.range(0) / 4}, 0.5);
  for (auto _ : state)
    benchmark::DoNotOptimize(ps.client->push(0, {{"v", &gradient}}));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

template <Transport transport> void BM_PushPull(benchmark::State &state) {
  Ps &ps = psFor(transport, state.range(0));
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

// A streaming worker's data report of each step, as PS task 0 takes it
// riding the push of its batch: decoded and checked (applyRidingReport),
// then the batch recorded trained at the step the push made (the settling
// after the push), without the push. Each batch is 100 records, drawn as a
// shuffle buffer mixes the records of 8 open units. The reports are made
// before the timing: the worker's encoding is not in it.
void BM_DataReport(benchmark::State &state) {
  constexpr int kUnits = 8;
  constexpr int kBatch = 100;
  const int64_t reports = state.max_iterations;
  coord::CoordinatorOptions options;
  options.numWorkers = 1;
  coord::Coordinator coordinator(options);
  coordinator.registerTask("worker", 0);
  CoordinationService service(coordinator);
  coord::DataSetDefinition definition;
  for (int i = 0; i < kUnits; ++i) {
    WorkUnit unit;
    unit.id = i;
    unit.path = "/data/part-" + std::to_string(i) + ".tfrecord";
    unit.end = int64_t(1) << 40;
    definition.units.push_back(unit);
  }
  coordinator.defineData(0, definition);
  std::vector<WorkUnit> open;
  for (int i = 0; i < kUnits; ++i)
    open.push_back(*coordinator.acquireUnit(0, std::chrono::milliseconds(0)));
  // Each unit's records are drawn in order, the units at random: a shuffled
  // batch's records are scattered over the units, a few runs each.
  std::vector<int64_t> next(kUnits, 0);
  std::mt19937_64 random(1);
  auto batchOf = [&] {
    std::vector<ExampleOrigin> batch;
    for (int k = 0; k < kBatch; ++k) {
      int u = static_cast<int>(random() % kUnits);
      batch.push_back({open[u].epoch, open[u].id, next[u]});
      next[u] += 1 + static_cast<int64_t>(random() % 3);
    }
    return batch;
  };
  std::vector<std::string> requests;
  for (int64_t step = 0; step < reports; ++step) {
    coord::DataReport report;
    report.pushing = coord::groupExamples(batchOf());
    report.pushingRidesItsPush = true;
    ReportDataRequest message;
    message.set_worker(0);
    encodeReport(report, &message);
    requests.push_back(message.SerializeAsString());
  }
  size_t at = 0;
  for (auto _ : state) {
    CoordinationService::SettleRidingBatch settle;
    grpc::Status status = service.applyRidingReport(requests[at], settle);
    if (status.ok())
      status = settle(static_cast<int64_t>(at));
    if (!status.ok())
      state.SkipWithError(status.error_message().c_str());
    ++at;
  }
  state.SetItemsProcessed(state.iterations());
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
BENCHMARK(BM_UnixRoundTrip)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_Pull, Local)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_Pull, Grpc)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_Pull, GrpcUnix)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_Push, Local)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_Push, Grpc)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_PushPull, Local)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_PushPull, Grpc)->Apply(sizes);
BENCHMARK(BM_WireEncodeDecode)->Apply(sizes);
// As many reports as a run of 20,000 steps of one worker makes.
BENCHMARK(BM_DataReport)->Iterations(20000)->Unit(benchmark::kMicrosecond);

} // namespace

int main(int argc, char **argv) { return runLikeATask(argc, argv); }

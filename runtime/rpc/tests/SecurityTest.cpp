//===- SecurityTest.cpp - Cluster token, mutual TLS, hostile messages -----===//
//
// A client without the cluster token, or with a wrong one, is refused with
// UNAUTHENTICATED by every RPC of every service, before anything it sent is
// applied. Mutual TLS: only clients with a certificate of the cluster's CA
// get in (the certificates are made with openssl(1) at test time; the TLS
// tests are skipped without it). Oversized and malformed messages are
// refused with a status and the server serves on.
//
//===----------------------------------------------------------------------===//

#include "runtime/rpc/tests/RpcTestSupport.h"

#include "runtime/rpc/Auth.h"
#include "runtime/rpc/Channel.h"
#include "runtime/rpc/CoordinationClient.h"
#include "runtime/rpc/CoordinationService.h"
#include "runtime/rpc/LocalTransport.h"
#include "runtime/rpc/WorkerClient.h"
#include "runtime/rpc/WorkerService.h"

#include "runtime/exec/ExecutorWorker.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>

#include <cstdlib>
#include <fstream>
#include <future>
#include <sys/stat.h>
#include <unistd.h>

namespace dtf::rpc {
namespace {

using namespace dtf::rpc::testing;
using std::chrono::milliseconds;

constexpr const char *kModule = R"mlir(
module {
  func.func @ps_0(%g_w: tensor<2xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:0">,
                  dtf.gradients = ["w"]} {
    %w = dtf.variable "w" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
    dtf.apply_gradient_descent %w, %g_w learning_rate 1.0 : !dtf.resource<tensor<2xf32>>
    %one = dtf.constant dense<1> : tensor<i64>
    dtf.assign_add %step, %one : !dtf.resource<tensor<i64>>
    return
  }
}
)mlir";

constexpr const char *kToken = "correct horse battery staple";

/// A PS task and a coordinator on one server that requires `token`.
struct TokenCluster {
  explicit TokenCluster(mlir::func::FuncOp function, TlsSettings tls = {},
                        std::string token = kToken)
      : task(std::make_unique<exec::PsProgram>(function), Replication::async()),
        ps(task, [] {}), coordination(coord::CoordinatorOptions{}),
        coordinator(coordination), server(options(tls, token)) {
    server.addService(ps);
    server.addService(coordinator);
    server.start();
  }
  static ServerOptions options(const TlsSettings &tls,
                               const std::string &token) {
    ServerOptions options{"127.0.0.1:0"};
    // OversizedAndMalformedRequestsGetAStatus sends more.
    options.maxMessageBytes = 4 << 20;
    options.clusterToken = token;
    options.tls = tls;
    return options;
  }
  ps::ParameterServer task;
  ParameterServerService ps;
  coord::Coordinator coordination;
  CoordinationService coordinator;
  Server server;
};

ClientOptions withToken(const std::string &token) {
  ClientOptions options = fastClientOptions();
  options.clusterToken = token;
  return options;
}

class SecurityTest : public ::testing::Test {
protected:
  SecurityTest() : module(kModule) {}
  TestModule module;
};

TEST_F(SecurityTest, ClientsWithoutTheRightTokenAreRefusedAndNothingApplied) {
  TokenCluster cluster(module.function("ps_0"));
  std::string address = cluster.server.address();
  PsClient good("/job:ps/task:0", address, withToken(kToken));
  good.initialize();

  for (const std::string &token : {std::string(), std::string("guess"),
                                   std::string(kToken) + "x"}) {
    SCOPED_TRACE("token '" + token + "'");
    PsClient rogue("/job:ps/task:0", address, withToken(token));
    Tensor gradient = Tensor::filled(DType::F32, {2}, 100.0);
    std::vector<std::function<void()>> calls = {
        [&] { rogue.initialize(); },
        [&] { rogue.pull({"w"}); },
        [&] {
          rogue.push(0, {{"w", &gradient}});
        },
        [&] { rogue.step(); },
        [&] { rogue.waitForStep(0, milliseconds(100)); },
        [&] { rogue.snapshot(); },
        [&] { rogue.restore(ps::RestoreSource::InitialValues, -1, 7); },
        [&] { rogue.stop("hostile"); },
    };
    for (const auto &call : calls) {
      Error error = expectError(call);
      EXPECT_EQ(error.code(), ErrorCode::Unauthenticated) << error.what();
      EXPECT_TRUE(contains(error.what(), token.empty()
                                             ? "carries no cluster token"
                                             : "cluster token is wrong"))
          << error.what();
    }
    CoordinationClient coordinator(address, withToken(token));
    EXPECT_EQ(
        expectError([&] { coordinator.registerTask("worker", 0); }).code(),
        ErrorCode::Unauthenticated);
    EXPECT_EQ(expectError([&] { coordinator.stop("hostile"); }).code(),
              ErrorCode::Unauthenticated);
  }
  // Nothing of it was applied: the values, the step, the epoch, the
  // coordinator's state and the server are as before.
  EXPECT_EQ(good.pull({"w"})[0].toVector<float>(), std::vector<float>(2, 1.0f));
  ps::TaskStatus status = good.status();
  EXPECT_EQ(status.step, 0);
  EXPECT_EQ(status.epoch, 0);
  EXPECT_EQ(cluster.task.stats().appliedPushes, 0);
  EXPECT_FALSE(cluster.coordination.stopRequested());
  EXPECT_TRUE(cluster.coordination.workerStates().done.empty());
  Tensor gradient = Tensor::filled(DType::F32, {2}, 0.5);
  EXPECT_EQ(good.push(0, {{"w", &gradient}}).step, 1);
  CoordinationClient coordinator(address, withToken(kToken));
  EXPECT_FALSE(coordinator.registerTask("worker", 0).stopRequested);
}

// The worker service (in-graph partitions) checks the token as the PS and
// coordination services do, on every RPC; its own client sends it.
TEST_F(SecurityTest, AWorkerServiceRefusesCallsWithoutTheToken) {
  exec::ExecutorWorkerOptions graphOptions;
  graphOptions.taskName = "/job:worker/task:0";
  graphOptions.numThreads = 1;
  exec::ExecutorWorker graphs(graphOptions);
  WorkerServiceOptions options;
  options.taskName = "/job:worker/task:0";
  options.client = withToken(kToken);
  WorkerService service(graphs, options);
  ServerOptions serverOptions{"127.0.0.1:0"};
  serverOptions.clusterToken = kToken;
  Server server(serverOptions);
  server.addService(service);
  server.start();

  for (const char *token : {"", "wrong"}) {
    SCOPED_TRACE(std::string("token '") + token + "'");
    WorkerClient rogue("/job:worker/task:0", server.address(),
                       withToken(token));
    Error refused =
        expectError([&] { rogue.registerGraph(kModule, {"ps_0"}); });
    EXPECT_EQ(refused.code(), ErrorCode::Unauthenticated) << refused.what();
    EXPECT_EQ(expectError([&] { rogue.cleanupStep(1); }).code(),
              ErrorCode::Unauthenticated);
    EXPECT_EQ(expectError([&] { rogue.runStep("ps_0", 1, {}, {}); }).code(),
              ErrorCode::Unauthenticated);
  }
  EXPECT_TRUE(graphs.snapshotVariables().empty()); // nothing registered

  WorkerClient member("/job:worker/task:0", server.address(),
                      withToken(kToken));
  member.registerGraph(kModule, {"ps_0"});
  EXPECT_EQ(graphs.snapshotVariables().at("w").toVector<float>(),
            std::vector<float>(2, 1.0f));
  member.cleanupStep(1);
}

TEST_F(SecurityTest, WithoutATokenConfiguredAnyClientIsServed) {
  RunningPs ps(module.function("ps_0"), Replication::async());
  PsClient client("/job:ps/task:0", ps.server.address(),
                  withToken("sent but not needed"));
  EXPECT_TRUE(client.initialize());
}

//===----------------------------------------------------------------------===//
// Mutual TLS
TEST_F(SecurityTest, TheLocalSocketWantsTheTokenToo) {
  TokenCluster cluster(module.function("ps_0"));
  ASSERT_EQ(cluster.server.localEndpoints().size(), 1u);
  std::string name = cluster.server.localEndpoints()[0];
  auto deadline = std::chrono::steady_clock::now() + milliseconds(2'000);
  for (const std::string &token : {std::string(), std::string("guess")}) {
    SCOPED_TRACE("token '" + token + "'");
    auto rogue = std::make_shared<LocalChannel>(name, token, 1 << 20);
    grpc::Status refused = rogue->open(deadline);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_TRUE(contains(refused.error_message(), "--cluster_token"))
        << refused.error_message();
  }
  // The right token gets the local socket, and its pushes apply.
  PsClient good("/job:ps/task:0", cluster.server.address(), withToken(kToken));
  good.initialize();
  EXPECT_TRUE(good.usesLocalTransport());
  Tensor gradient = Tensor::filled(DType::F32, {2}, 0.5);
  EXPECT_EQ(good.push(0, {{"w", &gradient}}).step, 1);
}

//===----------------------------------------------------------------------===//

/// A CA, a server certificate for localhost/127.0.0.1, a client
/// certificate, and a client certificate of another CA, made with openssl.
class Certificates {
public:
  Certificates() {
    char pattern[] = "/tmp/dtf-tls.XXXXXX";
    if (!::mkdtemp(pattern))
      return;
    dir = pattern;
    std::ofstream script(dir + "/make.sh");
    script << "set -e\n"
              "cd \"$(dirname \"$0\")\"\n"
              "exec >log 2>&1\n"
              "echo 'subjectAltName = DNS:localhost, IP:127.0.0.1' > san.cnf\n"
              "for ca in ca rogue; do\n"
              "  openssl req -x509 -newkey rsa:2048 -nodes -days 2 "
              "-subj /CN=$ca -keyout $ca.key -out $ca.pem\n"
              "done\n"
              "mk() {\n"
              "  openssl req -newkey rsa:2048 -nodes -subj /CN=$1 "
              "-keyout $1.key -out $1.csr\n"
              "  openssl x509 -req -in $1.csr -CA $2.pem -CAkey $2.key "
              "-CAcreateserial -days 2 -extfile san.cnf -out $1.pem\n"
              "}\n"
              "mk server ca\nmk client ca\nmk intruder rogue\n";
    script.close();
    ok = std::system(("command -v openssl >/dev/null && bash " + dir +
                      "/make.sh")
                         .c_str()) == 0;
  }
  ~Certificates() {
    if (!dir.empty())
      std::system(("rm -rf '" + dir + "'").c_str());
  }

  bool ok = false;

  TlsSettings settings(const std::string &name, const std::string &ca = "ca") {
    TlsSettings tls;
    tls.certificateChain = readSecretFile(dir + "/" + name + ".pem", name);
    tls.privateKey = readSecretFile(dir + "/" + name + ".key", name);
    tls.caCertificates = readSecretFile(dir + "/" + ca + ".pem", ca);
    return tls;
  }

private:
  std::string dir;
};

class TlsTest : public SecurityTest {
protected:
  static void SetUpTestSuite() { certificates = new Certificates(); }
  static void TearDownTestSuite() {
    delete certificates;
    certificates = nullptr;
  }
  void SetUp() override {
    if (!certificates->ok)
      GTEST_SKIP() << "openssl(1) could not make test certificates";
  }
  static Certificates *certificates;
};
Certificates *TlsTest::certificates = nullptr;

TEST_F(TlsTest, OnlyClientsWithACertificateOfTheClusterGetIn) {
  TokenCluster cluster(module.function("ps_0"),
                       certificates->settings("server"));
  std::string address = "localhost:" + std::to_string(cluster.server.port());
  // A local socket cannot check a client certificate: none is offered.
  EXPECT_TRUE(cluster.server.localEndpoints().empty());

  ClientOptions good = withToken(kToken);
  good.tls = certificates->settings("client");
  PsClient client("/job:ps/task:0", address, good);
  client.waitUntilReachable();
  EXPECT_TRUE(client.initialize());
  Tensor gradient = Tensor::filled(DType::F32, {2}, 0.5);
  EXPECT_EQ(client.push(0, {{"w", &gradient}}).step, 1);

  // TLS but the wrong token: the token is still checked.
  ClientOptions noToken = good;
  noToken.clusterToken.clear();
  EXPECT_EQ(expectError([&] {
              PsClient("/job:ps/task:0", address, noToken).step();
            }).code(),
            ErrorCode::Unauthenticated);

  // Plaintext, a certificate of another CA, no client certificate: no
  // connection at all.
  ClientOptions plaintext = withToken(kToken);
  ClientOptions intruder = withToken(kToken);
  intruder.tls = certificates->settings("intruder", "ca");
  for (const ClientOptions *options : {&plaintext, &intruder}) {
    PsClient rogue("/job:ps/task:0", address, *options);
    Error error = expectError([&] { rogue.pull({"w"}); });
    EXPECT_EQ(error.code(), ErrorCode::Unavailable) << error.what();
  }
  {
    // TLS that checks the server but presents no client certificate.
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = good.tls.caCertificates;
    auto channel = grpc::CreateChannel(address, grpc::SslCredentials(ssl));
    std::unique_ptr<ParameterServer::Stub> stub =
        ParameterServer::NewStub(channel);
    grpc::ClientContext context;
    prepareCall(context, good, milliseconds(2'000));
    GetStepResponse response;
    grpc::Status status = stub->GetStep(&context, GetStepRequest(), &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE)
        << status.error_message();
  }
  EXPECT_EQ(client.pull({"w"})[0].toVector<float>(),
            std::vector<float>(2, 0.5f));
  EXPECT_EQ(cluster.task.stats().appliedPushes, 1);
}

TEST_F(TlsTest, AClientChecksTheServersCertificate) {
  // A server whose certificate is of another CA than the client trusts.
  TokenCluster cluster(module.function("ps_0"),
                       certificates->settings("intruder", "ca"));
  ClientOptions options = withToken(kToken);
  options.tls = certificates->settings("client");
  PsClient client("/job:ps/task:0",
                  "localhost:" + std::to_string(cluster.server.port()),
                  options);
  EXPECT_EQ(expectError([&] { client.step(); }).code(), ErrorCode::Unavailable);
  // The positive control: the same client, trusting the CA that signed
  // the server's certificate, gets in; so the refusal above was the
  // client checking the certificate, not a server that does not serve.
  ClientOptions trusting = options;
  trusting.tls = certificates->settings("client", "rogue");
  PsClient trustingClient("/job:ps/task:0",
                          "localhost:" + std::to_string(cluster.server.port()),
                          trusting);
  EXPECT_EQ(trustingClient.step(), 0);
}

//===----------------------------------------------------------------------===//
// Oversized and malformed messages
//===----------------------------------------------------------------------===//

/// Sends raw bytes as the request of a unary method.
grpc::Status rawUnaryCall(const std::string &address, const std::string &method,
                          const std::string &bytes) {
  grpc::Slice slice(bytes.data(), bytes.size());
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::GenericStub stub(createChannel(address, fastClientOptions()));
  grpc::ClientContext context;
  setTimeout(context, milliseconds(5'000));
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                 [&](grpc::Status status) { done.set_value(status); });
  return done.get_future().get();
}

TEST_F(SecurityTest, OversizedAndMalformedRequestsGetAStatus) {
  TokenCluster ps(module.function("ps_0"), {}, /*token=*/"");
  PsClient client("/job:ps/task:0", ps.server.address(), fastClientOptions());
  client.initialize();

  // A Pull naming 5 MB of variables: beyond the 4 MiB message limit.
  std::vector<std::string> names(5'000, std::string(1'000, 'x'));
  EXPECT_EQ(expectError([&] { client.pull(names); }).code(),
            ErrorCode::ResourceExhausted);

  // Garbage to each service's methods: INTERNAL from gRPC's parser.
  const std::string garbage = "\x0a\xff\xff\xff\xff\x0f";
  for (const char *method :
       {"/dtf.rpc.ParameterServer/Restore", "/dtf.rpc.ParameterServer/GetStep",
        "/dtf.rpc.Coordination/RegisterTask", "/dtf.rpc.Coordination/Stop"})
    EXPECT_EQ(rawUnaryCall(ps.server.address(), method, garbage).error_code(),
              grpc::StatusCode::INTERNAL)
        << method;

  // A restore with an unknown source: INVALID_ARGUMENT, nothing changed.
  RestoreRequest request;
  request.set_source(static_cast<RestoreRequest::Source>(42));
  request.set_epoch(5);
  EXPECT_EQ(rawUnaryCall(ps.server.address(),
                         "/dtf.rpc.ParameterServer/Restore",
                         request.SerializeAsString())
                .error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(client.status().epoch, 0);
  EXPECT_EQ(client.step(), 0);
}

TEST_F(SecurityTest, ATruncatedPushIsRejectedAndNothingApplied) {
  RunningPs ps(module.function("ps_0"), Replication::async());
  PsClient client("/job:ps/task:0", ps.server.address(), fastClientOptions());
  client.initialize();
  Tensor gradient = Tensor::filled(DType::F32, {2}, 0.5);
  PushRequest push;
  push.mutable_header()->set_step(0);
  TensorChunk *chunk = push.add_chunks();
  chunk->set_name("w");
  chunk->set_dtype(DATA_TYPE_F32);
  chunk->mutable_shape()->add_dims(2);
  chunk->set_data(gradient.rawData(), gradient.byteSize());
  std::string bytes = push.SerializeAsString();
  for (size_t length = 0; length < bytes.size(); ++length) {
    grpc::Status status = rawUnaryCall(
        ps.server.address(), "/dtf.rpc.ParameterServer/Push",
        bytes.substr(0, length));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << length << " bytes: " << status.error_message();
    EXPECT_TRUE(contains(status.error_message(), "nothing applied"))
        << status.error_message();
  }
  EXPECT_EQ(client.step(), 0);
  EXPECT_EQ(client.pull({"w"})[0].toVector<float>(),
            std::vector<float>(2, 1.0f));
  // The whole message is a valid push.
  EXPECT_TRUE(rawUnaryCall(ps.server.address(), "/dtf.rpc.ParameterServer/Push",
                           bytes)
                  .ok());
  EXPECT_EQ(client.pull({"w"})[0].toVector<float>(),
            std::vector<float>(2, 0.5f));
}

TEST_F(SecurityTest, APushClaimingAHugeTensorIsRefusedBeforeAllocating) {
  RunningPs ps(module.function("ps_0"), Replication::async());
  PsClient client("/job:ps/task:0", ps.server.address(), fastClientOptions());
  client.initialize();
  auto channel = createChannel(ps.server.address(), fastClientOptions());
  std::unique_ptr<ParameterServer::Stub> stub = ParameterServer::NewStub(channel);
  for (std::vector<int64_t> dims :
       {std::vector<int64_t>{int64_t(1) << 40, int64_t(1) << 20},
        std::vector<int64_t>{-2}, std::vector<int64_t>{2, 1}}) {
    grpc::ClientContext context;
    setTimeout(context, milliseconds(5'000));
    PushResponse response;
    PushRequest message;
    message.mutable_header()->set_step(0);
    TensorChunk *chunk = message.add_chunks();
    chunk->set_name("w");
    chunk->set_dtype(DATA_TYPE_F32);
    for (int64_t dim : dims)
      chunk->mutable_shape()->add_dims(dim);
    chunk->set_data(std::string(8, '\0'));
    grpc::Status status = stub->Push(&context, message, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << status.error_message();
    EXPECT_TRUE(contains(status.error_message(), "nothing applied"))
        << status.error_message();
  }
  EXPECT_EQ(client.step(), 0);
  EXPECT_EQ(client.pull({"w"})[0].toVector<float>(),
            std::vector<float>(2, 1.0f));
}

} // namespace
} // namespace dtf::rpc

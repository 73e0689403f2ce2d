//===- CudaErrorOverRpcTest.cpp - A GPU failure keeps its code over RPC ---===//
//
// A worker whose step runs out of GPU memory must fail its master's RunStep
// with RESOURCE_EXHAUSTED, not UNKNOWN: the master decides by the code
// whether to retry or give up. No GPU is needed: the fake worker throws the
// error dtf_cuda throws when the driver reports CUDA_ERROR_OUT_OF_MEMORY.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Driver.h"

#include "runtime/core/Error.h"
#include "runtime/core/Worker.h"
#include "runtime/rpc/Server.h"
#include "runtime/rpc/WorkerClient.h"
#include "runtime/rpc/WorkerService.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace dtf::cuda {
namespace {

constexpr const char *kTask = "/job:worker/task:0";

/// A worker whose every step runs out of device memory.
class OutOfMemoryWorker final : public Worker {
public:
  void registerGraphs(const std::string &,
                      const std::vector<std::string> &) override {}
  std::vector<Tensor> runStep(const std::string &,
                              std::map<std::string, Tensor>,
                              std::vector<Tensor>,
                              const StepOptions &) override {
    driver::check(CUDA_ERROR_OUT_OF_MEMORY,
                  "/device:GPU:0: allocating the step's buffers");
    return {};
  }
  VariableStore snapshotVariables() override { return {}; }
  std::vector<std::string> assignVariables(VariableStore) override {
    return {};
  }
};

TEST(CudaErrorOverRpcTest, OutOfMemoryReachesTheClientAsResourceExhausted) {
  OutOfMemoryWorker worker;
  rpc::WorkerServiceOptions serviceOptions;
  serviceOptions.taskName = kTask;
  rpc::WorkerService service(worker, serviceOptions);
  // The server goes first: it calls the service while stopping.
  rpc::Server server(rpc::ServerOptions{"127.0.0.1:0"});
  server.addService(service);
  server.start();

  rpc::ClientOptions clientOptions;
  clientOptions.callTimeout = std::chrono::milliseconds(5'000);
  clientOptions.connectTimeout = std::chrono::milliseconds(5'000);
  rpc::WorkerClient client(kTask, server.address(), clientOptions);
  try {
    client.runStep("train", /*stepId=*/1, /*feeds=*/{});
    ADD_FAILURE() << "the step should fail";
  } catch (const std::exception &error) {
    EXPECT_EQ(errorCodeOf(error), ErrorCode::ResourceExhausted)
        << errorCodeName(errorCodeOf(error)) << ": " << error.what();
    EXPECT_NE(std::string(error.what()).find("allocating the step's buffers"),
              std::string::npos)
        << error.what();
  }
}

} // namespace
} // namespace dtf::cuda

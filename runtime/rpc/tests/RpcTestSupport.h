//===- RpcTestSupport.h - Shared helpers of the RPC tests -------*- C++ -*-===//

#pragma once

#include "runtime/core/tests/TestUtil.h"
#include "runtime/exec/PsProgram.h"
#include "runtime/rpc/Errors.h"
#include "runtime/rpc/ParameterServerService.h"
#include "runtime/rpc/PsClient.h"
#include "runtime/rpc/Server.h"

#include "passes/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>

namespace dtf::rpc::testing {

using ps::ModelState;
using ps::Replication;
using ps::UpdateStats;

/// A PS task holding one variable "w" of 2 floats (1.0 each), updated by
/// gradient descent with learning rate 1.
inline constexpr const char *kOneVariableModule = R"mlir(
module {
  func.func @ps_0(%g_w: tensor<2xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:0">,
                  dtf.gradients = ["w"]} {
    %w = dtf.variable "w" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
    dtf.apply_gradient_descent %w, %g_w learning_rate 1.0 : !dtf.resource<tensor<2xf32>>
    return
  }
}
)mlir";

/// A parsed module of hand-written PS functions.
class TestModule {
public:
  explicit TestModule(const char *source) {
    mlir::DialectRegistry registry;
    dtf::ir::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    // Not verified: the dialect does not know the dtf.gradients attribute of
    // replicated modules yet (the replicate pass brings it), and the
    // verifier rejects unknown dtf attributes.
    mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
    module = mlir::parseSourceString<mlir::ModuleOp>(source, config);
    if (!module)
      ADD_FAILURE() << "the test module does not parse";
  }

  mlir::func::FuncOp function(const char *name) {
    auto function = module->lookupSymbol<mlir::func::FuncOp>(name);
    EXPECT_TRUE(function) << "no function @" << name;
    return function;
  }

private:
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// A PS task running `function`, served on its own server at 127.0.0.1 and
/// a port the OS picks; a Stop RPC stops the server.
struct RunningPs {
  static exec::ExecutorOptions observing(exec::OpObserver opObserver) {
    exec::ExecutorOptions options;
    options.opObserver = std::move(opObserver);
    return options;
  }

  RunningPs(mlir::func::FuncOp function, Replication replication,
            ServerOptions serverOptions = {"127.0.0.1:0"},
            ps::Options psOptions = {}, exec::OpObserver opObserver = {})
      : task(std::make_unique<exec::PsProgram>(
                 function, observing(std::move(opObserver))),
             replication, std::move(psOptions)),
        service(task, [this] { server.requestStop(); }), server(serverOptions) {
    server.addService(service);
    server.start();
  }

  ps::ParameterServer task;
  // The server goes first: it calls the service while stopping.
  ParameterServerService service;
  Server server;
};

/// Short timeouts: the tests must fail fast, not hang.
inline ClientOptions fastClientOptions() {
  ClientOptions options;
  options.callTimeout = std::chrono::milliseconds(2'000);
  options.connectTimeout = std::chrono::milliseconds(2'000);
  options.waitSlice = std::chrono::milliseconds(200);
  options.maxReconnectBackoff = std::chrono::milliseconds(100);
  return options;
}

using dtf::testing::expectError;

inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace dtf::rpc::testing

//===- LinkProbe.cpp - A PS task built from dtf_ps, dtf_coord and dtf_rpc -===//
//
// Links only the parameter-server, coordination and RPC libraries, and uses
// them all: a PS task with an update program written here and the
// coordinator beside it, as PS task 0 has, served over gRPC on loopback; a
// client initializes, pushes and pulls, a worker goes through the
// coordination protocol. check_links.py then proves that nothing of MLIR or
// of the dtf compiler came along (docs/ARCHITECTURE.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/coord/Coordinator.h"
#include "runtime/ps/ParameterServer.h"
#include "runtime/rpc/CoordinationClient.h"
#include "runtime/rpc/CoordinationService.h"
#include "runtime/rpc/ParameterServerService.h"
#include "runtime/rpc/PsClient.h"
#include "runtime/rpc/Server.h"

#include <iostream>

namespace {

/// One variable, `v`: f32[3] of ones; an update adds the gradient.
class AddProgram final : public dtf::ps::UpdateProgram {
public:
  AddProgram() {
    signature_.taskName = "/job:ps/task:0";
    signature_.variables = {{"v", {dtf::DType::F32, {3}}}};
    signature_.gradientNames = {"v"};
    signature_.argumentTypes = {{dtf::DType::F32, {3}}};
  }
  const dtf::ps::ProgramSignature &signature() const override {
    return signature_;
  }
  void initialize(dtf::VariableStore &values) override {
    values.try_emplace("v", dtf::Tensor::filled(dtf::DType::F32, {3}, 1.0));
  }
  void apply(dtf::VariableStore &values, std::vector<dtf::Tensor> arguments,
             const dtf::ps::UpdateContext &) override {
    float *v = values.at("v").data<float>();
    for (int i = 0; i < 3; ++i)
      v[i] += arguments[0].data<float>()[i];
  }

private:
  dtf::ps::ProgramSignature signature_;
};

} // namespace

int main() {
  using namespace dtf;
  using std::chrono::milliseconds;
  ps::ParameterServer task(std::make_unique<AddProgram>(),
                           ps::Replication::async());
  coord::CoordinatorOptions coordinatorOptions;
  coordinatorOptions.globalStep = [&task] { return task.currentStep(); };
  coord::Coordinator coordinator(coordinatorOptions);
  rpc::Server server(rpc::ServerOptions{"127.0.0.1:0"});
  rpc::ParameterServerService service(task, [&] { server.requestStop(); });
  rpc::CoordinationService coordination(coordinator);
  server.addService(service);
  server.addService(coordination);
  server.start();

  rpc::CoordinationClient worker(server.address());
  worker.registerTask("worker", 0);
  rpc::PsClient client(task.taskName(), server.address());
  client.initialize();
  worker.markInitialized();
  worker.waitInitialized(milliseconds(1'000));
  Tensor gradient = Tensor::filled(DType::F32, {3}, 2.0);
  client.push(0, {{"v", &gradient}});
  std::vector<float> value = client.pull({"v"})[0].toVector<float>();
  int64_t globalStep = worker.globalStep();
  worker.workerDone(0);
  coord::WorkerStates states = worker.waitWorkersDone(milliseconds(1'000));
  worker.stop("the probe is done");
  server.shutdown();
  if (value != std::vector<float>(3, 3.0f)) {
    std::cerr << "link probe: v is not 1 + 2 after one push" << std::endl;
    return 1;
  }
  if (globalStep != 1 || states.done != std::vector<int>{0} ||
      !coordinator.stopRequested()) {
    std::cerr << "link probe: the coordinator did not see the worker's "
                 "step, end and stop"
              << std::endl;
    return 1;
  }
  std::cout << "link probe: a PS task served and updated v, its coordinator "
               "saw the worker through"
            << std::endl;
  return 0;
}

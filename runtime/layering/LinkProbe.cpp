//===- LinkProbe.cpp - A PS task built from dtf_ps and dtf_rpc alone ------===//
//
// Links only the parameter-server and RPC libraries, and uses both: a PS
// task with an update program written here, served over gRPC on loopback,
// initialized and pulled by a client. check_links.py then proves that
// nothing of MLIR or of the dtf compiler came along (docs/ARCHITECTURE.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/ps/ParameterServer.h"
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
  void apply(dtf::VariableStore &values,
             std::vector<dtf::Tensor> arguments) override {
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
  ps::ParameterServer task(std::make_unique<AddProgram>(),
                           ps::Replication::async());
  rpc::Server server(rpc::ServerOptions{"127.0.0.1:0"});
  rpc::ParameterServerService service(task, [&] { server.requestStop(); });
  server.addService(service);
  server.start();
  rpc::PsClient client(task.taskName(), server.address());
  client.initialize();
  Tensor gradient = Tensor::filled(DType::F32, {3}, 2.0);
  client.push(0, {{"v", &gradient}});
  std::vector<float> value = client.pull({"v"})[0].toVector<float>();
  server.shutdown();
  if (value != std::vector<float>(3, 3.0f)) {
    std::cerr << "link probe: v is not 1 + 2 after one push" << std::endl;
    return 1;
  }
  std::cout << "link probe: a PS task served and updated v" << std::endl;
  return 0;
}

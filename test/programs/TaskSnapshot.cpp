//===- TaskSnapshot.cpp - What a running task holds, as a checkpoint ------===//
//
// The recovery tests check what the tasks hold after a restore against the
// checkpoint they restored: this program reads a running task's variables
// and writes them in the checkpoint format.
//
//   dtf-snapshot --ps=HOST:PORT --out=FILE
//       a PS task of between-graph replication: its Snapshot (the RPC the
//       chief's checkpoints use), the checkpoint's step the task's step
//       (test/integration/recovery.py);
//   dtf-snapshot --worker=HOST:PORT --task=/job:ps/task:0 --out=FILE
//       any task of in-graph replication: the variables its worker service
//       holds (GetVariables, the RPC the in-graph master's checkpoints use),
//       at step 0, since such a task keeps no step of its own
//       (test/integration/in_graph.py).
//
//===----------------------------------------------------------------------===//

#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/rpc/PsClient.h"
#include "runtime/rpc/WorkerClient.h"

#include "llvm/Support/CommandLine.h"

#include <iostream>

namespace cl = llvm::cl;

static cl::opt<std::string> psAddress("ps", cl::desc("host:port of a PS task"));
static cl::opt<std::string>
    workerAddress("worker",
                  cl::desc("host:port of a task's worker service (in-graph)"));
static cl::opt<std::string>
    taskName("task", cl::desc("with --worker: the task's name, as "
                              "/job:worker/task:1"));
static cl::opt<std::string> outPath("out", cl::Required,
                                    cl::desc("Checkpoint file to write"));

namespace {

dtf::checkpoint::Checkpoint snapshotPs(const dtf::rpc::ClientOptions &options) {
  dtf::rpc::PsClient client(psAddress, psAddress, options);
  dtf::ps::Snapshot snapshot = client.snapshot();
  dtf::checkpoint::Checkpoint checkpoint;
  checkpoint.step = snapshot.step;
  for (dtf::NamedTensor &tensor : snapshot.tensors)
    checkpoint.tensors.emplace(tensor.name, std::move(tensor.tensor));
  std::cout << psAddress << ": step " << snapshot.step << ", epoch "
            << snapshot.epoch << ", " << checkpoint.tensors.size() << " tensors"
            << std::endl;
  return checkpoint;
}

dtf::checkpoint::Checkpoint
snapshotWorker(const dtf::rpc::ClientOptions &options) {
  dtf::rpc::WorkerClient client(taskName, workerAddress, options);
  dtf::checkpoint::Checkpoint checkpoint;
  for (auto &[name, value] : client.getVariables())
    checkpoint.tensors.emplace(name, std::move(value));
  std::cout << taskName << " at " << workerAddress << ": "
            << checkpoint.tensors.size() << " variables" << std::endl;
  return checkpoint;
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "writes a running task's variables as a "
                              "checkpoint file\n");
  if (psAddress.empty() == workerAddress.empty()) {
    std::cerr << "dtf-snapshot: give one of --ps and --worker\n";
    return 1;
  }
  if (!workerAddress.empty() && taskName.empty()) {
    std::cerr << "dtf-snapshot: --worker needs --task\n";
    return 1;
  }
  try {
    dtf::rpc::ClientOptions options;
    options.callTimeout = std::chrono::seconds(10);
    dtf::checkpoint::writeCheckpointFile(outPath, psAddress.empty()
                                                      ? snapshotWorker(options)
                                                      : snapshotPs(options));
    return 0;
  } catch (const std::exception &error) {
    std::cerr << "dtf-snapshot: " << error.what() << "\n";
    return 1;
  }
}

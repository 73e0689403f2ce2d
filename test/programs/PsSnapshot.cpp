//===- PsSnapshot.cpp - What a running PS task holds, as a checkpoint -----===//
//
// The recovery tests (test/integration/recovery.py) check what a PS task
// serves after a restore against the checkpoint it restored: this program
// takes the task's Snapshot (the RPC the chief's checkpoints use) and
// writes it in the checkpoint format, its step the task's step.
//
//   dtf-ps-snapshot --ps=HOST:PORT --out=FILE
//
//===----------------------------------------------------------------------===//

#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/rpc/PsClient.h"

#include "llvm/Support/CommandLine.h"

#include <iostream>

namespace cl = llvm::cl;

static cl::opt<std::string> address("ps", cl::Required,
                                    cl::desc("host:port of the PS task"));
static cl::opt<std::string> outPath("out", cl::Required,
                                    cl::desc("Checkpoint file to write"));

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "writes a running PS task's variables as a "
                              "checkpoint file\n");
  try {
    dtf::rpc::ClientOptions options;
    options.callTimeout = std::chrono::seconds(10);
    dtf::rpc::PsClient client(address, address, options);
    dtf::rpc::PsSnapshot snapshot = client.snapshot();
    dtf::checkpoint::Checkpoint checkpoint;
    checkpoint.step = snapshot.step;
    for (dtf::rpc::NamedTensor &tensor : snapshot.tensors)
      checkpoint.tensors.emplace(tensor.name, std::move(tensor.tensor));
    dtf::checkpoint::writeCheckpointFile(outPath, checkpoint);
    std::cout << address << ": step " << snapshot.step << ", epoch "
              << snapshot.epoch << ", " << checkpoint.tensors.size()
              << " tensors" << std::endl;
    return 0;
  } catch (const std::exception &error) {
    std::cerr << "dtf-ps-snapshot: " << error.what() << "\n";
    return 1;
  }
}

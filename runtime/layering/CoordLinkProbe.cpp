//===- CoordLinkProbe.cpp - The coordinator built from dtf_coord alone ----===//
//
// Links only the coordination library, and uses all of it: a coordinator,
// a worker talking to it through an in-process connection, with its
// heartbeats in the background, from registration to stop, reading the
// units of a data set its data coordinator hands out and saving the
// ledger. check_links.py
// then proves that neither gRPC, protobuf nor MLIR came along: the state
// machine of coordination does not depend on how calls reach it
// (docs/ARCHITECTURE.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/coord/Coordinator.h"
#include "runtime/coord/HeartbeatSender.h"
#include "runtime/coord/InProcessCoordinator.h"

#include <iostream>
#include <thread>

int main() {
  using namespace dtf::coord;
  using std::chrono::milliseconds;
  Coordinator coordinator(CoordinatorOptions{});
  InProcessCoordinatorConnection worker(coordinator);
  worker.registerTask("worker", 0);
  HeartbeatSender heartbeats(worker, "worker", 0, milliseconds(10));
  worker.markInitialized();
  worker.waitInitialized(milliseconds(1'000));
  DataSetDefinition data;
  data.units.resize(2);
  data.units[1].id = 1;
  data.epochs = 1;
  worker.defineData(0, data);
  while (std::optional<dtf::WorkUnit> unit =
             worker.acquireUnit(0, milliseconds(1'000))) {
    DataReport report;
    report.unitsRead.push_back({unit->epoch, unit->id, 2});
    report.trained =
        groupExamples({{unit->epoch, unit->id, 0}, {unit->epoch, unit->id, 1}});
    worker.reportData(0, report);
  }
  std::string state = worker.dataState(0);
  worker.restoreDataState(state);
  DataStats dataStats = worker.dataStats();
  worker.workerDone(0);
  WorkerStates states = worker.waitWorkersDone(milliseconds(1'000));
  worker.stop("the probe is done");
  for (int i = 0; i < 100 && !heartbeats.stopRequested(); ++i)
    std::this_thread::sleep_for(milliseconds(10));
  if (states.done != std::vector<int>{0} || !heartbeats.stopRequested() ||
      !dataStats.finished || dataStats.recordsTrained != 4) {
    std::cerr << "coord link probe: the coordinator did not see the worker "
                 "through to the stop"
              << std::endl;
    return 1;
  }
  std::cout << "coord link probe: a worker went from registration to stop"
            << std::endl;
  return 0;
}

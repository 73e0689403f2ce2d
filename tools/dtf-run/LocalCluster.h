//===- LocalCluster.h - A whole cluster on loopback, for a laptop ---------===//
//
// `dtf-run --local --ps=1 --workers=2 model.mlir ...` starts every task of a
// cluster as a separate dtf-run process on loopback ports it picks, streams
// their output with a "[ps0] " / "[worker1] " prefix, and exits with the
// status of the first task that fails (stopping the others), or 0 once every
// worker has finished and the PS tasks have stopped.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/rpc/Options.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dtf::run {

/// The loopback addresses of a local cluster's tasks, as --ps_hosts and
/// --worker_hosts take them.
struct LocalAddresses {
  std::string psHosts;
  std::string workerHosts;
};

/// Picks a free loopback port for each of `numPs` PS tasks and `numWorkers`
/// workers; throws std::invalid_argument naming --ps or --workers for a
/// count that makes no cluster.
LocalAddresses pickLocalAddresses(int numPs, int numWorkers);

struct LocalClusterOptions {
  int numPs = 1;
  int numWorkers = 2;
  /// From pickLocalAddresses(numPs, numWorkers).
  LocalAddresses addresses;
  /// The dtf-run binary to start for each task.
  std::string executable;
  /// Arguments given to every task besides its cluster and task flags.
  std::vector<std::string> taskArguments;
  /// How long PS tasks may take to stop after the last worker finished.
  int psStopTimeoutSeconds = 30;

  // Observability (Progress.h, Telemetry.h).
  /// Show progress towards `trainSteps`: a bar on a terminal, lines
  /// otherwise.
  bool progress = false;
  int64_t trainSteps = 0;
  /// --num_epochs of a streamed input, for the epoch in the progress.
  int64_t epochs = 0;
  /// The model runs in-graph: the tasks serve partitions, not a PS
  /// service, and progress reads the global step from them.
  bool inGraph = false;
  /// How progress reaches the tasks: the cluster's TLS and token.
  rpc::ClientOptions progressClient;
  /// --trace: each task writes FILE.parts/<task>.json, merged into this
  /// file at the end (empty: no trace).
  std::string traceFile;
};

/// Runs the cluster to completion; returns the process exit status.
int runLocalCluster(const LocalClusterOptions &options);

} // namespace dtf::run

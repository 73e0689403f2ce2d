//===- Slurm.h - The cluster of a Slurm job step --------------------------===//
//
// What TensorFlow's SlurmClusterResolver reads, for `srun dtf-run
// --cluster_resolver=slurm`: every task of the job step is one DTF task.
// The step's tasks are numbered by SLURM_PROCID over the nodes of
// SLURM_STEP_NODELIST (Slurm's host-list syntax), SLURM_STEP_TASKS_PER_NODE
// of them on each node, in order; the first `numPs` are the PS tasks and the
// rest the workers. The k-th task on a node listens on port `basePort + k`.
// Every error names the variable at fault.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/cluster/ClusterSpec.h"

#include <functional>
#include <string>
#include <vector>

namespace dtf::cluster {

/// Expands Slurm's host-list syntax: comma-separated names, each with any
/// number of bracketed ranges and lists whose numbers keep the width of
/// their zero padding ("node[1-3,5]", "a[01-02],b1", "r[1-2]n[08-09]").
/// Throws ClusterError naming `what` and the malformed part.
std::vector<std::string> expandSlurmHostList(const std::string &list,
                                             const std::string &what);

/// Expands Slurm's tasks-per-node syntax, "2(x3),1" -> {2, 2, 2, 1}.
/// Throws ClusterError naming `what`.
std::vector<int> expandSlurmTasksPerNode(const std::string &spec,
                                         const std::string &what);

/// Reads an environment variable; null when it is not set.
using Environment = std::function<const char *(const char *name)>;

/// The cluster and this task of the Slurm job step that `environment`
/// describes (SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_STEP_NODELIST,
/// SLURM_STEP_TASKS_PER_NODE), its first `numPs` tasks PS tasks, each
/// listening on `basePort` plus its index on its node. Throws ClusterError
/// naming the variable or the flag at fault.
TfConfig resolveSlurm(const Environment &environment, int numPs, int basePort);

} // namespace dtf::cluster

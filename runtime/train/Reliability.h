//===- Reliability.h - Checkpoints, recovery and security of a task -------===//
//
// What the training tasks add for reliability and security, kept apart from
// Tasks.cpp, which calls it through a few hooks:
//
// - checkpoints (Checkpointing.cpp): PS tasks restore the newest valid
//   checkpoint of --logdir (either format) at start-up; the chief saves
//   every variable every --save_checkpoint_steps steps or
//   --save_checkpoint_secs seconds, at the start and at the end, keeping
//   --keep_checkpoints of them, in --checkpoint_format: DTF's file or
//   TensorFlow's bundle, one data file per PS task, a variable sharded over
//   PS tasks as TensorFlow's partitioned variable;
// - recovery (Supervisor.cpp): the chief (re-)establishes one consistent
//   model on every PS task; with --recovery_timeout_ms, a worker whose RPC
//   fails waits for the cluster with backoff and resumes;
// - security (Security.cpp): mutual TLS (--tls_cert/--tls_key/--tls_ca), a
//   cluster token on every call (--cluster_token, --cluster_token_file), and
//   without TLS a PS task listens on loopback only unless
//   --insecure_bind_all.
//
// dtf-run's flags set these options (tools/dtf-run/dtf-run.cpp).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/checkpoint/BundleDirectory.h"
#include "runtime/checkpoint/WarmStart.h"
#include "runtime/core/Tensor.h"
#include "runtime/rpc/Options.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace dtf::ps {
class ParameterServer;
struct ModelState;
struct Options;
struct Snapshot;
} // namespace dtf::ps
namespace dtf::rpc {
struct ServerOptions;
} // namespace dtf::rpc
namespace dtf::coord {
class CoordinatorConnection;
} // namespace dtf::coord

namespace dtf::train {

struct ReliabilityOptions {
  /// Checkpoint directory; empty: no checkpoints.
  std::string logdir;
  /// The chief saves when the global step has advanced this much since the
  /// last checkpoint (0: not by steps) ...
  int64_t saveCheckpointSteps = 0;
  /// ... or this many seconds have passed (0: not by time).
  double saveCheckpointSecs = 0;
  /// Checkpoints kept (0: all).
  int keepCheckpoints = 5;
  /// What the chief saves in (--checkpoint_format). Restores read either.
  checkpoint::CheckpointFormat checkpointFormat =
      checkpoint::CheckpointFormat::Dtf;
  /// A checkpoint of another job to start from when `logdir` holds none
  /// (--init_from_checkpoint; WarmStart.h): a bundle's prefix, a DTF
  /// checkpoint file, or a directory of either. Empty: the initializers.
  std::string initFromCheckpoint;
  /// Which of its tensors initialize which variables
  /// (--init_assignment_map, checkpoint::parseAssignmentMap).
  std::string initAssignmentMap;
  /// How long a worker retries a failed RPC (waiting for a restarted task)
  /// before it gives up; 0: no recovery, a failed RPC ends the worker.
  int64_t recoveryTimeoutMs = 0;
  /// Test only: a pause after each training step, to make a slow worker.
  int64_t debugStepDelayMs = 0;
  /// Test only: a PS task crashes (SIGKILL) once its step reaches this
  /// (0: never).
  int64_t debugCrashAtStep = 0;
  /// Test only: a PS task holds (every call waits) once its step reaches
  /// debugHoldAtStep, until the file debugReleaseFile exists (0: never).
  int64_t debugHoldAtStep = 0;
  /// Test only: the in-graph master holds (runs no step) after each
  /// restore from a checkpoint until debugReleaseFile exists, so that a
  /// test reads every task's restored variables before training moves them.
  bool debugHoldAfterRestore = false;
  std::string debugReleaseFile;

  std::string clusterToken;
  rpc::TlsSettings tls;
  /// Without TLS, listen on every interface rather than loopback only.
  bool insecureBindAll = false;
  /// Step calls between a worker and a PS task of one host over the PS
  /// task's local socket (rpc/LocalTransport.h); never with TLS.
  bool localTransport = true;
};

//===--- Security.cpp ---===//

/// The server options of a task that serves others (a PS task, or any
/// task of in-graph replication) whose cluster address is `address`
/// ("host:port"): mutual TLS and the token if configured, and the address
/// to bind: every interface with TLS or --insecure_bind_all, else loopback.
/// `notice` receives the line that says which, to print once listening.
rpc::ServerOptions taskServerOptions(const std::string &address,
                                     const ReliabilityOptions &options,
                                     const std::string &taskLabel,
                                     std::string &notice);

/// Adds the token and TLS credentials to a client's options.
void applySecurity(rpc::ClientOptions &client,
                   const ReliabilityOptions &options);

//===--- Checkpointing.cpp (PS side) ---===//

/// Reads a PS task's values for a warm start (--init_from_checkpoint,
/// WarmStart.h); their step is the global step they start at.
using WarmStartLoader = std::function<ps::ModelState()>;

/// The values a PS task holding `parts` (its variables, whole or a
/// shard's rows: runtime/train/WarmStart.h's variablePartsOf) restores from
/// `checkpoint`: every tensor by name, and each shard `name/part_K` of a
/// variable the checkpoint holds whole (a bundle's partitioned variable) or
/// in another number of shards (a DTF file of another number of PS tasks:
/// joined, in order or interleaved for a partition by id modulo) cut to the
/// shard's rows, so that a checkpoint saved by N PS tasks restores on any
/// number. A dynamic table's shards restore on the same number only. Throws
/// checkpoint::CheckpointError naming `path`.
ps::ModelState
restoredState(checkpoint::Checkpoint checkpoint, const std::string &path,
              const std::vector<checkpoint::VariablePart> &parts);

/// Lets a PS task holding `parts` restore the checkpoints of --logdir (of
/// either format) and, with `warmStart`, the warm-start values as the
/// checkpoint of their step when --logdir has none of that step (a task
/// restarted without --logdir, or before the chief saved).
void configureCheckpointRestore(ps::Options &task,
                                const ReliabilityOptions &options,
                                std::vector<checkpoint::VariablePart> parts,
                                WarmStartLoader warmStart = nullptr);

/// What a PS task holding `parts` writes as its shard of a bundle: every
/// tensor of `snapshot` by name but those in `savedElsewhere` (copies that
/// an earlier PS task saves, as Adam's beta powers), and each shard of a
/// variable partitioned into row ranges (`name/part_K`) as its slice of
/// the whole variable, as TensorFlow saves a partitioned variable. A
/// dynamic table's shard (its rows grow) and a partition by id modulo (its
/// rows interleave) are no slices and keep their own names.
checkpoint::BundleShard
bundleShardOf(ps::Snapshot snapshot,
              const std::vector<checkpoint::VariablePart> &parts,
              const std::set<std::string> &savedElsewhere);

/// Lets a PS task holding `parts` write its own shard of the chief's
/// bundles (--checkpoint_format=tf) into --logdir
/// (ps::Options::writeCheckpointShard, at BundleDirectory's
/// pendingShardPrefix), as TensorFlow's sharded Saver has each PS task
/// write its variables: the values do not cross the network. Without
/// --logdir the task cannot (the chief's save fails naming it).
void configureCheckpointSave(ps::Options &task,
                             const ReliabilityOptions &options,
                             std::vector<checkpoint::VariablePart> parts,
                             std::set<std::string> savedElsewhere);

/// Preloads the newest valid checkpoint of --logdir, a DTF file or a
/// bundle, into a PS task holding `parts` that starts, warning about newer
/// ones that are corrupt or truncated (naming the file); without one, the
/// values of `warmStart` if given. The task serves the values once the
/// chief confirms them. Returns the state of the streamed input's epoch
/// that the checkpoint holds beside the variables (inputStateOf), if any,
/// for the data coordinator.
std::optional<std::string>
restoreAtStart(ps::ParameterServer &task, const ReliabilityOptions &options,
               const std::vector<checkpoint::VariablePart> &parts,
               const std::string &taskLabel, std::ostream &log,
               const WarmStartLoader &warmStart = nullptr);

/// The name under which a checkpoint holds the data coordinator's state
/// of the epoch (which units and records were trained on), as TensorFlow
/// saves an input iterator's state in the checkpoint beside the variables.
inline constexpr const char *kInputStateTensor = "dtf_input_state";

/// `state`'s bytes as a tensor of a checkpoint: i64 [1 + n/8 rounded up],
/// the byte count first (the checkpoint format holds numbers only).
Tensor inputStateTensor(const std::string &state);
/// The bytes of an inputStateTensor(); throws std::invalid_argument for a
/// tensor that is not one.
std::string inputStateOf(const Tensor &tensor);

//===--- Supervisor.cpp (PS side) ---===//

/// --debug_crash_at_step: the PS task kills its process with SIGKILL
/// right after the update that takes its step there, before any client
/// hears of it, so that a test knows the step a crash lost exactly.
void configureCrashAtStep(ps::Options &task,
                          const ReliabilityOptions &options,
                          const std::string &taskLabel);

/// --debug_hold_at_step: right after the update that takes its step
/// there, the PS task holds its lock, so that no call is answered, until
/// --debug_release_file exists: a test acts on a cluster stopped at a known
/// step, however fast it trains.
void configureHoldAtStep(ps::Options &task, const ReliabilityOptions &options,
                         const std::string &taskLabel);

/// Test only: says that `taskLabel` holds at `where` and returns once
/// `releaseFile` exists (--debug_hold_at_step, --debug_hold_after_restore).
void holdUntilReleased(const std::string &taskLabel, const std::string &where,
                       const std::string &releaseFile);

/// A PS task other than 0 registers with the coordinator (on PS task 0)
/// from a background thread, retrying until it is reachable: a restarted
/// PS task rejoins the cluster. Best effort; stops trying when destroyed.
/// `coordinator` should give up connecting within about a second, so that
/// the retries come often.
class PsRegistration {
public:
  PsRegistration(std::unique_ptr<coord::CoordinatorConnection> coordinator,
                 int psIndex, std::ostream &log);
  ~PsRegistration();
  PsRegistration(const PsRegistration &) = delete;
  PsRegistration &operator=(const PsRegistration &) = delete;

private:
  struct State;
  std::unique_ptr<State> state;
};

} // namespace dtf::train

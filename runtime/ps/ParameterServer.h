//===- ParameterServer.h - The state machine of a PS task -------*- C++ -*-===//
//
// What a parameter-server task does, without a transport and without a
// compiler: it holds the task's variables, applies the gradients workers
// push (runtime/ABI.md, "Update semantics on a PS"), counts the global step,
// and restores checkpoints. runtime/rpc/ParameterServerService.h serves it
// over gRPC; the update itself is an UpdateProgram that the compiler-aware
// layer implements (runtime/exec/PsProgram.h runs a PS function `@ps_<N>`
// with the interpreter). So a test drives every rule below in-process, and
// a PS task links neither MLIR nor gRPC into this code.
//
// - async: every push runs the program at once, one push at a time;
// - sync: pushes tagged with the task's current step are accumulated until
//   `replicasToAggregate` have arrived, then the program runs once with all
//   of them (argument r*K+k is the r-th push's gradient of variable k) and
//   the step advances; older pushes are stale and dropped; pushes for later
//   steps wait in a queue until their step comes.
//
// Each applied push's staleness (the step at apply minus the step it was
// computed at) is counted in UpdateStats, so that what asynchrony costs
// is measured where it arises rather than guessed from accuracy.
//
// A push is checked completely (names in gradient order, dtypes, shapes)
// before any of it is applied. All state is guarded by one mutex, held while
// the program runs, so that updates are serialized and a read never sees
// half an update. Failures are dtf::Error with the code a client sees.
//
// Dynamic tables (ProgramSignature::dynamicTables, runtime/ps/DynamicTable.h)
// have no vocabulary: the ids a push or a row pull carries are raw int64
// feature ids (>= 0; -1 pads), also on a shard of a table split over PS
// tasks. Their rows live in the task's DynamicTables, not in the
// VariableStore, whose entries of a dynamic table and its slots are empty
// ([0, ...]) between updates. Before each update (a push in async mode, an
// aggregate in sync mode) the task:
//  1. counts each push's ids (once per push) and creates, table and slots
//     alike, each with its variable's initializer for that id
//     (UpdateProgram::initializeRows), the rows of the ids whose count
//     reaches the table's min_count;
//  2. drops the ids still below min_count from the update, with their
//     gradient rows;
//  3. gathers the rows of the remaining ids, of the table and of each slot,
//     into the store's entries ([m, ...], one row per distinct id) and
//     renumbers the ids 0..m-1, so that the program updates them as the
//     rows of a fixed table;
// and afterwards writes the rows back. A row pull of an id with a row gets
// it; of an id without one, the row its initializer gives that id, so the
// forward pass is the same before and after its creation; nothing is
// created by a read. A snapshot holds a dynamic table as "<name>" [n, ...],
// its rows in creation order, "<name>/ids" i64 [n], and each slot's rows
// in the same order; a restore takes them back (the min-count filter's
// counts are not saved).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"
#include "runtime/ps/DynamicTable.h"

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace dtf::ps {

/// A tensor's dtype and shape.
struct TensorType {
  DType dtype = DType::F32;
  Shape shape;

  bool operator==(const TensorType &other) const {
    return dtype == other.dtype && shape == other.shape;
  }
  bool operator!=(const TensorType &other) const { return !(*this == other); }
  /// Whether a tensor of type `tensor` fits this type, whose dimensions of
  /// -1 (dynamic: the number of ids of a sparse gradient) take any size.
  bool accepts(const TensorType &tensor) const;
  /// Whether the first dimension is dynamic: a dynamic table's rows.
  bool hasDynamicRows() const { return !shape.empty() && shape[0] == -1; }
  /// "f32[784,100]"
  std::string str() const;
};

/// A dynamic table of the task (a dtf.variable with dtf.dynamic_table):
/// rows created for arbitrary int64 ids as pushes bring them.
struct DynamicTableSignature {
  /// The table's variable.
  std::string name;
  /// Its optimizer slots (variables colocated with it, of its `?` type),
  /// whose rows follow the table's: one row per created id.
  std::vector<std::string> slots;
  /// Pushes carrying an id before its row is created (>= 1).
  int64_t minCount = 1;
  /// The variable's type; its first dimension is -1.
  TensorType type;
};

/// What an update program declares, read once when the task starts.
struct ProgramSignature {
  /// The task's device name ("/job:ps/task:0"), for messages.
  std::string taskName;
  /// Every variable of the task, with its type.
  std::map<std::string, TensorType> variables;
  /// The variables whose gradients a push carries, in push order.
  std::vector<std::string> gradientNames;
  /// The variables whose sparse gradients a push carries after those, each
  /// as two tensors: its distinct ids (i64, [n]) and their rows ([n, ...]).
  std::vector<std::string> sparseGradientNames;
  /// The program's arguments: `replicasToAggregate` groups of the tensors
  /// of one push (pushTensorNames()), group after group.
  std::vector<TensorType> argumentTypes;
  /// The dynamic tables among `variables` (whose types, and their slots',
  /// have a first dimension of -1).
  std::vector<DynamicTableSignature> dynamicTables;

  /// The variable each tensor of a push belongs to, in order: the dense
  /// gradients, then each sparse one twice (its ids, its rows).
  std::vector<std::string> pushTensorNames() const;
};

/// Rows of a variable to read: `ids` (1-D, i32 or i64) index its first
/// dimension.
struct RowRequest {
  std::string name;
  Tensor ids;
};

/// What one update runs with besides its gradients.
struct UpdateContext {
  /// The global step the gradients were computed at, where learning-rate
  /// schedules are evaluated.
  int64_t globalStep = 0;
  /// Multiplies the learning rate of the dense updates of optimizers with
  /// momentum (exec::KernelContext says which): 1 / (1 + staleness) of an
  /// async push where Options::divideByStaleness, 1 otherwise.
  double stalenessLearningRateScale = 1.0;
};

/// How a PS task initializes and updates its variables. Called with the
/// state machine's mutex held, one call at a time.
class UpdateProgram {
public:
  virtual ~UpdateProgram() = default;
  virtual const ProgramSignature &signature() const = 0;
  /// Gives each variable of the task that `values` lacks its initial value.
  virtual void initialize(VariableStore &values) = 0;
  /// Applies one update: `arguments` as ProgramSignature::argumentTypes
  /// lays them out, computed by workers at `context.globalStep`. Throws
  /// std::exception on failure (the values may then be partly updated).
  virtual void apply(VariableStore &values, std::vector<Tensor> arguments,
                     const UpdateContext &context) = 0;
  /// The initial rows of `ids` (i64 [n], each >= 0) of `variable`, a
  /// dynamic table or one of its slots: [n, ...], row i a function of the
  /// variable's initializer and ids[i] only (runtime/core/Initializers.h's
  /// row forms), so that an id gets the same row whenever it is created.
  /// Called only for the variables of signature().dynamicTables; a program
  /// without any need not implement it.
  virtual Tensor initializeRows(const std::string &variable,
                                const Tensor &ids) const;
};

/// How a PS task applies gradients: the module's dtf.replication.
struct Replication {
  enum class Mode { Async, Sync };
  Mode mode = Mode::Async;
  /// Pushes per aggregate (sync); 1 in async mode.
  int64_t replicasToAggregate = 1;
  /// Number of workers pushing.
  int64_t totalReplicas = 1;

  static Replication async(int64_t totalReplicas = 1) {
    return {Mode::Async, 1, totalReplicas};
  }
  static Replication sync(int64_t replicasToAggregate, int64_t totalReplicas) {
    return {Mode::Sync, replicasToAggregate, totalReplicas};
  }
};

/// Variable values to restore, by name (may hold other tasks' variables
/// too), and the global step they belong to.
struct ModelState {
  int64_t step = 0;
  VariableStore values;
};

struct UpdateStats;
struct Snapshot;

struct Options {
  /// The variable whose value is the task's step when the task holds it.
  std::string globalStepName = "global_step";
  /// Sync mode: most pushes for future steps held at once; more are refused
  /// with ResourceExhausted (a runaway worker must not exhaust memory).
  size_t maxQueuedPushes = 256;
  /// Longest a waitForStep call blocks, whatever its caller asks.
  std::chrono::milliseconds maxWait{60'000};
  /// Called after each successful update with its start and end and the
  /// step reached, with the mutex held; must not call back into the task.
  std::function<void(int64_t step, std::chrono::steady_clock::time_point begin,
                     std::chrono::steady_clock::time_point end)>
      onApplied;
  /// Called for each push an update applied, before onApplied, with its
  /// staleness (StalenessHistogram, never negative), with the mutex held;
  /// must not call back into the task.
  std::function<void(int64_t staleness)> onPushApplied;
  /// Reads the checkpoint of a global step for a restore from a checkpoint
  /// (e.g. from the task's --logdir); throws std::exception saying why it
  /// cannot. Without it, such a restore fails.
  std::function<ModelState(int64_t checkpointStep)> loadCheckpoint;
  /// Writes `snapshot` as shard `shard` of `numShards` of the save `save`
  /// of a sharded checkpoint (TensorFlow's sharded Saver: each PS task
  /// writes its own variables, the chief merges the shards), where the task
  /// keeps its checkpoints (e.g. its --logdir); throws std::exception saying
  /// why it cannot. Without it, saveCheckpointShard() fails.
  std::function<void(Snapshot snapshot, int shard, int numShards,
                     uint64_t save)>
      writeCheckpointShard;
  /// Async: a push whose staleness exceeds this is dropped, not applied
  /// (UpdateStats::stalePushes, PushOutcome::Stale): bounded staleness,
  /// enforced where the gradient lands. 0: no bound.
  int64_t maxStaleness = 0;
  /// Async: the update of a push of staleness s (the updates applied since
  /// the step it was computed at) runs with 1 / (1 + s) of the learning
  /// rate of its optimizers with momentum (momentum, Adam, RMSProp with
  /// momentum; UpdateContext::stalenessLearningRateScale), so that a stale
  /// gradient moves the model less: the staleness-dependent learning rate
  /// of Zhang et al., "Staleness-aware Async-SGD for Distributed Deep
  /// Learning" (IJCAI 2016), whose staleness counts the push's own update
  /// (theirs is 1 + s). For momentum and Adam this divides the step the
  /// variable takes while the slots take the whole gradient. SGD, Adagrad,
  /// Adadelta, FTRL and the rows of embedding tables keep the whole rate
  /// (bench/findings.md: Adagrad trains worse divided).
  bool divideByStaleness = false;
  /// Bytes the task may still allocate (runtime/core/HostMemory.h); when
  /// set, a task whose variables need more is refused at construction,
  /// before any of them is allocated. nullopt: not checked.
  std::optional<uint64_t> availableMemory;
  /// Rows of a dynamic table (and of each slot) allocated at a time as it
  /// grows (DynamicTable.h): at most this many rows per column unused.
  int64_t dynamicTableChunkRows = 16384;
  /// Called after each successful update, after onApplied, with the step
  /// reached and the task's statistics, with the mutex held; must not call
  /// back into the task.
  std::function<void(int64_t step, const UpdateStats &stats)> onUpdateStats;
};

/// How stale the gradients a task applied were. A push's staleness is the
/// task's step when its gradients were applied minus the step the worker
/// computed them at (the step the push carries): the number of updates
/// that landed between the worker's read of the values and its own. Sync
/// replicas are applied at their own step, so theirs is 0 (late ones are
/// dropped, UpdateStats::stalePushes); async staleness grows with the
/// number of workers, and is what bounded-staleness schemes bound.
///
/// A task without global_step counts its own updates, which can run a
/// push behind the global step the worker read from another task; such a
/// push "from the future" counts as 0.
struct StalenessHistogram {
  /// Staleness 0..kExactBuckets-1 is counted exactly and anything larger
  /// in one last bucket: with a handful of workers async staleness stays
  /// well below it, and a tail beyond matters by its size, for which the
  /// exact sum (mean) and max suffice.
  static constexpr int64_t kExactBuckets = 16;
  /// counts[s] for s < kExactBuckets; counts[kExactBuckets] for the rest.
  std::array<int64_t, kExactBuckets + 1> counts{};
  /// Pushes counted: the sum of counts.
  int64_t pushes = 0;
  /// Sum of the staleness of the pushes counted, for the mean.
  int64_t sum = 0;
  int64_t max = 0;

  /// Counts one push of staleness `staleness` (negative counts as 0).
  void add(int64_t staleness);
  void clear() { *this = StalenessHistogram(); }
  double mean() const { return pushes ? double(sum) / double(pushes) : 0.0; }
  /// The non-empty buckets, then mean and max:
  /// "0:1210 1:785 2:5 >=16:1 (mean 0.41, max 17)"; "none" when empty.
  std::string str() const;
};

/// The state of a dynamic table, for the task's statistics.
struct DynamicTableStats {
  std::string name;
  /// Rows the table holds (restored or created).
  int64_t rows = 0;
  /// Rows created by pushes since the task started (restored ones are not
  /// counted): its rate is the rows created per second.
  int64_t createdRows = 0;
  /// Ids counted by the min-count filter that have no row yet.
  int64_t pendingIds = 0;
  /// Ids dropped from updates because they had no row (below min_count),
  /// one per push carrying one, since the task started.
  int64_t droppedIds = 0;
  int64_t minCount = 1;
};

/// What a PS task did with the pushes it received.
struct UpdateStats {
  /// Runs of the program: one per push in async mode, one per aggregate
  /// in sync mode.
  int64_t appliedUpdates = 0;
  /// Pushes whose gradients were applied (alone or in an aggregate).
  int64_t appliedPushes = 0;
  /// Sync: pushes dropped because their step was already applied.
  int64_t stalePushes = 0;
  /// The staleness of the applied pushes (appliedPushes of them).
  StalenessHistogram staleness;
  /// Async: applied pushes whose step was divided by 1 + their staleness
  /// (Options::divideByStaleness; the pushes of staleness above 0).
  int64_t dividedPushes = 0;
  /// One per dynamic table, in the order of ProgramSignature::dynamicTables.
  std::vector<DynamicTableStats> dynamicTables;
};

/// Where a PS task's values come from, as GetStep reports it.
struct TaskStatus {
  int64_t step = 0;
  /// Serving: the chief initialized or restored the task.
  bool initialized = false;
  int64_t epoch = 0;
  /// Holds values (restored from a checkpoint at start-up) though not
  /// serving yet.
  bool hasValues = false;
  /// The checkpoint step of the values at the last restore; -1 for initial
  /// values or none.
  int64_t restoredFrom = -1;
  bool holdsGlobalStep = false;
};

/// What became of a push.
enum class PushOutcome {
  /// Applied, alone or as the aggregate it completed.
  Applied,
  /// Sync: added to the current step's aggregate, which is not complete.
  Accumulated,
  /// Sync: held for a later step.
  Queued,
  /// Sync: its step was applied already; dropped.
  Stale,
};

struct PushResult {
  PushOutcome outcome;
  /// The task's step after the push.
  int64_t step;
};

/// Where a restore takes the values from.
enum class RestoreSource {
  InitialValues,
  Checkpoint,
  /// The values preload() took at start-up.
  KeepRestored,
};

/// A consistent copy of the task's variables.
struct Snapshot {
  int64_t step = 0;
  int64_t epoch = 0;
  bool holdsGlobalStep = false;
  std::vector<NamedTensor> tensors;
};

class ParameterServer {
public:
  /// Throws std::invalid_argument if the program's arguments do not fit its
  /// gradients and `replication`, or its variables do not fit in
  /// options.availableMemory (naming the largest and its bytes).
  ParameterServer(std::unique_ptr<UpdateProgram> program,
                  Replication replication, Options options = {});

  const std::string &taskName() const { return signature.taskName; }
  const Options &options() const { return options_; }
  const Replication &replication() const { return replication_; }
  /// The variable of each tensor a push carries, in order
  /// (ProgramSignature::pushTensorNames).
  const std::vector<std::string> &pushNames() const { return pushNames_; }
  /// "PS task <name>: ", the start of every message of this task.
  std::string messagePrefix() const { return "PS task " + taskName() + ": "; }

  /// Initializes the variables unless they have values and starts serving;
  /// returns whether it initialized them (false when preloaded or already
  /// serving).
  bool initialize();
  bool isInitialized() const;
  int64_t currentStep() const;
  UpdateStats stats() const;
  TaskStatus status() const;

  /// Takes the task's variables out of `state` (a checkpoint of global step
  /// `checkpointStep`, restored at start-up) without serving them yet: the
  /// chief's initialize() or restore(KeepRestored) starts serving them.
  /// Throws std::invalid_argument naming a variable the state lacks or
  /// holds with another dtype or shape.
  void preload(ModelState state, int64_t checkpointStep);

  /// Replaces the variables (from options().loadCheckpoint, the
  /// initializers, or the preloaded values), sets the step to the restored
  /// global step and the epoch to `epoch`, drops pending sync pushes, ends
  /// waits with Aborted and serves. Returns the new step. Throws
  /// Error(InvalidArgument) for a bad request, Error(FailedPrecondition)
  /// when the values cannot be had.
  int64_t restore(RestoreSource source, int64_t checkpointStep, int64_t epoch);

  /// Throws the Error of a task that cannot answer at all: Unavailable
  /// when shutting down, Internal after a failed update.
  void checkServing() const;

  /// Ends every waitForStep with Unavailable and refuses later calls.
  void beginShutdown();

  /// Calls `read` with the named variables (in order) and the epoch, under
  /// the mutex: the values of one state between updates. Throws Error:
  /// NotFound for a name the task does not hold, InvalidArgument for a
  /// dynamic table or slot (read by rows only), FailedPrecondition before
  /// the task serves.
  void read(const std::vector<std::string> &names,
            const std::function<void(const std::vector<const Tensor *> &values,
                                     int64_t epoch)> &read) const;

  /// The rows of each request's variable at its ids, read under the mutex
  /// (one state between updates), with the task's epoch in `epoch`: a
  /// worker's pull of the rows of an embedding table its batch looks up.
  /// A dynamic table's (or slot's) ids are raw ids: a created id's row, or
  /// the row its initializer gives an id not created (nothing is created);
  /// -1 gives a zero row. Throws Error: NotFound for a name the task does
  /// not hold, InvalidArgument naming the variable and the id for an id
  /// outside its rows (a negative one of a dynamic table),
  /// FailedPrecondition before the task serves.
  std::vector<Tensor> readRows(const std::vector<RowRequest> &requests,
                               int64_t *epoch = nullptr) const;

  /// A copy of every variable (for Snapshot and diagnostics); a dynamic
  /// table as its rows, "<name>/ids" and its slots' rows (see above).
  Snapshot snapshot() const;

  /// Writes the task's variables, copied from one state between updates,
  /// as shard `shard` of `numShards` of the chief's save `save`
  /// (options().writeCheckpointShard); the copy is written outside the
  /// mutex, so that updates go on meanwhile. Returns the step, epoch and
  /// holdsGlobalStep of the values written (no tensors). Throws Error:
  /// InvalidArgument for a shard outside [0, numShards), FailedPrecondition
  /// before the task serves, DataLoss when the task has no writer or the
  /// writer fails (not recoverable: the checkpoint cannot be had).
  Snapshot saveCheckpointShard(int shard, int numShards, uint64_t save) const;

  /// Refuses a push early, before its gradients are received: throws the
  /// Error push() would for a task that does not serve or a push of
  /// another epoch (0: any).
  void checkPushAccepted(int64_t epoch) const;
  /// Checks the header of the index-th gradient of a push as it arrives;
  /// throws std::invalid_argument naming the variable and both types.
  void checkGradient(size_t index, const std::string &name, DType dtype,
                     const Shape &shape) const;
  /// Applies (or, in sync mode, accumulates, queues or drops) one worker's
  /// gradients, in gradient order, computed at `step` from the values of
  /// `epoch` (0: any). Throws Error: InvalidArgument when the gradients do
  /// not fit (nothing applied), Aborted for another epoch,
  /// ResourceExhausted when the sync queue is full, Internal when the
  /// update failed.
  PushResult push(int64_t step, int64_t epoch, std::vector<Tensor> gradients);

  /// Blocks until the step passes `step` and returns it. Throws Error:
  /// Aborted when the model was restored to an epoch other than `epoch`
  /// (0: any), DeadlineExceeded after `timeout` (at most
  /// options().maxWait), Cancelled when `isCancelled` says so (asked every
  /// `pollInterval`), Unavailable when shutting down.
  int64_t waitForStep(
      int64_t step, int64_t epoch, std::chrono::milliseconds timeout,
      const std::function<bool()> &isCancelled,
      std::chrono::milliseconds pollInterval = std::chrono::milliseconds(100));

private:
  /// One worker's gradients, in gradient order.
  using GradientGroup = std::vector<Tensor>;
  /// A dynamic table's rows and what the task did with it.
  struct DynamicState {
    const DynamicTableSignature *signature;
    /// The table, then signature->slots.
    std::vector<std::string> columnNames;
    DynamicTable table;
    int64_t createdRows = 0;
    int64_t droppedIds = 0;
  };
  using DynamicTables = std::map<std::string, DynamicState>;
  /// The rows of a dynamic table one update works on: they sit in the
  /// store's entries while the program runs.
  struct DynamicWorkingSet {
    DynamicState *state;
    /// The local row in the table of the update's i-th row.
    std::vector<int64_t> localRows;
  };
  /// Sync: a push waiting in an aggregate, with the step it was computed
  /// at (for its staleness when the aggregate is applied).
  struct PendingPush {
    int64_t step;
    GradientGroup gradients;
  };

  void checkSignature();
  void checkDynamicTables() const;
  /// Empty dynamic tables, one per ProgramSignature::dynamicTables.
  DynamicTables emptyDynamicTables() const;
  /// The dynamic tables that `values` holds in snapshot form (each table,
  /// its "/ids" and its slots; absent or empty: no rows), taken out of it.
  /// Throws std::invalid_argument naming `source` and the table.
  DynamicTables takeDynamicTables(VariableStore &values,
                                  const std::string &source) const;
  /// Gives each dynamic table and slot its empty entry in `variables`.
  void resetDynamicEntriesLocked();
  /// Steps 1-3 of an update (above) on `arguments`; returns the rows the
  /// store's entries now hold.
  std::vector<DynamicWorkingSet>
  prepareDynamicLocked(std::vector<Tensor> &arguments);
  /// Writes the working sets' rows back and empties the store's entries.
  void finishDynamicLocked(const std::vector<DynamicWorkingSet> &working);
  Tensor readDynamicRowsLocked(const std::string &name,
                               const DynamicState &state, size_t column,
                               const Tensor &ids) const;
  /// The dynamic table `name` is a column of, or null.
  const DynamicState *dynamicStateOf(const std::string &name,
                                     size_t *column = nullptr) const;
  UpdateStats statsLocked() const;
  void checkVariablesFitInMemory() const;
  /// Throws the Error of a call that cannot proceed (shutting down, failed,
  /// not serving when `needInitialized`). Requires the mutex.
  void checkServingLocked(bool needInitialized) const;
  void checkEpochLocked(int64_t pushEpoch) const;

  PushOutcome applySyncLocked(int64_t step, GradientGroup gradients);
  /// Adds a group to the current step's aggregate and applies the aggregate
  /// when it is complete; returns whether it was applied.
  bool accumulateLocked(int64_t pushStep, GradientGroup gradients);
  /// Runs the program with `arguments`, the gradients of pushes computed
  /// at `pushSteps`, and advances the step; `stalenessLearningRateScale` as
  /// UpdateContext's. On an error the task is marked failed (see
  /// `failure`).
  void applyLocked(std::vector<Tensor> arguments,
                   const std::vector<int64_t> &pushSteps,
                   double stalenessLearningRateScale = 1.0);
  int64_t readGlobalStepLocked() const;

  /// The task's own variables out of `state`, checked against their
  /// types; throws std::invalid_argument naming `source`.
  VariableStore ownVariables(ModelState &state,
                             const std::string &source) const;
  /// Installs restored values and serves them. Requires the mutex.
  void installLocked(VariableStore values, DynamicTables tables,
                     int64_t stateStep, int64_t restoredFrom, int64_t newEpoch);
  std::string describeHeldVariables() const;

  std::unique_ptr<UpdateProgram> program;
  const ProgramSignature &signature;
  /// signature.pushTensorNames(), computed once.
  std::vector<std::string> pushNames_;
  Replication replication_;
  Options options_;
  bool holdsGlobalStep = false;

  mutable std::mutex mutex;
  /// Signalled whenever the step advances, the task fails or shuts down.
  std::condition_variable stepChanged;
  VariableStore variables;
  /// By table name.
  DynamicTables dynamicTables;
  bool initialized = false;
  bool shuttingDown = false;
  /// Set by restore(); pushes and waits of another epoch are refused.
  int64_t epoch = 0;
  /// See TaskStatus::restoredFrom.
  int64_t restoredFrom = -1;
  /// Set when an update failed: the variables may be half updated, so the
  /// task serves no more.
  std::optional<std::string> failure;
  int64_t step = 0;
  UpdateStats stats_;
  /// Sync: the pushes accumulated for `step`.
  std::vector<PendingPush> aggregate;
  /// Sync: groups pushed for steps after `step`.
  std::multimap<int64_t, GradientGroup> queued;
};

} // namespace dtf::ps

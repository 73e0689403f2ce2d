//===- Executor.cpp - Concurrent dataflow execution of a function ---------===//

#include "runtime/exec/Executor.h"

#include "runtime/core/Denormals.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>

using namespace mlir;

namespace dtf::exec {

using Clock = std::chrono::steady_clock;

//===----------------------------------------------------------------------===//
// External ops
//===----------------------------------------------------------------------===//

ExternalOpHandler::~ExternalOpHandler() = default;

std::shared_ptr<void> ExternalOpHandler::beginStep(func::FuncOp,
                                                   const FeedMap &) {
  return nullptr;
}

namespace {
class FunctionExternalOpHandler : public ExternalOpHandler {
public:
  explicit FunctionExternalOpHandler(
      std::function<std::vector<Tensor>(const ExternalOpCall &)> compute)
      : compute(std::move(compute)) {}

  void runAsync(const ExternalOpCall &call, ExternalOpDone done) override {
    std::vector<Tensor> results;
    try {
      results = compute(call);
    } catch (...) {
      done(std::current_exception(), {});
      return;
    }
    done(nullptr, std::move(results));
  }

private:
  std::function<std::vector<Tensor>(const ExternalOpCall &)> compute;
};
} // namespace

std::shared_ptr<ExternalOpHandler> makeExternalOpHandler(
    std::function<std::vector<Tensor>(const ExternalOpCall &)> compute) {
  return std::make_shared<FunctionExternalOpHandler>(std::move(compute));
}

//===----------------------------------------------------------------------===//
// The prepared graph
//===----------------------------------------------------------------------===//

namespace {

/// How a node computes its op.
enum class NodeKind {
  /// A CPU kernel from OpKernels.
  Kernel,
  /// An ExternalOpHandler.
  External,
  /// dtf.send: hands its operand to the step's rendezvous.
  Send,
  /// dtf.recv: waits for its result in the step's rendezvous.
  Recv,
  /// func.return: collects the step's results.
  Return,
};

/// Where the tensor of a value lives during a step.
struct ValueRef {
  enum Kind : uint8_t {
    /// Step::slots[index]: a function argument or an op result.
    Slot,
    /// Graph::constants[index], computed once when preparing.
    Constant,
    /// A variable handle: Graph::variables[index].
    Resource,
  };
  Kind kind;
  int32_t index;
};

/// A variable an op reads, or writes (possibly also reading it).
struct VariableAccess {
  int32_t variable;
  bool writes;
};

struct Node {
  Operation *op;
  NodeKind kind;
  const OpKernel *kernel = nullptr;
  ExternalOpHandler *handler = nullptr;
  std::vector<ValueRef> operands;
  /// The op's results are slots firstResult .. firstResult + numResults - 1.
  int32_t firstResult = 0;
  int32_t numResults = 0;
  /// Sorted by variable, one entry per variable.
  std::vector<VariableAccess> accesses;
  /// Send and Recv: "<send device>;<recv device>;<tensor name>".
  std::string rendezvousKey;
};

/// Whether `op` may write the variable `handle` names. Ops that do not
/// declare their effects are assumed to.
bool mayWrite(Operation *op, Value handle) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<SideEffects::EffectInstance<MemoryEffects::Effect>> onHandle;
  effects.getEffectsOnValue(handle, onHandle);
  if (onHandle.empty())
    return true;
  return llvm::any_of(onHandle, [](const auto &effect) {
    return !isa<MemoryEffects::Read>(effect.getEffect());
  });
}

} // namespace

struct Executor::Graph {
  func::FuncOp function;
  /// The ops to run, in program order (constants and variables excluded).
  std::vector<Node> nodes;
  /// The function arguments are slots 0 .. numArguments - 1.
  int32_t numArguments = 0;
  int32_t numSlots = 0;
  /// The node computing each slot; -1 for an argument.
  std::vector<int32_t> slotProducer;
  std::vector<Tensor> constants;
  std::vector<ir::VariableOp> variables;
  /// Every value of the body.
  llvm::DenseMap<Value, ValueRef> refs;
  int32_t returnNode = -1;
  /// Whether any node is a Send or a Recv.
  bool hasTransfers = false;
  /// The handlers of the external nodes, each once, in node order.
  std::vector<ExternalOpHandler *> handlers;

  std::shared_ptr<const Plan> fullPlan;
  std::mutex fetchPlansMutex;
  std::map<std::vector<const void *>, std::shared_ptr<const Plan>> fetchPlans;

  ValueRef refOf(Value value) const {
    auto it = refs.find(value);
    if (it == refs.end())
      throw EvalError(describeOp(function) + " fetches a value that is not "
                                             "in its body");
    return it->second;
  }
};

/// The nodes one kind of step runs (all, or those some fetches need) and the
/// edges between them.
struct Executor::Plan {
  /// Node ids, in program order.
  std::vector<int32_t> nodes;
  /// Indexed by node id; empty for the nodes not in the plan.
  std::vector<std::vector<int32_t>> successors;
  std::vector<int32_t> numPredecessors;
  /// For each slot, how many times a node of the plan or a fetch reads it.
  std::vector<int32_t> uses;
  /// What the step returns: the return node's operands (empty, and the
  /// return node is in the plan) or these values.
  std::vector<ValueRef> fetches;
  bool returnsResults = false;
};

namespace {

/// Builds the plan running `included` (by node id) and fetching `fetches`.
std::shared_ptr<const Executor::Plan>
buildPlan(const Executor::Graph &graph, const std::vector<bool> &included,
          std::vector<ValueRef> fetches, bool returnsResults) {
  auto plan = std::make_shared<Executor::Plan>();
  size_t numNodes = graph.nodes.size();
  plan->successors.resize(numNodes);
  plan->numPredecessors.assign(numNodes, 0);
  plan->uses.assign(graph.numSlots, 0);
  plan->returnsResults = returnsResults;

  // Per variable: the last writer and the readers since then.
  struct VariableState {
    int32_t lastWrite = -1;
    std::vector<int32_t> readsSinceWrite;
  };
  std::vector<VariableState> variables(graph.variables.size());

  std::vector<int32_t> predecessors;
  for (size_t id = 0; id < numNodes; ++id) {
    if (!included[id])
      continue;
    const Node &node = graph.nodes[id];
    plan->nodes.push_back(id);
    predecessors.clear();
    for (ValueRef operand : node.operands) {
      if (operand.kind != ValueRef::Slot)
        continue;
      ++plan->uses[operand.index];
      int32_t producer = graph.slotProducer[operand.index];
      if (producer >= 0)
        predecessors.push_back(producer);
    }
    // Variable accesses keep their program order: reads follow the last
    // write, a write follows the last write and every read since.
    for (VariableAccess access : node.accesses) {
      VariableState &state = variables[access.variable];
      if (state.lastWrite >= 0)
        predecessors.push_back(state.lastWrite);
      if (access.writes) {
        llvm::append_range(predecessors, state.readsSinceWrite);
        state.readsSinceWrite.clear();
        state.lastWrite = id;
      } else {
        state.readsSinceWrite.push_back(id);
      }
    }
    llvm::sort(predecessors);
    predecessors.erase(std::unique(predecessors.begin(), predecessors.end()),
                       predecessors.end());
    plan->numPredecessors[id] = predecessors.size();
    for (int32_t predecessor : predecessors)
      plan->successors[predecessor].push_back(id);
  }
  for (ValueRef fetch : fetches)
    if (fetch.kind == ValueRef::Slot)
      ++plan->uses[fetch.index];
  plan->fetches = std::move(fetches);
  return plan;
}

} // namespace

//===----------------------------------------------------------------------===//
// A step
//===----------------------------------------------------------------------===//

/// The state of one run. Shared by the tasks and callbacks of its ops, so
/// that it outlives the last of them.
class Executor::Step : public std::enable_shared_from_this<Step> {
public:
  Step(const Graph &graph, const Plan &plan, const ExecutorOptions &options,
       ThreadPool *pool, VariableStore &store, const FeedMap &feeds,
       const RunOptions &runOptions)
      : graph(graph), plan(plan), options(options), pool(pool),
        runOptions(runOptions), slots(graph.numSlots),
        pending(new std::atomic<int32_t>[graph.nodes.size()]),
        uses(new std::atomic<int32_t>[graph.numSlots]),
        states(new std::atomic<uint8_t>[graph.nodes.size()]),
        outstanding(plan.nodes.size()),
        context{options.eval,
                feeds,
                [this, &store](Value handle) -> Tensor & {
                  return variable(store, handle);
                },
                runOptions.training,
                runOptions.globalStep,
                runOptions.randomStream,
                runOptions.stalenessLearningRateScale} {
    for (size_t id = 0; id < graph.nodes.size(); ++id) {
      pending[id].store(plan.numPredecessors[id], std::memory_order_relaxed);
      states[id].store(NotStarted, std::memory_order_relaxed);
    }
    for (int32_t slot = 0; slot < graph.numSlots; ++slot)
      uses[slot].store(plan.uses[slot], std::memory_order_relaxed);
    if (options.opObserver)
      asyncStarts.reset(new Clock::time_point[graph.nodes.size()]);
    // Resolve the variables once: ops then reach them without touching the
    // store, which is not thread-safe.
    for (ir::VariableOp variable : graph.variables) {
      auto it = store.find(variable.getName().str());
      variables.push_back(it == store.end() ? nullptr : &it->second);
    }
  }

  /// Binds the function arguments; before run().
  void bindArguments(std::vector<Tensor> arguments);
  /// Lets each handler of the step's external ops begin the step; before
  /// run().
  void beginHandlers(const FeedMap &feeds) {
    for (ExternalOpHandler *handler : graph.handlers)
      if (std::shared_ptr<void> state =
              handler->beginStep(graph.function, feeds)) {
        handlerStates[handler] = state.get();
        ownedStates.push_back(std::move(state));
      }
  }

  /// Runs the step to its end and returns its results.
  std::vector<Tensor> run();

private:
  enum NodeState : uint8_t { NotStarted, Running, Done };

  /// Hands a ready node to the pool, or to the caller's loop when the
  /// step runs in the caller's thread.
  void schedule(int32_t id) {
    if (pool) {
      pool->schedule([self = shared_from_this(), id] { self->process(id); });
      return;
    }
    std::lock_guard<std::mutex> lock(mutex);
    callerReady.push_back(id);
    finishedChanged.notify_all();
  }
  /// Runs the step on the pool and waits for it (and for the deadline).
  void runOnPool();
  /// Runs every op in the calling thread; the asynchronous ones complete
  /// elsewhere and queue their successors for it.
  void runInCaller();
  /// Records the deadline's error and cancels the step.
  void expire();
  /// Runs `id` and, on this thread, the ready nodes it unblocks.
  void process(int32_t id);
  /// Runs a synchronous node or starts an asynchronous one. Returns whether
  /// the node is done.
  bool start(int32_t id);
  /// The end of node `id`: releases its operands and collects the
  /// successors that became ready.
  void complete(int32_t id, llvm::SmallVectorImpl<int32_t> &ready);
  /// One node fewer to wait for.
  void finishOne();
  /// Completion of an asynchronous node, on any thread.
  void completeAsync(int32_t id, std::exception_ptr error,
                     std::vector<Tensor> results);

  const Tensor *operandTensor(ValueRef ref) const;
  /// The tensor of `ref` for a node that keeps it: moved out when the node
  /// is its last reader, copied otherwise.
  Tensor takeOrCopy(ValueRef ref);
  /// The same for a fetch, once every node is done.
  Tensor takeFetch(ValueRef ref);
  Tensor &variable(VariableStore &store, Value handle);
  /// Records the first error and cancels the step.
  void fail(int32_t id, std::exception_ptr error);
  /// The error run() throws at the deadline.
  std::exception_ptr deadlineError() const;

  void runKernel(int32_t id);
  void startExternal(int32_t id);
  void runSend(int32_t id);
  void startRecv(int32_t id);
  void runReturn(int32_t id);

  const Graph &graph;
  const Plan &plan;
  const ExecutorOptions &options;
  /// Null when the step runs in the caller's thread.
  ThreadPool *pool;
  const RunOptions &runOptions;

  std::vector<Tensor> slots;
  std::unique_ptr<std::atomic<int32_t>[]> pending;
  std::unique_ptr<std::atomic<int32_t>[]> uses;
  std::unique_ptr<std::atomic<uint8_t>[]> states;
  std::vector<Tensor *> variables;
  /// When each asynchronous node started, for the op observer; empty
  /// without one.
  std::unique_ptr<Clock::time_point[]> asyncStarts;
  /// What each handler's beginStep returned, held for the step's length.
  llvm::DenseMap<ExternalOpHandler *, void *> handlerStates;
  std::vector<std::shared_ptr<void>> ownedStates;
  std::atomic<size_t> outstanding;
  std::vector<Tensor> results;
  KernelContext context;

  CancellationManager cancellation;
  std::mutex mutex;
  /// Signals `finished` and, in the caller's thread, `callerReady`.
  std::condition_variable finishedChanged;
  bool finished = false;
  /// Ready nodes the caller's thread has yet to run.
  std::deque<int32_t> callerReady;
  std::exception_ptr firstError;
};

void Executor::Step::bindArguments(std::vector<Tensor> arguments) {
  func::FuncOp function = graph.function;
  Block &body = function.getBody().front();
  if (arguments.empty()) {
    for (int32_t slot = 0; slot < graph.numArguments; ++slot)
      if (plan.uses[slot] > 0)
        throw EvalError(describeOp(function) + " argument #" +
                        std::to_string(slot) + " is needed but not given");
    return;
  }
  if (arguments.size() != body.getNumArguments())
    throw EvalError(describeOp(function) + " takes " +
                    std::to_string(body.getNumArguments()) +
                    " arguments, got " + std::to_string(arguments.size()));
  for (auto [argument, tensor] : llvm::zip(body.getArguments(), arguments)) {
    checkTensorType(function,
                    "argument #" + std::to_string(argument.getArgNumber()),
                    argument.getType(), tensor, options.eval);
    slots[argument.getArgNumber()] = std::move(tensor);
  }
}

void Executor::Step::expire() {
  std::exception_ptr error = deadlineError();
  {
    std::lock_guard<std::mutex> guard(mutex);
    if (!firstError)
      firstError = error;
  }
  cancellation.cancel(error);
}

void Executor::Step::runOnPool() {
  for (int32_t id : plan.nodes)
    if (plan.numPredecessors[id] == 0)
      schedule(id);

  std::unique_lock<std::mutex> lock(mutex);
  auto isFinished = [&] { return finished; };
  if (runOptions.deadline &&
      !finishedChanged.wait_until(lock, *runOptions.deadline, isFinished)) {
    lock.unlock();
    expire();
    lock.lock();
  }
  // Wait for every op, even after an error: the ops still running use
  // the step's state and the caller's feeds.
  finishedChanged.wait(lock, isFinished);
}

void Executor::Step::runInCaller() {
  for (int32_t id : plan.nodes)
    if (plan.numPredecessors[id] == 0)
      callerReady.push_back(id);

  bool expired = false;
  auto deadlinePassed = [&] {
    return runOptions.deadline && !expired &&
           Clock::now() >= *runOptions.deadline;
  };
  std::unique_lock<std::mutex> lock(mutex);
  auto canProceed = [&] { return finished || !callerReady.empty(); };
  while (true) {
    if (deadlinePassed()) {
      expired = true;
      lock.unlock();
      expire(); // The ops not started are skipped from now on.
      lock.lock();
    }
    if (!callerReady.empty()) {
      int32_t id = callerReady.front();
      callerReady.pop_front();
      lock.unlock();
      process(id);
      lock.lock();
      continue;
    }
    // Nothing to run: every op is done, or some wait for a transfer.
    if (finished)
      return;
    if (runOptions.deadline && !expired)
      finishedChanged.wait_until(lock, *runOptions.deadline, canProceed);
    else
      finishedChanged.wait(lock, canProceed);
  }
}

std::vector<Tensor> Executor::Step::run() {
  if (plan.nodes.empty()) {
    finished = true;
  } else {
    // Link to the caller's cancellation only now: cancelling before the
    // first op started is then seen by every op.
    CancellationLink link(runOptions.cancellation, cancellation);
    if (pool)
      runOnPool();
    else
      runInCaller();
  }

  if (!firstError && cancellation.isCancelled())
    firstError = cancellation.reason();
  if (firstError) {
    // Throw a new exception rather than the recorded one, which other
    // threads (the callers of cancellation callbacks) may still hold.
    std::string message = errorMessageOf(firstError);
    ErrorCode code = errorCodeOf(firstError);
    try {
      std::rethrow_exception(firstError);
    } catch (const EvalError &) {
      throw EvalError(code, message);
    } catch (...) {
      throw EvalError(code, "step " + std::to_string(runOptions.stepId) +
                                " was cancelled: " + message);
    }
  }

  if (plan.returnsResults)
    return std::move(results);
  std::vector<Tensor> fetched;
  for (ValueRef fetch : plan.fetches)
    fetched.push_back(takeFetch(fetch));
  return fetched;
}

void Executor::Step::process(int32_t id) {
  llvm::SmallVector<int32_t, 8> ready;
  while (id >= 0) {
    ready.clear();
    if (!start(id))
      return; // Asynchronous: completeAsync() takes over.
    complete(id, ready);
    // Keep one ready node for this thread, hand the others to the pool.
    id = ready.empty() ? -1 : ready.front();
    for (size_t i = 1; i < ready.size(); ++i)
      schedule(ready[i]);
    finishOne();
  }
}

bool Executor::Step::start(int32_t id) {
  // After an error, the ops not started yet are skipped.
  if (cancellation.isCancelled())
    return true;
  const Node &node = graph.nodes[id];
  states[id].store(Running, std::memory_order_relaxed);
  switch (node.kind) {
  case NodeKind::Kernel:
    runKernel(id);
    return true;
  case NodeKind::Return:
    runReturn(id);
    return true;
  case NodeKind::Send:
    runSend(id);
    return true;
  case NodeKind::External:
    startExternal(id);
    return false;
  case NodeKind::Recv:
    startRecv(id);
    return false;
  }
  return true;
}

void Executor::Step::complete(int32_t id,
                              llvm::SmallVectorImpl<int32_t> &ready) {
  states[id].store(Done, std::memory_order_relaxed);
  // Free each operand after its last use.
  for (ValueRef operand : graph.nodes[id].operands)
    if (operand.kind == ValueRef::Slot &&
        uses[operand.index].fetch_sub(1, std::memory_order_acq_rel) == 1)
      slots[operand.index] = Tensor();
  for (int32_t successor : plan.successors[id])
    if (pending[successor].fetch_sub(1, std::memory_order_acq_rel) == 1)
      ready.push_back(successor);
}

void Executor::Step::finishOne() {
  if (outstanding.fetch_sub(1, std::memory_order_acq_rel) != 1)
    return;
  // Notify under the lock: run() may destroy the step once it sees
  // `finished`.
  std::lock_guard<std::mutex> lock(mutex);
  finished = true;
  finishedChanged.notify_all();
}

void Executor::Step::completeAsync(int32_t id, std::exception_ptr error,
                                   std::vector<Tensor> produced) {
  const Node &node = graph.nodes[id];
  if (!error) {
    try {
      if (produced.size() != static_cast<size_t>(node.numResults))
        throw EvalError(ErrorCode::Internal,
                        describeOp(node.op) + " produced " +
                            std::to_string(produced.size()) +
                            " results, expected " +
                            std::to_string(node.numResults));
      for (int32_t i = 0; i < node.numResults; ++i) {
        checkTensorType(node.op, "result #" + std::to_string(i),
                        node.op->getResult(i).getType(), produced[i],
                        options.eval);
        slots[node.firstResult + i] = std::move(produced[i]);
      }
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (error)
    fail(id, error);
  if (options.opObserver)
    options.opObserver(node.op, asyncStarts[id], Clock::now());
  llvm::SmallVector<int32_t, 8> ready;
  complete(id, ready);
  for (int32_t successor : ready)
    schedule(successor);
  finishOne();
}

const Tensor *Executor::Step::operandTensor(ValueRef ref) const {
  switch (ref.kind) {
  case ValueRef::Slot:
    return &slots[ref.index];
  case ValueRef::Constant:
    return &graph.constants[ref.index];
  case ValueRef::Resource:
    return nullptr;
  }
  return nullptr;
}

Tensor Executor::Step::takeOrCopy(ValueRef ref) {
  // Only this consumer still reads the slot (the others have completed and
  // counted their use down): take the tensor. complete() counts this use.
  if (ref.kind == ValueRef::Slot &&
      uses[ref.index].load(std::memory_order_acquire) == 1)
    return std::move(slots[ref.index]);
  return operandTensor(ref)->clone();
}

Tensor Executor::Step::takeFetch(ValueRef ref) {
  if (ref.kind == ValueRef::Slot &&
      uses[ref.index].fetch_sub(1, std::memory_order_acq_rel) == 1)
    return std::move(slots[ref.index]);
  return operandTensor(ref)->clone();
}

Tensor &Executor::Step::variable(VariableStore &store, Value handle) {
  ValueRef ref = graph.refOf(handle);
  if (ref.kind == ValueRef::Resource && variables[ref.index])
    return *variables[ref.index];
  // Not initialized when the step started: report it as the Interpreter
  // does.
  return lookupVariable(store, handle);
}

void Executor::Step::fail(int32_t id, std::exception_ptr error) {
  Operation *op = graph.nodes[id].op;
  try {
    std::rethrow_exception(error);
  } catch (const EvalError &) {
    // Names an op already.
  } catch (const std::exception &caught) {
    error = std::make_exception_ptr(EvalError(
        errorCodeOf(caught), describeOp(op) + " " + caught.what()));
  } catch (...) {
    error = std::make_exception_ptr(EvalError(
        ErrorCode::Unknown, describeOp(op) + " failed with an unknown "
                                             "exception"));
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!firstError)
      firstError = error;
  }
  cancellation.cancel(error);
}

std::exception_ptr Executor::Step::deadlineError() const {
  std::string message =
      "step " + std::to_string(runOptions.stepId) + " missed its deadline";
  const char *separator = "; still running: ";
  int listed = 0;
  for (int32_t id : plan.nodes) {
    if (states[id].load(std::memory_order_relaxed) != Running)
      continue;
    if (listed++ == 4) {
      message += ", ...";
      break;
    }
    message += separator + describeOp(graph.nodes[id].op);
    separator = ", ";
  }
  return std::make_exception_ptr(
      EvalError(ErrorCode::DeadlineExceeded, message));
}

void Executor::Step::runKernel(int32_t id) {
  const Node &node = graph.nodes[id];
  llvm::SmallVector<const Tensor *, 4> operands;
  for (ValueRef operand : node.operands)
    operands.push_back(operandTensor(operand));
  MutableArrayRef<Tensor> produced(slots.data() + node.firstResult,
                                   node.numResults);
  try {
    if (options.beforeOp)
      options.beforeOp(node.op);
    Clock::time_point begin =
        options.opObserver ? Clock::now() : Clock::time_point();
    evaluateOp(*node.kernel, KernelCall(node.op, operands, produced, context));
    if (options.opObserver)
      options.opObserver(node.op, begin, Clock::now());
  } catch (...) {
    fail(id, std::current_exception());
  }
}

void Executor::Step::runReturn(int32_t id) {
  for (ValueRef operand : graph.nodes[id].operands)
    results.push_back(takeOrCopy(operand));
}

void Executor::Step::runSend(int32_t id) {
  const Node &node = graph.nodes[id];
  try {
    if (options.beforeOp)
      options.beforeOp(node.op);
    Clock::time_point begin =
        options.opObserver ? Clock::now() : Clock::time_point();
    runOptions.rendezvous->send(node.rendezvousKey, runOptions.stepId,
                                takeOrCopy(node.operands[0]));
    if (options.opObserver)
      options.opObserver(node.op, begin, Clock::now());
  } catch (...) {
    fail(id, std::current_exception());
  }
}

void Executor::Step::startRecv(int32_t id) {
  const Node &node = graph.nodes[id];
  // The callback may run at once (the tensor was sent already), or later on
  // the sender's thread or a transport's.
  RecvCallback done = [self = shared_from_this(), id](std::exception_ptr error,
                                                      Tensor tensor) {
    std::vector<Tensor> results;
    if (!error)
      results.push_back(std::move(tensor));
    self->completeAsync(id, std::move(error), std::move(results));
  };
  try {
    if (options.beforeOp)
      options.beforeOp(node.op);
  } catch (...) {
    done(std::current_exception(), Tensor());
    return;
  }
  if (asyncStarts)
    asyncStarts[id] = Clock::now();
  runOptions.rendezvous->recvAsync(
      node.rendezvousKey, runOptions.stepId,
      RecvArgs{&cancellation, runOptions.deadline}, std::move(done));
}

void Executor::Step::startExternal(int32_t id) {
  const Node &node = graph.nodes[id];
  ExternalOpCall call{node.op,
                      {},
                      runOptions.stepId,
                      &cancellation,
                      runOptions.deadline,
                      handlerStates.lookup(node.handler)};
  for (ValueRef operand : node.operands)
    call.operands.push_back(operandTensor(operand));
  // `done` may be called once only; a handler calling it twice is ignored
  // rather than corrupting the step.
  auto called = std::make_shared<std::atomic<bool>>(false);
  ExternalOpDone done = [self = shared_from_this(), id,
                         called](std::exception_ptr error,
                                 std::vector<Tensor> produced) {
    if (!called->exchange(true))
      self->completeAsync(id, std::move(error), std::move(produced));
  };
  try {
    if (options.beforeOp)
      options.beforeOp(node.op);
    if (asyncStarts)
      asyncStarts[id] = Clock::now();
    node.handler->runAsync(call, done);
  } catch (...) {
    done(std::current_exception(), {});
  }
}

//===----------------------------------------------------------------------===//
// Executor
//===----------------------------------------------------------------------===//

Executor::Executor(func::FuncOp function, VariableStore &variables,
                   ExecutorOptions options)
    : graph_(std::make_unique<Graph>()), variables_(variables),
      options_(std::move(options)) {
  if (!options_.threadPool && !options_.runInCallerThread)
    options_.threadPool = std::make_shared<ThreadPool>(options_.numThreads);

  Graph &graph = *graph_;
  graph.function = function;
  if (!function.getBody().hasOneBlock())
    throw EvalError(describeOp(function) + " must have a single block");
  Block &body = function.getBody().front();

  graph.numArguments = body.getNumArguments();
  for (BlockArgument argument : body.getArguments()) {
    if (isResource(argument))
      throw EvalError(describeOp(function) + " argument #" +
                      std::to_string(argument.getArgNumber()) +
                      " is a resource; variables must be dtf.variable ops");
    graph.refs[argument] = {ValueRef::Slot, graph.numSlots++};
    graph.slotProducer.push_back(-1);
  }

  llvm::StringMap<int32_t> variableIndex;
  FeedMap noFeeds;
  for (Operation &op : body) {
    if (op.getNumRegions() != 0)
      throw EvalError(describeOp(&op) + " has regions, which the executor "
                                        "does not run");
    // Variables and constants are no nodes: a handle names a variable, a
    // constant is computed once here.
    if (auto variable = dyn_cast<ir::VariableOp>(op)) {
      auto [it, inserted] = variableIndex.try_emplace(
          variable.getName(), static_cast<int32_t>(graph.variables.size()));
      if (inserted)
        graph.variables.push_back(variable);
      graph.refs[variable.getHandle()] = {ValueRef::Resource, it->second};
      continue;
    }
    if (isa<ir::ConstantOp>(op) && !options_.externalOps.count(
                                       op.getName().getStringRef().str())) {
      KernelContext context{options_.eval, noFeeds, nullptr};
      graph.refs[op.getResult(0)] = {
          ValueRef::Constant, static_cast<int32_t>(graph.constants.size())};
      graph.constants.push_back(
          std::move(::dtf::exec::evaluateOp(&op, {}, context).front()));
      continue;
    }

    Node node;
    node.op = &op;
    auto handler = options_.externalOps.find(op.getName().getStringRef().str());
    if (handler != options_.externalOps.end()) {
      node.kind = NodeKind::External;
      node.handler = handler->second.get();
      if (!llvm::is_contained(graph.handlers, node.handler))
        graph.handlers.push_back(node.handler);
    } else if (auto send = dyn_cast<ir::SendOp>(op)) {
      node.kind = NodeKind::Send;
      node.rendezvousKey = send.getRendezvousKey();
      graph.hasTransfers = true;
    } else if (auto recv = dyn_cast<ir::RecvOp>(op)) {
      node.kind = NodeKind::Recv;
      node.rendezvousKey = recv.getRendezvousKey();
      graph.hasTransfers = true;
    } else if (isa<func::ReturnOp>(op)) {
      node.kind = NodeKind::Return;
      graph.returnNode = graph.nodes.size();
    } else if ((node.kernel = findKernel(&op))) {
      node.kind = NodeKind::Kernel;
    } else {
      throw noKernelError(&op);
    }

    for (Value operand : op.getOperands()) {
      ValueRef ref = graph.refOf(operand);
      node.operands.push_back(ref);
      if (ref.kind == ValueRef::Resource)
        node.accesses.push_back({ref.index, mayWrite(&op, operand)});
    }
    // One access per variable; a write wins over a read.
    llvm::sort(node.accesses, [](VariableAccess a, VariableAccess b) {
      return a.variable < b.variable || (a.variable == b.variable && a.writes);
    });
    node.accesses.erase(
        std::unique(node.accesses.begin(), node.accesses.end(),
                    [](VariableAccess a, VariableAccess b) {
                      return a.variable == b.variable;
                    }),
        node.accesses.end());

    int32_t id = graph.nodes.size();
    node.firstResult = graph.numSlots;
    node.numResults = op.getNumResults();
    for (Value result : op.getResults()) {
      if (isResource(result))
        throw EvalError(describeOp(&op) + " produces a resource; only "
                                          "dtf.variable may");
      graph.refs[result] = {ValueRef::Slot, graph.numSlots++};
      graph.slotProducer.push_back(id);
    }
    graph.nodes.push_back(std::move(node));
  }

  std::vector<bool> all(graph.nodes.size(), true);
  graph.fullPlan = buildPlan(graph, all, {}, /*returnsResults=*/true);
}

Executor::~Executor() = default;

func::FuncOp Executor::function() const { return graph_->function; }

ThreadPool *Executor::threadPool() const { return options_.threadPool.get(); }

std::shared_ptr<const Executor::Plan>
Executor::planFor(ArrayRef<Value> fetches) {
  Graph &graph = *graph_;
  std::vector<const void *> key;
  for (Value fetch : fetches)
    key.push_back(fetch.getAsOpaquePointer());
  std::lock_guard<std::mutex> lock(graph.fetchPlansMutex);
  auto cached = graph.fetchPlans.find(key);
  if (cached != graph.fetchPlans.end())
    return cached->second;

  // As Session.run does, run only the ops the fetches depend on.
  std::vector<ValueRef> refs;
  std::vector<bool> needed(graph.nodes.size(), false);
  std::vector<int32_t> worklist;
  auto need = [&](ValueRef ref) {
    if (ref.kind != ValueRef::Slot)
      return;
    int32_t producer = graph.slotProducer[ref.index];
    if (producer >= 0 && !needed[producer]) {
      needed[producer] = true;
      worklist.push_back(producer);
    }
  };
  for (Value fetch : fetches) {
    ValueRef ref = graph.refOf(fetch);
    if (ref.kind == ValueRef::Resource)
      throw EvalError(describeOp(graph.function) +
                      " cannot fetch a variable handle; fetch a dtf.read");
    refs.push_back(ref);
    need(ref);
  }
  while (!worklist.empty()) {
    int32_t id = worklist.back();
    worklist.pop_back();
    for (ValueRef operand : graph.nodes[id].operands)
      need(operand);
  }
  auto plan = buildPlan(graph, needed, std::move(refs),
                        /*returnsResults=*/false);
  // Steps fetch a few fixed sets of values; bound the cache all the same.
  if (graph.fetchPlans.size() >= 64)
    graph.fetchPlans.clear();
  graph.fetchPlans.emplace(std::move(key), plan);
  return plan;
}

std::vector<Tensor> Executor::execute(const Plan &plan, const FeedMap &feeds,
                                      std::vector<Tensor> arguments,
                                      const RunOptions &options) {
  // A step run in the caller's thread computes there; the pool's workers
  // flush denormals already (Denormals.h).
  ScopedFlushDenormals flushDenormals;
  if (options_.threadPool && options_.threadPool->currentWorkerIndex() >= 0)
    throw EvalError(ErrorCode::FailedPrecondition,
                    describeOp(graph_->function) +
                        ": a step cannot be run from a thread of its own "
                        "pool (it would wait for itself)");
  if (graph_->hasTransfers && !options.rendezvous)
    throw EvalError(ErrorCode::FailedPrecondition,
                    describeOp(graph_->function) +
                        " sends or receives tensors: its steps need a "
                        "rendezvous (RunOptions::rendezvous)");
  auto step = std::make_shared<Step>(*graph_, plan, options_,
                                     options_.threadPool.get(), variables_, feeds,
                                     options);
  step->bindArguments(std::move(arguments));
  step->beginHandlers(feeds);
  return step->run();
}

std::vector<Tensor> Executor::run(const FeedMap &feeds,
                                  std::vector<Tensor> arguments,
                                  const RunOptions &options) {
  if (arguments.size() != static_cast<size_t>(graph_->numArguments))
    throw EvalError(describeOp(graph_->function) + " takes " +
                    std::to_string(graph_->numArguments) +
                    " arguments, got " + std::to_string(arguments.size()));
  return execute(*graph_->fullPlan, feeds, std::move(arguments), options);
}

std::vector<Tensor> Executor::runAndFetch(const FeedMap &feeds,
                                          ArrayRef<Value> fetches,
                                          std::vector<Tensor> arguments,
                                          const RunOptions &options) {
  std::shared_ptr<const Plan> plan = planFor(fetches);
  return execute(*plan, feeds, std::move(arguments), options);
}

} // namespace dtf::exec

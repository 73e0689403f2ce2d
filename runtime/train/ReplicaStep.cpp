//===- ReplicaStep.cpp - A between-graph worker's step --------------------===//

#include "runtime/train/ReplicaStep.h"

#include "runtime/train/Telemetry.h"

#include "runtime/core/Sparse.h"

#include <algorithm>

namespace dtf::train {

std::vector<std::string> ReplicaLayout::PushGroup::tensorNames() const {
  std::vector<std::string> tensors = names;
  for (const std::string &name : sparseNames) {
    tensors.push_back(name);
    tensors.push_back(name);
  }
  return tensors;
}

size_t ReplicaLayout::pushOffset(size_t group) const {
  size_t offset = numResults;
  for (size_t i = 0; i < group; ++i)
    offset += 1 + pushes[i].numTensors();
  return offset;
}

ReplicaStep::ReplicaStep(ReplicaLayout layout,
                         std::vector<ps::PsConnection *> ps,
                         WorkerStep &compute, Supervisor &supervisor,
                         WorkerTelemetry &telemetry, ReplicaOptions options)
    : layout(std::move(layout)), ps(std::move(ps)), compute(compute),
      supervisor(supervisor), telemetry(telemetry), options(options),
      pullGroupOf(this->layout.pushes.size(), -1),
      nextValues(this->layout.pulls.size()),
      inFlight(this->layout.pushes.size()) {
  // Async with pushPull: a push to a PS task also brings back the values of
  // the task's variables.
  if (!options.sync && (options.pushPull || options.overlapPull))
    for (size_t i = 0; i < this->layout.pushes.size(); ++i)
      for (size_t g = 0; g < this->layout.pulls.size(); ++g)
        if (this->layout.pulls[g].psTask == this->layout.pushes[i].psTask)
          pullGroupOf[i] = static_cast<int>(g);
}

void ReplicaStep::pushed(PushedBatch &batch, const ps::PushResult &result,
                         int64_t stepTag) {
  if (result.outcome != ps::PushOutcome::Stale) {
    batch.applied = true;
    // Sync: the aggregate of step `stepTag`, whenever it completes, makes
    // global step stepTag + 1. Async: the push was applied as the task's
    // step became result.step.
    batch.modelStep =
        std::max(batch.modelStep, options.sync ? stepTag + 1 : result.step);
  }
  if (batch.outstanding > 0 && --batch.outstanding == 0)
    settle(batch);
}

void ReplicaStep::settle(PushedBatch &batch) {
  if (batch.id != 0 && input) {
    if (batch.applied)
      input->batchTrained(batch.id, batch.modelStep);
    else
      input->batchLost(batch.id,
                       /*inDoubt=*/batch.sent && batch.outstanding > 0);
  }
  batch = PushedBatch{};
}

void ReplicaStep::dropPending() {
  for (auto &call : inFlight)
    if (call.valid())
      try {
        ps::PushPullResult result = call.get();
        pushed(overlapped, result.push, -1);
      } catch (const Error &) {
        // The failure that ended the step, or one of its kind.
      }
  // Whatever is still unsettled had a push fail or never pushed.
  settle(overlapped);
  settle(current);
  for (auto &values : nextValues)
    values.reset();
}

void ReplicaStep::pullAll(FeedMap &feeds) {
  supervisor.beginStep(); // one epoch per step
  // The pulls of several PS tasks fly together; a single one runs on this
  // thread (no hand-off).
  size_t missing = 0;
  for (const auto &values : nextValues)
    missing += !values;
  std::vector<std::future<ps::PulledValues>> pulls(layout.pulls.size());
  if (missing > 1)
    for (size_t g = 0; g < layout.pulls.size(); ++g)
      if (!nextValues[g])
        pulls[g] =
            ps[layout.pulls[g].psTask]->startPull(layout.pulls[g].variables);
  for (size_t g = 0; g < layout.pulls.size(); ++g) {
    const ReplicaLayout::PullGroup &group = layout.pulls[g];
    ps::PulledValues pulled;
    if (nextValues[g]) {
      pulled = std::move(*nextValues[g]);
      nextValues[g].reset();
    } else {
      auto span = telemetry.rpc("pull ps" + std::to_string(group.psTask),
                                {{"variables", group.variables.size()}});
      if (pulls[g].valid())
        pulled = pulls[g].get();
      else
        pulled.values = ps[group.psTask]->pull(group.variables, &pulled.epoch);
    }
    supervisor.sawEpoch(pulled.epoch, ps[group.psTask]->peer());
    for (size_t i = 0; i < pulled.values.size(); ++i)
      feeds[group.feedNames[i]] = std::move(pulled.values[i]);
  }
}

std::optional<StepRecord>
ReplicaStep::run(int64_t localStep, data::InputSource &input, int64_t batch) {
  FeedMap feeds;
  pullAll(feeds);
  this->input = &input;
  // The input's last pass is over (--num_epochs): training ends here.
  if (!data::nextBatchUnlessEnded(input, batch, feeds))
    return std::nullopt;
  current = PushedBatch{};
  current.id = input.lastBatchId();
  input.batchPushing(current.id);
  std::vector<Tensor> fetched;
  {
    auto span = telemetry.compute();
    fetched = compute.train(feeds);
  }
  // The account of what is trained on must know of this batch before any
  // of its gradients can reach a PS task.
  input.awaitAccounted();
  int64_t stepTag = -1;
  bool trained = false;
  for (size_t i = 0; i < layout.pushes.size(); ++i) {
    const ReplicaLayout::PushGroup &group = layout.pushes[i];
    ps::PsConnection &task = *ps[group.psTask];
    size_t offset = layout.pushOffset(i);
    stepTag = static_cast<int64_t>(fetched[offset].scalarAsDouble());
    if (inFlight[i].valid()) {
      // The previous step's push-pull: its values are the next step's.
      auto span = telemetry.rpc("push-pull ps" + std::to_string(group.psTask) +
                                " (wait)");
      ps::PushPullResult previous = inFlight[i].get();
      pushed(overlapped, previous.push, stepTag);
      trained = trained || previous.push.step >= options.trainSteps;
      nextValues[pullGroupOf[i]] = std::move(previous.pulled);
    }
    if (stepTag >= options.trainSteps || trained) {
      // Not pushed: the batch's examples were not trained on.
      settle(current);
      return std::nullopt;
    }
    if (i == 0)
      current.outstanding = layout.pushes.size();
    // A sparse gradient goes as its distinct ids, each with the sum of its
    // rows: the bytes of a push follow the batch's distinct ids, never the
    // table's rows.
    for (size_t k = 0; k < group.sparseNames.size(); ++k) {
      size_t ids = offset + 1 + group.names.size() + 2 * k;
      if (k < group.sparseShards.size() && group.sparseShards[k])
        fetched[ids] = kernels::shard_local_ids(
            fetched[ids], group.sparseShards[k]->partition,
            group.sparseShards[k]->shard);
      kernels::SparseRows distinct =
          kernels::sum_duplicate_rows(fetched[ids], fetched[ids + 1]);
      fetched[ids] = std::move(distinct.ids);
      fetched[ids + 1] = std::move(distinct.rows);
    }
    std::vector<std::string> names = group.tensorNames();
    auto span =
        telemetry.rpc((pullGroupOf[i] >= 0 ? "push-pull ps" : "push ps") +
                          std::to_string(group.psTask),
                      {{"step", stepTag}, {"gradients", names.size()}});
    if (pullGroupOf[i] < 0) {
      std::vector<TensorRef> gradients;
      for (size_t k = 0; k < names.size(); ++k)
        gradients.push_back({names[k], &fetched[offset + 1 + k]});
      current.sent = true;
      pushed(current, task.push(stepTag, gradients, supervisor.epoch()),
             stepTag);
      continue;
    }
    std::vector<NamedTensor> gradients;
    for (size_t k = 0; k < names.size(); ++k)
      gradients.push_back({names[k], std::move(fetched[offset + 1 + k])});
    const std::vector<std::string> &pullNames =
        layout.pulls[pullGroupOf[i]].variables;
    current.sent = true;
    if (options.overlapPull && localStep > 0) {
      inFlight[i] = task.startPushPull(stepTag, std::move(gradients),
                                       supervisor.epoch(), pullNames);
    } else {
      // Without overlap, and on the first step, which has no values ahead
      // yet: the step waits for its own.
      ps::PushPullResult result = task.pushPull(stepTag, std::move(gradients),
                                                supervisor.epoch(), pullNames);
      pushed(current, result.push, stepTag);
      nextValues[pullGroupOf[i]] = std::move(result.pulled);
    }
  }
  // This step's push-pulls fly on (overlap): their outcome settles the
  // batch in the next step, or in dropPending().
  if (current.outstanding > 0) {
    overlapped = current;
    current = PushedBatch{};
  }
  if (options.sync)
    for (const ReplicaLayout::PushGroup &group : layout.pushes) {
      auto span =
          telemetry.rpc("wait for step ps" + std::to_string(group.psTask),
                        {{"step", stepTag}});
      ps[group.psTask]->waitForStep(stepTag, options.syncWait,
                                    supervisor.epoch());
    }
  StepRecord record;
  record.globalStep = stepTag + 1;
  record.numResults = layout.numResults;
  lastFetched = std::move(fetched);
  record.fetched = &lastFetched;
  return record;
}

ps::TransferStats ReplicaStep::transferStats() const {
  ps::TransferStats total;
  for (ps::PsConnection *task : ps)
    total += task->transferStats();
  return total;
}

int64_t trainReplica(ReplicaStep &replica, Supervisor &supervisor,
                     data::InputSource &input, int64_t batch,
                     std::vector<TrainingHook *> hooks,
                     std::function<bool()> stopRequested) {
  TrainingLoop loop;
  loop.step = [&](int64_t localStep) {
    return replica.run(localStep, input, batch);
  };
  // [reliability] A failed call ends the step; with --recovery_timeout_ms
  // the supervisor waits for the cluster to recover and the step starts
  // over from a fresh pull.
  loop.recover = [&](const Error &error) {
    replica.dropPending();
    return supervisor.recover(error);
  };
  loop.stopRequested = [&] {
    return supervisor.stopRequested() || (stopRequested && stopRequested());
  };
  StepDelayHook delay(supervisor.reliability().debugStepDelayMs); // test only
  loop.hooks = std::move(hooks);
  loop.hooks.push_back(&supervisor); // [reliability] checkpoint
  loop.hooks.push_back(&delay);
  int64_t localSteps = loop.run();
  // The last push-pulls still fly; validation pulls the final values afresh.
  replica.dropPending();
  return localSteps;
}

} // namespace dtf::train

//===- Checkpointing.cpp - Checkpoints of dtf-run: PS restore, chief save -===//

#include "runtime/train/Supervisor.h"

#include "runtime/checkpoint/BundleDirectory.h"
#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/ps/ParameterServer.h"

#include <chrono>
#include <cstring>
#include <future>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <unistd.h>

namespace dtf::train {

ps::ModelState
restoredState(checkpoint::Checkpoint checkpoint, const std::string &path,
              const std::vector<checkpoint::VariablePart> &parts) {
  ps::ModelState state{checkpoint.step, std::move(checkpoint.tensors)};
  // How many shards of each variable the checkpoint holds, counted before
  // the model's shards are added; and the whole values of variables held in
  // other shards than the model's (a DTF file of another number of PS
  // tasks), joined once.
  std::map<std::string, int64_t> savedShards;
  std::map<std::string, Tensor> joined;
  for (const checkpoint::VariablePart &part : parts) {
    // A dynamic table's shards (rows keyed by the ids each created) restore
    // on the same shards only.
    if (part.rows.whole() || part.variableType.shape.at(0) < 0)
      continue;
    auto saved = savedShards.find(part.variable);
    if (saved == savedShards.end())
      saved =
          savedShards
              .emplace(part.variable,
                       checkpoint::shardCountOf(state.values, part.variable))
              .first;
    if (saved->second == part.shards)
      continue;
    const Tensor *whole = nullptr;
    if (auto found = state.values.find(part.variable);
        found != state.values.end()) {
      whole = &found->second;
    } else if (auto done = joined.find(part.variable); done != joined.end()) {
      whole = &done->second;
    } else if (std::optional<Tensor> value = checkpoint::joinShards(
                   state.values, part.variable,
                   /*modulo=*/part.rows.stride > 1, path)) {
      whole = &joined.emplace(part.variable, std::move(*value)).first->second;
    }
    if (!whole)
      continue;
    try {
      state.values.insert_or_assign(part.name,
                                    checkpoint::selectRows(*whole, part.rows));
    } catch (const std::invalid_argument &error) {
      throw checkpoint::CheckpointError(
          "checkpoint " + path + ": the rows of shard '" + part.name +
          "' of tensor '" + part.variable + "': " + error.what());
    }
  }
  return state;
}

void configureCheckpointRestore(ps::Options &task,
                                const ReliabilityOptions &options,
                                std::vector<checkpoint::VariablePart> parts,
                                WarmStartLoader warmStart) {
  if (options.logdir.empty() && !warmStart)
    return;
  task.loadCheckpoint = [logdir = options.logdir,
                         format = options.checkpointFormat,
                         parts = std::move(parts),
                         warmStart = std::move(warmStart)](int64_t step) {
    // The job's own checkpoint of the step, once the chief saved it, holds
    // the warm-start values too.
    if (!warmStart ||
        (!logdir.empty() && checkpoint::holdsCheckpoint(logdir, step))) {
      checkpoint::LoadedCheckpoint loaded =
          checkpoint::readCheckpointAt(logdir, step, format);
      return restoredState(std::move(loaded.checkpoint), loaded.path, parts);
    }
    ps::ModelState state = warmStart();
    if (state.step != step)
      throw std::runtime_error(
          "no checkpoint of step " + std::to_string(step) +
          (logdir.empty() ? std::string() : " in " + logdir) +
          ", and the warm start (--init_from_checkpoint) is of step " +
          std::to_string(state.step));
    return state;
  };
}

checkpoint::BundleShard
bundleShardOf(ps::Snapshot snapshot,
              const std::vector<checkpoint::VariablePart> &parts,
              const std::set<std::string> &savedElsewhere) {
  std::map<std::string, const checkpoint::VariablePart *> slices;
  for (const checkpoint::VariablePart &part : parts) {
    const Shape &shape = part.variableType.shape;
    if (!part.rows.whole() && part.rows.stride == 1 && !shape.empty() &&
        shape[0] >= 0)
      slices.emplace(part.name, &part);
  }
  checkpoint::BundleShard shard;
  for (NamedTensor &tensor : snapshot.tensors) {
    if (savedElsewhere.count(tensor.name))
      continue;
    auto slice = slices.find(tensor.name);
    if (slice == slices.end()) {
      shard.tensors.emplace(tensor.name, std::move(tensor.tensor));
      continue;
    }
    const checkpoint::VariablePart &part = *slice->second;
    const Shape &shape = part.variableType.shape;
    std::vector<std::pair<int64_t, int64_t>> extents = {
        {part.rows.first, part.rows.count}};
    for (size_t dim = 1; dim < shape.size(); ++dim)
      extents.emplace_back(0, shape[dim]);
    shard.slices.push_back(
        {part.variable, shape,
         checkpoint::TensorSlice::fromStartsAndLengths(extents),
         std::move(tensor.tensor)});
  }
  return shard;
}

void configureCheckpointSave(ps::Options &task,
                             const ReliabilityOptions &options,
                             std::vector<checkpoint::VariablePart> parts,
                             std::set<std::string> savedElsewhere) {
  if (options.logdir.empty())
    return;
  task.writeCheckpointShard =
      [bundles = checkpoint::BundleDirectory(options.logdir),
       parts = std::move(parts), savedElsewhere = std::move(savedElsewhere)](
          ps::Snapshot snapshot, int shard, int numShards, uint64_t save) {
        checkpoint::writeBundleShard(
            bundles.pendingShardPrefix(save, shard, numShards),
            bundleShardOf(std::move(snapshot), parts, savedElsewhere));
      };
}

Tensor inputStateTensor(const std::string &state) {
  auto words = static_cast<int64_t>((state.size() + 7) / 8);
  Tensor tensor(DType::I64, {1 + words});
  int64_t *data = tensor.data<int64_t>();
  std::memset(data, 0, static_cast<size_t>(1 + words) * sizeof(int64_t));
  data[0] = static_cast<int64_t>(state.size());
  std::memcpy(data + 1, state.data(), state.size());
  return tensor;
}

std::string inputStateOf(const Tensor &tensor) {
  if (tensor.dtype() != DType::I64 || tensor.shape().size() != 1 ||
      tensor.shape()[0] < 1)
    throw std::invalid_argument(std::string(kInputStateTensor) +
                                ": not an i64 vector");
  const int64_t *data = tensor.data<int64_t>();
  auto capacity = static_cast<uint64_t>(tensor.shape()[0] - 1) * 8;
  if (data[0] < 0 || static_cast<uint64_t>(data[0]) > capacity)
    throw std::invalid_argument(
        std::string(kInputStateTensor) + ": holds " + std::to_string(data[0]) +
        " bytes in a tensor of " + std::to_string(capacity));
  return std::string(reinterpret_cast<const char *>(data + 1),
                     static_cast<size_t>(data[0]));
}

/// Preloads the warm-start values into `task` (the loader says what it
/// read), to serve once the chief confirms them.
static void warmStartAtStart(ps::ParameterServer &task,
                             const WarmStartLoader &warmStart) {
  ps::ModelState state = warmStart();
  int64_t step = state.step;
  try {
    task.preload(std::move(state), step);
  } catch (const std::invalid_argument &error) {
    throw std::runtime_error("--init_from_checkpoint: " +
                             std::string(error.what()));
  }
}

std::optional<std::string>
restoreAtStart(ps::ParameterServer &task, const ReliabilityOptions &options,
               const std::vector<checkpoint::VariablePart> &parts,
               const std::string &taskLabel, std::ostream &log,
               const WarmStartLoader &warmStart) {
  if (options.logdir.empty()) {
    if (warmStart)
      warmStartAtStart(task, warmStart);
    return std::nullopt;
  }
  auto loaded = checkpoint::newestCheckpoint(
      options.logdir, options.checkpointFormat,
      [&](const std::string &warning) {
        log << taskLabel << ": warning: " << warning << std::endl;
      });
  if (!loaded) {
    if (warmStart) {
      log << taskLabel << ": no valid checkpoint in " << options.logdir
          << "; warm start from " << options.initFromCheckpoint << std::endl;
      warmStartAtStart(task, warmStart);
      return std::nullopt;
    }
    log << taskLabel << ": no valid checkpoint in " << options.logdir
        << "; the chief initializes the variables" << std::endl;
    return std::nullopt;
  }
  if (!options.initFromCheckpoint.empty())
    log << taskLabel << ": --init_from_checkpoint ignored: the job restores "
        << "its own checkpoint" << std::endl;
  std::optional<std::string> inputState;
  auto state = loaded->checkpoint.tensors.find(kInputStateTensor);
  if (state != loaded->checkpoint.tensors.end()) {
    try {
      inputState = inputStateOf(state->second);
    } catch (const std::invalid_argument &error) {
      throw std::runtime_error(loaded->path + ": " + error.what());
    }
    loaded->checkpoint.tensors.erase(state);
  }
  size_t count = loaded->checkpoint.tensors.size();
  int64_t step = loaded->checkpoint.step;
  try {
    task.preload(
        restoredState(std::move(loaded->checkpoint), loaded->path, parts),
        step);
  } catch (const std::invalid_argument &error) {
    throw std::runtime_error(loaded->path + ": " + error.what());
  }
  log << taskLabel << ": restored its variables from " << loaded->path
      << " (global step " << step << ", " << count << " tensors in the "
      << (loaded->format == checkpoint::CheckpointFormat::TensorFlow ? "bundle"
                                                                     : "file")
      << ")" << std::endl;
  return inputState;
}

//===----------------------------------------------------------------------===//
// The chief's checkpoints
//===----------------------------------------------------------------------===//

CheckpointSaver::CheckpointSaver(const std::vector<ps::PsConnection *> &ps,
                                 const ReliabilityOptions &options,
                                 bool syncMode)
    : ps(ps), options(options), syncMode(syncMode), lastSaveTime(Clock::now()) {
  // Random, so that the saves of a restarted chief have other numbers than
  // those its previous life may have left a PS task writing.
  std::random_device entropy;
  nextSave = (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
}

void CheckpointSaver::removeTemporaries() {
  if (!enabled())
    return;
  checkpoint::CheckpointDirectory(options.logdir).removeTemporaries();
  checkpoint::BundleDirectory(options.logdir).removeLeftovers();
}

void CheckpointSaver::startedAt(int64_t globalStep) {
  lastSavedStep = globalStep;
  lastSaveTime = Clock::now();
}

bool CheckpointSaver::due(int64_t globalStep) const {
  if (!enabled())
    return false;
  if (options.saveCheckpointSteps > 0 &&
      globalStep - lastSavedStep >= options.saveCheckpointSteps)
    return true;
  return options.saveCheckpointSecs > 0 &&
         std::chrono::duration<double>(Clock::now() - lastSaveTime).count() >=
             options.saveCheckpointSecs;
}

bool CheckpointSaver::savedAt(int64_t step) const {
  // A checkpoint of the other format (a job that switched formats) does
  // not count: the job's checkpoints are to be readable as it asks.
  std::string path =
      options.checkpointFormat == checkpoint::CheckpointFormat::TensorFlow
          ? checkpoint::bundleIndexPath(
                checkpoint::BundleDirectory(options.logdir).prefixFor(step))
          : checkpoint::CheckpointDirectory(options.logdir).pathFor(step);
  return ::access(path.c_str(), F_OK) == 0;
}

std::string CheckpointSaver::saveFile(int64_t step,
                                      std::vector<ps::Snapshot> snapshots,
                                      std::optional<Tensor> inputState) {
  checkpoint::Checkpoint state;
  state.step = step;
  // Variables copied to several tasks (Adam's beta powers) are equal
  // copies; the first task's is saved.
  for (ps::Snapshot &snapshot : snapshots)
    for (NamedTensor &tensor : snapshot.tensors)
      state.tensors.emplace(tensor.name, std::move(tensor.tensor));
  if (inputState)
    state.tensors.emplace(kInputStateTensor, std::move(*inputState));
  return checkpoint::CheckpointDirectory(options.logdir)
      .save(state, options.keepCheckpoints);
}

std::vector<ps::Snapshot> CheckpointSaver::writeShards(int numShards,
                                                       uint64_t save) {
  checkpoint::BundleDirectory(options.logdir).removeLeftovers();
  std::vector<std::future<ps::Snapshot>> writing;
  for (size_t task = 0; task < ps.size(); ++task)
    writing.push_back(
        std::async(std::launch::async, [this, task, numShards, save] {
          return ps[task]->saveCheckpointShard(static_cast<int>(task),
                                               numShards, save);
        }));
  std::vector<ps::Snapshot> written;
  for (std::future<ps::Snapshot> &shard : writing) {
    try {
      written.push_back(shard.get());
    } catch (const Error &error) {
      // A task that cannot write its shard is a checkpoint that cannot be
      // written, as a file the chief cannot write: no recovery helps.
      if (error.code() == ErrorCode::DataLoss)
        throw checkpoint::CheckpointError(error.what());
      throw;
    }
  }
  return written;
}

std::string CheckpointSaver::commitBundle(int64_t step, uint64_t save,
                                          int numShards,
                                          std::optional<Tensor> inputState) {
  checkpoint::BundleDirectory bundles(options.logdir);
  // The data coordinator's state is the chief's own shard, the last.
  if (inputState) {
    checkpoint::BundleShard shard;
    shard.tensors.emplace(kInputStateTensor, std::move(*inputState));
    checkpoint::writeBundleShard(
        bundles.pendingShardPrefix(save, numShards - 1, numShards), shard);
  }
  return bundles.commit(step, save, numShards, options.keepCheckpoints);
}

std::optional<int64_t> CheckpointSaver::save(bool unlessSaved) {
  if (!enabled())
    return std::nullopt;
  // A bundle is written where its variables are: each PS task writes its
  // shard and answers with the step of the values it wrote; a DTF file is
  // the chief's, from the tasks' snapshots.
  bool bundle =
      options.checkpointFormat == checkpoint::CheckpointFormat::TensorFlow;
  int numShards = static_cast<int>(ps.size()) + (dataCoordinator ? 1 : 0);
  // In sync mode every task must be at the same step, else the checkpoint
  // mixes two steps and the tasks' step counts disagree after a restore.
  // Between the chief's steps they usually are; retry briefly otherwise.
  constexpr int kAttempts = 20;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    std::vector<ps::Snapshot> snapshots;
    uint64_t pending = 0;
    if (bundle) {
      pending = nextSave++;
      snapshots = writeShards(numShards, pending);
    } else {
      for (ps::PsConnection *task : ps)
        snapshots.push_back(task->snapshot());
    }
    bool sameEpoch = true, sameStep = true;
    for (const ps::Snapshot &snapshot : snapshots) {
      sameEpoch &= snapshot.epoch == snapshots.front().epoch;
      sameStep &= snapshot.step == snapshots.front().step;
    }
    if (!sameEpoch)
      throw Error(ErrorCode::Aborted,
                  "checkpoint: the PS tasks are in different epochs (the "
                  "model is being restored)");
    if (syncMode && !sameStep) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    int64_t step = snapshots.front().step;
    for (const ps::Snapshot &snapshot : snapshots)
      if (snapshot.holdsGlobalStep)
        step = snapshot.step;
    if (unlessSaved && savedAt(step)) {
      if (bundle)
        checkpoint::BundleDirectory(options.logdir).removeLeftovers();
      lastSavedStep = step;
      return step;
    }
    // Taken after the variables: what was trained on by the checkpoint's
    // step, as the coordinator knows it (later records are left out).
    std::optional<Tensor> inputState;
    if (dataCoordinator)
      inputState = inputStateTensor(dataCoordinator->dataState(step));
    std::string path =
        bundle ? commitBundle(step, pending, numShards, std::move(inputState))
               : saveFile(step, std::move(snapshots), std::move(inputState));
    std::cout << "Worker 0: saved checkpoint " << path << " (global step "
              << step << ")" << std::endl;
    lastSavedStep = step;
    lastSaveTime = Clock::now();
    return step;
  }
  if (bundle)
    checkpoint::BundleDirectory(options.logdir).removeLeftovers();
  std::cout << "Worker 0: warning: no checkpoint this time: the PS tasks "
               "kept being at different steps"
            << std::endl;
  return std::nullopt;
}

} // namespace dtf::train

//===- Checkpointing.cpp - Checkpoints of dtf-run: PS restore, chief save -===//

#include "runtime/train/Supervisor.h"

#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/ps/ParameterServer.h"

#include <chrono>
#include <cstring>
#include <iostream>
#include <thread>
#include <unistd.h>

namespace dtf::train {

void configureCheckpointRestore(ps::Options &task,
                                const ReliabilityOptions &options,
                                WarmStartLoader warmStart) {
  if (options.logdir.empty() && !warmStart)
    return;
  std::optional<checkpoint::CheckpointDirectory> directory;
  if (!options.logdir.empty())
    directory.emplace(options.logdir);
  task.loadCheckpoint = [directory,
                         warmStart = std::move(warmStart)](int64_t step) {
    // The job's own checkpoint of the step, once the chief saved it, holds
    // the warm-start values too.
    if (!warmStart ||
        (directory && ::access(directory->pathFor(step).c_str(), F_OK) == 0)) {
      checkpoint::Checkpoint loaded =
          checkpoint::readCheckpointFile(directory->pathFor(step));
      return ps::ModelState{loaded.step, std::move(loaded.tensors)};
    }
    ps::ModelState state = warmStart();
    if (state.step != step)
      throw std::runtime_error(
          "no checkpoint of step " + std::to_string(step) +
          (directory ? " in " + directory->directory() : std::string()) +
          ", and the warm start (--init_from_checkpoint) is of step " +
          std::to_string(state.step));
    return state;
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

std::optional<std::string> restoreAtStart(ps::ParameterServer &task,
                                          const ReliabilityOptions &options,
                                          const std::string &taskLabel,
                                          std::ostream &log,
                                          const WarmStartLoader &warmStart) {
  if (options.logdir.empty()) {
    if (warmStart)
      warmStartAtStart(task, warmStart);
    return std::nullopt;
  }
  checkpoint::CheckpointDirectory directory(options.logdir);
  auto loaded = directory.loadNewest([&](const std::string &warning) {
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
    task.preload({step, std::move(loaded->checkpoint.tensors)}, step);
  } catch (const std::invalid_argument &error) {
    throw std::runtime_error(loaded->path + ": " + error.what());
  }
  log << taskLabel << ": restored its variables from " << loaded->path
      << " (global step " << step << ", " << count
      << " tensors in the file)" << std::endl;
  return inputState;
}

//===----------------------------------------------------------------------===//
// The chief's checkpoints
//===----------------------------------------------------------------------===//

CheckpointSaver::CheckpointSaver(const std::vector<ps::PsConnection *> &ps,
                                 const ReliabilityOptions &options,
                                 bool syncMode)
    : ps(ps), options(options), syncMode(syncMode), lastSaveTime(Clock::now()) {
}

void CheckpointSaver::removeTemporaries() {
  if (enabled())
    checkpoint::CheckpointDirectory(options.logdir).removeTemporaries();
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

std::optional<int64_t> CheckpointSaver::save(bool unlessSaved) {
  if (!enabled())
    return std::nullopt;
  // In sync mode every task must be at the same step, else the checkpoint
  // mixes two steps and the tasks' step counts disagree after a restore.
  // Between the chief's steps they usually are; retry briefly otherwise.
  constexpr int kAttempts = 20;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    std::vector<ps::Snapshot> snapshots;
    for (ps::PsConnection *task : ps)
      snapshots.push_back(task->snapshot());
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
    checkpoint::Checkpoint state;
    state.step = snapshots.front().step;
    for (const ps::Snapshot &snapshot : snapshots)
      if (snapshot.holdsGlobalStep)
        state.step = snapshot.step;
    checkpoint::CheckpointDirectory directory(options.logdir);
    if (unlessSaved) {
      for (const auto &entry : directory.list())
        if (entry.step == state.step) {
          lastSavedStep = state.step;
          return state.step;
        }
    }
    // Variables copied to several tasks (Adam's beta powers) are equal
    // copies; the first task's is saved.
    for (ps::Snapshot &snapshot : snapshots)
      for (NamedTensor &tensor : snapshot.tensors)
        state.tensors.emplace(tensor.name, std::move(tensor.tensor));
    // Taken after the variables: what was trained on by the checkpoint's
    // step, as the coordinator knows it (later records are left out).
    if (dataCoordinator)
      state.tensors.emplace(
          kInputStateTensor,
          inputStateTensor(dataCoordinator->dataState(state.step)));
    std::string path = directory.save(state, options.keepCheckpoints);
    std::cout << "Worker 0: saved checkpoint " << path << " (global step "
              << state.step << ")" << std::endl;
    lastSavedStep = state.step;
    lastSaveTime = Clock::now();
    return state.step;
  }
  std::cout << "Worker 0: warning: no checkpoint this time: the PS tasks "
               "kept being at different steps"
            << std::endl;
  return std::nullopt;
}

} // namespace dtf::train

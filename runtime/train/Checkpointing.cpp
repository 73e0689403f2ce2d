//===- Checkpointing.cpp - Checkpoints of dtf-run: PS restore, chief save -===//

#include "runtime/train/Supervisor.h"

#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/ps/ParameterServer.h"

#include <chrono>
#include <iostream>
#include <thread>

namespace dtf::train {

void configureCheckpointRestore(ps::Options &task,
                                const ReliabilityOptions &options) {
  if (options.logdir.empty())
    return;
  checkpoint::CheckpointDirectory directory(options.logdir);
  task.loadCheckpoint = [directory](int64_t step) {
    checkpoint::Checkpoint loaded =
        checkpoint::readCheckpointFile(directory.pathFor(step));
    return ps::ModelState{loaded.step, std::move(loaded.tensors)};
  };
}

void restoreAtStart(ps::ParameterServer &task,
                    const ReliabilityOptions &options,
                    const std::string &taskLabel, std::ostream &log) {
  if (options.logdir.empty())
    return;
  checkpoint::CheckpointDirectory directory(options.logdir);
  auto loaded = directory.loadNewest([&](const std::string &warning) {
    log << taskLabel << ": warning: " << warning << std::endl;
  });
  if (!loaded) {
    log << taskLabel << ": no valid checkpoint in " << options.logdir
        << "; the chief initializes the variables" << std::endl;
    return;
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

//===- BundleDirectory.cpp - A --logdir of TensorFlow bundles -------------===//

#include "runtime/checkpoint/BundleDirectory.h"

#include "runtime/checkpoint/Files.h"

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace dtf::checkpoint {

namespace {

constexpr std::string_view kPrefix = "model.ckpt-";
constexpr std::string_view kIndexSuffix = ".index";
constexpr std::string_view kDataInfix = ".data-";
constexpr std::string_view kShardsSuffix = "_temp";
constexpr std::string_view kTemporaryMarker = ".tempstate";
/// The start of the name of a save in progress, whose step is not known
/// yet: "pending-<save>".
constexpr std::string_view kPending = "pending-";

/// The step of a name "model.ckpt-<step><rest>", and <rest>.
std::optional<std::pair<int64_t, std::string_view>>
parseName(std::string_view name) {
  if (name.substr(0, kPrefix.size()) != kPrefix)
    return std::nullopt;
  size_t end = kPrefix.size();
  int64_t step = 0;
  while (end < name.size() && name[end] >= '0' && name[end] <= '9') {
    if (step > (INT64_MAX - 9) / 10)
      return std::nullopt;
    step = step * 10 + (name[end] - '0');
    ++end;
  }
  if (end == kPrefix.size())
    return std::nullopt;
  return std::make_pair(step, name.substr(end));
}

/// The names in `directory`; empty if it does not exist.
std::vector<std::string> namesIn(const std::string &directory) {
  std::vector<std::string> names;
  DIR *dir = ::opendir(directory.c_str());
  if (!dir) {
    if (errno == ENOENT)
      return names;
    throw CheckpointError("cannot list checkpoint directory " + directory +
                          ": " + files::errnoText());
  }
  while (dirent *entry = ::readdir(dir))
    names.emplace_back(entry->d_name);
  ::closedir(dir);
  return names;
}

bool exists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

/// The name of `path` within its directory.
std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Deletes the bundle at `prefix` in `directory`: its index first, so that
/// no index ever names a missing data file, then its data files.
void removeBundle(const std::string &directory, const std::string &prefix) {
  files::removeIfPresent(bundleIndexPath(prefix));
  std::string data = baseName(prefix) + std::string(kDataInfix);
  for (const std::string &name : namesIn(directory))
    if (name.compare(0, data.size(), data) == 0)
      files::removeIfPresent(directory + "/" + name);
}

/// The warning for a checkpoint skipped because of `error`.
std::string skipped(const CheckpointError &error, bool olderRemain) {
  return std::string(error.what()) +
         (olderRemain ? "; trying the previous one" : "; no older checkpoint");
}

} // namespace

std::optional<CheckpointFormat> parseCheckpointFormat(std::string_view value) {
  if (value == "tf")
    return CheckpointFormat::TensorFlow;
  if (value == "dtf")
    return CheckpointFormat::Dtf;
  return std::nullopt;
}

BundleDirectory::BundleDirectory(std::string directory)
    : directory_(std::move(directory)) {
  while (directory_.size() > 1 && directory_.back() == '/')
    directory_.pop_back();
}

std::string BundleDirectory::prefixFor(int64_t step) const {
  return directory_ + "/" + std::string(kPrefix) + std::to_string(step);
}

std::vector<BundleDirectory::Entry> BundleDirectory::list() const {
  std::vector<Entry> entries;
  for (const std::string &name : namesIn(directory_)) {
    auto parsed = parseName(name);
    if (parsed && parsed->second == kIndexSuffix)
      entries.push_back({parsed->first, prefixFor(parsed->first)});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.step < b.step; });
  return entries;
}

void BundleDirectory::removeLeftovers() const {
  std::vector<std::string> names = namesIn(directory_);
  for (const std::string &name : names) {
    std::string path = directory_ + "/" + name;
    bool ours = name.compare(0, kPrefix.size(), kPrefix) == 0 ||
                name.compare(0, 10, "checkpoint") == 0;
    if (ours && name.find(kTemporaryMarker) != std::string::npos) {
      files::removeIfPresent(path);
      continue;
    }
    std::string pending = std::string(kPrefix) + std::string(kPending);
    if (name.compare(0, pending.size(), pending) == 0 &&
        name.size() > kShardsSuffix.size() &&
        name.compare(name.size() - kShardsSuffix.size(), kShardsSuffix.size(),
                     kShardsSuffix) == 0) {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
      continue;
    }
    auto parsed = parseName(name);
    if (parsed && parsed->second.substr(0, kDataInfix.size()) == kDataInfix &&
        !exists(bundleIndexPath(prefixFor(parsed->first))))
      files::removeIfPresent(path);
  }
}

void writeBundleShard(const std::string &prefix, const BundleShard &shard) {
  BundleWriter writer(prefix);
  for (const auto &[name, value] : shard.tensors)
    writer.add(name, value);
  for (const BundleShard::Slice &slice : shard.slices)
    writer.addSlice(slice.variable, slice.variableShape, slice.slice,
                    slice.value);
  writer.finish();
}

std::string BundleDirectory::pendingShardPrefix(uint64_t save, int shard,
                                                int numShards) const {
  return shardedSavePrefix(directory_ + "/" + std::string(kPrefix) +
                               std::string(kPending) + std::to_string(save),
                           shard, numShards);
}

std::string BundleDirectory::save(int64_t step,
                                  const std::vector<BundleShard> &shards,
                                  int keep) {
  if (shards.empty())
    throw CheckpointError("checkpoint " + prefixFor(step) + ": no shards");
  files::createDirectories(directory_);
  removeLeftovers();
  int numShards = static_cast<int>(shards.size());
  // One writer, after removeLeftovers: any number names the save.
  constexpr uint64_t kSave = 0;
  for (int shard = 0; shard < numShards; ++shard)
    writeBundleShard(pendingShardPrefix(kSave, shard, numShards),
                     shards[shard]);
  return commit(step, kSave, numShards, keep);
}

std::string BundleDirectory::commit(int64_t step, uint64_t save, int numShards,
                                    int keep) {
  std::string prefix = prefixFor(step);
  if (numShards < 1)
    throw CheckpointError("checkpoint " + prefix + ": no shards");
  std::vector<std::string> written;
  for (int shard = 0; shard < numShards; ++shard)
    written.push_back(pendingShardPrefix(save, shard, numShards));
  removeBundle(directory_, prefix);
  mergeBundles(written, prefix);

  std::vector<Entry> entries = list();
  std::vector<Entry> deleted;
  CheckpointState state;
  state.modelCheckpointPath = baseName(prefix);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (keep > 0 && i + static_cast<size_t>(keep) < entries.size() &&
        entries[i].prefix != prefix)
      deleted.push_back(entries[i]);
    else
      state.allModelCheckpointPaths.push_back(baseName(entries[i].prefix));
  }
  // The `checkpoint` file names no bundle that is about to go.
  writeCheckpointState(directory_, state);
  for (const Entry &entry : deleted)
    removeBundle(directory_, entry.prefix);
  return prefix;
}

Checkpoint readBundleCheckpoint(const std::string &prefix, int64_t step) {
  BundleReader reader(prefix);
  Checkpoint checkpoint;
  checkpoint.step = step;
  checkpoint.tensors = reader.readAll();
  return checkpoint;
}

std::optional<BundleDirectory::Loaded> BundleDirectory::loadNewest(
    const std::function<void(const std::string &)> &warn) const {
  std::vector<Entry> entries = list();
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    try {
      return Loaded{it->prefix, readBundleCheckpoint(it->prefix, it->step)};
    } catch (const CheckpointError &error) {
      if (warn)
        warn(skipped(error, std::next(it) != entries.rend()));
    }
  }
  return std::nullopt;
}

namespace {

/// A checkpoint of a directory, by name.
struct Candidate {
  int64_t step;
  CheckpointFormat format;
  std::string path;
};

/// Every checkpoint of `directory` in either format, newest first; of one
/// step, the `preferred` format's first.
std::vector<Candidate> candidatesIn(const std::string &directory,
                                    CheckpointFormat preferred) {
  std::vector<Candidate> candidates;
  for (const BundleDirectory::Entry &entry : BundleDirectory(directory).list())
    candidates.push_back(
        {entry.step, CheckpointFormat::TensorFlow, entry.prefix});
  for (const CheckpointDirectory::Entry &entry :
       CheckpointDirectory(directory).list())
    candidates.push_back({entry.step, CheckpointFormat::Dtf, entry.path});
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const Candidate &a, const Candidate &b) {
                     if (a.step != b.step)
                       return a.step > b.step;
                     return a.format == preferred && b.format != preferred;
                   });
  return candidates;
}

LoadedCheckpoint read(const Candidate &candidate) {
  if (candidate.format == CheckpointFormat::TensorFlow)
    return {candidate.format, candidate.path,
            readBundleCheckpoint(candidate.path, candidate.step)};
  Checkpoint checkpoint = readCheckpointFile(candidate.path);
  if (checkpoint.step != candidate.step)
    throw CheckpointError(
        "checkpoint " + candidate.path + " is invalid: it holds step " +
        std::to_string(checkpoint.step) + ", not the step of its name");
  return {candidate.format, candidate.path, std::move(checkpoint)};
}

} // namespace

std::optional<LoadedCheckpoint>
newestCheckpoint(const std::string &directory, CheckpointFormat preferred,
                 const std::function<void(const std::string &)> &warn) {
  std::vector<Candidate> candidates = candidatesIn(directory, preferred);
  for (size_t i = 0; i < candidates.size(); ++i) {
    try {
      return read(candidates[i]);
    } catch (const CheckpointError &error) {
      if (warn)
        warn(skipped(error, i + 1 < candidates.size()));
    }
  }
  return std::nullopt;
}

LoadedCheckpoint readCheckpointAt(const std::string &directory, int64_t step,
                                  CheckpointFormat preferred) {
  for (const Candidate &candidate : candidatesIn(directory, preferred))
    if (candidate.step == step)
      return read(candidate);
  throw CheckpointError(
      "no checkpoint of step " + std::to_string(step) + " in " + directory +
      " (neither " +
      bundleIndexPath(BundleDirectory(directory).prefixFor(step)) + " nor " +
      CheckpointDirectory(directory).pathFor(step) + ")");
}

bool holdsCheckpoint(const std::string &directory,
                     std::optional<int64_t> step) {
  for (const Candidate &candidate :
       candidatesIn(directory, CheckpointFormat::TensorFlow))
    if (!step || candidate.step == *step)
      return true;
  return false;
}

} // namespace dtf::checkpoint

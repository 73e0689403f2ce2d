//===- WarmStart.cpp - Initializing variables from another checkpoint -----===//

#include "runtime/checkpoint/WarmStart.h"

#include "runtime/checkpoint/TensorBundle.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <sys/stat.h>

namespace dtf::checkpoint {

//===----------------------------------------------------------------------===//
// The assignment map
//===----------------------------------------------------------------------===//

std::vector<Assignment> parseAssignmentMap(const std::string &spec) {
  if (spec.empty())
    return {{"/", "/"}};
  std::vector<Assignment> assignments;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string::npos)
      end = spec.size();
    std::string entry = spec.substr(start, end - start);
    size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size() ||
        entry.find(':', colon + 1) != std::string::npos)
      throw std::invalid_argument(
          "--init_assignment_map: entry '" + entry +
          "' is not CHECKPOINT_NAME:GRAPH_NAME (e.g. 'old_scope/:new_scope/', "
          "'w:w2', '/:/')");
    Assignment assignment{entry.substr(0, colon), entry.substr(colon + 1)};
    for (const Assignment &earlier : assignments)
      if (earlier.checkpointName == assignment.checkpointName)
        throw std::invalid_argument("--init_assignment_map: '" +
                                    assignment.checkpointName +
                                    "' is mapped twice");
    assignments.push_back(std::move(assignment));
    start = end + 1;
  }
  return assignments;
}

static std::string typeString(const TensorType &type) {
  return std::string(dtypeName(type.dtype)) + shapeToString(type.shape);
}

/// Whether a tensor of type `held` can initialize a variable of type
/// `variable`, whose dimensions of -1 take any size.
static bool compatible(const TensorType &variable, const TensorType &held) {
  if (variable.dtype != held.dtype ||
      variable.shape.size() != held.shape.size())
    return false;
  for (size_t i = 0; i < held.shape.size(); ++i)
    if (variable.shape[i] != -1 && variable.shape[i] != held.shape[i])
      return false;
  return true;
}

std::map<std::string, std::string>
matchAssignmentMap(const std::vector<Assignment> &assignments,
                   const std::map<std::string, TensorType> &graph,
                   const std::map<std::string, TensorType> &checkpoint,
                   const std::string &checkpointPath,
                   const std::string &globalStep) {
  auto fail = [&](const std::string &message) {
    return CheckpointError("--init_from_checkpoint=" + checkpointPath + ": " +
                           message);
  };
  std::map<std::string, std::string> matched;
  auto assign = [&](const std::string &variable, const std::string &tensor,
                    const std::string &entry) {
    auto held = checkpoint.find(tensor);
    if (held == checkpoint.end())
      throw fail("tensor '" + tensor + "' (for variable '" + variable +
                 "', by the assignment '" + entry +
                 "') is not in the checkpoint");
    const TensorType &type = graph.at(variable);
    if (!compatible(type, held->second))
      throw fail("variable '" + variable + "' (" + typeString(type) +
                 ") does not match tensor '" + tensor + "' (" +
                 typeString(held->second) + ") of the checkpoint");
    matched[variable] = tensor;
  };

  // TensorFlow sorts the map by checkpoint name, so that 'scope/w' (a
  // variable) comes after 'scope/' and overrides what the scope gave it.
  std::vector<Assignment> sorted = assignments;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Assignment &a, const Assignment &b) {
                     return a.checkpointName < b.checkpointName;
                   });
  for (const Assignment &assignment : sorted) {
    const std::string &key = assignment.checkpointName;
    const std::string &value = assignment.graphName;
    std::string entry = key + ":" + value;
    if (graph.count(value)) {
      assign(value, key, entry);
      continue;
    }
    // A scope: init_from_checkpoint's `scopes` is the value up to its last
    // '/', and the checkpoint's side must be a scope too.
    if (value.back() != '/')
      throw std::invalid_argument("--init_assignment_map: '" + entry +
                                  "': the model has no variable '" + value +
                                  "'");
    std::string scope = value.substr(0, value.size() - 1);
    if (key.back() != '/')
      throw std::invalid_argument(
          "--init_assignment_map: '" + entry + "': the scope '" + value +
          "' maps to a scope only: write 'checkpoint_scope/:" + value + "'");
    size_t covered = 0;
    for (const auto &[variable, type] : graph) {
      if (!scope.empty() && variable.compare(0, scope.size() + 1, scope + "/"))
        continue;
      if (variable == globalStep)
        continue;
      // The variable's name below the scope, under the checkpoint's scope.
      std::string tensor = variable.substr(scope.size());
      if (value != "/")
        tensor.erase(0, 1);
      if (key != "/")
        tensor = key + tensor;
      if (!tensor.empty() && tensor.back() == '/')
        tensor.pop_back();
      assign(variable, tensor, entry);
      ++covered;
    }
    if (covered == 0)
      throw std::invalid_argument("--init_assignment_map: '" + entry +
                                  "': the model has no variable '" + value +
                                  "' and none in scope '" + scope + "/'");
  }
  return matched;
}

//===----------------------------------------------------------------------===//
// Reading either format
//===----------------------------------------------------------------------===//

Tensor selectRows(const Tensor &whole, const RowSelection &rows) {
  if (rows.whole())
    return whole.clone();
  Shape shape = whole.shape();
  int64_t available = shape.empty() ? 0 : shape[0];
  if (shape.empty() || rows.first < 0 || rows.stride < 1 ||
      (rows.count > 0 &&
       rows.first + (rows.count - 1) * rows.stride >= available))
    throw std::invalid_argument(
        "rows " + std::to_string(rows.first) + "+" +
        std::to_string(rows.count) + "x" + std::to_string(rows.stride) +
        " of a tensor of shape " + shapeToString(shape));
  size_t rowBytes = static_cast<size_t>(
                        numElementsOf(Shape(shape.begin() + 1, shape.end()))) *
                    dtypeSize(whole.dtype());
  shape[0] = rows.count;
  Tensor part(whole.dtype(), shape);
  const auto *from = static_cast<const char *>(whole.rawData());
  auto *to = static_cast<char *>(part.rawData());
  for (int64_t row = 0; row < rows.count; ++row)
    std::memcpy(to + static_cast<size_t>(row) * rowBytes,
                from + static_cast<size_t>(rows.first + row * rows.stride) *
                           rowBytes,
                rowBytes);
  return part;
}

struct WarmStartCheckpoint::Source {
  virtual ~Source() = default;
  virtual const char *format() const = 0;
  virtual Tensor read(const std::string &name,
                      const RowSelection &rows) const = 0;
};

namespace {

struct BundleSource final : WarmStartCheckpoint::Source {
  explicit BundleSource(const std::string &prefix) : reader(prefix) {}
  const char *format() const override { return "TensorFlow bundle"; }
  Tensor read(const std::string &name,
              const RowSelection &rows) const override {
    if (rows.whole())
      return reader.read(name);
    if (rows.stride != 1)
      return selectRows(reader.read(name), rows);
    // A range of rows: only the stored slices that overlap it are read.
    const Shape &shape = reader.tensors().at(name).shape;
    std::vector<std::pair<int64_t, int64_t>> extents = {
        {rows.first, rows.count}};
    for (size_t dim = 1; dim < shape.size(); ++dim)
      extents.push_back({0, shape[dim]});
    return reader.readSlice(name, TensorSlice::fromStartsAndLengths(extents));
  }
  BundleReader reader;
};

/// "name" and K of a shard's name "name/part_K".
std::optional<std::pair<std::string, int64_t>>
shardOf(const std::string &name) {
  size_t slash = name.rfind("/part_");
  if (slash == std::string::npos || slash + 6 == name.size())
    return std::nullopt;
  int64_t shard = 0;
  for (size_t i = slash + 6; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || shard > (1 << 20))
      return std::nullopt;
    shard = shard * 10 + (name[i] - '0');
  }
  return std::make_pair(name.substr(0, slash), shard);
}

} // namespace

int64_t shardCountOf(const std::map<std::string, Tensor> &tensors,
                     const std::string &variable) {
  int64_t count = 0;
  while (tensors.count(variable + "/part_" + std::to_string(count)))
    ++count;
  return count;
}

std::optional<Tensor> joinShards(const std::map<std::string, Tensor> &tensors,
                                 const std::string &variable, bool modulo,
                                 const std::string &path) {
  int64_t count = shardCountOf(tensors, variable);
  if (count < 2)
    return std::nullopt;
  auto shardName = [&](int64_t index) {
    return variable + "/part_" + std::to_string(index);
  };
  const Tensor &first = tensors.at(shardName(0));
  Shape shape = first.shape();
  int64_t rows = 0;
  for (int64_t index = 0; index < count; ++index) {
    const Tensor &part = tensors.at(shardName(index));
    if (part.dtype() != first.dtype() || part.rank() < 1 ||
        part.rank() != first.rank() ||
        !std::equal(shape.begin() + 1, shape.end(), part.shape().begin() + 1))
      throw CheckpointError("checkpoint " + path + ": shard '" +
                            shardName(index) + "' (" + part.typeString() +
                            ") is not a shard of '" + variable + "' as '" +
                            shardName(0) + "' (" + first.typeString() + ") is");
    rows += part.shape()[0];
  }
  shape[0] = rows;
  Tensor whole(first.dtype(), shape);
  size_t rowBytes = rows ? whole.byteSize() / static_cast<size_t>(rows) : 0;
  auto *to = static_cast<char *>(whole.rawData());
  int64_t offset = 0;
  for (int64_t index = 0; index < count; ++index) {
    const Tensor &part = tensors.at(shardName(index));
    const auto *from = static_cast<const char *>(part.rawData());
    for (int64_t row = 0; row < part.shape()[0]; ++row) {
      // Shard K of a mod partition holds rows K, K + N, ...
      int64_t target = modulo ? index + row * count : offset + row;
      if (target >= rows)
        throw CheckpointError("checkpoint " + path + ": the shards of '" +
                              variable + "' are not a partition by id modulo " +
                              std::to_string(count));
      std::memcpy(to + static_cast<size_t>(target) * rowBytes,
                  from + static_cast<size_t>(row) * rowBytes, rowBytes);
    }
    offset += part.shape()[0];
  }
  return whole;
}

namespace {

/// A DTF checkpoint, its shards joined into the tensors of the model.
struct DtfSource final : WarmStartCheckpoint::Source {
  DtfSource(Checkpoint checkpoint, const std::string &path,
            const std::set<std::string> &interleaved) {
    checkpoint.tensors.erase("dtf_input_state");
    std::map<std::string, int64_t> sharded;
    for (const auto &[name, tensor] : checkpoint.tensors)
      if (auto shard = shardOf(name))
        ++sharded[shard->first];
    for (const auto &[variable, names] : sharded) {
      // Shards are numbered 0..N-1; anything else ("w/part_3" beside "w",
      // or after a gap) is a name of its own.
      if (checkpoint.tensors.count(variable) ||
          shardCountOf(checkpoint.tensors, variable) != names)
        continue;
      std::optional<Tensor> whole = joinShards(
          checkpoint.tensors, variable, interleaved.count(variable) > 0, path);
      if (!whole)
        continue;
      int64_t count = shardCountOf(checkpoint.tensors, variable);
      for (int64_t index = 0; index < count; ++index)
        checkpoint.tensors.erase(variable + "/part_" + std::to_string(index));
      checkpoint.tensors.emplace(variable, std::move(*whole));
    }
    tensors = std::move(checkpoint.tensors);
  }
  const char *format() const override { return "DTF checkpoint"; }
  Tensor read(const std::string &name,
              const RowSelection &rows) const override {
    return selectRows(tensors.at(name), rows);
  }
  std::map<std::string, Tensor> tensors;
};

bool isDirectory(const std::string &path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool isFile(const std::string &path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

} // namespace

WarmStartCheckpoint::WarmStartCheckpoint(std::string path,
                                         std::unique_ptr<Source> source)
    : path_(std::move(path)), source_(std::move(source)) {}
WarmStartCheckpoint::WarmStartCheckpoint(WarmStartCheckpoint &&) noexcept =
    default;
WarmStartCheckpoint &
WarmStartCheckpoint::operator=(WarmStartCheckpoint &&) noexcept = default;
WarmStartCheckpoint::~WarmStartCheckpoint() = default;

const char *WarmStartCheckpoint::format() const { return source_->format(); }

WarmStartCheckpoint WarmStartCheckpoint::open(
    const std::string &path, const std::set<std::string> &interleaved,
    const std::function<void(const std::string &)> &warn) {
  auto bundle = [](const std::string &prefix) {
    auto source = std::make_unique<BundleSource>(prefix);
    std::map<std::string, TensorType> types;
    for (const auto &[name, info] : source->reader.tensors())
      types[name] = {info.dtype, info.shape};
    WarmStartCheckpoint opened(prefix, std::move(source));
    opened.types_ = std::move(types);
    return opened;
  };
  auto dtf = [&](Checkpoint checkpoint, const std::string &file) {
    auto source =
        std::make_unique<DtfSource>(std::move(checkpoint), file, interleaved);
    std::map<std::string, TensorType> types;
    for (const auto &[name, tensor] : source->tensors)
      types[name] = {tensor.dtype(), tensor.shape()};
    WarmStartCheckpoint opened(file, std::move(source));
    opened.types_ = std::move(types);
    return opened;
  };

  if (isDirectory(path)) {
    if (std::optional<CheckpointState> state = readCheckpointState(path)) {
      std::string prefix = state->modelCheckpointPath;
      if (prefix.empty())
        throw CheckpointError("--init_from_checkpoint=" + path +
                              ": its checkpoint file names no checkpoint");
      if (prefix.front() != '/')
        prefix = path + "/" + prefix;
      return bundle(prefix);
    }
    CheckpointDirectory directory(path);
    std::optional<CheckpointDirectory::Loaded> loaded =
        directory.loadNewest(warn);
    if (!loaded)
      throw CheckpointError(
          "--init_from_checkpoint=" + path +
          ": the directory holds no checkpoint (no 'checkpoint' file of a "
          "TensorFlow bundle, no valid model.ckpt-<step>.dtf)");
    return dtf(std::move(loaded->checkpoint), loaded->path);
  }
  if (isFile(bundleIndexPath(path)))
    return bundle(path);
  if (isFile(path))
    return dtf(readCheckpointFile(path), path);
  throw CheckpointError("--init_from_checkpoint=" + path +
                        ": no such checkpoint (neither a directory, a DTF "
                        "checkpoint file, nor a bundle prefix with " +
                        bundleIndexPath(path) + ")");
}

Tensor WarmStartCheckpoint::read(const std::string &name,
                                 const RowSelection &rows) const {
  try {
    return source_->read(name, rows);
  } catch (const std::invalid_argument &error) {
    throw CheckpointError("checkpoint " + path_ + ": tensor '" + name +
                          "': " + error.what());
  }
}

VariableStore
readAssigned(const WarmStartCheckpoint &checkpoint,
             const std::map<std::string, std::string> &assignments,
             const std::vector<VariablePart> &parts) {
  VariableStore values;
  for (const VariablePart &part : parts) {
    auto assigned = assignments.find(part.variable);
    if (assigned == assignments.end())
      continue;
    values.emplace(part.name, checkpoint.read(assigned->second, part.rows));
  }
  return values;
}

} // namespace dtf::checkpoint

//===- Checkpoint.cpp - Checkpoint files of a model's variables -----------===//
//
// The format (little-endian; README.md in this directory has the table):
//
//   header   "DTFCKPT1" | u32 version (1) | u32 tensor count | i64 step |
//            u32 reserved (0) | u32 masked CRC-32C of the 28 bytes before
//   tensor   u32 name bytes | name | u32 dtype | u32 rank | i64 dims[rank] |
//            u64 data bytes | u32 masked CRC-32C of this record header |
//            data | u32 masked CRC-32C of the data
//   footer   "DTFCKEND" | u64 file length including the footer
//
//===----------------------------------------------------------------------===//

#include "runtime/checkpoint/Checkpoint.h"

#include "runtime/checkpoint/Files.h"

#include "runtime/core/Crc32c.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dtf::checkpoint {

using namespace files;

namespace {

constexpr char kMagic[8] = {'D', 'T', 'F', 'C', 'K', 'P', 'T', '1'};
constexpr char kFooterMagic[8] = {'D', 'T', 'F', 'C', 'K', 'E', 'N', 'D'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 32;
constexpr size_t kFooterBytes = 16;
const char *const kPrefix = "model.ckpt-";
const char *const kSuffix = ".dtf";
const char *const kTemporaryMarker = ".tmp.";

/// Codes of the element types in the file (those of tensor.proto).
uint32_t dtypeCode(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return 1;
  case DType::F64:
    return 2;
  case DType::I32:
    return 3;
  case DType::I64:
    return 4;
  case DType::Bool:
    return 5;
  }
  throw CheckpointError("invalid dtype");
}

bool dtypeFromCode(uint32_t code, DType &dtype) {
  switch (code) {
  case 1:
    dtype = DType::F32;
    return true;
  case 2:
    dtype = DType::F64;
    return true;
  case 3:
    dtype = DType::I32;
    return true;
  case 4:
    dtype = DType::I64;
    return true;
  case 5:
    dtype = DType::Bool;
    return true;
  default:
    return false;
  }
}

/// Appends little-endian integers to a byte buffer.
class Encoder {
public:
  void bytes(const void *data, size_t size) {
    const auto *p = static_cast<const char *>(data);
    buffer.insert(buffer.end(), p, p + size);
  }
  void u32(uint32_t value) {
    for (int i = 0; i < 4; ++i)
      buffer.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
  void u64(uint64_t value) {
    for (int i = 0; i < 8; ++i)
      buffer.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
  std::vector<char> buffer;
};

uint32_t readU32(const unsigned char *p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) |
         (uint32_t(p[3]) << 24);
}
uint64_t readU64(const unsigned char *p) {
  return uint64_t(readU32(p)) | (uint64_t(readU32(p + 4)) << 32);
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// The step of a file named model.ckpt-<step>.dtf; false for other names.
bool parseFileName(const std::string &name, int64_t &step) {
  size_t prefix = std::strlen(kPrefix), suffix = std::strlen(kSuffix);
  if (name.size() <= prefix + suffix || name.compare(0, prefix, kPrefix) != 0 ||
      name.compare(name.size() - suffix, suffix, kSuffix) != 0)
    return false;
  std::string digits = name.substr(prefix, name.size() - prefix - suffix);
  if (digits.empty() || digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(),
                   [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  step = std::stoll(digits);
  return true;
}

/// Reads a whole checkpoint file, checking sizes against the file's length
/// before trusting any of them.
class Reader {
public:
  Reader(const std::string &path, const unsigned char *data, size_t size)
      : path(path), data(data), size(size) {}

  [[noreturn]] void fail(const std::string &why) const {
    throw CheckpointError("checkpoint " + path + " is invalid: " + why);
  }

  const unsigned char *take(size_t count, const char *what) {
    if (count > size - position)
      fail(std::string("truncated: ") + what + " at byte " +
           std::to_string(position) + " runs past the end of the " +
           std::to_string(size) + "-byte file");
    const unsigned char *p = data + position;
    position += count;
    return p;
  }

  Checkpoint read() {
    if (size < kHeaderBytes + kFooterBytes)
      fail("truncated: " + std::to_string(size) +
           " bytes, fewer than a header and a footer");
    const unsigned char *header = take(kHeaderBytes, "the header");
    if (std::memcmp(header, kMagic, sizeof(kMagic)) != 0)
      fail("not a dtf checkpoint (bad magic)");
    if (unmaskCrc(readU32(header + 28)) != crc32c(header, 28))
      fail("the header's checksum does not match");
    uint32_t version = readU32(header + 8);
    if (version != kVersion)
      fail("format version " + std::to_string(version) + " (this reader knows " +
           std::to_string(kVersion) + ")");
    uint32_t count = readU32(header + 12);
    Checkpoint checkpoint;
    checkpoint.step = static_cast<int64_t>(readU64(header + 16));

    for (uint32_t index = 0; index < count; ++index)
      readTensor(checkpoint, index);

    const unsigned char *footer = take(kFooterBytes, "the footer");
    if (std::memcmp(footer, kFooterMagic, sizeof(kFooterMagic)) != 0)
      fail("truncated or corrupt: no footer after tensor " +
           std::to_string(count - 1));
    if (readU64(footer + 8) != size)
      fail("the footer records " + std::to_string(readU64(footer + 8)) +
           " bytes but the file has " + std::to_string(size));
    if (position != size)
      fail("trailing bytes after the footer");
    return checkpoint;
  }

private:
  void readTensor(Checkpoint &checkpoint, uint32_t index) {
    std::string what = "tensor " + std::to_string(index);
    size_t start = position;
    uint32_t nameBytes = readU32(take(4, what.c_str()));
    if (nameBytes == 0 || nameBytes > kMaxNameBytes)
      fail(what + ": name length " + std::to_string(nameBytes) +
           " is out of range (corrupt)");
    const unsigned char *name = take(nameBytes, what.c_str());
    const unsigned char *types = take(8, what.c_str());
    uint32_t rank = readU32(types + 4);
    if (rank > kMaxRank)
      fail(what + ": rank " + std::to_string(rank) + " is out of range (corrupt)");
    const unsigned char *dims = take(8 * size_t(rank), what.c_str());
    uint64_t dataBytes = readU64(take(8, what.c_str()));
    uint32_t headerCrc = readU32(take(4, what.c_str()));
    if (unmaskCrc(headerCrc) != crc32c(data + start, position - 4 - start))
      fail(what + ": the checksum of its header does not match (corrupt)");

    std::string tensorName(reinterpret_cast<const char *>(name), nameBytes);
    what = "tensor '" + tensorName + "'";
    DType dtype;
    if (!dtypeFromCode(readU32(types), dtype))
      fail(what + ": unknown dtype code " + std::to_string(readU32(types)));
    Shape shape;
    uint64_t elements = 1;
    for (uint32_t d = 0; d < rank; ++d) {
      int64_t dim = static_cast<int64_t>(readU64(dims + 8 * d));
      if (dim < 0)
        fail(what + ": negative dimension");
      shape.push_back(dim);
      if (dim != 0 && elements > (uint64_t(1) << 62) / uint64_t(dim))
        fail(what + ": shape too large");
      elements *= uint64_t(dim);
    }
    if (elements > (uint64_t(1) << 60) / dtypeSize(dtype) ||
        elements * dtypeSize(dtype) != dataBytes)
      fail(what + ": " + std::to_string(dataBytes) + " data bytes for " +
           dtypeName(dtype) + shapeToString(shape));
    // Checked against the file's length before allocating.
    const unsigned char *bytes = take(dataBytes, what.c_str());
    uint32_t dataCrc = readU32(take(4, what.c_str()));
    if (unmaskCrc(dataCrc) != crc32c(bytes, dataBytes))
      fail(what + ": the checksum of its data does not match (corrupt)");
    if (checkpoint.tensors.count(tensorName))
      fail(what + " appears twice");
    Tensor tensor(dtype, shape);
    if (dataBytes)
      std::memcpy(tensor.rawData(), bytes, dataBytes);
    checkpoint.tensors.emplace(std::move(tensorName), std::move(tensor));
  }

  const std::string &path;
  const unsigned char *data;
  size_t size;
  size_t position = 0;
};

} // namespace

std::string checkpointFileName(int64_t step) {
  return kPrefix + std::to_string(step) + kSuffix;
}

void writeCheckpointFile(const std::string &path, const Checkpoint &checkpoint) {
  if (checkpoint.tensors.size() > 0xffffffffu)
    throw CheckpointError("checkpoint " + path + ": too many tensors");
  // The header, then each tensor written as it is encoded: a model's
  // tensors are not copied into one buffer.
  std::string temporary = directoryOf(path) + "/." + baseName(path) +
                          kTemporaryMarker + std::to_string(::getpid());
  File file(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                   0644));
  if (file.get() < 0)
    throw CheckpointError("cannot create checkpoint " + temporary + ": " +
                          errnoText());
  try {
    uint64_t length = 0;
    Encoder header;
    header.bytes(kMagic, sizeof(kMagic));
    header.u32(kVersion);
    header.u32(static_cast<uint32_t>(checkpoint.tensors.size()));
    header.u64(static_cast<uint64_t>(checkpoint.step));
    header.u32(0);
    header.u32(maskCrc(crc32c(header.buffer.data(), header.buffer.size())));
    writeAll(file.get(), header.buffer.data(), header.buffer.size(), temporary);
    length += header.buffer.size();

    for (const auto &[name, tensor] : checkpoint.tensors) {
      if (name.empty() || name.size() > kMaxNameBytes)
        throw CheckpointError("checkpoint " + path + ": variable name '" +
                              name + "' is empty or too long");
      if (tensor.shape().size() > kMaxRank)
        throw CheckpointError("checkpoint " + path + ": '" + name +
                              "' has rank above " + std::to_string(kMaxRank));
      Encoder record;
      record.u32(static_cast<uint32_t>(name.size()));
      record.bytes(name.data(), name.size());
      record.u32(dtypeCode(tensor.dtype()));
      record.u32(static_cast<uint32_t>(tensor.shape().size()));
      for (int64_t dim : tensor.shape())
        record.u64(static_cast<uint64_t>(dim));
      record.u64(tensor.byteSize());
      record.u32(maskCrc(crc32c(record.buffer.data(), record.buffer.size())));
      writeAll(file.get(), record.buffer.data(), record.buffer.size(), temporary);
      writeAll(file.get(), tensor.rawData(), tensor.byteSize(), temporary);
      Encoder crc;
      crc.u32(maskCrc(crc32c(tensor.rawData(), tensor.byteSize())));
      writeAll(file.get(), crc.buffer.data(), crc.buffer.size(), temporary);
      length += record.buffer.size() + tensor.byteSize() + 4;
    }

    Encoder footer;
    footer.bytes(kFooterMagic, sizeof(kFooterMagic));
    footer.u64(length + kFooterBytes);
    writeAll(file.get(), footer.buffer.data(), footer.buffer.size(), temporary);

    if (::fsync(file.get()) != 0)
      throw CheckpointError("cannot fsync checkpoint " + temporary + ": " +
                            errnoText());
    if (::close(file.release()) != 0)
      throw CheckpointError("cannot close checkpoint " + temporary + ": " +
                            errnoText());
    renameFile(temporary, path);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  // The rename is durable once the directory is.
  syncDirectory(directoryOf(path));
}

Checkpoint readCheckpointFile(const std::string &path) {
  // A file that shrank while read comes back short: the length check of
  // the footer reports it.
  std::string bytes = readWholeFile(path);
  return Reader(path, reinterpret_cast<const unsigned char *>(bytes.data()),
                bytes.size())
      .read();
}

CheckpointDirectory::CheckpointDirectory(std::string directory)
    : directory_(std::move(directory)) {
  while (directory_.size() > 1 && directory_.back() == '/')
    directory_.pop_back();
}

std::string CheckpointDirectory::pathFor(int64_t step) const {
  return directory_ + "/" + checkpointFileName(step);
}

std::vector<CheckpointDirectory::Entry> CheckpointDirectory::list() const {
  std::vector<Entry> entries;
  DIR *dir = ::opendir(directory_.c_str());
  if (!dir) {
    if (errno == ENOENT)
      return entries;
    throw CheckpointError("cannot list checkpoint directory " + directory_ +
                          ": " + errnoText());
  }
  while (dirent *entry = ::readdir(dir)) {
    int64_t step;
    if (parseFileName(entry->d_name, step))
      entries.push_back({step, directory_ + "/" + entry->d_name});
  }
  ::closedir(dir);
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.step < b.step; });
  return entries;
}

std::string CheckpointDirectory::save(const Checkpoint &checkpoint, int keep) {
  if (::mkdir(directory_.c_str(), 0755) != 0 && errno != EEXIST)
    throw CheckpointError("cannot create checkpoint directory " + directory_ +
                          ": " + errnoText());
  std::string path = pathFor(checkpoint.step);
  writeCheckpointFile(path, checkpoint);
  if (keep > 0) {
    std::vector<Entry> entries = list();
    for (size_t i = 0; i + static_cast<size_t>(keep) < entries.size(); ++i)
      if (entries[i].path != path)
        ::unlink(entries[i].path.c_str());
  }
  return path;
}

std::optional<CheckpointDirectory::Loaded> CheckpointDirectory::loadNewest(
    const std::function<void(const std::string &)> &warn) const {
  std::vector<Entry> entries = list();
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    try {
      Checkpoint checkpoint = readCheckpointFile(it->path);
      if (checkpoint.step != it->step)
        throw CheckpointError("checkpoint " + it->path + " is invalid: it " +
                              "holds step " + std::to_string(checkpoint.step) +
                              ", not the step of its name");
      return Loaded{it->path, std::move(checkpoint)};
    } catch (const CheckpointError &error) {
      if (warn)
        warn(std::string(error.what()) +
             (std::next(it) != entries.rend() ? "; trying the previous one"
                                              : "; no older checkpoint"));
    }
  }
  return std::nullopt;
}

void CheckpointDirectory::removeTemporaries() const {
  DIR *dir = ::opendir(directory_.c_str());
  if (!dir)
    return;
  std::vector<std::string> stale;
  while (dirent *entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name.rfind(std::string(".") + kPrefix, 0) == 0 &&
        name.find(kTemporaryMarker) != std::string::npos)
      stale.push_back(directory_ + "/" + name);
  }
  ::closedir(dir);
  for (const std::string &path : stale)
    ::unlink(path.c_str());
}

} // namespace dtf::checkpoint

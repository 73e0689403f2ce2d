//===- Files.h - The file operations of atomic checkpoint writes -*- C++
//-*-===//
//
// Private to dtf_checkpoint: what both formats (Checkpoint.h, TensorBundle.h)
// need to write a file that a crash leaves whole or absent (a temporary
// name, fsync, rename, fsync of the directory) and to read one back. Every
// failure throws CheckpointError naming the path and the system's reason.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstddef>
#include <string>

namespace dtf::checkpoint::files {

/// strerror(errno).
std::string errnoText();

/// A file descriptor closed on scope exit.
class File {
public:
  File() = default;
  explicit File(int fd) : fd_(fd) {}
  File(File &&other) noexcept : fd_(other.release()) {}
  File &operator=(File &&other) noexcept;
  ~File();
  int get() const { return fd_; }
  /// Gives up ownership, for a close whose error matters.
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

private:
  int fd_ = -1;
};

/// The directory part of `path`: "." for a bare name, "/" at the root.
std::string directoryOf(const std::string &path);
/// A temporary name beside `path`, as TensorFlow's writers name theirs.
std::string temporaryPathFor(const std::string &path);
/// mkdir -p.
void createDirectories(const std::string &directory);
/// Makes the renames and creations in `directory` durable.
void syncDirectory(const std::string &directory);
void renameFile(const std::string &from, const std::string &to);
/// Removes `path`; nothing where it does not exist.
void removeIfPresent(const std::string &path);
/// Writes all `size` bytes, through short writes and EINTR.
void writeAll(int fd, const void *data, size_t size, const std::string &path);
/// Writes `contents` to `path` atomically: a temporary file, fsync,
/// rename, fsync of the directory.
void writeFileAtomically(const std::string &path, const std::string &contents);
/// The whole file; its size is what it allocates.
std::string readWholeFile(const std::string &path);

} // namespace dtf::checkpoint::files

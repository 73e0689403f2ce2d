//===- Files.cpp - The file operations of atomic checkpoint writes --------===//

#include "runtime/checkpoint/Files.h"

#include "runtime/checkpoint/Checkpoint.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dtf::checkpoint::files {

std::string errnoText() { return std::strerror(errno); }

File &File::operator=(File &&other) noexcept {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = other.release();
  return *this;
}

File::~File() {
  if (fd_ >= 0)
    ::close(fd_);
}

std::string directoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

std::string temporaryPathFor(const std::string &path) {
  return path + ".tempstate" + std::to_string(::getpid());
}

void createDirectories(const std::string &directory) {
  if (directory.empty() || directory == "." || directory == "/")
    return;
  struct stat info;
  if (::stat(directory.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
    return;
  createDirectories(directoryOf(directory));
  if (::mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST)
    throw CheckpointError("cannot create checkpoint directory " + directory +
                          ": " + errnoText());
}

void syncDirectory(const std::string &directory) {
  File dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0 || ::fsync(dir.get()) != 0)
    throw CheckpointError("cannot fsync directory " + directory + ": " +
                          errnoText());
}

void renameFile(const std::string &from, const std::string &to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    throw CheckpointError("cannot rename " + from + " to " + to + ": " +
                          errnoText());
}

void removeIfPresent(const std::string &path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    throw CheckpointError("cannot remove " + path + ": " + errnoText());
}

void writeAll(int fd, const void *data, size_t size, const std::string &path) {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t written = ::write(fd, p, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written < 0)
      throw CheckpointError("cannot write " + path + ": " + errnoText());
    p += written;
    size -= static_cast<size_t>(written);
  }
}

void writeFileAtomically(const std::string &path, const std::string &contents) {
  std::string temporary = temporaryPathFor(path);
  try {
    File file(::open(temporary.c_str(),
                     O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (file.get() < 0)
      throw CheckpointError("cannot create " + temporary + ": " + errnoText());
    writeAll(file.get(), contents.data(), contents.size(), temporary);
    if (::fsync(file.get()) != 0 || ::close(file.release()) != 0)
      throw CheckpointError("cannot write " + temporary + ": " + errnoText());
    renameFile(temporary, path);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  syncDirectory(directoryOf(path));
}

std::string readWholeFile(const std::string &path) {
  File file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0)
    throw CheckpointError("cannot open checkpoint " + path + ": " +
                          errnoText());
  struct stat info;
  if (::fstat(file.get(), &info) != 0)
    throw CheckpointError("cannot stat checkpoint " + path + ": " +
                          errnoText());
  if (!S_ISREG(info.st_mode))
    throw CheckpointError("checkpoint " + path + " is not a regular file");
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = ::read(file.get(), &bytes[done], bytes.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      throw CheckpointError("cannot read checkpoint " + path + ": " +
                            errnoText());
    if (got == 0)
      break; // shrank meanwhile: the format's own checks report it
    done += static_cast<size_t>(got);
  }
  bytes.resize(done);
  return bytes;
}

} // namespace dtf::checkpoint::files
